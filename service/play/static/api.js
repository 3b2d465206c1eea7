// The public HTTP API, one function per route the page uses. Nothing else in the page calls
// fetch. Errors are RFC 9457 problem details; they surface as ApiError with the problem's detail.

export class ApiError extends Error {
  constructor(status, problem, retryAfter = null) {
    super(problem?.detail || problem?.title || `the service answered ${status}`);
    this.status = status;
    this.problem = problem;
    this.retryAfter = retryAfter; // seconds, from a 202's, 429's or 503's Retry-After, else null
  }
}

async function call(method, path, { token, body, accept = "application/json" } = {}) {
  const headers = { Accept: accept };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (token) headers.Authorization = `Bearer ${token}`;
  const response = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (response.ok && accept !== "application/json") return response.text();
  const data = response.status === 204 ? null : await response.json().catch(() => null);
  // 202: not done yet (a review being computed): the caller asks again after Retry-After.
  if (!response.ok || response.status === 202) {
    const retryAfter = Number.parseInt(response.headers.get("Retry-After") ?? "", 10);
    throw new ApiError(response.status, data, Number.isNaN(retryAfter) ? null : retryAfter);
  }
  return data;
}

const game = (gameId) => `/v1/games/${encodeURIComponent(gameId)}`;

/** POST /v1/games: `{game_id, seats: [{seat, name, token}], invite_code, view}`; with a
 * player's key, a `{"me": true}` seat is the player's. */
export const createGame = (body, key = null) => call("POST", "/v1/games", { body, token: key });

/** POST /v1/invites/{code}: `{game_id, seat, token, view}` for the lowest open seat; with a
 * player's key, the seat is the player's (`{"me": true}`), else a named one's. */
export const claimSeat = (code, name, key = null) =>
  call("POST", `/v1/invites/${encodeURIComponent(code)}`, {
    token: key,
    body: key ? { me: true } : { name },
  });

/** GET /v1/tables: the lobby, `{tables: [{game_id, invite_code, preset, seats, ...}]}`. */
export const listTables = () => call("GET", "/v1/tables");

/** GET /v1/games/{id} with the seat's token: the seat's own view (its hand and `legal`). */
export const getView = (gameId, token) => call("GET", game(gameId), { token });

/** POST /v1/games/{id}/actions: an entry of the view's `legal`, posted as it is. */
export const act = (gameId, token, action) =>
  call("POST", `${game(gameId)}/actions`, { token, body: action });

/** GET /v1/games/{id}/log?since=N: `{version, entries: [{version, seat, action, card}]}`, the
 * actions after version N as the seat may see them. */
export const getLog = (gameId, token, since = 0) =>
  call("GET", `${game(gameId)}/log?since=${since}`, { token });

/** POST /v1/games/{id}/stream-url: `{url}` for an EventSource (which cannot send a token). */
export const streamUrl = (gameId, token) => call("POST", `${game(gameId)}/stream-url`, { token });

/** GET /v1/games/{id}/hint: advice for the seat on its turn (or its call, in a speed game);
 * a 409 when there is none to give now. */
export const getHint = (gameId, token) => call("GET", `${game(gameId)}/hint`, { token });

/** POST /v1/analyse: the hand's best melds and deadwood under the view's own rules. */
export const analyse = (hand, wild, rules) =>
  call("POST", "/v1/analyse", { body: { hand, wild, rules } });

/** POST /v1/games/{id}/rematch: `{game_id, seat, token, view}` in the one shared rematch. */
export const rematch = (gameId, token) => call("POST", `${game(gameId)}/rematch`, { token });

/** POST /v1/games/{id}/leave: before the deal the seat opens again; in play a bot takes it. */
export const leave = (gameId, token) => call("POST", `${game(gameId)}/leave`, { token });

/** GET /v1/games/{id}/review: a finished game's review, `{seats, rounds, decisions}` (review.js);
 * computed once for everyone who asks: while it is, an ApiError of status 202 with retryAfter. */
export const getReview = (gameId) => call("GET", `${game(gameId)}/review`);

// -- players (docs/players.md): the key goes as Authorization, never in a URL ------------------

/** POST /v1/players: `{player_id, name, bot, key}`; the key is shown only in this answer. */
export const createPlayer = (name) => call("POST", "/v1/players", { body: { name } });

/** GET /v1/players/me: the key's player `{player_id, name, bot, created, games}`; 401 when no
 * player holds the key (mistyped, or replaced). */
export const getMe = (key) => call("GET", "/v1/players/me", { token: key });

/** GET /v1/players/me/games: `{games: [{game_id, seat, status, my_turn, turn, deadline,
 * players, winners, ...}], next_cursor}`, newest first. */
