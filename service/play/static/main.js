// The play page: one person's seat, from the start screen to the end of the game and the rematch.
//
// How the API is used, in order: create a table (POST /v1/games) or claim a seat by its invite
// code (POST /v1/invites/{code}); keep the seat's token; ask for a stream URL (POST
// .../stream-url) and follow it with an EventSource; draw every view from the newest `version`
// seen (seat.js); act by posting entries of the view's `legal` as they are; lay the hand out with
// POST /v1/analyse; ask GET .../hint; when finished, POST .../rematch and GET .../review.
//
// Signed in as a player (player.js: a key kept in this browser, the player's own stream), the
// start screen lists the player's games (mygames.js), offers challenges and quick play
// (matchmaking.js), and a game of the player's is played with the key where a seat token went.
//
// The modules: api.js (the routes), seat.js (token, stream, newest view), start.js (the start
// screen), player.js, signin.js (making a player, signing in and out), mygames.js,
// matchmaking.js, board.js (players, piles, actions), hand.js, results.js (round results, score
// table), chart.js, narration.js (words), cards.js, call.js (a speed game's call), review.js (a
// finished game's review), tournaments.js (the tournaments, and a tournament's screen).

import * as api from "./api.js";
import { renderActions, renderPiles, renderPlayers, renderRoundInfo } from "./board.js";
import { renderCall } from "./call.js";
import { rankName } from "./cards.js";
import { renderChart } from "./chart.js";
import { enableHandKeys, renderHand } from "./hand.js";
import { setUpLeaderboard } from "./leaderboard.js";
import { Matchmaking } from "./matchmaking.js";
import { MyGames } from "./mygames.js";
import { counted, describeHint, describeMove, isOntoOtherPile, seatName, turnLine } from "./narration.js";
import { Player } from "./player.js";
import { renderRoundResult, renderScoreTable } from "./results.js";
import { offerReview } from "./review.js";
import { Seat } from "./seat.js";
import { setUpSignIn } from "./signin.js";
import { setUpStart } from "./start.js";
import { Tournaments } from "./tournaments.js";

const $ = (id) => document.getElementById(id);
const MOVES_SHOWN = 12;
/** How far back the log is read for moves made before the stream was followed: enough for the
 * list's twelve even in a speed game, whose every choice is an entry (`chosen`) not listed. */
const LOG_LOOKBACK = 200;

/** Live regions are written only when their words change, so nothing is announced twice. */
function say(element, text) {
  if (element.textContent !== text) element.textContent = text;
}

const player = new Player();
let myGames = null; // the start screen's list of the player's games (mygames.js)
let tournaments = null; // the tournaments' list and screen (tournaments.js)
let fromTournament = null; // the tournament whose page opened the game on screen, if any

const state = {
  seat: null,
  analysis: null, // {key, result}: the analyser's answer for the hand `key`
  hint: null, // {key, advice}: the hint for the turn or call `hintKey` names (advice null: none)
  actedOn: null, // the version an action on its way was chosen from: clicks on it are repeats
  inFlight: 0, // actions on their way
  shownRound: null, // the last round whose result was announced
  pastRounds: [], // every round result this page has seen, in order (a view holds the last only)
  reviewFor: null,
  lastCallEnd: null, // the newest streamed `call_end` entry of a speed game
  wentOut: { round: null, seats: [] }, // the seats seen going out in a speed game's round
  listed: null, // the newest version the moves list has taken (null: the log not read yet)
  moves: Promise.resolve(), // the moves list's log reads, and the entries streamed meanwhile
  queued: 0, // how many of those are still to run
  drawn: null, // the card this seat drew last, until it discards
};

function show(screen) {
  $("app").dataset.screen = screen;
  for (const id of ["start", "waiting", "game", "tournament"]) $(id).hidden = id !== screen;
  const atGame = screen === "game" || screen === "waiting";
  $("leave").hidden = !atGame || Boolean(state.seat?.watching);
  $("to-tournament").hidden = !atGame || !fromTournament;
  // A player's games stay theirs: back to the list without leaving this one.
  $("to-my-games").hidden = screen === "start" || !player.signedIn;
}

