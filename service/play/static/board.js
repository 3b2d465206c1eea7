// The table around the hand: who sits where and whose turn it is, the stock and the discard
// pile(s), and the legal actions that are not a click on a card of the hand (going out, laying
// off). Every action offered is an entry of the view's `legal`, posted as it is.

import { cardBack, cardElement, cardLabel, rankName } from "./cards.js";
import { counted, describeLegal, isOntoOtherPile } from "./narration.js";

export function renderRoundInfo(element, view) {
  if (view.status === "finished") {
    element.textContent = `${view.round} rounds played.`;
    return;
  }
  const parts = [`Round ${view.round} of ${view.rounds}`];
  if (view.wild) parts.push(`${rankName(view.wild, true)} are wild`);
  parts.push(`${counted(view.stock_count, "card")} in the stock`);
  if (view.tiebreak) parts.push("tie-break round");
  element.textContent = parts.join(" · ");
}

/**
 * One entry per seat: name, cards, points, and what it is doing. `wentOut` lists the seats
 * this page saw go out in the round being played (in a speed game several may, on one call; a
 * view names only the first, `out_seat`).
 */
export function renderPlayers(list, view, wentOut = []) {
  const out = new Set([...wentOut, view.out_seat].filter((seat) => seat != null));
  list.replaceChildren();
  for (const player of view.players) {
    const item = document.createElement("li");
    item.className = "player";
    item.dataset.seat = player.seat;
    if (player.seat === view.turn) {
      item.classList.add("on-turn");
      item.setAttribute("aria-current", "true");
    }
    if (player.seat === view.seat) item.classList.add("me");
    const name = document.createElement("span");
    name.className = "name";
    name.textContent = player.seat === view.seat ? `${player.name} (you)` : player.name ?? "open seat";
    const tags = [];
    if (player.bot) tags.push(`${player.bot} bot`);
    if (player.away) tags.push("away");
    if (out.has(player.seat)) tags.push("went out");
    if (player.seat === view.dealer) tags.push("dealer");
    const choosing = out.has(player.seat) ? null : callStatus(view, player.seat);
    if (choosing) {
      tags.push(choosing);
      item.classList.add(choosing === "chosen" ? "has-chosen" : "choosing");
    }
    const facts = document.createElement("span");
    facts.className = "facts";
    facts.textContent = [counted(player.hand_count, "card"), counted(player.score, "pt"), ...tags].join(" · ");
    item.append(name, facts);
    list.append(item);
  }
}

/** In a speed game's call: "chosen" or "choosing" for a seat dealt in (and not out), else null. */
function callStatus(view, seat) {
  if (view.status !== "playing" || !view.call || !(view.active ?? []).includes(seat)) return null;
  return view.call.chosen.includes(seat) ? "chosen" : "choosing";
}

/** Whether `entry` is the seat's pending choice in a speed game's call. */
export const isChoice = (view, entry) =>
  entry != null && view.call?.choice != null && JSON.stringify(view.call.choice) === JSON.stringify(entry);

/**
 * The stock and each discard pile, clickable where a legal draw takes from it. `hint` is the
 * hint's advice in the draw phase ({draw, pile}) or null. A speed game's pending draw is marked.
 */
export function renderPiles(container, view, { onAct, hint }) {
  const focusedPile = document.activeElement?.closest?.("[data-pile]")?.dataset.pile;
  container.replaceChildren();
  const draws = (view.legal ?? []).filter((e) => e.type === "draw");
  const drawFrom = (source, pile) =>
    draws.find((e) => e.source === source && (e.pile ?? null) === pile);

  const stockEntry = drawFrom("stock", null);
  const stock = cardBack({
    label: `Stock, ${counted(view.stock_count, "card")}${stockEntry ? ": draw" : ""}`,
    disabled: !stockEntry,
    onClick: () => onAct(stockEntry),
  });
  if (stockEntry) stock.classList.add("playable");
  markChoice(stock, view, stockEntry);
  container.append(pile("stock", "Stock", stock, `${view.stock_count}`, hint?.draw === "stock"));

  const tops = view.discard_tops ?? [view.discard_top];
  tops.forEach((top, index) => {
    const owner = view.discard_tops ? index : null;
    const entry = drawFrom("discard", owner);
    const title = owner == null ? "Discard" : view.players[index]?.name ?? `Seat ${index + 1}`;
    let face;
    if (top) {
      face = cardElement(top, {
        wild: view.wild,
        onClick: () => entry && onAct(entry),
        disabled: !entry,
        label: `${title} pile: ${cardLabel(top, { wild: view.wild })}${entry ? ", take it" : ""}`,
      });
      if (entry) face.classList.add("playable");
      markChoice(face, view, entry);
    } else {
      face = document.createElement("span");
      face.className = "card empty";
      face.textContent = "empty";
    }
    const hinted = hint?.draw === "discard" && (hint.pile ?? null) === owner;
    container.append(pile(`discard-${owner ?? "shared"}`, title, face, "", hinted));
  });
  if (focusedPile) container.querySelector(`[data-pile="${focusedPile}"] .card`)?.focus();
}

/** A speed game's pending choice: marked, and said in the card's name. */
export function markChoice(element, view, entry) {
  if (!isChoice(view, entry)) return;
  element.classList.add("chosen");
  element.setAttribute("aria-label", `${element.getAttribute("aria-label")} (your choice)`);
}

function pile(key, title, face, count, hinted) {
  const box = document.createElement("div");
  box.className = "pile";
  box.dataset.pile = key;
  if (hinted) face.classList.add("hinted");
  const caption = document.createElement("span");
  caption.className = "pile-title";
  caption.setAttribute("aria-hidden", "true");
  caption.textContent = count ? `${title} · ${count}` : title;
  box.append(face, caption);
  return box;
}

/**
 * Going out, and whatever else `legal` offers beyond drawing and discarding a card: one button
 * per entry. A go-out is offered for the cards whose discard leaves no deadwood (under the
 * `penalty` rule `legal` lists every card; the analysis says which go out cleanly). A joker
 * onto another seat's pile (`joker_discards: any_pile`) gets a button too.
 */
export function renderActions(goOut, others, view, { analysis, onAct }) {
  // The buttons are drawn anew with each view: the one focused keeps the focus (in a speed game
  // a choice is pressed and the next view comes while the person may change it).
  const focused = [goOut, others].some((box) => box.contains(document.activeElement))
    ? document.activeElement.textContent
    : null;
  goOut.replaceChildren();
  others.replaceChildren();
  const clean = new Set(
    analysis?.discards.filter((d) => d.deadwood_points === 0).map((d) => d.card) ?? [],
  );
  for (const entry of view.legal ?? []) {
    const plain = entry.type === "discard" && !entry.go_out && !isOntoOtherPile(view, entry);
    if (entry.type === "draw" || plain) continue;
    if (entry.go_out && analysis && !clean.has(entry.card)) continue;
    const button = document.createElement("button");
    button.type = "button";
    describeLegal(view, entry).write(button);
    button.addEventListener("click", () => onAct(entry));
    if (view.call) {
      // In a call a choice is held until changed: a toggle, pressed while it is the choice.
      button.setAttribute("aria-pressed", String(isChoice(view, entry)));
      if (isChoice(view, entry)) button.classList.add("chosen");
    }
    if (entry.go_out) {
      button.classList.add("primary", "go-out-button");
      goOut.append(button);
    } else {
      others.append(button);
    }
    if (button.textContent === focused) button.focus();
  }
}
