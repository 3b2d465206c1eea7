// The seat's hand, laid out in the melds the analyser found (POST /v1/analyse with the view's
// hand, wild and rules) and the deadwood left over. Each card is a button: in the discard phase
// a click (or Enter or Space) discards it. The hand is one toolbar: Tab enters and leaves it,
// the arrow keys, Home and End move between cards (a roving tabindex).

import { cardElement, cardName, sortedCards } from "./cards.js";
import { counted } from "./narration.js";

/**
 * Draws `hand` into `container`.
 * - `arrangement`: the analyser's answer for exactly this hand, or null (then one sorted row).
 * - `discards`: card code → the legal entry that discards it (without going out).
 * - `onDiscard(entry)`: called with that entry when a discardable card is chosen.
 * - `hinted`: a card code the hint advises discarding, or null.
 * - `chosen`: in a speed game's call, the card of the seat's pending discard, or null.
 * - `drawn`: the card the seat has just drawn, or null: raised, tagged "new", and said in its
 *   name ("…, just drawn").
 */
export function renderHand(container, { hand, arrangement, wild, discards, onDiscard, hinted, chosen, drawn }) {
  const focus = focusedKey(container);
  container.replaceChildren();
  const occurrences = new Map();
  const makeCard = (code, standsFor) => {
    const n = occurrences.get(code) ?? 0;
    occurrences.set(code, n + 1);
    const entry = discards.get(code);
    const card = cardElement(code, {
      wild,
      standsFor,
      onClick: () => entry && onDiscard(entry),
      disabled: !entry,
    });
    card.dataset.key = `${code}#${n}`;
    card.tabIndex = -1;
    if (entry) card.classList.add("playable");
    if (hinted === code) card.classList.add("hinted");
    if (drawn === code && n === 0) {
      card.classList.add("drawn");
      card.setAttribute("aria-label", `${card.getAttribute("aria-label")}, just drawn`);
      const tag = document.createElement("span");
      tag.className = "drawn-tag";
      tag.textContent = "new";
      tag.setAttribute("aria-hidden", "true");
      card.append(tag);
    }
    if (chosen === code && n === 0) {
      card.classList.add("chosen");
      card.setAttribute("aria-label", `${card.getAttribute("aria-label")} (your choice)`);
    }
    return card;
  };

  for (const group of groupsOf(hand, arrangement)) {
    const box = document.createElement("div");
    box.className = `group ${group.kind}`;
    box.setAttribute("role", "group");
    box.setAttribute("aria-label", group.label);
    const title = document.createElement("span");
    title.className = "group-title";
    title.textContent = group.title;
    title.setAttribute("aria-hidden", "true");
    const cards = document.createElement("div");
    cards.className = "group-cards";
    group.cards.forEach((code, i) => cards.append(makeCard(code, group.standsFor?.[i])));
    box.append(title, cards);
    container.append(box);
  }
  restoreFocus(container, focus);
}

/** The melds, then the deadwood; one "hand" group when the arrangement does not fit the hand. */
function groupsOf(hand, arrangement) {
  const arranged = arrangement && [...arrangement.melds.flatMap((m) => m.cards), ...arrangement.deadwood];
  if (!arranged || !sameCards(hand, arranged)) {
    return [{ kind: "loose", title: "Hand", label: "Hand", cards: sortedCards(hand) }];
  }
  const groups = arrangement.melds.map((meld) => ({
    kind: meld.kind,
    title: meld.kind === "run" ? "Run" : "Set",
    label: `${meld.kind === "run" ? "Run" : "Set"}: ${meld.cards.map(cardName).join(", ")}`,
    cards: meld.cards,
    standsFor: meld.stands_for,
  }));
  if (arrangement.deadwood.length) {
    groups.push({
      kind: "deadwood",
      title: `Deadwood · ${arrangement.deadwood_points}`,
      label: `Deadwood, ${counted(arrangement.deadwood_points, "point")}`,
      cards: sortedCards(arrangement.deadwood),
    });
  }
  return groups;
}

function sameCards(a, b) {
  return a.length === b.length && [...a].sort().join() === [...b].sort().join();
}

function cardsOf(container) {
  return [...container.querySelectorAll(".card")];
}

function focusedKey(container) {
  const active = document.activeElement;
  if (!container.contains(active) || !active.dataset.key) return null;
  return { key: active.dataset.key, index: cardsOf(container).indexOf(active) };
}

/** One card is reachable by Tab: the one focused before, its neighbour, or the first. */
function restoreFocus(container, focus) {
  const cards = cardsOf(container);
  if (!cards.length) return;
  const again = focus && (cards.find((c) => c.dataset.key === focus.key) ?? cards[Math.min(focus.index, cards.length - 1)]);
  const current = again ?? cards[0];
  current.tabIndex = 0;
  if (again) again.focus();
}

/** Arrow keys, Home and End move between the hand's cards. */
export function enableHandKeys(container) {
  container.addEventListener("keydown", (event) => {
    const cards = cardsOf(container);
    const at = cards.indexOf(document.activeElement);
    if (at < 0) return;
    const to = {
      ArrowRight: at + 1, ArrowDown: at + 1, ArrowLeft: at - 1, ArrowUp: at - 1,
      Home: 0, End: cards.length - 1,
    }[event.key];
    if (to === undefined) return;
    event.preventDefault();
    const next = cards[Math.max(0, Math.min(cards.length - 1, to))];
    for (const card of cards) card.tabIndex = -1;
    next.tabIndex = 0;
    next.focus();
  });
}
