// The leaderboard on the start screen (docs/ratings.md): a preset's rated players, best first,
// the established ones or, ticked, the new ones (fewer than ten rated games). The player this
// browser plays as is marked on it; the board follows the sign-in and the preset chosen. A
// player's name shows their rating after each of their last rated games, as a line.

import * as api from "./api.js";
import { HEIGHT, node, PAD, WIDTH } from "./chart.js";

const $ = (id) => document.getElementById(id);

/** Wires the panel to `player` (player.js) and shows the classic board. */
export function setUpLeaderboard({ player }) {
  const show = () => showBoard(player);
  $("board-preset").addEventListener("change", show);
  $("board-provisional").addEventListener("change", show);
  $("board-refresh").addEventListener("click", show);
  player.addEventListener("change", show);
  show();
}

async function showBoard(player) {
  const preset = $("board-preset").value;
  const provisional = $("board-provisional").checked;
  const rows = $("board-rows");
  const note = $("board-note");
  let board;
  try {
    board = await api.getLeaderboard(preset, { provisional });
  } catch {
    rows.replaceChildren();
    say(note, "The leaderboard could not be loaded.");
    return;
  }
  const kind = provisional ? "new players" : "established players";
  $("board-caption").textContent = `${presetName(preset)}: ${kind}, best first`;
  const me = player.profile?.player_id ?? null;
  rows.replaceChildren(
    ...board.players.map((ranked) => row(ranked, ranked.player_id === me, preset)),
  );
  $("board-history").hidden = true;
  if (board.players.length) note.hidden = true;
  else say(note, `No ${kind} are rated under these rules yet.`);
}

function row(ranked, mine, preset) {
  const tr = document.createElement("tr");
  tr.dataset.playerId = ranked.player_id;
  if (mine) {
    tr.classList.add("me");
    tr.setAttribute("aria-current", "true");
  }
  const name = ranked.bot ? `${ranked.name} (bot)` : ranked.name;
  const who = document.createElement("button");
  who.type = "button";
  who.className = "quiet";
  who.textContent = mine ? `${name}, you` : name;
  who.setAttribute("aria-label", `${name}: rating history`);
  who.addEventListener("click", () => showHistory(ranked, preset));
  for (const cell of [ranked.rank, who, ranked.rating.toFixed(1), ranked.games]) {
    const td = document.createElement("td");
    td.append(cell instanceof Node ? cell : String(cell));
    tr.append(td);
  }
  return tr;
}

async function showHistory(ranked, preset) {
  const figure = $("board-history");
  const chart = $("board-history-chart");
  let points;
  try {
    ({ points } = await api.getRatingHistory(ranked.player_id, preset));
  } catch {
    $("board-history-title").textContent = `${ranked.name}'s rating history could not be loaded.`;
    chart.replaceChildren();
    figure.hidden = false;
    return;
  }
  const ratings = points.map((p) => p.rating).reverse(); // oldest first, left to right
  const after = points.length === 1 ? "after their one rated game" : `after each of their last ${points.length} rated games`;
  $("board-history-title").textContent = `${ranked.name}'s rating, ${presetName(preset)}, ${after}`;
  chart.replaceChildren(line(ratings, `${ranked.name}: from ${fixed(ratings[0])} to ${fixed(ratings.at(-1))}`));
  figure.hidden = false;
}

/** The values as a line, left to right, with the lowest and the highest marked. */
function line(values, title) {
  const low = Math.min(...values);
  const high = Math.max(...values, low + 1);
  const x = (i) => PAD.left + (i / Math.max(values.length - 1, 1)) * (WIDTH - PAD.left - PAD.right);
  const y = (v) => PAD.top + ((high - v) / (high - low)) * (HEIGHT - PAD.top - PAD.bottom);
  const svg = node("svg", { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: "img", class: "chart" });
  svg.append(node("title", {}, title));
  svg.append(node("line", { x1: PAD.left, x2: PAD.left, y1: PAD.top, y2: HEIGHT - PAD.bottom, class: "axis" }));
  for (const v of [low, high]) {
    svg.append(node("text", { x: PAD.left - 4, y: y(v) + 4, class: "tick", "text-anchor": "end" }, fixed(v)));
  }
  const points = values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(" ");
  svg.append(node("polyline", { points, fill: "none", stroke: "#1f4e9c", "stroke-width": 2 }));
  svg.append(node("circle", { cx: x(values.length - 1), cy: y(values.at(-1)), r: 3, fill: "#1f4e9c" }));
  return svg;
}

const fixed = (value) => value.toFixed(1);

function say(note, text) {
  note.textContent = text;
  note.hidden = false;
}

function presetName(preset) {
  return $("board-preset").querySelector(`option[value="${preset}"]`)?.textContent ?? preset;
}
