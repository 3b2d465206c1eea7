// Extension point: speed games (RULES.md "3-13 Speed", API.md "Speed games").
//
// A speed game's view has `turn: null` and `call: {number, phase ("draw" | "discard"),
// deadline (ISO 8601), chosen (seats)}`; a seat's own view adds its pending choice and its
// `legal` for the call. Choosing needs nothing new here: the board already offers every entry of
// `legal` as it is (piles and cards to click), and a second choice replaces the first.
// What this module adds is the call itself: its number and phase, who has chosen, your own
// choice so far, and the time left. main.js calls `renderCall` on every view; it hides the
// element when there is no call. The server side is being built now: beyond the fields API.md
// fixes, it reads the engine's `waiting` and `choice` (engine.game.views.CallView) if present.

import { describeLegal, seatName } from "./narration.js";

let ticking = null;

export function renderCall(element, view) {
  clearInterval(ticking);
  const call = view.call;
  element.hidden = !call;
  if (!call) return;
  element.replaceChildren();
  const line = document.createElement("p");
  const chosen = (call.chosen ?? []).map((seat) => seatName(view, seat));
  line.textContent = `Call ${call.number}: everyone ${call.phase === "draw" ? "draws" : "discards"}` +
    ` · chosen: ${chosen.length ? chosen.join(", ") : "nobody yet"}`;
  element.append(line);
  if (call.choice) {
    const mine = document.createElement("p");
    mine.textContent = `Your choice: ${describeLegal(view, call.choice)} (you may change it until the call ends)`;
    element.append(mine);
  }
  const clock = document.createElement("p");
  clock.className = "call-clock";
  const deadline = Date.parse(call.deadline);
  const tick = () => {
    const left = Math.max(0, Math.ceil((deadline - Date.now()) / 1000));
    clock.textContent = Number.isNaN(left) ? "" : `${left} s left`;
    if (!(left > 0)) clearInterval(ticking);
  };
  tick();
  ticking = setInterval(tick, 500);
  element.append(clock);
}
