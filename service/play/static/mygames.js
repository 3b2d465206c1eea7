// "My games" on the start screen, for a player: GET /v1/players/me/games, newest first, each with
// whose turn it is (the player's own marked), the deadline, the other players, the result. Read
// again whenever the player's stream says something happened in one of them (player.js), when it
// (re)connects, and when the person comes back to the start screen. A click opens the game, its
// seat acted for with the player's key.

import * as api from "./api.js";

const $ = (id) => document.getElementById(id);
const SHOWN = 20;
const PRESETS = { classic: "Classic", online: "Online", "five-crowns": "Five Crowns" };

export class MyGames {
  /** `onOpen({gameId, seat})` opens a game of the player's; `currentGame()` is the id of the
   * game on screen, if any (its turns are not announced here). */
  constructor({ player, onOpen, currentGame }) {
    this.player = player;
    this.onOpen = onOpen;
    this.currentGame = currentGame;
    this.pendingNews = null; // a game whose "your turn" is said once the list shows it
    this.reading = null; // the read under way
    this.again = false; // asked again while a read was under way
    this.games = [];
    $("my-games-refresh").addEventListener("click", () => this.refresh());
    player.addEventListener("change", () => this.#signedInOrOut());
    player.addEventListener("live", () => this.refresh());
    player.addEventListener("event", (e) => this.#heard(e.detail));
    this.#signedInOrOut();
  }

  #signedInOrOut() {
    $("my-games-panel").hidden = !this.player.signedIn;
    $("my-games-news").textContent = "";
    if (!this.player.signedIn) {
      this.games = [];
      $("my-games").replaceChildren();
      delete $("my-games").dataset.loaded;
      return;
    }
    this.refresh();
  }

  #heard(event) {
    if (!["game_start", "your_turn", "game_finish"].includes(event.type)) return;
    this.refresh();
    if (event.type === "your_turn" && event.game_id !== this.currentGame()) {
      this.pendingNews = event.game_id; // said once the list shows the game
    }
  }

  /** Reads the list again; calls made while a read is under way make one more read after it.
   * While a game is on screen the list is not shown: it is read when the start screen is. */
  async refresh() {
    if (!this.player.signedIn || $("start").hidden) return;
    if (this.reading) {
      this.again = true;
      return;
    }
    const key = this.player.key;
    this.reading = api.myGames(key, { limit: SHOWN });
    try {
      const { games } = await this.reading;
      if (key !== this.player.key) return; // signed out or in as another meanwhile
      this.games = games;
      this.#render();
    } catch (error) {
      $("my-games").replaceChildren(note(`Your games could not be read: ${error.message}`));
    } finally {
      this.reading = null;
      if (this.again) {
        this.again = false;
        this.refresh();
      }
    }
  }

  #render() {
    const list = $("my-games");
    list.replaceChildren();
    list.dataset.loaded = "true";
    if (!this.games.length) {
      list.append(note("No game yet: start one below, or challenge someone."));
    }
    for (const game of this.games) list.append(this.#item(game));
    const news = this.games.find((g) => g.game_id === this.pendingNews && g.my_turn);
    if (news) {
      $("my-games-news").textContent = `Your turn in ${title(news)}.`;
      this.pendingNews = null;
    }
    const waiting = this.games.filter((g) => g.my_turn).length;
    $("my-games-title").textContent = waiting ? `My games (your turn in ${waiting})` : "My games";
  }

  #item(game) {
    const item = document.createElement("li");
    item.className = `my-game ${game.status}`;
    item.classList.toggle("your-turn", game.my_turn);
    item.dataset.gameId = game.game_id;
    item.dataset.myTurn = String(game.my_turn);
    const button = document.createElement("button");
    button.type = "button";
    button.className = "my-game-open";
    const head = document.createElement("span");
    head.className = "my-game-title";
    head.textContent = title(game);
    const state = document.createElement("span");
    state.className = "my-game-state";
    state.textContent = stateLine(game);
    const facts = document.createElement("span");
    facts.className = "my-game-facts";
    facts.textContent = factsLine(game);
    button.append(head, state, facts);
    button.addEventListener("click", () => this.onOpen({ gameId: game.game_id, seat: game.seat }));
    item.append(button);
    return item;
  }
}

/** "Classic with Bob and an easy bot". */
function title(game) {
  const others = game.players.filter((p) => p.seat !== game.seat).map(playerName);
  const preset = PRESETS[game.preset] ?? game.preset;
  const speed = game.turns === "speed" ? " speed" : "";
  return others.length ? `${preset}${speed} with ${joined(others)}` : `${preset}${speed}`;
}

function playerName(player) {
  return player.name ?? "an open seat"; // a bot's name says it is one ("Normal bot 2")
}

function joined(names) {
  return names.length < 2 ? names.join("") : `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
}

/** Whose turn it is, or how the game ended. */
function stateLine(game) {
  if (game.status === "waiting") return "Waiting for players";
  if (game.status === "finished") return result(game);
  const by = game.deadline ? `, by ${clock(game.deadline)}` : "";
  if (game.my_turn) return `Your turn${by}`;
  if (game.turns === "speed") return "The others are choosing";
  const on = game.players.find((p) => p.seat === game.turn);
  return on ? `${on.name}'s turn${by}` : "Playing";
}

function result(game) {
  const winners = (game.winners ?? []).map((seat) => game.players.find((p) => p.seat === seat));
  const mine = game.players.find((p) => p.seat === game.seat);
  const won = (game.winners ?? []).includes(game.seat);
  const names = winners.map((p) => (p.seat === game.seat ? "you" : p.name));
  const who = won && names.length === 1 ? "You won" : `Won by ${joined(names)}`;
  return `Finished: ${who} · you scored ${mine?.score ?? 0}`;
}

function factsLine(game) {
  const round = game.status === "playing" ? `Round ${game.round} of ${game.rounds} · ` : "";
  return `${round}started ${when(game.created)}`;
}

function clock(iso) {
  return new Date(iso).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
}

function when(iso) {
  const date = new Date(iso);
  const today = new Date().toDateString() === date.toDateString();
  return today ? `at ${clock(iso)}` : `on ${date.toLocaleDateString()}`;
}

function note(text) {
  const item = document.createElement("li");
  item.className = "note";
  item.textContent = text;
  return item;
}
