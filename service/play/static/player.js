// The player this browser plays as: one key for every game (docs/players.md), kept in local
// storage, sent only as Authorization (never in a URL the page requests, never written into the
// page but once, when it is made), and the player's own event stream across games.
//
// Events dispatched: "change" (signed in or out; detail: the profile or null), "event" (detail:
// an event of the player's stream: `game_start`, `your_turn`, `game_finish`, `challenge`,
// `challenge_canceled`, `challenge_declined`, `tournament_round`, `tournament_finish`), "live" (the stream opened, or opened again: what
// it would have said meanwhile may be missed, so lists are read again), "problem" (detail: an
// Error to show).

import * as api from "./api.js";

const KEY_STORAGE = "three-thirteen-player-key";
const FRAGMENT = "#key=";
const RETRY_MS = [1000, 2000, 5000, 10000];
export const STREAM_EVENTS = [
  "game_start",
  "your_turn",
  "game_finish",
  "challenge",
  "challenge_canceled",
  "challenge_declined",
  "tournament_round",
  "tournament_finish",
];

export class Player extends EventTarget {
  constructor() {
    super();
    this.key = null;
    this.profile = null; // {player_id, name, bot, created, games}
    this.source = null;
    this.retries = 0;
    this.retryTimer = null;
    this.generation = 0; // bumped by stop(): a follow() under way then opens nothing
  }

  get signedIn() {
    return this.key !== null;
  }

  /**
   * On load: a key in the address's fragment (a sign-in link, `/play#key=ttp_…`) signs in, and
   * the fragment leaves the address bar at once (so it is neither bookmarked nor shared with
   * the address); else the key this browser kept. Checked with GET /v1/players/me.
   */
  async restore() {
    const linked = takeKeyFromFragment();
    if (linked) {
      try {
        await this.signIn(linked);
      } catch (error) {
        this.#problem(keyProblem(error, "The sign-in link's key"));
      }
      if (this.signedIn) return;
    }
    const kept = localStorage.getItem(KEY_STORAGE);
    if (!kept) return;
    try {
      await this.signIn(kept);
    } catch (error) {
      if (isUnknownKey(error)) {
        this.signOut();
        this.#problem(keyProblem(error, "The key this browser kept"));
        return;
      }
      // The service is out of reach: the key is kept, and signs in on the next load.
      this.#problem(error);
    }
  }

  /** Makes a player named `name` and signs in with its key; answers what POST /v1/players
   * answered (the key in it is shown once, by the caller). */
  async create(name) {
    const made = await api.createPlayer(name);
    const { key, ...profile } = made;
    this.#signedIn(key, { ...profile, games: 0 });
    return made;
  }

  /** Signs in with `key` once GET /v1/players/me takes it; an ApiError (a 401 for a key no
   * player holds) otherwise, and nothing changes. */
  async signIn(key) {
    const profile = await api.getMe(key);
    this.#signedIn(key, profile);
  }

  #signedIn(key, profile) {
    this.stop();
    this.key = key;
    this.profile = profile;
    localStorage.setItem(KEY_STORAGE, key);
    this.dispatchEvent(new CustomEvent("change", { detail: profile }));
    this.follow();
  }

  /** Forgets the key in this browser (the player and its games stay on the service). */
  signOut() {
    this.stop();
    this.key = null;
    this.profile = null;
    localStorage.removeItem(KEY_STORAGE);
    this.dispatchEvent(new CustomEvent("change", { detail: null }));
  }

  /** The player's stream: an EventSource on the URL of POST /v1/players/me/stream-url (a stream
   * key in its query, which reads this stream only). It reconnects by itself with
   * Last-Event-ID; refused (a 4xx or 5xx), a fresh URL is asked for after a pause. */
  async follow() {
    this.stop();
    const generation = this.generation;
    let url;
    try {
      ({ url } = await api.playerStreamUrl(this.key));
    } catch (error) {
      if (generation !== this.generation) return;
      if (isUnknownKey(error)) {
        this.signOut();
        this.#problem(keyProblem(error, "Your key"));
        return;
      }
      this.#retry();
      return;
    }
    if (generation !== this.generation) return; // signed out or stopped meanwhile
    // Root-relative unless the service has a public URL: opened on this page's own origin.
    const { pathname, search } = new URL(url, location.href);
    const source = new EventSource(pathname + search);
    this.source = source;
    source.addEventListener("open", () => {
      this.retries = 0;
      this.dispatchEvent(new Event("live"));
    });
    for (const type of STREAM_EVENTS) {
      source.addEventListener(type, (e) => {
        this.dispatchEvent(new CustomEvent("event", { detail: JSON.parse(e.data) }));
      });
    }
    source.addEventListener("error", () => {
      if (this.source !== source || source.readyState !== EventSource.CLOSED) return;
      this.#retry();
    });
  }

  #retry() {
    const delay = RETRY_MS[Math.min(this.retries, RETRY_MS.length - 1)];
    this.retries += 1;
    this.retryTimer = setTimeout(() => this.follow(), delay);
  }

  stop() {
    this.generation += 1;
    clearTimeout(this.retryTimer);
    this.source?.close();
    this.source = null;
  }

  /** The sign-in link: this page's address with the key in its fragment, which a browser never
   * sends to a server. For the clipboard only; the page never shows it. */
  signInLink() {
    return `${location.origin}${location.pathname}${FRAGMENT}${this.key}`;
  }

  /** The sign-in link's QR code, an SVG document drawn by the service. */
  signInQr() {
    return api.signInQr(this.key);
  }

  #problem(error) {
    this.dispatchEvent(new CustomEvent("problem", { detail: error }));
  }
}

/** The key of a sign-in link, taken out of the address bar (history.replaceState), or null. */
function takeKeyFromFragment() {
  if (!location.hash.startsWith(FRAGMENT)) return null;
  const key = decodeURIComponent(location.hash.slice(FRAGMENT.length)).trim();
  history.replaceState(history.state, "", location.pathname + location.search);
  return key || null;
}

export function isUnknownKey(error) {
  return error instanceof api.ApiError && error.status === 401;
}

/** A refused key's problem in words a person acts on; any other error as it is. */
export function keyProblem(error, whose) {
  if (!isUnknownKey(error)) return error;
  return new Error(
    `${whose} is not any player's: check that it is complete, or it was replaced by a new one ` +
      "(a replaced key stops working at once).",
  );
}
