// One person's seat at one game: its token, its private event stream, and the newest view.
// A player's seat (`byKey`) is acted for with the player's key instead, in the same places a
// token goes (docs/players.md): the key acts for every seat its player holds. A game watched
// (`watching`: no token, no seat) reads the public view and follows the public stream.
//
// Views arrive from three places: the answer to an action, the stream's events, and a plain GET
// after a reconnection. Bots move as soon as a person's action is committed, so the answer to
// that action can be older than events the stream has already delivered. Every view carries the
// game's `version`; the seat keeps the highest it has seen and drops anything older.
//
// Events dispatched: "view" (detail: the new view), "move" (detail: {entry, view}: a log entry
// and the view streamed with it, the view of the entry's version but on a catch-up the newest),
// "snapshot" (detail: the version of a stream's snapshot: the actions up to it were not streamed),
// "finished" (detail: {version, winners}), "connection" (detail: "live" | "lost" | "closed").

import * as api from "./api.js";

const STORAGE_KEY = "three-thirteen-seat";
const RETRY_MS = [1000, 2000, 5000, 10000];
// The service ends every stream after a minute or so, and the EventSource reconnects within a
// second: only a reconnection still under way after this long is shown as one.
const LOST_AFTER_MS = 3000;

export class Seat extends EventTarget {
  constructor({ gameId, token, seat, byKey = false, watching = false }) {
    super();
    this.gameId = gameId;
    this.token = token; // the seat's token, or the player's key when `byKey`; null watching
    this.seat = seat;
    this.byKey = byKey;
    this.watching = watching;
    this.view = null;
    this.source = null;
    this.finished = false;
    this.retries = 0;
    this.retryTimer = null;
    this.lostTimer = null;
    this.generation = 0; // bumped by stop(): a follow() under way then opens nothing
  }

  /** Takes `view` unless a newer one is already held; says whether it was taken. */
  accept(view) {
    if (!view || view.game_id !== this.gameId) return false;
    // Equal versions are taken: a waiting table's seat changes keep the version at 0.
    if (this.view && view.version < this.view.version) return false;
    this.view = view;
    this.dispatchEvent(new CustomEvent("view", { detail: view }));
    return true;
  }

  async refresh() {
    this.accept(await api.getView(this.gameId, this.token));
  }

  /** Opens the seat's private stream: a snapshot first, then one event per action. A finished
   * game's stream has nothing more to say (the service answers it 204). */
  async follow() {
    this.stop();
    const generation = this.generation;
    if (this.view?.status === "finished") {
      this.finished = true;
      this.#connection("closed");
      return;
    }
    // The public stream needs no key; a seat's private one is opened by a stream URL.
    const { url } = this.watching
      ? { url: `/v1/games/${encodeURIComponent(this.gameId)}/events` }
      : await api.streamUrl(this.gameId, this.token);
    if (generation !== this.generation) return; // stopped meanwhile
    // The URL is built from the request's Host; the page is served by the service itself, so
    // its own origin is right even where a proxy passes another Host or scheme.
    const { pathname, search } = new URL(url, location.href);
    const source = new EventSource(pathname + search);
    this.source = source;
    source.addEventListener("open", () => {
      this.retries = 0;
      clearTimeout(this.lostTimer);
      this.#connection("live");
    });
    source.addEventListener("snapshot", (e) => {
      const view = JSON.parse(e.data);
      this.accept(view);
      this.dispatchEvent(new CustomEvent("snapshot", { detail: view.version }));
    });
    source.addEventListener("action", (e) => {
      const event = JSON.parse(e.data);
      this.dispatchEvent(new CustomEvent("move", { detail: { entry: event.entry, view: event.view } }));
      this.accept(event.view);
    });
    source.addEventListener("finished", (e) => {
      // The game is over: the service would answer a reconnection 204 anyway.
      this.finished = true;
      source.close();
      this.#connection("closed");
      this.dispatchEvent(new CustomEvent("finished", { detail: JSON.parse(e.data) }));
    });
    source.addEventListener("error", () => {
      if (this.finished || this.source !== source) return;
      // An EventSource reconnects by itself (with Last-Event-ID) unless the service refused it
      // (a 4xx or 5xx answer): then a fresh view and a fresh stream URL, after a pause.
      clearTimeout(this.lostTimer);
      if (source.readyState !== EventSource.CLOSED) {
        this.lostTimer = setTimeout(() => this.#connection("lost"), LOST_AFTER_MS);
        return;
      }
      this.#connection("lost");
      const delay = RETRY_MS[Math.min(this.retries, RETRY_MS.length - 1)];
      this.retries += 1;
      this.retryTimer = setTimeout(() => this.#resume(), delay);
    });
  }

  async #resume() {
    try {
      await this.refresh();
      await this.follow();
    } catch (error) {
      if (error instanceof api.ApiError && (error.status === 401 || error.status === 404)) {
        this.#connection("closed"); // the seat was left, or the game expired
        return;
      }
      this.retryTimer = setTimeout(() => this.#resume(), RETRY_MS.at(-1));
    }
  }

  /** Posts one entry of the view's `legal`, exactly as it is, and takes the answer's view. */
  async act(action) {
    this.accept(await api.act(this.gameId, this.token, action));
  }

  stop() {
    this.generation += 1;
    clearTimeout(this.retryTimer);
    clearTimeout(this.lostTimer);
    this.source?.close();
    this.source = null;
  }

  #connection(state) {
    this.dispatchEvent(new CustomEvent("connection", { detail: state }));
  }

  /** Kept in this tab only, so that a reload finds the seat again and two tabs can be two seats.
   * A player's seat is kept without its key (local storage holds the key, once). */
  save() {
    if (this.watching) {
      Seat.forget(); // a game watched is not this tab's seat: a reload goes back to the start
      return;
    }
    const { gameId, seat, byKey } = this;
    const token = byKey ? undefined : this.token;
    sessionStorage.setItem(STORAGE_KEY, JSON.stringify({ gameId, token, seat, byKey }));
  }

  /** The seat this tab kept; a player's seat needs the player's `key` (null: signed out). */
  static saved(key = null) {
    try {
      const stored = JSON.parse(sessionStorage.getItem(STORAGE_KEY) || "null");
      if (!stored?.gameId) return null;
      if (stored.byKey) return key ? new Seat({ ...stored, token: key }) : null;
      return stored.token ? new Seat(stored) : null;
    } catch {
      return null;
    }
  }

  static forget() {
    sessionStorage.removeItem(STORAGE_KEY);
  }
}
