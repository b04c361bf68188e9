// http.js: the HTTP client, and the problems it answers with.
//
// The one place that talks to the server. Reads go to the server
// and keep a copy on the phone: when the server cannot be reached, the
// last copy is shown instead, marked with its time (an "insectscore:stale"
// event, which app.js shows). The game list, the games' specs and scoring
// come from the rules engine in the browser (engine/engine.js, the same Go
// code as the server's, compiled to WebAssembly) as soon as it is loaded,
// and from the server until then. Every write goes through the outbox
// (outbox.js), which keeps it until the server acknowledges it. RFC 9457
// problem+json answers become an ApiError carrying the status, the
// server's detail and its field errors (JSON Pointers into the request).
// Any answer (but a 5xx: a server that cannot answer now) is announced
// (answered), so the screens stop saying the server is not answering.

import { language, t } from '../ui/i18n.js';

/** @typedef {{pointer: string, detail: string, pointers?: string[]}} FieldError pointers: every field a problem of the whole table is about */
/** @typedef {{id: string, label: string}} Option */
/**
 * @typedef {Object} GameInfo
 * @property {string} id
 * @property {string} name
 * @property {number} minPlayers
 * @property {number} maxPlayers
 * @property {string} unit the catalog key of what a total counts
 * @property {boolean} winsOnly won without points: the leaderboard counts wins
 * @property {string} end when a game is over, in the rules' words
 * @property {boolean} tracked a live table is played move by move
 * @property {string} form the board form's module, below assets/ ("games/insecta.js")
 */
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
   * @param {number} [currentVersion] a table's version, when an If-Match was stale (409)
   * @param {any} [data] the whole problem, for the fields some answers add (mergeInto, seats)
   */
  constructor(status, detail, fields = [], title = '', currentVersion = undefined, data = null) {
    super(detail || title || t('ui.api.answered', { status }));
    this.name = 'ApiError';
    this.status = status;
    this.detail = detail;
    this.title = title;
    this.fields = fields;
    this.currentVersion = currentVersion;
    this.data = data;
    /** the player a rename collided with (409), or '' */
    this.mergeInto = data && typeof data.mergeInto === 'string' ? data.mergeInto : '';
    /** the problem's type, e.g. "/api/problems/unsent-changes" */
    this.type = data && typeof data.type === 'string' ? data.type : '';
  }
}

/** offline is what an answer that never came means for the user. */
const offline = () => t('ui.api.offline');

/**
 * request sends one JSON request and returns the decoded answer.
 * @param {string} method
 * @param {string} path
 * @param {any} [body]
 * @param {AbortSignal} [signal]
 * @param {Object<string, string>} [headers] extra headers (Authorization, If-Match)
 * @returns {Promise<any>}
 */
export async function request(method, path, body, signal, headers = {}) {
  /** @type {RequestInit} */
  const init = {
    method, signal, cache: 'no-store',
    headers: { Accept: 'application/json, application/problem+json', 'Accept-Language': language(), ...headers },
  };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers = { ...init.headers, 'Content-Type': 'application/json' };
  }
  let res;
  try {
    res = await fetch(path, init);
  } catch (err) {
    if (err instanceof DOMException && err.name === 'AbortError') throw err;
    throw new ApiError(0, offline());
  }
  if (res.status < 500) answered();
  const type = res.headers.get('Content-Type') || '';
  const data = type.includes('json') ? await res.json().catch(() => null) : null;
  if (!res.ok) throw toApiError(res.status, data);
  return data;
}

/**
 * answered says that the server answered (an "insectscore:answered"
 * event): to a read, a write or a live stream. A screen shown from the
 * phone's copy with "the server is not answering" drops that note, and a
 * live table that lost its stream opens it again at once.
 */
export function answered() {
  window.dispatchEvent(new Event('insectscore:answered'));
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
    const current = typeof data.currentVersion === 'number' ? data.currentVersion : undefined;
    return new ApiError(status, String(data.detail || ''), fields, String(data.title || ''), current, data);
  }
  return new ApiError(status, t('ui.api.serverAnswered', { status }));
}

/** @param {any} e @returns {e is FieldError} */
function isFieldError(e) {
  return e && typeof e.pointer === 'string' && typeof e.detail === 'string';
}

/**
 * unreachable says whether an error means the server did not answer (or
 * answered that it cannot now): a copy may stand in for the answer.
 * @param {any} err
 */
export function unreachable(err) {
  return err instanceof ApiError && (err.status === 0 || err.status >= 500);
}
