// The leaderboard on the start screen (docs/ratings.md): a preset's rated players, best first,
// the established ones or, ticked, the new ones (fewer than ten rated games). The player this
// browser plays as is marked on it; the board follows the sign-in and the preset chosen.

import * as api from "./api.js";

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
  rows.replaceChildren(...board.players.map((ranked) => row(ranked, ranked.player_id === me)));
  if (board.players.length) note.hidden = true;
  else say(note, `No ${kind} are rated under these rules yet.`);
}

function row(ranked, mine) {
  const tr = document.createElement("tr");
  tr.dataset.playerId = ranked.player_id;
  if (mine) {
    tr.classList.add("me");
    tr.setAttribute("aria-current", "true");
  }
  const name = ranked.bot ? `${ranked.name} (bot)` : ranked.name;
  for (const text of [ranked.rank, mine ? `${name}, you` : name, ranked.rating.toFixed(1), ranked.games]) {
    const td = document.createElement("td");
    td.textContent = String(text);
    tr.append(td);
  }
  return tr;
}

function say(note, text) {
  note.textContent = text;
  note.hidden = false;
}

function presetName(preset) {
  return $("board-preset").querySelector(`option[value="${preset}"]`)?.textContent ?? preset;
}
