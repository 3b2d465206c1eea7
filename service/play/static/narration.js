// Actions and turns in words, for the moves list, buttons and the screen reader's announcements.
// Cards are named through `words` (cards.js): "Q♣" on the screen, "queen of clubs" when read.

import { card, Words, words } from "./cards.js";

/** "1 point", "2 points", "0 points"; `many` where adding an s is wrong. */
export const counted = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

export function seatName(view, seat) {
  const player = view.players.find((p) => p.seat === seat);
  if (seat === view.seat) return "You";
  return player?.name ?? `Seat ${seat + 1}`;
}

function pileName(view, pile) {
  if (pile == null) return "the discard pile";
  return pile === view.seat ? "your discard pile" : `${seatName(view, pile)}'s discard pile`;
}

/** One streamed log entry `{seat, action, card}` (the card is null where it stays hidden), in
 * `Words`. */
export function describeMove(view, entry) {
  const who = seatName(view, entry.seat);
  const { action } = entry;
  const code = entry.card ?? action.card;
  const named = code ? card(code) : "a card";
  switch (action.type) {
    case "draw":
      return action.source === "stock"
        ? words`${who} drew ${named} from the stock`
        : words`${who} took ${named} from ${pileName(view, action.pile)}`;
    case "discard":
      return words`${who} ${action.go_out ? "went out, discarding" : "discarded"} ${named}`;
    case "lay_off":
      return words`${who} laid ${named} off on ${seatName(view, action.seat)}'s meld`;
    case "chosen":
      return words`${who} chose`;
    case "call_end":
      return words`Call ${action.number} ended${action.timed_out ? " (time ran out)" : ""}: ${
        Words.join(action.moves.map((move) => describeMove(view, move)), "; ")}`;
    default:
      return words`${who}: ${action.type}`;
  }
}

/** A button's `Words` for a legal entry other than a plain draw or discard. */
export function describeLegal(view, entry) {
  switch (entry.type) {
    case "discard":
      if (entry.go_out) return words`Go out, discarding ${card(entry.card)}`;
      return isOntoOtherPile(view, entry)
        ? words`Discard ${card(entry.card)} onto ${pileName(view, entry.pile)}`
        : words`Discard ${card(entry.card)}`;
    case "draw":
      return entry.source === "stock"
        ? words`Draw from the stock`
        : words`Take from ${pileName(view, entry.pile)}`;
    case "lay_off":
      return words`Lay ${card(entry.card)} off on ${seatName(view, entry.seat)}'s meld ${entry.meld + 1}`;
    default:
      return words`${JSON.stringify(entry)}`;
  }
}

/** `Words` that start a sentence, in the middle of one. */
export function lowerFirst(text) {
  const [first, ...rest] = text.parts;
  if (typeof first !== "string") return text;
  return new Words([first.charAt(0).toLowerCase() + first.slice(1), ...rest]);
}

/**
 * The hint (`GET /v1/games/{id}/hint`) in `Words`, from its fields rather than its `reason`,
 * whose cards are codes ("Discard the QC"): the same advice, its cards named as the rest of the
 * page names them.
 */
export function describeHint(view, advice) {
  const lastTurn = view.out_seat != null && view.out_seat !== view.seat;
  const out = lastTurn ? "end the round with no points" : "go out";
  if (advice.phase === "discard") {
    const best = advice.discards?.[0];
    if (best?.go_out) {
      return words`Discard ${card(advice.suggested)} and go out: the rest of the hand is fully melded.`;
    }
    const left = best?.deadwood_points;
    return left == null
      ? words`Discard ${card(advice.suggested)}.`
      : words`Discard ${card(advice.suggested)}: it leaves ${counted(left, "point")} of deadwood, the least.`;
  }
  const options = advice.options ?? [];
  const stock = options.find((o) => o.source === "stock");
  const advised = options.find(
    (o) => o.source === advice.draw && (o.pile ?? null) === (advice.pile ?? null),
  );
  const known = advice.stock_known
    ? " The stock is the reshuffled discard pile: its cards are known."
    : "";
  if (!advised || advised.source === "stock") {
    const chance = advised?.go_out_chance
      ? `, with a ${Math.round(advised.go_out_chance * 100)}% chance to ${out}`
      : "";
    const mean = advised ? ` it leaves ${advised.expected_deadwood.toFixed(1)} points of deadwood on average${chance}.` : "";
    return words`Draw from the stock:${mean}${known}`;
  }
  const from = words`Take ${card(advised.card)} from ${pileName(view, advised.pile)}`;
  if (advised.go_out_chance) return words`${from}: it lets you ${out}.${known}`;
  const kept = Math.round(advised.expected_deadwood);
  const against = stock ? `, against ${stock.expected_deadwood.toFixed(1)} on average from the stock` : "";
  return words`${from}: it leaves ${counted(kept, "point")} of deadwood${against}.${known}`;
}

/** A discard onto another seat's pile: a joker under `joker_discards: any_pile`. */
export const isOntoOtherPile = (view, entry) =>
  entry.type === "discard" && entry.pile != null && entry.pile !== view.seat;

/** The line that says whose turn it is and what to do. */
export function turnLine(view) {
  if (view.status === "finished") return "Game over.";
  if (view.call) return callLine(view);
  const mine = (view.legal ?? []).map((e) => e.type);
  // Another seat went out: every other seat has one turn left, this one included.
  const out = view.out_seat != null ? seatName(view, view.out_seat) : null;
  const yours = out ? `Your last turn (${out} went out)` : "Your turn";
  if (mine.includes("draw")) return `${yours}: draw from the stock or take the discard.`;
  if (mine.includes("discard")) return `${yours}: choose a card to discard.`;
  if (view.turn == null) return "";
  const who = seatName(view, view.turn);
  const last = out ? ` ${out} went out: last turns.` : "";
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
