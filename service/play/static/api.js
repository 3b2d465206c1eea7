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

async function call(method, path, { token, body } = {}) {
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (token) headers.Authorization = `Bearer ${token}`;
  const response = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = response.status === 204 ? null : await response.json().catch(() => null);
  // 202: not done yet (a review being computed): the caller asks again after Retry-After.
  if (!response.ok || response.status === 202) {
    const retryAfter = Number.parseInt(response.headers.get("Retry-After") ?? "", 10);
    throw new ApiError(response.status, data, Number.isNaN(retryAfter) ? null : retryAfter);
  }
  return data;
}

const game = (gameId) => `/v1/games/${encodeURIComponent(gameId)}`;

/** POST /v1/games: `{game_id, seats: [{seat, name, token}], invite_code, view}`. */
export const createGame = (body) => call("POST", "/v1/games", { body });

/** POST /v1/invites/{code}: `{game_id, seat, token, view}` for the lowest open seat. */
export const claimSeat = (code, name) =>
  call("POST", `/v1/invites/${encodeURIComponent(code)}`, { body: { name } });

/** GET /v1/tables: the lobby, `{tables: [{game_id, invite_code, preset, seats, ...}]}`. */
export const listTables = () => call("GET", "/v1/tables");

/** GET /v1/games/{id} with the seat's token: the seat's own view (its hand and `legal`). */
export const getView = (gameId, token) => call("GET", game(gameId), { token });

/** POST /v1/games/{id}/actions: an entry of the view's `legal`, posted as it is. */
export const act = (gameId, token, action) =>
  call("POST", `${game(gameId)}/actions`, { token, body: action });

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