/** Opens a game from a tournament's page: to play the player's seat, or to watch. */
function openFromTournament(tournamentId, seat) {
  fromTournament = tournamentId;
  takeSeat(seat);
}

function backToTournament() {
  const id = fromTournament;
  forgetSeat();
  if (id) tournaments.open(id);
}

function showProblem(error) {
  const problem = $("problem");
  problem.textContent = error ? error.message : "";
  problem.hidden = !error;
}

// -- a seat ------------------------------------------------------------------------------------

async function takeSeat(seat) {
  state.seat?.stop();
  Object.assign(state, {
    seat, analysis: null, hint: null, shownRound: null, pastRounds: [], reviewFor: null, actedOn: null,
    lastCallEnd: null, wentOut: { round: null, seats: [] }, listed: null, drawn: null,
  });
  $("moves").replaceChildren();
  $("earlier-rounds-body").replaceChildren();
  seat.save();
  seat.addEventListener("view", (e) => seat === state.seat && draw(render, e.detail));
  seat.addEventListener("move", (e) => seat === state.seat && takeMove(seat, e.detail));
  // A stream starts with a snapshot: the moves made before it (a reload; a rematch its bots
  // began before this page switched to it) come from the log.
  seat.addEventListener("snapshot", (e) => seat === state.seat && queueMoves(() => catchUpMoves(seat, e.detail)));
  seat.addEventListener("connection", (e) => seat === state.seat && showConnection(e.detail));
  showProblem(null);
  if (seat.view) draw(render, seat.view);
  try {
    await seat.refresh();
    queueMoves(() => catchUpMoves(seat, seat.view.version)); // a finished game opens no stream
    await seat.follow();
  } catch (error) {
    if (error instanceof api.ApiError && [401, 404].includes(error.status)) {
      forgetSeat(); // an expired game, or a seat left from another tab
      return;
    }
    showProblem(error);
  }
}

function forgetSeat() {
  state.seat?.stop();
  state.seat = null;
  fromTournament = null;
  Seat.forget();
  const app = $("app");
  for (const key of ["status", "version", "gameId", "act", "wild", "call", "chosen"]) delete app.dataset[key];
  document.title = "Three Thirteen";
  show("start");
  myGames?.refresh(); // read while the game was on screen is skipped: read now
}

/** Opens a game of the player's (from the list, a challenge or quick play): its seat is acted
 * for with the player's key. */
function openMine({ gameId, seat }) {
  if (!player.signedIn) return;
  if (state.seat?.gameId === gameId && state.seat.byKey) return;
  takeSeat(new Seat({ gameId, seat, token: player.key, byKey: true }));
}

/**
 * Posts a legal entry of the view on screen. A second click on the same view (a double click)
 * is dropped; a click on a newer view is not, even before the last action's answer is back:
 * the stream often shows the action's effect first.
 */
async function perform(entry) {
  const version = state.seat?.view?.version;
  if (!entry || state.actedOn === version) return;
  state.actedOn = version;
  state.inFlight += 1;
  $("app").dataset.busy = "true";
  try {
    await state.seat.act(entry);
    showProblem(null);
  } catch (error) {
    showProblem(error);
    state.seat.refresh().catch(() => {});
  } finally {
    if (state.actedOn === version) state.actedOn = null;
    state.inFlight -= 1;
    if (!state.inFlight) delete $("app").dataset.busy;
  }
}

function showConnection(status) {
  const words = { live: "", lost: "Reconnecting…", closed: "" };
  $("connection").textContent = words[status] ?? "";
}

// -- drawing a view ----------------------------------------------------------------------------

/**
 * Whether a pointer is pressed on the page, and whether a view waits for its release. A button
 * drawn anew between the press and the release of a click gets no click (the press went to the
 * button it replaced), and views come at any moment: another seat's move, the stream's snapshot,
 * the hand's analysis. So nothing is drawn while a pointer is down; the seat's newest view is
 * drawn once it is released, after the click that release makes.
 */
