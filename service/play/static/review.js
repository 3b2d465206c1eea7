// A finished game's review (API.md "Game records, reviews"; docs/records.md "The review"):
// `GET /v1/games/{game_id}/review` answers `{seats, rounds, decisions}`:
// - `seats[]` and `rounds[].seats[]`: a seat's tally, `{seat, decisions, lost, accuracy, grades:
//   [{grade, count}]}` (accuracy 0 to 100, null without decisions);
// - `decisions[]`: every draw and discard of every seat, `{version, round, deal, seat, choice,
//   best, lost, grade, ...}`, where `choice` and `best` are action bodies.
//
// `offerReview` puts a "Review" button on the finished game's screen. The first request computes
// the review (a second or two); while the service is busy (429, 503) or the game is not yet
// finished where the request landed (409), the page says so and asks again when the service's
// Retry-After says, a few times, before it offers to try again.

import * as api from "./api.js";
import { words } from "./cards.js";
import { describeLegal, lowerFirst, seatName } from "./narration.js";

const GRADE_WORDS = {
  best: ["best", "best"], good: ["good", "good"], inaccuracy: ["inaccuracy", "inaccuracies"],
  mistake: ["mistake", "mistakes"], blunder: ["blunder", "blunders"],
  missed_go_out: ["missed go-out", "missed go-outs"],
};
const GRADE_ORDER = ["blunder", "missed_go_out", "mistake", "inaccuracy", "good", "best"];
const COSTLY = new Set(["inaccuracy", "mistake", "blunder", "missed_go_out"]);
const NOT_READY = new Set([409, 429, 503]);
const TRIES = 8;
const WAIT_S = 2;

export function offerReview(container, view) {
  container.replaceChildren();
  const button = document.createElement("button");
  button.type = "button";
  button.textContent = "Review";
  button.setAttribute("aria-describedby", "review-status");
  const status = document.createElement("p");
  status.id = "review-status";
  status.className = "review-status";
  status.setAttribute("role", "status");
  const output = document.createElement("section");
  output.className = "review";
  output.setAttribute("aria-label", "Review of the game");
  button.addEventListener("click", async () => {
    button.disabled = true;
    const review = await fetchReview(view.game_id, status);
    button.disabled = false;
    if (!review) return;
    button.textContent = "Review again";
    status.textContent = "";
    renderReview(output, view, review);
    output.querySelector("h2").focus();
  });
  container.append(button, status, output);
}

/** The review, asked again while the service says it is not ready; null when it never was. */
async function fetchReview(gameId, status) {
  status.textContent = "Computing the review…";
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await api.getReview(gameId);
    } catch (error) {
      // A review being computed (202) is always finished or given up by the service in time.
      const computing = error instanceof api.ApiError && error.status === 202;
      const again =
        computing || (error instanceof api.ApiError && NOT_READY.has(error.status) && attempt < TRIES);
      if (!again) {
        status.textContent = `The review could not be loaded: ${error.message}`;
        return null;
      }
      const seconds = error.retryAfter ?? WAIT_S;
      status.textContent = computing
        ? "Computing the review…"
        : `The review is not ready yet (${error.message}); asking again in ${seconds} s…`;
      await new Promise((done) => setTimeout(done, seconds * 1000));
    }
  }
}

export function renderReview(output, view, review) {
  output.replaceChildren();
  // The game's screen has no heading between the page's h1 and this one.
  const title = document.createElement("h2");
  title.textContent = "Review";
  title.tabIndex = -1;
  const note = document.createElement("p");
  note.className = "review-note";
  note.textContent = "Every draw and discard, judged from what the player knew then: points lost " +
    "against the best choice by the hint's figures, and an accuracy from 0 to 100.";
  output.append(title, note, seatTable(view, review.seats), roundTable(view, review), decisionList(view, review));
}

const percent = (accuracy) => (accuracy == null ? "–" : `${Math.round(accuracy)}%`);

function headerCell(row, text, scope) {
  const cell = document.createElement("th");
  cell.scope = scope;
  cell.textContent = text;
  row.append(cell);
  return cell;
}

/** A table in a box that scrolls sideways on a narrow phone: a Tab stop named by its caption,
 * so that the keyboard scrolls it too. */
function wrapped(table) {
  const box = document.createElement("div");
  box.className = "score-table-wrap";
  box.tabIndex = 0;
  box.setAttribute("role", "region");
  box.setAttribute("aria-label", table.caption?.textContent ?? "Table");
  box.append(table);
  return box;
}

/** "3 mistakes · 1 blunder": the count of each grade but "best" and "good", worst first. */
function gradeCounts(tally) {
  const counts = GRADE_ORDER.filter((g) => COSTLY.has(g))
    .map((g) => [g, tally.grades.find((c) => c.grade === g)?.count ?? 0])
    .filter(([, count]) => count)
    .map(([g, count]) => `${count} ${GRADE_WORDS[g][count === 1 ? 0 : 1]}`);
  return counts.join(" · ") || "no inaccuracy";
}

