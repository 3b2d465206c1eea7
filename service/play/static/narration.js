// Actions and turns in words, for the moves list, buttons and the screen reader's announcements.

import { cardText } from "./cards.js";

export function seatName(view, seat) {
  const player = view.players.find((p) => p.seat === seat);
  if (seat === view.seat) return "You";
  return player?.name ?? `Seat ${seat + 1}`;
}

function pileName(view, pile) {
  if (pile == null) return "the discard pile";
  return pile === view.seat ? "your discard pile" : `${seatName(view, pile)}'s discard pile`;
}

/** One streamed log entry: `{seat, action, card}` (the card is null where it stays hidden). */
export function describeMove(view, entry) {
  const who = seatName(view, entry.seat);
  const { action } = entry;
  const card = entry.card ? cardText(entry.card) : null;
  switch (action.type) {
    case "draw":
      return action.source === "stock"
        ? `${who} drew ${card ?? "a card"} from the stock`
        : `${who} took ${card ?? "a card"} from ${pileName(view, action.pile)}`;
    case "discard":
      return `${who} ${action.go_out ? "went out, discarding" : "discarded"} ${card ?? cardText(action.card)}`;
    case "lay_off":
      return `${who} laid ${card ?? cardText(action.card)} off on ${seatName(view, action.seat)}'s meld`;
    case "chosen":
      return `${who} chose`;
    case "call_end":
      return `Call ${action.number} ended${action.timed_out ? " (time ran out)" : ""}: ` +
        action.moves.map((move) => describeMove(view, move)).join("; ");
    default:
      return `${who}: ${action.type}`;
  }
}

/** A button's words for a legal entry other than a plain draw or discard. */
export function describeLegal(view, entry) {
  switch (entry.type) {
    case "discard":
      if (entry.go_out) return `Go out, discarding ${cardText(entry.card)}`;
      return isOntoOtherPile(view, entry)
        ? `Discard ${cardText(entry.card)} onto ${pileName(view, entry.pile)}`
        : `Discard ${cardText(entry.card)}`;
    case "draw":
      return entry.source === "stock" ? "Draw from the stock" : `Take from ${pileName(view, entry.pile)}`;
    case "lay_off":
      return `Lay ${cardText(entry.card)} off on ${seatName(view, entry.seat)}'s meld ${entry.meld + 1}`;
    default:
      return JSON.stringify(entry);
  }
}

/** Words that start a sentence, in the middle of one. */
export const lowerFirst = (text) => text.charAt(0).toLowerCase() + text.slice(1);

/** A discard onto another seat's pile: a joker under `joker_discards: any_pile`. */
export const isOntoOtherPile = (view, entry) =>
  entry.type === "discard" && entry.pile != null && entry.pile !== view.seat;

/** The line that says whose turn it is and what to do. */
export function turnLine(view) {
  if (view.status === "finished") return "Game over.";
  if (view.call) return callLine(view);
  const mine = (view.legal ?? []).map((e) => e.type);
  if (mine.includes("draw")) return "Your turn: draw from the stock or take the discard.";
  if (mine.includes("discard")) return "Your turn: choose a card to discard.";
  if (view.turn == null) return "";
  const who = seatName(view, view.turn);
  const last = view.out_seat != null ? ` ${seatName(view, view.out_seat)} went out: last turns.` : "";
  return `${who === "You" ? "Your turn" : `${who} is playing`}…${last}`;
}

/** A speed game's line: what the open call asks of this seat, or what it has chosen. */
function callLine(view) {
  const { call } = view;
  if (!(view.legal ?? []).length) return `Call ${call.number}: the others are choosing…`;
  if (call.choice) return "You have chosen: waiting for the others…";
  return call.phase === "draw"
    ? "Choose now: draw from the stock or take the pile on your right."
    : "Choose now: a card to discard.";
}
