// The start screen: a new table (against bots, with open seats for people, or both), joining a
// table by its invite code, and the lobby of listed tables waiting for players. Signed in as a
// player, the person's seat is `{"me": true}` and acted for with the player's key, so the game
// is in the player's list; no name is asked (the player's is used).

import * as api from "./api.js";
import { Seat } from "./seat.js";

const NAME_KEY = "three-thirteen-name";
const SEAT_KINDS = [
  ["easy", "Bot: easy"],
  ["normal", "Bot: normal"],
  ["hard", "Bot: hard"],
  ["expert", "Bot: expert"],
  ["open", "Open seat: invite someone"],
];
const MAX_OTHER_SEATS = 7;

/** Wires the forms; `onSeat(seat)` is called with the seat a person created or claimed.
 * `player` (player.js) says whether the person is signed in, and with which key. */
export function setUpStart({ player, onSeat, onProblem }) {
  const create = document.getElementById("create");
  const join = document.getElementById("join");
  const opponents = document.getElementById("opponents");
  const addSeat = document.getElementById("add-seat");

  const savedName = localStorage.getItem(NAME_KEY) ?? "";
  create.elements.name.value = savedName;
  join.elements.name.value = savedName;

  const renumber = () => {
    [...opponents.children].forEach((row, i) => {
      row.querySelector("label").textContent = `Seat ${i + 2}`;
      row.querySelector("label").htmlFor = `seat-${i + 2}`;
      row.querySelector("select").id = `seat-${i + 2}`;
      row.querySelector("button").setAttribute("aria-label", `Remove seat ${i + 2}`);
      row.querySelector("button").disabled = opponents.children.length === 1;
    });
    addSeat.disabled = opponents.children.length >= MAX_OTHER_SEATS;
  };
  const addOpponent = (kind) => {
    const row = document.createElement("li");
    const label = document.createElement("label");
    label.className = "seat-label";
    const select = document.createElement("select");
    select.name = "seat";
    for (const [value, title] of SEAT_KINDS) select.add(new Option(title, value, false, value === kind));
    const remove = document.createElement("button");
    remove.type = "button";
    remove.className = "quiet";
    remove.textContent = "Remove";
    remove.addEventListener("click", () => {
      row.remove();
      renumber();
      addSeat.focus();
    });
    row.append(label, select, remove);
    opponents.append(row);
    renumber();
    return select;
  };
  addOpponent("normal");
  // A speed game has a clock per call instead of per turn (each is a 422 in the other kind).
  const showClocks = () => {
    document.getElementById("speed-options").hidden = !isSpeed(create);
    document.getElementById("turn-clock").hidden = isSpeed(create);
  };
  for (const radio of create.elements.turns) radio.addEventListener("change", showClocks);
  showClocks();
  addSeat.addEventListener("click", () => addOpponent("open").focus());

  // Signed in, the player's own name is used: the name fields are hidden and not asked for.
  const showNames = () => {
    for (const form of [create, join]) form.querySelector(".name-field").hidden = player.signedIn;
  };
  player.addEventListener("change", showNames);
  showNames();

  create.addEventListener("submit", (event) => {
    event.preventDefault();
    const key = player.key;
    const name = key ? null : nameOf(create);
    if (!key && !name) return;
    const kinds = [...opponents.querySelectorAll("select")].map((s) => s.value);
    const mine = key ? { me: true } : { name };
    const players = [mine, ...kinds.map((k) => (k === "open" ? { open: true } : { bot: k }))];
    const body = { players, rules: rulesOf(create) };
    if (create.elements.listed.checked && kinds.includes("open")) body.listed = true;
    if (isSpeed(create)) {
      body.call_seconds = Number(create.elements.call_seconds.value);
    } else if (create.elements.turn_seconds.value) {
      body.turn_seconds = Number(create.elements.turn_seconds.value);
    }
    submitting(create, async () => {
      const created = await api.createGame(body, key);
      const { seat, token } = created.seats[0];
      onSeat(new Seat({ gameId: created.game_id, seat, token: key ?? token, byKey: Boolean(key) }));
    }, onProblem);
  });

  join.addEventListener("submit", (event) => {
    event.preventDefault();
    const code = join.elements.code;
    if (!code.value.trim()) {
      code.reportValidity();
      return;
    }
    const key = player.key;
    const name = key ? null : nameOf(join);
    if (!key && !name) return;
    submitting(join, async () => {
      const claimed = await api.claimSeat(code.value.trim(), name, key);
      const seat = new Seat({
        gameId: claimed.game_id,
        token: key ?? claimed.token,
        seat: claimed.seat,
        byKey: Boolean(key),
      });
      seat.accept(claimed.view);
      onSeat(seat);
    }, onProblem);
  });

  const invited = new URLSearchParams(location.search).get("code");
  if (invited) {
    join.elements.code.value = invited;
    const named = join.elements.name.value || player.signedIn;
    (named ? join.querySelector("[type=submit]") : join.elements.name).focus();
  }

  const refresh = document.getElementById("lobby-refresh");
  refresh.addEventListener("click", () => showLobby(join));
  showLobby(join);
}

const isSpeed = (form) => form.elements.turns.value === "speed";

/** A preset's name, or the preset with the speed options (`turns`, `joker_discards`). */
function rulesOf(form) {
  const preset = form.elements.rules.value;
  if (!isSpeed(form)) return preset;
  const rules = { preset, turns: "speed" };
  if (form.elements.joker_any_pile.checked) rules.joker_discards = "any_pile";
  return rules;
}

function nameOf(form) {
  const input = form.elements.name;
  input.value = input.value.trim();
  if (!input.reportValidity()) return null;
  localStorage.setItem(NAME_KEY, input.value);
  return input.value;
}

async function submitting(form, work, onProblem) {
  const button = form.querySelector("[type=submit]");
  button.disabled = true;
  try {
    await work();
  } catch (error) {
    onProblem(error);
  } finally {
    button.disabled = false;
  }
}

async function showLobby(join) {
  const list = document.getElementById("lobby-tables");
  let tables = [];
  try {
    ({ tables } = await api.listTables());
  } catch {
    list.replaceChildren(note("The lobby could not be loaded."));
    return;
  }
  list.replaceChildren();
  if (!tables.length) list.append(note("No listed table is waiting."));
  for (const table of tables) {
    const item = document.createElement("li");
    const seats = table.seats.map((s) => (s.open ? "open" : s.name)).join(", ");
    const text = document.createElement("span");
    text.textContent = `${table.invite_code} · ${table.preset} · ${seats}`;
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = "Join";
    button.setAttribute("aria-label", `Join table ${table.invite_code}`);
    button.addEventListener("click", () => {
      join.elements.code.value = table.invite_code;
      (join.elements.name.offsetParent ? join.elements.name : join.querySelector("[type=submit]")).focus();
    });
    item.append(text, button);
    list.append(item);
  }
}

function note(text) {
  const item = document.createElement("li");
  item.className = "note";
  item.textContent = text;
  return item;
}