const press = { down: false, missed: false };

/** Draws `view` with `drawer` (`render`, or `renderTable` for the table alone) unless a pointer
 * is pressed; then the newest view is drawn whole once it is released. */
function draw(drawer, view) {
  if (press.down) press.missed = true;
  else drawer(view);
}

function watchPresses() {
  document.addEventListener("pointerdown", () => { press.down = true; }, true);
  for (const type of ["pointerup", "pointercancel"]) document.addEventListener(type, released, true);
  window.addEventListener("blur", released); // a release the page may not see
}

function released() {
  press.down = false;
  if (!press.missed) return;
  press.missed = false;
  // A timer's task runs after the release's own (pointerup, mouseup, then click).
  setTimeout(() => state.seat?.view && render(state.seat.view));
}

function render(view) {
  const app = $("app");
  Object.assign(app.dataset, {
    status: view.status,
    version: view.version,
    gameId: view.game_id,
    act: [...new Set((view.legal ?? []).map((e) => e.type))].join(" "),
    wild: view.wild ?? "",
    // A speed game's open call, `round:number:phase`, and whether this seat has chosen in it.
    call: view.call ? `${view.round}:${view.call.number}:${view.call.phase}` : "",
    chosen: view.call?.choice ? "true" : "false",
  });
  if (view.status === "waiting") {
    renderWaiting(view);
    return;
  }
  show("game");
  document.title = `${titleOf(view)} · Three Thirteen`;
  say($("turn"), turnLine(view));
  renderRoundInfo($("round-info"), view);
  renderCall($("call"), view, state.lastCallEnd);
  renderPlayers($("players"), view, state.wentOut.round === view.round ? state.wentOut.seats : []);
  renderTable(view);
  renderRoundOver(view);
  renderScoreTable($("score-table"), view);
  renderChart($("score-chart"), view);
  renderFinal(view);
  if (view.hand) analyseHand(view);
}

function titleOf(view) {
  if (!(view.legal ?? []).length) return `Round ${view.round}`;
  if (!view.call) return "Your turn";
  return view.call.choice ? "Chosen" : "Your call";
}

/** A hint holds for one turn, or for one call of a speed game (other seats' choices in it each
 * make a version). */
function hintKey(view) {
  return view.call ? `${view.round}:${view.call.number}` : `${view.version}`;
}

/** The parts that change with the hand's analysis and the hint as well as with the view. */
function renderTable(view) {
  const playing = view.status === "playing";
  for (const id of ["piles", "hand", "actions"]) $(id).hidden = !playing;
  if (!playing) return;
  const held = state.hint?.key === hintKey(view) ? state.hint : null;
  const hint = held?.advice ?? null;
  const key = handKey(view);
  const analysis = state.analysis?.key === key ? state.analysis.result : null;
  // A click on a card discards it onto the seat's own pile; a joker onto another seat's pile is
  // a button of its own (board.js).
  const discards = new Map(
    (view.legal ?? [])
      .filter((e) => e.type === "discard" && !e.go_out && !isOntoOtherPile(view, e))
      .map((e) => [e.card, e]),
  );
  const choice = view.call?.choice;
  const chosenCard = choice?.type === "discard" && !choice.go_out && !isOntoOtherPile(view, choice)
    ? choice.card
    : null;
  renderPiles($("piles"), view, { onAct: perform, hint: hint?.phase === "draw" ? hint : null });
  renderHand($("hand"), {
    hand: view.hand ?? [],
    arrangement: analysis,
    wild: view.wild,
    discards,
    onDiscard: perform,
    hinted: hint?.phase === "discard" ? hint.suggested : null,
    chosen: chosenCard,
    // Marked while the seat is to discard (in turns, or a speed game's discard call).
    drawn: discards.size && view.hand?.includes(state.drawn) ? state.drawn : null,
  });
  renderActions($("go-out"), $("other-actions"), view, { analysis, onAct: perform });
  $("hint-button").disabled = !(view.legal ?? []).length;
  if (!held) say($("hint"), ""); // the advice, or why there is none, holds for its turn or call
}

