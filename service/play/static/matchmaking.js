// Challenges and quick play, for a player (the API's "Challenges and matchmaking").
//
// - A challenge to a player by id, to a bot program online (GET /v1/bots/online), or to anyone
//   (an open one): POST /v1/challenges; the person's own challenge waits with a Cancel button
//   until it is declined (`challenge_declined`, with its reason), canceled, expires, or its game
//   is dealt (`game_start` for its `game_id`: the game opens).
// - Challenges to the person come from the player's stream (`challenge`; `challenge_canceled`
//   takes one back) and open ones from GET /v1/challenges: Accept (the game opens, waiting for
//   the others if any) or Decline with a reason.
// - Quick play: POST /v1/seeks; the page waits (Stop looking: DELETE, a 409 once matched) until
//   a `game_start` whose game is the seek's, then opens it.

import * as api from "./api.js";

const $ = (id) => document.getElementById(id);
const PRESETS = { classic: "Classic", online: "Online", "five-crowns": "Five Crowns" };
const DECLINE_REASONS = [
  ["generic", "No, thank you"],
  ["later", "Not now, later"],
  ["rules", "Not these rules"],
  ["rated", "Only rated games"],
  ["casual", "Only casual games"],
  ["too_fast", "Too fast for me"],
  ["too_slow", "Too slow for me"],
  ["not_bots", "I don't play bots"],
  ["only_bots", "I play bots only"],
];
const DECLINED = Object.fromEntries(DECLINE_REASONS);

export class Matchmaking {
  /** `onOpen({gameId, seat})` opens a game; `onProblem(error)` shows an error. */
  constructor({ player, onOpen, onProblem }) {
    this.player = player;
    this.onOpen = onOpen;
    this.onProblem = onProblem;
    this.incoming = new Map(); // challenge_id → a challenge to this player, or an open one
    this.mine = null; // the challenge this page sent, while it waits
    this.seek = null; // the quick play seek, while it waits
    this.timers = new Map(); // what expires → its timer
    this.#wire();
    player.addEventListener("change", () => this.#signedInOrOut());
    player.addEventListener("live", () => this.#listOpen());
    player.addEventListener("event", (e) => this.#heard(e.detail));
    this.#signedInOrOut();
  }

  #wire() {
    const form = $("challenge");
    form.elements.whom.addEventListener("change", () => this.#showWhom());
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.#challenge();
    });
    $("bots-refresh").addEventListener("click", () => this.#listBots());
    $("challenge-cancel").addEventListener("click", () => this.#cancelChallenge());
    $("quick-play").addEventListener("submit", (event) => {
      event.preventDefault();
      this.#seek();
    });
    $("seek-cancel").addEventListener("click", () => this.#cancelSeek());
  }

  #signedInOrOut() {
    $("matchmaking").hidden = !this.player.signedIn;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    this.incoming.clear();
    this.#showMine(null);
    this.#showSeek(null);
    this.#renderIncoming();
    if (!this.player.signedIn) return;
    this.#listBots();
    this.#listOpen();
  }

  // -- the stream ------------------------------------------------------------------------------

  #heard(event) {
    switch (event.type) {
      case "challenge":
        this.#offer(event.challenge);
        say($("challenges-news"), `${event.challenge.challenger.name} challenges you.`);
        break;
      case "challenge_canceled":
        if (this.incoming.delete(event.challenge_id)) {
          this.#renderIncoming();
          say($("challenges-news"), "A challenge to you was canceled.");
        }
        break;
      case "challenge_declined":
        if (this.mine?.challenge_id === event.challenge_id) {
          const words = DECLINED[event.reason] ?? DECLINED.generic;
          this.#showMine(null, `Your challenge was declined: “${words}”.`);
        }
        break;
      case "game_start":
        this.#started(event);
        break;
      default:
    }
  }

  async #started({ game_id: gameId, seat }) {
    if (this.mine?.game_id === gameId) {
      this.#showMine(null, "Your challenge was accepted.");
      this.onOpen({ gameId, seat });
      return;
    }
    if (!this.seek) return;
    // The seek's game: its id is known once the seek is matched.
    const seek = await this.#readSeek();
    if (seek?.game_id === gameId) {
      this.#showSeek(null, "Found a table.");
      this.onOpen({ gameId, seat });
    }
  }

  // -- challenges ------------------------------------------------------------------------------

  #showWhom() {
    $("challenge-player").hidden = $("challenge").elements.whom.value !== "player";
  }

