// A finished round (a view's `last_round`: every hand laid out in its best melds, what it
// scored) and the score table (each player's `round_scores` and total).

import { cardElement, sortedCards } from "./cards.js";
import { counted, seatName } from "./narration.js";

export function renderRoundResult(container, view, result) {
  container.replaceChildren();
  const heading = document.createElement("p");
  heading.className = "result-heading";
  const out = result.out_seat == null ? "nobody went out" : `${seatName(view, result.out_seat)} went out`;
  const notes = [result.replayed ? "replayed (double naughts)" : "", result.tiebreak ? "tie-break" : ""];
  heading.textContent = [`Round ${result.round}: ${out}`, ...notes.filter(Boolean)].join(" · ");
  container.append(heading);

  const list = document.createElement("ul");
  list.className = "result-hands";
  for (const hand of result.results) {
    const item = document.createElement("li");
    item.className = "result-hand";
    if (hand.seat === result.out_seat) item.classList.add("went-out");
    const title = document.createElement("p");
    title.className = "result-title";
    const name = document.createElement("span");
    name.textContent = seatName(view, hand.seat);
    const points = document.createElement("strong");
    points.textContent = counted(hand.points, "pt");
    title.append(name, points);
    const cards = document.createElement("div");
    cards.className = "result-cards";
    for (const meld of hand.melds) {
      cards.append(cardGroup(meld.kind, meld.cards, meld.stands_for));
    }
    if (hand.deadwood.length) cards.append(cardGroup("deadwood", sortedCards(hand.deadwood), null));
    item.append(title, cards);
    list.append(item);
  }
  container.append(list);
}

function cardGroup(kind, codes, standsFor) {
  const group = document.createElement("span");
  group.className = `group ${kind}`;
  group.setAttribute("role", "group");
  group.setAttribute("aria-label", kind === "deadwood" ? "deadwood" : kind);
  codes.forEach((code, i) => {
    group.append(cardElement(code, { small: true, standsFor: standsFor?.[i] ?? undefined }));
  });
  return group;
}

/** One row per finished round, one column per player, the totals last; the leaders marked. */
export function renderScoreTable(table, view) {
  table.replaceChildren();
  const players = view.players;
  const rounds = Math.max(0, ...players.map((p) => p.round_scores.length));
  const caption = table.createCaption();
  caption.textContent = "Points per round (lowest total wins)";
  caption.className = "visually-hidden";
  const head = table.createTHead().insertRow();
  headerCell(head, "Round", "col");
  for (const p of players) headerCell(head, seatName(view, p.seat), "col");
  const body = table.createTBody();
  for (let r = 0; r < rounds; r += 1) {
    const row = body.insertRow();
    headerCell(row, String(r + 1), "row");
    for (const p of players) row.insertCell().textContent = p.round_scores[r] ?? "–";
  }
  const best = Math.min(...players.map((p) => p.score));
  const foot = table.createTFoot().insertRow();
  headerCell(foot, "Total", "row");
  for (const p of players) {
    const cell = foot.insertCell();
    cell.textContent = p.score;
    if (rounds && p.score === best) cell.classList.add("leader");
  }
}

function headerCell(row, text, scope) {
  const cell = document.createElement("th");
  cell.scope = scope;
  cell.textContent = text;
  row.append(cell);
}
