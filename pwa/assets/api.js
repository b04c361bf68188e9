// api.js: the one place that talks to the server. It wraps fetch, and turns
// RFC 9457 problem+json answers into an ApiError carrying the status, the
// server's detail and its field errors (JSON Pointers into the request).

/** @typedef {{pointer: string, detail: string}} FieldError */
/** @typedef {{id: string, label: string}} Option */
/** @typedef {{id: string, name: string, minPlayers: number, maxPlayers: number}} GameInfo */
/** @typedef {{key: string, label: string, default: number, values: number[]}} VariantSpec */
/**
 * @typedef {GameInfo & {
 *   enums: Object<string, Option[]>,
 *   variants: VariantSpec[],
 *   grid?: {rows: number, cols: number},
 *   breakdown: Option[],
 *   tiebreaks: Option[],
 * }} Spec
 */
/** @typedef {{name: string, board: any}} PlayerEntry */
/** @typedef {{players: PlayerEntry[], variants: Object<string, number>}} ScoreRequest */
/**
 * @typedef {{
 *   name: string, total: number, rank: number, winner: boolean,
 *   breakdown: {key: string, label: string, points: number}[],
 *   tiebreaks: {key: string, label: string, value: number}[],
 *   warnings: FieldError[],
 * }} PlayerResult
 */
/**
 * @typedef {{
 *   game: string, complete: boolean, winners: number[], results: PlayerResult[],
 *   tiebreak?: string, soloRating?: string,
 * }} Result
 */

/** ApiError is a failed request: an HTTP problem, or no answer at all (status 0). */
export class ApiError extends Error {
  /**
   * @param {number} status HTTP status; 0 when the network failed
   * @param {string} detail the server's explanation, in plain words
   * @param {FieldError[]} [fields] the problems, each at its JSON Pointer
   * @param {string} [title]
   */
  constructor(status, detail, fields = [], title = '') {
    super(detail || title || `request failed (${status})`);
    this.name = 'ApiError';
    this.status = status;
    this.detail = detail;
    this.title = title;
    this.fields = fields;
  }
}

/**
 * request sends one JSON request and returns the decoded answer.
 * @param {string} method
 * @param {string} path
 * @param {any} [body]
 * @param {AbortSignal} [signal]
 * @returns {Promise<any>}
 */
export async function request(method, path, body, signal) {
  /** @type {RequestInit} */
  const init = { method, signal, headers: { Accept: 'application/json, application/problem+json' } };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers = { ...init.headers, 'Content-Type': 'application/json' };
  }
  let res;
  try {
    res = await fetch(path, init);
  } catch (err) {
    if (err instanceof DOMException && err.name === 'AbortError') throw err;
    throw new ApiError(0, 'The server cannot be reached. Check the connection; your entries are kept.');
  }
  const type = res.headers.get('Content-Type') || '';
  const data = type.includes('json') ? await res.json().catch(() => null) : null;
  if (!res.ok) throw toApiError(res.status, data);
  return data;
}

/**
 * toApiError reads a problem+json body (or anything else) into an ApiError.
 * @param {number} status
 * @param {any} data
 * @returns {ApiError}
 */
export function toApiError(status, data) {
  if (data && typeof data === 'object') {
    const fields = Array.isArray(data.errors) ? data.errors.filter(isFieldError) : [];
    return new ApiError(status, String(data.detail || ''), fields, String(data.title || ''));
  }
  return new ApiError(status, `The server answered ${status}.`);
}

/** @param {any} e @returns {e is FieldError} */
function isFieldError(e) {
  return e && typeof e.pointer === 'string' && typeof e.detail === 'string';
}

/** @type {Map<string, Promise<any>>} */
const cache = new Map();

/**
 * cached memoises a GET for the life of the page; a failure is not kept.
 * @param {string} path
 */
function cached(path) {
  let p = cache.get(path);
  if (!p) {
    p = request('GET', path);
    p.catch(() => cache.delete(path));
    cache.set(path, p);
  }
  return p;
}

/**
 * listGames returns the games the server scores.
 * @returns {Promise<GameInfo[]>}
 */
export function listGames() {
  return cached('/api/v1/games');
}

/**
 * getGame returns a game's spec: player counts and the vocabulary of its boards.
 * @param {string} id
 * @returns {Promise<Spec>}
 */
export function getGame(id) {
  return cached(`/api/v1/games/${encodeURIComponent(id)}`);
}

/**
 * scoreGame scores a set of boards without storing anything.
 * @param {string} id
 * @param {ScoreRequest} req
 * @param {AbortSignal} [signal]
 * @returns {Promise<Result>}
 */
export function scoreGame(id, req, signal) {
  return request('POST', `/api/v1/games/${encodeURIComponent(id)}/score`, req, signal);
}
