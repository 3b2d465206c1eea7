// A speed game's call (API.md "Speed games", docs/speed.md): every seat still in the round
// chooses at once, in secret, and the caller resolves the call when the last seat has chosen or
// the time runs out.
//
// The view has `turn: null` and `call: {number, phase, deadline, chosen, choice}`: `chosen` lists
// the seats that have chosen (never what), `choice` is this seat's pending choice (another
// replaces it until the call ends), and `legal` lists the choices for this call. Choosing needs
// nothing new: the board offers every entry of `legal` as it is. This module draws the call
// itself (its number and phase, the time left, this seat's choice) and the last resolved call,
// from the stream's `call_end` entry (every seat's choice, revealed as this seat may see it).
// Who has chosen is shown beside each player (board.js).

import { words } from "./cards.js";
import { describeMove, describeLegal } from "./narration.js";

const URGENT_SECONDS = 5;
let ticking = null;

/** Draws the call of `view` into `element` (hidden without one); `lastEnd` is the newest
 * streamed `call_end` entry of this game, or null. */
export function renderCall(element, view, lastEnd) {
  clearInterval(ticking);
  const call = view.status === "playing" ? view.call : null;
  element.hidden = !call;
  if (!call) return;
  element.replaceChildren();
  element.dataset.number = call.number;
  element.dataset.phase = call.phase;

  const head = document.createElement("p");
  head.className = "call-head";
  const title = document.createElement("strong");
  title.textContent = `Call ${call.number}`;
  const clock = document.createElement("span");
  clock.className = "call-clock";
  clock.setAttribute("role", "timer");
  head.append(title, ` · everyone ${call.phase === "draw" ? "draws" : "discards"} · `, clock);
  element.append(head);

  const choice = document.createElement("p");
  choice.className = "call-choice";
  if (view.players.find((p) => p.seat === view.seat)?.away) {
    // The caller's time ran out on this seat: a bot chooses for it until its person chooses.
    choice.textContent = "Your time ran out: a bot chooses for you in every call until you choose.";
  } else if (call.choice) {
    words`Your choice: ${describeLegal(view, call.choice)}. You may change it until the call ends.`.write(choice);
  } else if ((view.legal ?? []).length) {
    choice.textContent = "Not chosen yet: when the time runs out you " +
      (call.phase === "draw" ? "draw from the stock." : "discard the card you drew.");
  } else {
    choice.textContent = "You sit this call out.";
  }
  element.append(choice);

  if (lastEnd) {
    const last = document.createElement("p");
    last.className = "call-last";
    describeMove(view, lastEnd).write(last);
    element.append(last);
  }
  startClock(clock, Date.parse(call.deadline));
}

/** A countdown to `deadline`, by this device's clock (none where a streamed view of an old call
 * carries no deadline); the timer role keeps it out of the screen reader's announcements, which
 * would otherwise come every second. */
function startClock(clock, deadline) {
  const tick = () => {
    const left = Math.max(0, Math.ceil((deadline - Date.now()) / 1000));
    clock.textContent = Number.isNaN(left) ? "" : `${clockText(left)} left`;
    clock.classList.toggle("urgent", left <= URGENT_SECONDS);
    if (!(left > 0)) clearInterval(ticking);
  };
  tick();
  ticking = setInterval(tick, 250);
}

function clockText(seconds) {
  if (seconds < 60) return `${seconds} s`;
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
}