export const myGames = (key, { limit = 20, status = "all" } = {}) =>
  call("GET", `/v1/players/me/games?limit=${limit}&status=${encodeURIComponent(status)}`, {
    token: key,
  });

/** POST /v1/players/me/stream-url: `{url}` for an EventSource on the player's stream (a stream
 * key in its query, not the player's key). */
export const playerStreamUrl = (key) => call("POST", "/v1/players/me/stream-url", { token: key });

/** GET /v1/players/me/sign-in-qr: an SVG document, the QR code of `/play#key=<key>`. */
export const signInQr = (key) =>
  call("GET", "/v1/players/me/sign-in-qr", { token: key, accept: "image/svg+xml" });

/** GET /v1/bots/online: `{bots: [{player_id, name}]}`, programs that play, online now. */
export const onlineBots = () => call("GET", "/v1/bots/online");

// -- challenges and quick play -------------------------------------------------------------

const challenge = (id) => `/v1/challenges/${encodeURIComponent(id)}`;

/** POST /v1/challenges: `{to, bots, seats, rules, rated, turn_seconds, ...}` → the Challenge
 * `{challenge_id, game_id, status, challenger, to, accepted, expires_at, ...}`. */
export const createChallenge = (key, body) => call("POST", "/v1/challenges", { token: key, body });

/** GET /v1/challenges: open challenges anyone may accept, `{challenges, next_cursor}`. */
export const listChallenges = (key) => call("GET", "/v1/challenges", { token: key });

/** POST /v1/challenges/{id}/accept: `{challenge, game_id, seat}`. */
export const acceptChallenge = (key, id) =>
  call("POST", `${challenge(id)}/accept`, { token: key });

/** POST /v1/challenges/{id}/decline with a `reason` (generic, later, rules, too_fast, ...). */
export const declineChallenge = (key, id, reason) =>
  call("POST", `${challenge(id)}/decline`, { token: key, body: { reason } });

/** POST /v1/challenges/{id}/cancel: the challenger takes it back. */
export const cancelChallenge = (key, id) =>
  call("POST", `${challenge(id)}/cancel`, { token: key });

/** POST /v1/seeks `{rules, players, rated, turn_seconds}`: quick play, the Seek `{seek_id,
 * status, players, preset, expires_at, game_id}`; a match sends `game_start`. */
export const createSeek = (key, body) => call("POST", "/v1/seeks", { token: key, body });

/** GET /v1/seeks/{id}: the Seek as it is now (`status`, and `game_id` once matched). */
export const getSeek = (key, id) =>
  call("GET", `/v1/seeks/${encodeURIComponent(id)}`, { token: key });

/** DELETE /v1/seeks/{id}: 204; a 409 once it is matched. */
export const cancelSeek = (key, id) =>
  call("DELETE", `/v1/seeks/${encodeURIComponent(id)}`, { token: key });

/** GET /v1/leaderboards/{preset}: `{key, provisional, total, players: [{rank, player_id, name,
 * bot, rating, mu, sigma, games}]}`, best first; `provisional` the board of players with fewer
 * than ten rated games. */
export const getLeaderboard = (preset, { provisional = false, limit = 20 } = {}) =>
  call(
    "GET",
    `/v1/leaderboards/${encodeURIComponent(preset)}?provisional=${provisional}&limit=${limit}`,
  );

/** GET /v1/players/{id}/ratings/{preset}: `{key, player_id, points: [{game_id, finished, rating,
 * mu, sigma, games, place, seats}]}`, newest first. */
export const getRatingHistory = (playerId, preset) =>
  call("GET", `/v1/players/${encodeURIComponent(playerId)}/ratings/${encodeURIComponent(preset)}`);

// -- tournaments (docs/tournaments.md) -------------------------------------------------------

const tournament = (id) => `/v1/tournaments/${encodeURIComponent(id)}`;

/** GET /v1/tournaments: `{tournaments: [{tournament_id, name, status, format, table_size,
 * entrants, rounds_played, planned_rounds, starts_at, ...}], next_cursor}`, newest first. */
export const listTournaments = (limit = 50) => call("GET", `/v1/tournaments?limit=${limit}`);

/** GET /v1/tournaments/{id}: the whole tournament (entrants, rounds, standings, crosstable). */
export const getTournament = (id) => call("GET", tournament(id));

/** POST /v1/tournaments `{name, rules, format, rounds, table_size, duplicate, rated, entrants,
 * turn_seconds}`: the tournament made (201). */
export const createTournament = (key, body) => call("POST", "/v1/tournaments", { token: key, body });

/** POST /v1/tournaments/{id}/join and …/leave, before the start: the tournament as it is. */
export const joinTournament = (key, id) => call("POST", `${tournament(id)}/join`, { token: key });
export const leaveTournament = (key, id) => call("POST", `${tournament(id)}/leave`, { token: key });