function handKey(view) {
  return `${view.game_id}:${view.round}:${view.wild}:${(view.hand ?? []).join(",")}`;
}

async function analyseHand(view) {
  const key = handKey(view);
  if (state.analysis?.key === key || !view.hand?.length) return;
  state.analysis = { key, result: null };
  try {
    const result = await api.analyse(view.hand, view.wild, view.rules);
    if (state.analysis?.key !== key) return; // the hand moved on meanwhile
    state.analysis = { key, result };
    const current = state.seat?.view;
    if (current && handKey(current) === key) draw(renderTable, current);
  } catch {
    // The hand stays in one sorted row; playing does not need the analysis.
  }
}

async function askHint() {
  const view = state.seat?.view;
  if (!view) return;
  const output = $("hint");
  output.classList.remove("unavailable");
  output.textContent = "Thinking…";
  try {
    const advice = await api.getHint(view.game_id, state.seat.token);
    state.hint = { key: hintKey(view), advice };
    describeHint(view, advice).write(output);
    if (hintKey(state.seat.view) === state.hint.key) draw(renderTable, state.seat.view);
  } catch (error) {
    // A 409 is no fault (off turn, or a game with no hint for this moment): said quietly.
    state.hint = { key: hintKey(view), advice: null };
    output.classList.toggle("unavailable", error instanceof api.ApiError && error.status === 409);
    output.textContent = error.message;
  }
}

function renderWaiting(view) {
  show("waiting");
  document.title = "Waiting for players · Three Thirteen";
  const code = view.invite_code;
  // A rematch has no open seat: it waits for every person of the last game to ask for it.
  const rematch = !code && !view.players.some((p) => p.open);
  $("waiting-title").textContent = rematch
    ? "Waiting for the other players to ask for the rematch"
    : "Waiting for players";
  $("invite").hidden = !code;
  if (code) {
    $("invite-code").textContent = code;
    const link = `${location.origin}/play?code=${encodeURIComponent(code)}`;
    $("invite-link").href = link;
    $("invite-link").textContent = link;
    const qr = `/v1/invites/${encodeURIComponent(code)}/qr`;
    if ($("invite-qr").getAttribute("src") !== qr) $("invite-qr").src = qr;
  }
  const seats = $("waiting-seats");
  seats.replaceChildren();
  for (const player of view.players) {
    const item = document.createElement("li");
    item.className = player.open ? "open" : "taken";
    const who = player.seat === view.seat ? `${player.name} (you)` : player.name;
    item.textContent = `Seat ${player.seat + 1}: ${player.open ? "waiting for someone to join" : who}`;
    if (player.bot) item.textContent += ` (${player.bot} bot)`;
    seats.append(item);
  }
}

/** A new round result is announced once, and the result panel marked fresh until the next. */
function renderRoundOver(view) {
  const result = view.last_round;
  $("round-result").hidden = !result;
  $("news").hidden = !result;
  if (!result) return;
  const seen = state.pastRounds.at(-1);
  if (!seen || JSON.stringify(seen) !== JSON.stringify(result)) state.pastRounds.push(result);
  renderRoundResult($("round-result-body"), view, result);
  if ($("earlier-rounds-body").childElementCount !== state.pastRounds.length - 1) {
    renderEarlierRounds(view);
  }
  if (state.shownRound !== result.round) {
    // Fresh (highlighted) when it ended while this page watched, not on a page (re)load.
    $("round-result").classList.toggle("fresh", state.shownRound !== null);
    state.shownRound = result.round;
  }
  const mine = result.results.find((r) => r.seat === view.seat);
  const out = result.out_seat == null ? "" : `${seatName(view, result.out_seat)} went out; `;
  const next = view.status === "playing" && view.wild ? ` Now ${rankName(view.wild, true)} are wild.` : "";
  say($("news"), `Round ${result.round}: ${out}you scored ${mine?.points ?? 0}.${next}`);
}