  async #listBots() {
    const select = $("challenge").elements.whom;
    const chosen = select.value;
    let bots = [];
    try {
      ({ bots } = await api.onlineBots());
    } catch {
      // Challenging a person still works; the list is asked for again on request.
    }
    select.replaceChildren(new Option("A player, by their player id", "player"));
    select.add(new Option("Anyone: an open challenge", "open"));
    const group = document.createElement("optgroup");
    group.label = bots.length ? "Bot programs online" : "No bot program is online";
    for (const bot of bots) group.append(new Option(`${bot.name} (bot program)`, `bot:${bot.player_id}`));
    select.add(group);
    if ([...select.options].some((o) => o.value === chosen)) select.value = chosen;
    this.#showWhom();
  }

  async #challenge() {
    const form = $("challenge");
    const whom = form.elements.whom.value;
    const body = { rules: form.elements.rules.value };
    if (form.elements.turn_seconds.value) body.turn_seconds = Number(form.elements.turn_seconds.value);
    if (whom === "open") {
      body.to = null;
    } else if (whom === "player") {
      const input = form.elements.player_id;
      input.value = input.value.trim();
      if (!input.value) {
        input.setCustomValidity("The id of the player to challenge (they see it on their page).");
        input.reportValidity();
        input.setCustomValidity("");
        return;
      }
      body.to = [input.value];
    } else {
      body.to = [whom.slice("bot:".length)];
    }
    const button = form.querySelector("[type=submit]");
    button.disabled = true;
    try {
      const challenge = await api.createChallenge(this.player.key, body);
      this.#showMine(challenge);
      this.onProblem(null);
    } catch (error) {
      this.onProblem(error);
    } finally {
      button.disabled = false;
    }
  }

  /** The person's own challenge while it waits (null: none, and `words` say why it ended). */
  #showMine(challenge, words = "") {
    this.mine = challenge;
    this.#expireAt("mine", challenge?.expires_at, () => this.#showMine(null, "Nobody accepted your challenge in time."));
    $("my-challenge").hidden = !challenge && !words;
    $("challenge-cancel").hidden = !challenge;
    $("challenge").querySelector("[type=submit]").disabled = Boolean(challenge);
    say($("my-challenge-status"), challenge ? `Waiting: ${mineLine(challenge)}` : words);
  }

  async #cancelChallenge() {
    const challenge = this.mine;
    if (!challenge) return;
    try {
      await api.cancelChallenge(this.player.key, challenge.challenge_id);
      this.#showMine(null, "Challenge canceled.");
      $("challenge").querySelector("[type=submit]").focus();
    } catch (error) {
      this.onProblem(error);
    }
  }

  /** Open challenges anyone may accept (GET /v1/challenges), beside the ones to this player. */
  async #listOpen() {
    if (!this.player.signedIn) return;
    try {
      const { challenges } = await api.listChallenges(this.player.key);
      for (const challenge of challenges) this.#offer(challenge, { render: false });
      this.#renderIncoming();
    } catch {
      // Challenges to this player still come from the stream.
    }
  }

  #offer(challenge, { render = true } = {}) {
    if (challenge.status !== "open") return;
    if (challenge.challenger.player_id === this.player.profile?.player_id) return;
    const id = challenge.challenge_id;
    this.incoming.set(id, challenge);
    this.#expireAt(id, challenge.expires_at, () => {
      this.incoming.delete(id);
      this.#renderIncoming();
    });
    if (render) this.#renderIncoming();
  }

  #renderIncoming() {
    const list = $("incoming");
    const focused = list.contains(document.activeElement) ? document.activeElement.dataset.focusKey : null;
    list.replaceChildren();
    if (!this.incoming.size) {
      const item = document.createElement("li");
      item.className = "note";
      item.textContent = "No challenge to you right now.";
      list.append(item);
    }
    for (const challenge of this.incoming.values()) list.append(this.#incomingItem(challenge));
    if (focused) list.querySelector(`[data-focus-key="${focused}"]`)?.focus();
  }

  #incomingItem(challenge) {
    const id = challenge.challenge_id;
    const item = document.createElement("li");
    item.className = "challenge";
    item.dataset.challengeId = id;
    const text = document.createElement("p");
    text.textContent = incomingLine(challenge);
    const accept = button("Accept", `accept:${id}`, () => this.#accept(challenge));
    accept.className = "primary";
    accept.setAttribute("aria-label", `Accept ${challenge.challenger.name}'s challenge`);
    item.append(text, accept);
    if (challenge.to) {
      const reason = document.createElement("select");
      reason.dataset.focusKey = `reason:${id}`;
      reason.setAttribute("aria-label", "Why you decline");
      for (const [value, words] of DECLINE_REASONS) reason.add(new Option(words, value));
      const decline = button("Decline", `decline:${id}`, () => this.#decline(challenge, reason.value));
      decline.setAttribute("aria-label", `Decline ${challenge.challenger.name}'s challenge`);
      item.append(reason, decline);
    }
    return item;
  }

  async #accept(challenge) {
    try {
      const accepted = await api.acceptChallenge(this.player.key, challenge.challenge_id);
      this.incoming.delete(challenge.challenge_id);
      this.#renderIncoming();
      this.onProblem(null);
      this.onOpen({ gameId: accepted.game_id, seat: accepted.seat });
    } catch (error) {
      this.onProblem(error);
      if (error instanceof api.ApiError && [404, 409, 410].includes(error.status)) {
        this.incoming.delete(challenge.challenge_id); // taken back, expired, or full meanwhile
        this.#renderIncoming();
      }
    }
  }

  async #decline(challenge, reason) {
    try {
      await api.declineChallenge(this.player.key, challenge.challenge_id, reason);
      say($("challenges-news"), `You declined ${challenge.challenger.name}'s challenge.`);
    } catch (error) {
      if (!(error instanceof api.ApiError && [404, 409].includes(error.status))) {
        this.onProblem(error);
        return;
      }
    }
    this.incoming.delete(challenge.challenge_id);
    this.#renderIncoming();
    $("incoming").querySelector("button")?.focus();
  }

  // -- quick play ------------------------------------------------------------------------------

  async #seek() {
    const form = $("quick-play");
    const body = { rules: form.elements.rules.value, players: Number(form.elements.players.value) };
    form.querySelector("[type=submit]").disabled = true;
    try {
      const seek = await api.createSeek(this.player.key, body);
      this.onProblem(null);
      if (seek.status === "matched" && seek.game_id) {
        // Matched at once, by the seeks already waiting: its game_start may have come first.
        this.#showSeek(null, "Found a table.");
        this.#openMatched(seek.game_id);
        return;
      }
      this.#showSeek(seek);
      $("seek-cancel").focus();
    } catch (error) {
      form.querySelector("[type=submit]").disabled = false;
      this.onProblem(error);
    }
  }

  #showSeek(seek, words = "") {
    this.seek = seek;
    this.#expireAt("seek", seek?.expires_at, () => this.#seekExpired());
    $("quick-play").querySelector("[type=submit]").disabled = Boolean(seek);
    $("seek").hidden = !seek && !words;
    $("seek-cancel").hidden = !seek;
    $("quick-play").dataset.seeking = seek ? "true" : "false";
    const table = seek ? `${PRESETS[seek.preset] ?? seek.preset}, ${seek.players} players` : "";
    say($("seek-status"), seek ? `Looking for a table (${table})…` : words);
  }

  async #readSeek() {
    const seek = this.seek;
    if (!seek) return null;
    try {
      return await api.getSeek(this.player.key, seek.seek_id);
    } catch {
      return null;
    }
  }

  async #seekExpired() {
    const seek = await this.#readSeek();
    if (seek?.status === "matched" && seek.game_id) return; // its game_start opens it
    this.#showSeek(null, "Nobody was found in time: try again, or another table size.");
  }

  async #cancelSeek() {
    const seek = this.seek;
    if (!seek) return;
    try {
      await api.cancelSeek(this.player.key, seek.seek_id);
      this.#showSeek(null, "Stopped looking.");
      $("quick-play").querySelector("[type=submit]").focus();
    } catch (error) {
      if (!(error instanceof api.ApiError && error.status === 409)) {
        this.onProblem(error);
        return;
      }
      // Matched meanwhile: the game is the person's now, and opens.
      const matched = await this.#readSeek();
      if (matched?.game_id) {
        this.#showSeek(null, "Found a table just now.");
        this.#openMatched(matched.game_id);
      }
    }
  }

  /** A matched game whose `game_start` was already heard: its seat from the player's list. */
  async #openMatched(gameId) {
    try {
      const { games } = await api.myGames(this.player.key, { limit: 20 });
      const game = games.find((g) => g.game_id === gameId);
      if (game) this.onOpen({ gameId, seat: game.seat });
    } catch (error) {
      this.onProblem(error);
    }
  }

  /** Calls `then` at `iso` (a challenge's or a seek's `expires_at`), replacing `what`'s timer. */
  #expireAt(what, iso, then) {
    clearTimeout(this.timers.get(what));
    this.timers.delete(what);
    if (!iso) return;
    const ms = Math.max(0, new Date(iso).getTime() - Date.now());
    this.timers.set(what, setTimeout(then, ms));
  }
}