/** Per seat: accuracy, points lost, decisions; under each, its costly decisions counted. */
function seatTable(view, seats) {
  const table = document.createElement("table");
  table.className = "score-table review-seats";
  table.createCaption().textContent = "The whole game";
  const head = table.createTHead().insertRow();
  for (const text of ["Player", "Accuracy", "Points lost", "Decisions"]) headerCell(head, text, "col");
  const body = table.createTBody();
  for (const tally of seats) {
    const row = body.insertRow();
    row.dataset.seat = tally.seat;
    headerCell(row, seatName(view, tally.seat), "row");
    row.insertCell().textContent = percent(tally.accuracy);
    row.insertCell().textContent = tally.lost.toFixed(1);
    row.insertCell().textContent = tally.decisions;
    const grades = body.insertRow().insertCell();
    grades.colSpan = 4;
    grades.className = "review-grades";
    grades.textContent = gradeCounts(tally);
  }
  return wrapped(table);
}

/** One row per round, one column per seat: accuracy and points lost. */
function roundTable(view, review) {
  const table = document.createElement("table");
  table.className = "score-table review-rounds";
  table.createCaption().textContent = "Round by round: accuracy and points lost";
  const head = table.createTHead().insertRow();
  headerCell(head, "Round", "col");
  for (const tally of review.seats) headerCell(head, seatName(view, tally.seat), "col");
  const body = table.createTBody();
  for (const round of review.rounds) {
    const row = body.insertRow();
    headerCell(row, String(round.round), "row");
    for (const { seat } of review.seats) {
      const tally = round.seats.find((t) => t.seat === seat);
      const cell = row.insertCell();
      if (!tally?.decisions) {
        cell.textContent = "–";
        continue;
      }
      // Two short lines rather than one long one: four or five seats still fit a phone.
      const accuracy = document.createElement("span");
      accuracy.textContent = percent(tally.accuracy);
      const lost = document.createElement("span");
      lost.className = "review-lost";
      lost.textContent = `${tally.lost.toFixed(1)} lost`;
      cell.append(accuracy, lost);
    }
  }
  return wrapped(table);
}

/** The decisions of one seat (the person's first), round by round; a filter keeps the costly. */
function decisionList(view, review) {
  const box = document.createElement("div");
  box.className = "review-decisions";
  const controls = document.createElement("div");
  controls.className = "review-controls";
  const whose = document.createElement("select");
  whose.id = "review-seat";
  for (const { seat } of review.seats) whose.add(new Option(seatName(view, seat), seat, false, seat === view.seat));
  const whoseLabel = document.createElement("label");
  whoseLabel.append("Decisions of ", whose);
  const costly = document.createElement("input");
  costly.type = "checkbox";
  const costlyLabel = document.createElement("label");
  costlyLabel.className = "check";
  costlyLabel.append(costly, " Only inaccuracies and worse");
  controls.append(whoseLabel, costlyLabel);
  const rounds = document.createElement("div");
  const opened = new Set(); // the rounds opened stay open when the seat or the filter changes
  rounds.addEventListener("toggle", (event) => {
    const round = event.target.dataset.round;
    if (event.target.open) opened.add(round);
    else opened.delete(round);
  }, true);
  const draw = () => {
    const seat = Number(whose.value);
    const shown = review.decisions.filter((d) => d.seat === seat && (!costly.checked || COSTLY.has(d.grade)));
    rounds.replaceChildren(...roundsOf(view, review, seat, shown));
    for (const details of rounds.querySelectorAll("details")) details.open = opened.has(details.dataset.round);
  };
  whose.addEventListener("change", draw);
  costly.addEventListener("change", draw);
  draw();
  box.append(controls, rounds);
  return box;
}

function roundsOf(view, review, seat, decisions) {
  if (!decisions.length) {
    const none = document.createElement("p");
    none.textContent = "No decision to show.";
    return [none];
  }
  return review.rounds.flatMap((round) => {
    const mine = decisions.filter((d) => d.deal === round.deal);
    if (!mine.length) return [];
    const tally = round.seats.find((t) => t.seat === seat);
    const details = document.createElement("details");
    details.className = "review-round";
    details.dataset.round = round.round;
    const summary = document.createElement("summary");
    summary.textContent = `Round ${round.round} · ${percent(tally?.accuracy)} · ` +
      `${(tally?.lost ?? 0).toFixed(1)} points lost`;
    const list = document.createElement("ol");
    list.className = "review-list";
    list.append(...mine.map((d) => decisionItem(view, d)));
    details.append(summary, list);
    return [details];
  });
}

function decisionItem(view, decision) {
  const item = document.createElement("li");
  item.className = "decision";
  item.dataset.grade = decision.grade;
  const grade = document.createElement("span");
  grade.className = `grade grade-${decision.grade}`;
  grade.textContent = GRADE_WORDS[decision.grade]?.[0] ?? decision.grade;
  const text = document.createElement("span");
  text.className = "decision-text";
  const chose = describeLegal(view, decision.choice);
  const best = describeLegal(view, decision.best);
  // Two choices can be equally good: then the best is not named against this one.
  const lost = decision.lost.toFixed(1);
  const same = chose.spoken === best.spoken || (lost === "0.0" && !COSTLY.has(decision.grade));
  (same ? chose : words`${chose}; best: ${lowerFirst(best)} (${lost} points lost)`).write(text);
  item.append(grade, text);
  return item;
}