function renderEarlierRounds(view) {
  const earlier = state.pastRounds.slice(0, -1).reverse();
  $("earlier-rounds").hidden = !earlier.length;
  const body = $("earlier-rounds-body");
  body.replaceChildren();
  for (const result of earlier) {
    const box = document.createElement("div");
    box.className = "earlier-round";
    renderRoundResult(box, view, result);
    body.append(box);
  }
}

function renderFinal(view) {
  const finished = view.status === "finished";
  $("final").hidden = !finished;
  if (!finished) return;
  $("rematch").hidden = Boolean(state.seat?.watching); // a rematch is for the seats
  const winners = (view.winners ?? []).map((s) => seatName(view, s));
  const best = Math.min(...view.players.map((p) => p.score));
  const verb = winners.length === 1 && winners[0] !== "You" ? "wins" : "win";
  $("winners").textContent = `${winners.join(" and ")} ${verb} with ${counted(best, "point")}.`;
  if (state.reviewFor !== view.game_id) {
    state.reviewFor = view.game_id;
    offerReview($("review"), view);
  }
}

/**
 * A speed game's call ended: its result is shown under the next call, and the seats that went
 * out on it are no longer asked to choose in the round's last calls. `after` is the view
 * streamed with the entry: the round goes on when it opens the next call (a call on which every
 * seat went out ends the round; a catch-up's newer view says nothing).
 */
function noteCallEnd(entry, after) {
  state.lastCallEnd = entry;
  const out = entry.action.moves.filter((m) => m.action.go_out).map((m) => m.seat);
  if (!out.length || after?.call?.number !== entry.action.number + 1) return;
  const seats = state.wentOut.round === after.round ? state.wentOut.seats : [];
  state.wentOut = { round: after.round, seats: [...seats, ...out] };
}

/** The moves list's log reads run in order, and a streamed entry waits for those before it. */
function queueMoves(work) {
  state.queued += 1;
  state.moves = state.moves
    .then(work)
    .catch(() => {
      // A log that cannot be read leaves the list short; the stream's next entries still come.
    })
    .finally(() => { state.queued -= 1; });
}

/**
 * A streamed entry: listed at once when it follows the list's newest (before its view is drawn,
 * so a speed game's call shows the result of the one before); otherwise after the entries
 * between them (which the stream did not bring: it was opened after them) are read from the log.
 */
function takeMove(seat, { entry, view: after }) {
  if (!state.queued && state.listed != null && entry.version <= state.listed + 1) {
    listMove(entry, after);
    return;
  }
  queueMoves(async () => {
    await catchUpMoves(seat, entry.version - 1);
    if (seat === state.seat) listMove(entry, after);
    if (seat === state.seat && seat.view) draw(render, seat.view);
  });
}

/** Lists the log's entries up to version `through` that the list has not taken. */
async function catchUpMoves(seat, through) {
  if (seat !== state.seat) return;
  const since = state.listed ?? Math.max(0, through - LOG_LOOKBACK);
  if (through > since) {
    const log = await api.getLog(seat.gameId, seat.token, since);
    if (seat !== state.seat) return;
    const before = state.listed;
    for (const entry of log.entries) if (entry.version <= through) listMove(entry, null);
    // A speed game's last call result, read here, is shown under the call.
    if (state.listed !== before && seat.view) draw(render, seat.view);
  }
  state.listed = Math.max(state.listed ?? 0, through);
}

/** One entry into the moves list, newest first, unless the list has it already (a stream that
 * resumed sends again what the log gave). `after` is the view streamed with it, or null. */
function listMove(entry, after) {
  const view = state.seat?.view;
  if (!view || (state.listed != null && entry.version <= state.listed)) return;
  state.listed = entry.version;
  noteDrawn(entry, view);
  // A speed game's list holds the calls' results: a choice is only a pending one (who has chosen
  // is shown beside each player).
  if (view.rules?.turns === "speed" && entry.action.type !== "call_end") return;
  if (entry.action.type === "call_end") noteCallEnd(entry, after);
  const item = document.createElement("li");
  describeMove(view, entry).write(item);
  const moves = $("moves");
  moves.prepend(item);
  while (moves.children.length > MOVES_SHOWN) moves.lastChild.remove();
}