function rulesLine(challenge) {
  const preset = PRESETS[challenge.preset] ?? challenge.preset;
  const speed = challenge.turns === "speed" ? ", speed" : "";
  const clock = challenge.turn_seconds ? `, ${challenge.turn_seconds} s a turn` : "";
  const bots = challenge.bots?.length ? `, with ${challenge.bots.map((b) => `a ${b} bot`).join(", ")}` : "";
  const rated = challenge.rated ? ", rated" : "";
  return `${preset}${speed}${clock}${bots}${rated}`;
}

function incomingLine(challenge) {
  const who = challenge.challenger.name;
  if (!challenge.to) return `${who} is looking for players: ${rulesLine(challenge)}.`;
  const others = challenge.to.length > 1 ? ` (and ${challenge.to.length - 1} more)` : "";
  return `${who} challenges you${others}: ${rulesLine(challenge)}.`;
}

function mineLine(challenge) {
  if (!challenge.to) return `an open challenge (${rulesLine(challenge)}), for anyone to accept.`;
  const names = challenge.to.map((p) => p.name).join(", ");
  return `your challenge to ${names} (${rulesLine(challenge)}).`;
}

function button(text, focusKey, onClick) {
  const element = document.createElement("button");
  element.type = "button";
  element.textContent = text;
  element.dataset.focusKey = focusKey;
  element.addEventListener("click", onClick);
  return element;
}

/** Live regions are written only when their words change, so nothing is announced twice. */
function say(element, text) {
  if (element.textContent !== text) element.textContent = text;
}
