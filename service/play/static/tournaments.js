// Tournaments (docs/tournaments.md): the list on the start screen (open, running, finished), a
// form for a signed-in player to make one, and a tournament's own screen: its status, entrants,
// standings with their tie-breaks, the crosstable, and each round's tables with their games
// (watched, or played when the seat is the player's). A player joins or leaves an open one.
//
// Kept up to date by the player's stream: `tournament_round` and `tournament_finish` (sent to
// each entrant) and `game_finish` of the player's own table read the tournament again. No event
// tells of another table's end, so while a tournament runs on screen it is read again every
// OTHER_TABLES_MS as well (only then, and only while the page is visible).

import * as api from "./api.js";

const $ = (id) => document.getElementById(id);
const STATUSES = [
  ["open", "Open for entries"],
  ["running", "Running"],
  ["finished", "Finished"],
];
const FORMATS = { round_robin: "Round robin", swiss: "Swiss" };
const PRESETS = { classic: "Classic", online: "Online", "five-crowns": "Five Crowns" };
const QUICK_JOKERS = 40;
const OTHER_TABLES_MS = 20000;

export class Tournaments {
  /** `show(screen)` switches the page's screen; `onPlay({gameId, seat})` opens a game of the
   * player's; `onWatch(gameId)` opens a game to watch. */
  constructor({ player, show, onPlay, onWatch, onProblem }) {
    Object.assign(this, { player, show, onPlay, onWatch, onProblem });
    this.current = null; // the tournament on its screen, or last shown
    this.timer = null;
    $("tournaments-refresh").addEventListener("click", () => this.refreshList());
    $("tournament-back").addEventListener("click", () => this.close());
    $("tournament-join").addEventListener("click", () => this.#entry(api.joinTournament));
    $("tournament-leave").addEventListener("click", () => this.#entry(api.leaveTournament));
    const form = $("tournament-create");
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      this.#create(form);
    });
    form.elements.quick.addEventListener("change", () => quickIsUnrated(form));
    player.addEventListener("change", () => this.#signedInOrOut());
    player.addEventListener("event", (e) => this.#heard(e.detail));
    player.addEventListener("live", () => this.#onScreen() && this.reload());
    document.addEventListener("visibilitychange", () => this.#schedule());
    this.#signedInOrOut();
  }

  #signedInOrOut() {
    $("tournament-create").hidden = !this.player.signedIn;
    this.refreshList();
    if (this.#onScreen()) this.render(this.current);
  }

  #onScreen() {
    return this.current !== null && !$("tournament").hidden;
  }

  #heard(event) {
    if (event.type.startsWith("tournament_")) this.refreshList();
    if (!this.#onScreen()) return;
    const ours = event.tournament_id === this.current.tournament_id;
    const ourGame = event.type === "game_finish" && gamesOf(this.current).has(event.game_id);
    if (ours) say($("tournament-news"), news(event));
    if (ours || ourGame) this.reload();
  }

  async refreshList() {
    const lists = $("tournament-lists");
    let found;
    try {
      ({ tournaments: found } = await api.listTournaments());
    } catch (error) {
      lists.replaceChildren(paragraph(`The tournaments could not be read: ${error.message}`));
      return;
    }
    lists.replaceChildren();
    lists.dataset.loaded = "true";
    for (const [status, heading] of STATUSES) {
      const title = document.createElement("h4");
      title.textContent = heading;
      const list = document.createElement("ul");
      list.className = "tournament-list";
      list.dataset.status = status;
      const here = found.filter((t) => t.status === status);
      for (const summary of here) list.append(this.#listItem(summary));
      if (!here.length) list.append(noteItem("None."));
      lists.append(title, list);
    }
  }

  #listItem(summary) {
    const item = document.createElement("li");
    item.dataset.tournamentId = summary.tournament_id;
    const button = document.createElement("button");
    button.type = "button";
    button.className = "quiet";
    const rounds = summary.planned_rounds ? ` · round ${summary.rounds_played} of ${summary.planned_rounds}` : "";
    button.textContent = `${summary.name}: ${FORMATS[summary.format]}, ${counted(summary.entrants, "entrant")}${rounds}`;
    button.addEventListener("click", () => this.open(summary.tournament_id));
    item.append(button);
    return item;
  }

  /** Shows the tournament's screen. */
  async open(tournamentId) {
    try {
      this.current = await api.getTournament(tournamentId);
    } catch (error) {
      this.onProblem(error);
      return;
    }
    this.onProblem(null);
    say($("tournament-news"), "");
    this.show("tournament");
    this.render(this.current);
    $("tournament-name").focus();
  }

  /** Back to the start screen's list. */
  close() {
    this.current = null;
    this.#schedule();
    this.show("start");
    this.refreshList();
  }

  /** Reads the tournament on screen again (not while a game is: it is read when shown). */
  async reload() {
    if (!this.#onScreen()) return;
    const id = this.current.tournament_id;
    try {
      const found = await api.getTournament(id);
      if (this.current?.tournament_id !== id) return; // another one opened meanwhile
      this.current = found;
      if (this.#onScreen()) this.render(found);
    } catch {
      // Shown as it was; the next event or look reads it again.
    }
  }

  /** Reads the running tournament on screen again after a while, for the other tables. */
  #schedule() {
    clearTimeout(this.timer);
    if (!this.#onScreen() || this.current.status !== "running" || document.hidden) return;
    this.timer = setTimeout(() => this.reload(), OTHER_TABLES_MS);
  }

  render(t) {
    const me = this.player.profile?.player_id ?? null;
    const names = new Map(t.entrants.map((e) => [e.player_id, e.name]));
    const name = (id) => (id === me ? `${names.get(id)} (you)` : names.get(id) ?? id);
    $("tournament").dataset.status = t.status;
    $("tournament").dataset.tournamentId = t.tournament_id;
    $("tournament-name").textContent = t.name;
    document.title = `${t.name} · Three Thirteen`;
    say($("tournament-status"), statusLine(t));
    $("tournament-facts").textContent = facts(t);
    this.#renderEntry(t, me);
    $("tournament-entrants").replaceChildren(
      ...(t.entrants.length ? t.entrants.map((e) => listItem(name(e.player_id))) : [noteItem("Nobody yet.")]),
    );
    renderStandings(t, name, me);
    renderCrosstable(t, name);
    this.#renderRounds(t, name, me);
    this.#schedule();
  }

  #renderEntry(t, me) {
    const entered = t.entrants.some((e) => e.player_id === me);
    const open = t.status === "open" && t.open_registration && this.player.signedIn;
    $("tournament-entry").hidden = !open;
    $("tournament-join").hidden = entered;
    $("tournament-leave").hidden = !entered;
  }

  #renderRounds(t, name, me) {
    const rounds = $("tournament-rounds");
    rounds.replaceChildren();
    if (!t.rounds.length) rounds.append(paragraph("No round is paired yet."));
    for (const round of [...t.rounds].reverse()) {
      const box = document.createElement("section");
      box.className = "tournament-round";
      box.dataset.round = String(round.round);
      const title = document.createElement("h4");
      title.textContent = `Round ${round.round}: ${round.status === "finished" ? "finished" : "playing"}`;
      const tables = document.createElement("ul");
      for (const pairing of round.pairings) tables.append(this.#table(pairing, name, me));
      box.append(title, tables);
      if (round.byes.length) box.append(paragraph(`Bye: ${round.byes.map(name).join(", ")}.`));
      rounds.append(box);
    }
  }

  #table(pairing, name, me) {
    const item = document.createElement("li");
    item.dataset.gameId = pairing.game_id;
    const seats = pairing.players.map((id, seat) =>
      pairing.scores ? `${name(id)} ${pairing.scores[seat]} (${points(pairing.points[seat])})` : name(id),
    );
    item.append(`Table ${pairing.table + 1}: ${seats.join(", ")}${pairing.scores ? "" : " · playing"}`);
    const seat = pairing.players.indexOf(me);
    const button = document.createElement("button");
    button.type = "button";
    if (seat >= 0 && !pairing.scores) {
      button.textContent = "Play your game";
      button.className = "primary";
      button.addEventListener("click", () => this.onPlay({ gameId: pairing.game_id, seat }));
    } else {
      button.textContent = pairing.scores ? "Watch the game again" : "Watch the game";
      button.setAttribute("aria-label", `${button.textContent}: table ${pairing.table + 1}`);
      button.addEventListener("click", () => this.onWatch(pairing.game_id));
    }
    item.append(button);
    return item;
  }

  async #entry(change) {
    if (!this.current || !this.player.signedIn) return;
    try {
      this.current = await change(this.player.key, this.current.tournament_id);
      this.render(this.current);
      this.onProblem(null);
    } catch (error) {
      this.onProblem(error);
    }
  }

  async #create(form) {
    const problem = $("tournament-create-problem");
    problem.hidden = true;
    const body = requestOf(form, this.player.profile.player_id);
    if (!body.name) {
      showFormProblem(problem, "Give the tournament a name.", form.elements.name);
      return;
    }
    if (body.entrants && body.entrants.length < body.table_size) {
      showFormProblem(problem, `Choose bots enough for a table of ${body.table_size}.`, form.elements.bot[0]);
      return;
    }
    try {
      const made = await api.createTournament(this.player.key, body);
      form.reset();
      quickIsUnrated(form);
      await this.open(made.tournament_id);
    } catch (error) {
      showFormProblem(problem, error.message, null);
    }
  }
}

/** The body of POST /v1/tournaments from the form. */
function requestOf(form, me) {
  const f = form.elements;
  const quick = f.quick.checked;
  const bots = [...f.bot].filter((box) => box.checked).map((box) => `bot-${box.value}`);
  const named = form.querySelector("input[name=entry]:checked").value === "named";
  return {
    name: f.name.value.trim(),
    format: f.format.value,
    rounds: f.rounds.value ? Number(f.rounds.value) : null,
    table_size: Number(f.table_size.value),
    rules: quick ? { preset: f.rules.value, jokers: QUICK_JOKERS } : f.rules.value,
    turn_seconds: Number(f.turn_seconds.value),
    duplicate: f.duplicate.checked,
    rated: !quick && f.rated.checked,
    entrants: named ? [me, ...bots] : null,
  };
}

/** A preset's own rules only are rated: the quick ones untick and disable "Rated". */
function quickIsUnrated(form) {
  const quick = form.elements.quick.checked;
  form.elements.rated.disabled = quick;
  if (quick) form.elements.rated.checked = false;
}

function showFormProblem(problem, text, field) {
  problem.textContent = text;
  problem.hidden = false;
  field?.focus();
}

function renderStandings(t, name, me) {
  const rows = t.standings.map((s) => {
    const tr = document.createElement("tr");
    tr.dataset.playerId = s.player_id;
    if (s.player_id === me) tr.setAttribute("aria-current", "true");
    const cells = [s.rank, name(s.player_id), points(s.points), points(s.buchholz), s.wins, s.total, s.games, s.byes];
    for (const value of cells) tr.append(cell("td", String(value)));
    return tr;
  });
  $("tournament-standings-rows").replaceChildren(...rows);
}

function renderCrosstable(t, name) {
  const table = $("tournament-crosstable");
  const caption = document.createElement("caption");
  caption.id = "tournament-crosstable-caption";
  caption.className = "visually-hidden";
  caption.textContent = "Crosstable: each entrant's result in each round";
  const head = document.createElement("tr");
  head.append(cell("th", "Player", "col"), ...t.rounds.map((r) => cell("th", `Round ${r.round}`, "col")));
  const thead = document.createElement("thead");
  thead.append(head);
  const tbody = document.createElement("tbody");
  for (const row of t.crosstable) {
    const tr = document.createElement("tr");
    tr.append(cell("th", name(row.player_id), "row"));
    for (const result of row.results) tr.append(cell("td", crossResult(result, name)));
    tbody.append(tr);
  }
  table.replaceChildren(caption, thead, tbody);
}

function crossResult(result, name) {
  if (result.bye) return result.points === null ? "bye" : `bye · ${points(result.points)}`;
  const against = `v ${result.opponents.map(name).join(", ")}`;
  if (result.place === null) return `${against} · playing`;
  return `${ordinal(result.place)} ${against} · ${points(result.points)}`;
}

function statusLine(t) {
  if (t.status === "open") return `Open for entries until ${when(t.starts_at)}.`;
  if (t.status === "running") {
    return `Running: round ${t.rounds.length} of ${t.planned_rounds}.`;
  }
  if (t.note) return `Finished: ${t.note}.`;
  const winner = t.standings[0];
  return winner ? `Finished: ${t.entrants.find((e) => e.player_id === winner.player_id)?.name ?? winner.player_id} wins.` : "Finished.";
}

function facts(t) {
  const preset = PRESETS[t.rules.preset] ?? t.rules.preset;
  const jokers = t.rules.jokers ? ` with ${counted(t.rules.jokers, "joker")}` : "";
  const parts = [
    FORMATS[t.format],
    `${preset} rules${jokers}`,
    `tables of ${t.table_size}`,
    t.duplicate ? "duplicate deals" : null,
    t.rated ? "rated" : "unrated",
    `${t.turn_seconds} s a turn`,
  ];
  return `${parts.filter(Boolean).join(" · ")}.`;
}

/** What a `tournament_*` event says to the entrant. */
function news(event) {
  if (event.type === "tournament_finish") return `The tournament is over: you placed ${ordinal(event.place)}.`;
  if (event.type !== "tournament_round") return "";
  return event.game_id ? `Round ${event.round}: your table is ready.` : `Round ${event.round}: you have a bye.`;
}

function gamesOf(t) {
  return new Set(t.rounds.flatMap((r) => r.games));
}

function cell(kind, text, scope = null) {
  const element = document.createElement(kind);
  element.textContent = text;
  if (scope) element.scope = scope;
  return element;
}

function listItem(text) {
  const item = document.createElement("li");
  item.textContent = text;
  return item;
}

function noteItem(text) {
  const item = listItem(text);
  item.className = "note";
  return item;
}

function paragraph(text) {
  const p = document.createElement("p");
  p.className = "note";
  p.textContent = text;
  return p;
}

function say(element, text) {
  if (element.textContent !== text) element.textContent = text;
}

const points = (value) => (Number.isInteger(value) ? String(value) : value.toFixed(1));
const counted = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;
const ordinal = (n) => `${n}${n === 1 ? "st" : n === 2 ? "nd" : n === 3 ? "rd" : "th"}`;

function when(iso) {
  return new Date(iso).toLocaleString([], { dateStyle: "medium", timeStyle: "short" });
}