/** The card this seat just drew, from its own log entry (its card shows to this seat only), so
 * the hand can mark it until the seat discards. */
function noteDrawn(entry, view) {
  const mine = entry.action.type === "call_end"
    ? entry.action.moves.filter((m) => m.seat === view.seat)
    : [entry].filter((e) => e.seat === view.seat);
  let drawn = state.drawn;
  for (const move of mine) {
    if (move.action.type === "draw") drawn = move.card ?? null;
    else if (move.action.type === "discard") drawn = null;
  }
  if (drawn === state.drawn) return;
  state.drawn = drawn;
  if (state.seat?.view) draw(renderTable, state.seat.view);
}

// -- buttons -----------------------------------------------------------------------------------

async function requestRematch() {
  const seat = state.seat;
  if (!seat) return;
  const button = $("rematch");
  button.disabled = true;
  try {
    const next = await api.rematch(seat.gameId, seat.token);
    // A player's key acts in the rematch too (a rematch keeps the players).
    const token = seat.byKey ? seat.token : next.token;
    const rematched = new Seat({ gameId: next.game_id, token, seat: next.seat, byKey: seat.byKey });
    rematched.accept(next.view);
    await takeSeat(rematched);
  } catch (error) {
    showProblem(error);
  } finally {
    button.disabled = false;
  }
}

async function leaveTable() {
  const seat = state.seat;
  if (!seat) return;
  const playing = seat.view?.status === "playing";
  const question = playing ? "Leave the game? A bot plays your seat to the end." : "Leave this table?";
  if (seat.view?.status !== "finished" && !window.confirm(question)) return;
  seat.stop(); // leaving ends the stream key: no reconnection to a 401
  try {
    if (seat.view?.status !== "finished") await api.leave(seat.gameId, seat.token);
  } catch (error) {
    if (!(error instanceof api.ApiError && [401, 404, 409].includes(error.status))) {
      showProblem(error);
      seat.follow().catch(showProblem);
      return;
    }
  }
  forgetSeat();
}

async function copyInvite() {
  const link = $("invite-link").href;
  try {
    await navigator.clipboard.writeText(link);
    $("copy-invite").textContent = "Copied";
  } catch {
    // No clipboard outside a secure context: select the link for the person to copy.
    getSelection().selectAllChildren($("invite-link"));
  }
}

async function start() {
  watchPresses();
  enableHandKeys($("hand"));
  $("hint-button").addEventListener("click", askHint);
  $("rematch").addEventListener("click", requestRematch);
  $("new-game").addEventListener("click", forgetSeat);
  $("leave").addEventListener("click", leaveTable);
  $("to-my-games").addEventListener("click", forgetSeat);
  $("to-tournament").addEventListener("click", backToTournament);
  $("copy-invite").addEventListener("click", copyInvite);
  player.addEventListener("problem", (e) => showProblem(e.detail));
  setUpSignIn({ player, onProblem: showProblem });
  myGames = new MyGames({ player, onOpen: openMine, currentGame: () => state.seat?.gameId });
  new Matchmaking({ player, onOpen: openMine, onProblem: showProblem });
  setUpStart({ player, onSeat: takeSeat, onProblem: showProblem });
  setUpLeaderboard({ player });
  tournaments = new Tournaments({
    player,
    show,
    onPlay: ({ gameId, seat }) => {
      if (!player.signedIn) return;
      const id = tournaments.current?.tournament_id ?? null;
      openFromTournament(id, new Seat({ gameId, seat, token: player.key, byKey: true }));
    },
    onWatch: (gameId) => {
      const id = tournaments.current?.tournament_id ?? null;
      openFromTournament(id, new Seat({ gameId, seat: null, token: null, watching: true }));
    },
    onProblem: showProblem,
  });
  await player.restore(); // a sign-in link's key, or the one this browser kept
  const saved = Seat.saved(player.key);
  if (saved) takeSeat(saved);
  else show("start");
}

start();
