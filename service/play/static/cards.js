// Card codes as the API writes them (`7H`, `TS`, `JK`; suit X is Five Crowns' stars) drawn as
// cards and named for screen readers. The only module that reads a card code's letters.

const RANKS = {
  A: ["A", "ace"], 2: ["2", "two"], 3: ["3", "three"], 4: ["4", "four"], 5: ["5", "five"],
  6: ["6", "six"], 7: ["7", "seven"], 8: ["8", "eight"], 9: ["9", "nine"], T: ["10", "ten"],
  J: ["J", "jack"], Q: ["Q", "queen"], K: ["K", "king"],
};
const SUITS = {
  C: ["♣", "clubs"], D: ["♦", "diamonds"], H: ["♥", "hearts"], S: ["♠", "spades"],
  X: ["★", "stars"],
};

const ORDER = "A23456789TJQK";
const SUIT_ORDER = "CDHSX";

export const isJoker = (code) => code === "JK";

/** Cards by suit, then rank, jokers last: how a person sorts loose cards in their hand. */
export function sortedCards(codes) {
  const place = (code) =>
    isJoker(code) ? 99 : SUIT_ORDER.indexOf(code[1]) * 13 + ORDER.indexOf(code[0]);
  return [...codes].sort((a, b) => place(a) - place(b));
}

/** A joker, or a card of the round's wild rank. */
export const isWild = (code, wild) => isJoker(code) || (wild != null && code[0] === wild);

export function cardName(code) {
  if (isJoker(code)) return "joker";
  return `${RANKS[code[0]]?.[1] ?? code[0]} of ${SUITS[code[1]]?.[1] ?? code[1]}`;
}

/** "7♥", for running text. */
export function cardText(code) {
  if (isJoker(code)) return "Joker";
  return `${RANKS[code[0]]?.[0] ?? code[0]}${SUITS[code[1]]?.[0] ?? code[1]}`;
}

export function rankName(rank, plural = false) {
  const name = RANKS[rank]?.[1] ?? rank;
  if (!plural) return name;
  return name === "six" ? "sixes" : `${name}s`;
}

export const rankText = (rank) => RANKS[rank]?.[0] ?? rank;

/** What each element written by `Words.write` says to a screen reader. */
const spokenIn = new WeakMap();

/**
 * Running text that names cards: "You took 7♥ from Bob's discard pile" on the screen, "…seven
 * of hearts…" to a screen reader (which reads "7♥" as letters and a symbol, or not at all).
 * Built with the `words` tag, whose card codes are wrapped by `card()`:
 *
 *     words`Discard ${card("QC")}: it leaves ${n} points`
 *
 * `shown` is the text as drawn, `spoken` as read; `write(element)` draws it, each card a
 * `role="img"` span named in words.
 */
export class Words {
  constructor(parts) {
    this.parts = parts; // strings and {card: code}
  }

  get shown() {
    return this.parts.map((p) => (typeof p === "string" ? p : cardText(p.card))).join("");
  }

  get spoken() {
    return this.parts.map((p) => (typeof p === "string" ? p : cardName(p.card))).join("");
  }

  /** Draws the words into `element` unless it shows them already (a live region then says
   * nothing twice). */
  write(element) {
    if (element.textContent === this.shown && spokenIn.get(element) === this.spoken) return;
    spokenIn.set(element, this.spoken);
    element.replaceChildren(...this.parts.map((p) => (typeof p === "string" ? p : cardInText(p.card))));
  }

  /** `list` (Words or strings) one after the other, `separator` between them. */
  static join(list, separator) {
    return list.reduce((all, item, i) => words`${all}${i ? separator : ""}${item}`, words``);
  }
}

/** A card named in running text (`words`). */
export const card = (code) => ({ card: code });

/** The tag that makes `Words`: strings, numbers, `card()`s and other `Words` in order. */
export function words(strings, ...values) {
  const parts = [];
  const add = (part) => {
    if (part == null || part === "") return;
    if (part instanceof Words) part.parts.forEach(add);
    else if (typeof part === "object" && part.card) parts.push(part);
    else if (typeof parts.at(-1) === "string") parts[parts.length - 1] += String(part);
    else parts.push(String(part));
  };
  strings.forEach((text, i) => {
    add(text);
    if (i < values.length) add(values[i]);
  });
  return new Words(parts);
}

/** A card in running text: "Q♣" on the screen, "queen of clubs" to a screen reader. */
function cardInText(code) {
  const span = document.createElement("span");
  span.className = `card-text suit-${isJoker(code) ? "joker" : code[1].toLowerCase()}`;
  span.setAttribute("role", "img");
  span.setAttribute("aria-label", cardName(code));
  span.textContent = cardText(code);
  return span;
}

/** Spoken description: "seven of hearts, wild, plays as five of hearts". */
export function cardLabel(code, { wild, standsFor } = {}) {
  const parts = [cardName(code)];
  if (isWild(code, wild) || standsFor) parts.push("wild");
  if (standsFor) parts.push(`plays as ${cardName(standsFor)}`);
  return parts.join(", ");
}

/**
 * A card face: a button when `onClick` is given (focusable; `disabled` keeps it focusable but
 * inert, through aria-disabled), else a plain element. Wilds carry a badge, which in a meld
 * (`standsFor`) shows what the wild plays as.
 */
export function cardElement(code, { wild, standsFor, onClick, disabled, small, label } = {}) {
  const card = document.createElement(onClick ? "button" : "span");
  card.className = "card";
  if (onClick) {
    card.type = "button";
    card.addEventListener("click", () => {
      if (card.getAttribute("aria-disabled") !== "true") onClick(code);
    });
    if (disabled) card.setAttribute("aria-disabled", "true");
  } else {
    card.setAttribute("role", "img");
  }
  card.dataset.card = code;
  card.setAttribute("aria-label", label ?? cardLabel(code, { wild, standsFor }));
  if (small) card.classList.add("small");
  const wildCard = isWild(code, wild) || Boolean(standsFor);
  if (wildCard) card.classList.add("wild");

  if (isJoker(code)) {
    card.classList.add("joker");
    card.append(face("rank", "JK"), face("suit", "★"));
  } else {
    card.classList.add(`suit-${code[1].toLowerCase()}`);
    card.append(face("rank", RANKS[code[0]]?.[0] ?? code[0]), face("suit", SUITS[code[1]]?.[0] ?? "?"));
  }
  // The gold badge marks a wild; in a meld it says what the wild plays as.
  if (wildCard) card.append(face("badge", standsFor ? `= ${cardText(standsFor)}` : "wild"));
  for (const part of card.children) part.setAttribute("aria-hidden", "true");
  return card;
}

/** The back of a card (the stock). */
export function cardBack({ onClick, disabled, label }) {
  const back = document.createElement("button");
  back.type = "button";
  back.className = "card back";
  back.setAttribute("aria-label", label);
  if (disabled) back.setAttribute("aria-disabled", "true");
  back.addEventListener("click", () => {
    if (back.getAttribute("aria-disabled") !== "true") onClick();
  });
  return back;
}

function face(kind, text) {
  const span = document.createElement("span");
  span.className = kind;
  span.textContent = text;
  return span;
}
