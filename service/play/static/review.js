// Extension point: a finished game's review (API.md "Game records, reviews": GET
// /v1/games/{game_id}/review; for every decision of every seat what it knew, what it did, the
// best choice and the expected points lost, each classed best, good, inaccuracy, mistake or
// blunder; per seat and round the totals and an accuracy figure).
//
// main.js calls `offerReview` once a game is finished. Until the service answers the route this
// shows a button whose click says the review is not available; once it does, the answer is
// shown by `renderReview`, which today lays out only the fields API.md fixes (`decisions` with
// their class, counted per seat) and keeps the whole answer readable beneath. The route's shape is
// being designed elsewhere: replace `renderReview` with the real layout when it lands.

import * as api from "./api.js";
import { seatName } from "./narration.js";

const CLASSES = ["best", "good", "inaccuracy", "mistake", "blunder"];

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
      output.textContent = error.status === 404 || error.status === 405
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
  const table = document.createElement("table");
  table.className = "score-table";
  const head = table.createTHead().insertRow();
  for (const title of ["Player", ...CLASSES]) head.append(Object.assign(document.createElement("th"), { textContent: title }));
  const body = table.createTBody();
  for (const player of view.players) {
    const row = body.insertRow();
    row.insertCell().textContent = seatName(view, player.seat);
    for (const kind of CLASSES) {
      const mine = decisions.filter((d) => d.seat === player.seat && Object.values(d).includes(kind));
      row.insertCell().textContent = mine.length;
    }
  }
  const raw = document.createElement("details");
  const summary = document.createElement("summary");
  summary.textContent = "The whole review";
  const pre = document.createElement("pre");
  pre.textContent = JSON.stringify(review, null, 2);
  raw.append(summary, pre);
  output.append(table, raw);
}
