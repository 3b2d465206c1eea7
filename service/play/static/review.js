// Extension point: a finished game's review (API.md "Game records, reviews": GET
// /v1/games/{game_id}/review). For every draw and discard of every seat: what it chose, the best
// choice by the hint's exact figures, the expected points lost and a grade (best, good,
// inaccuracy, mistake, blunder, missed_go_out); per seat the accuracy and the points lost.
//
// main.js calls `offerReview` once a game is finished: a button that asks for the review. Until
// the service answers the route, the click says the review is not available. The route's wire
// shape is being designed now; `renderReview` reads the engine's names (engine.records.review:
// `decisions[]` with `seat`, `round`, `choice`, `best`, `lost`, `grade`; `seats[]` with `seat`,
// `accuracy`, `lost`) and shows nothing it does not find. Adjust it when the route lands.

import * as api from "./api.js";
import { describeLegal, seatName } from "./narration.js";

const GRADES = ["best", "good", "inaccuracy", "mistake", "blunder", "missed_go_out"];
const WORST_SHOWN = 5;

export function offerReview(container, view) {
  container.replaceChildren();
  const button = document.createElement("button");
  button.type = "button";
  button.textContent = "Review this game";
  const output = document.createElement("div");
  output.className = "review";
  output.setAttribute("aria-live", "polite");
  button.addEventListener("click", async () => {
    button.disabled = true;
    try {
      renderReview(output, view, await api.getReview(view.game_id));
    } catch (error) {
      output.textContent = [404, 405].includes(error.status)
        ? "Reviews are not available on this server yet."
        : `The review could not be loaded: ${error.message}`;
      button.disabled = false;
    }
  });
  container.append(button, output);
}

export function renderReview(output, view, review) {
  output.replaceChildren();
  const decisions = Array.isArray(review?.decisions) ? review.decisions : [];
  const tallies = new Map((review?.seats ?? []).map((t) => [t.seat, t]));

  const table = document.createElement("table");
  table.className = "score-table";
  const head = table.createTHead().insertRow();
  for (const title of ["Player", "Accuracy", "Points lost", ...GRADES.map((g) => g.replaceAll("_", " "))]) {
    const cell = document.createElement("th");
    cell.scope = "col";
    cell.textContent = title;
    head.append(cell);
  }
  const body = table.createTBody();
  for (const player of view.players) {
    const mine = decisions.filter((d) => d.seat === player.seat);
    const tally = tallies.get(player.seat);
    const row = body.insertRow();
    row.insertCell().textContent = seatName(view, player.seat);
    row.insertCell().textContent = tally?.accuracy == null ? "–" : `${Math.round(tally.accuracy)}%`;
    const lost = tally?.lost ?? mine.reduce((sum, d) => sum + (d.lost ?? 0), 0);
    row.insertCell().textContent = lost.toFixed(1);
    for (const grade of GRADES) row.insertCell().textContent = mine.filter((d) => d.grade === grade).length;
  }
  output.append(table);

  const worst = decisions
    .filter((d) => d.seat === view.seat && d.lost > 0)
    .sort((a, b) => b.lost - a.lost)
    .slice(0, WORST_SHOWN);
  if (worst.length) {
    const title = document.createElement("p");
    title.textContent = "Your costliest decisions:";
    const list = document.createElement("ul");
    for (const d of worst) {
      const item = document.createElement("li");
      item.textContent = `Round ${d.round}: ${describeLegal(view, d.choice)}; best was ` +
        `${describeLegal(view, d.best).toLowerCase()} (${d.lost.toFixed(1)} points, ${d.grade.replaceAll("_", " ")})`;
      list.append(item);
    }
    output.append(title, list);
  }
}
