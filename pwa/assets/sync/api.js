// api.js: the one place that talks to the server. It wraps fetch, and turns
// RFC 9457 problem+json answers into an ApiError carrying the status, the
// server's detail and its field errors (JSON Pointers into the request).

import { currentGroup } from '../history/groupstore.js';

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
   * @param {number} [currentVersion] a table's version, when an If-Match was stale (409)
   */
  constructor(status, detail, fields = [], title = '', currentVersion = undefined) {
    super(detail || title || `request failed (${status})`);
    this.name = 'ApiError';
    this.status = status;
    this.detail = detail;
    this.title = title;
    this.fields = fields;
    this.currentVersion = currentVersion;
  }
}

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
  const init = { method, signal, cache: 'no-store', headers: { Accept: 'application/json, application/problem+json', ...headers } };
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
    const current = typeof data.currentVersion === 'number' ? data.currentVersion : undefined;
    return new ApiError(status, String(data.detail || ''), fields, String(data.title || ''), current);
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

/** @typedef {{seat: number, name: string, claimed: boolean, board: any}} Seat */
/**
 * @typedef {{
 *   name: string, hotel: string, floors: {species: string, guests: number}[], guests: number,
 *   honey: number, honeyUsable: number, pile: number,
 * }} HotelPlayer
 */
/**
 * @typedef {{
 *   turn: number, round: number, drawn: number, players: HotelPlayer[], deck: number | null,
 *   discard: number, finished: boolean, winner: number, log: string[],
 * }} HotelState
 */
/**
 * @typedef {{
 *   code: string, game: string, status: 'open' | 'finished', variants: Object<string, number>,
 *   seats: Seat[], standings: Result | null, errors: FieldError[], version: number, hotel?: HotelState,
 * }} Table
 */
/** @typedef {{code: string, hostToken: string, joinUrl: string, seats: {seat: number, name: string}[], version: number}} CreatedTable */

/**
 * tablePath is the API path of a table, or of something below it.
 * @param {string} code
 * @param {string} [rest] "/seats", "/finish", …
 */
export function tablePath(code, rest = '') {
  return `/api/v1/tables/${encodeURIComponent(code)}${rest}`;
}

/** @param {string} token */
function bearer(token) {
  return { Authorization: `Bearer ${token}` };
}

/**
 * createTable starts a live table in the current group (its play is
 * recorded there); the answer holds the host token, shown only once.
 * @param {{game: string, players: string[], variants?: Object<string, number>, group?: string}} req
 * @returns {Promise<CreatedTable>}
 */
export function createTable(req) {
  return request('POST', '/api/v1/tables', { group: currentGroup(), ...req });
}

/**
 * getTable reads a table: its seats, boards and live standings.
 * @param {string} code
 * @param {AbortSignal} [signal]
 * @returns {Promise<Table>}
 */
export function getTable(code, signal) {
  return request('GET', tablePath(code), undefined, signal);
}

/**
 * joinTable adds a new seat for name.
 * @param {string} code
 * @param {string} name
 * @returns {Promise<{seat: number, seatToken: string}>}
 */
export function joinTable(code, name) {
  return request('POST', tablePath(code, '/seats'), { name });
}

/**
 * claimSeat takes a seat the host named; a seat can be claimed once.
 * @param {string} code
 * @param {number} seat
 * @returns {Promise<{seatToken: string}>}
 */
export function claimSeat(code, seat) {
  return request('POST', tablePath(code, `/seats/${seat}/claim`));
}

/**
 * putBoard saves one seat's board. With version, the server refuses (409)
 * when the table changed since that version.
 * @param {string} code
 * @param {number} seat
 * @param {string} token the host's or the seat's token
 * @param {any} board
 * @param {number} [version]
 * @returns {Promise<{version: number, standings: Result | null, errors: FieldError[]}>}
 */
export function putBoard(code, seat, token, board, version) {
  const headers = bearer(token);
  if (version !== undefined) headers['If-Match'] = `"${version}"`;
  return request('PUT', tablePath(code, `/seats/${seat}/board`), board, undefined, headers);
}

/**
 * finishTable ends the game and records it (host only).
 * @param {string} code
 * @param {string} hostToken
 * @returns {Promise<{playId: any, standings: Result}>}
 */
export function finishTable(code, hostToken) {
  return request('POST', tablePath(code, '/finish'), undefined, undefined, bearer(hostToken));
}

/**
 * addMove records one Insektenhotel move and returns the table after it.
 * @param {string} code
 * @param {string} token the host's, or the token of the seat on turn
 * @param {any} move
 * @returns {Promise<Table>}
 */
export function addMove(code, token, move) {
  return request('POST', tablePath(code, '/moves'), move, undefined, bearer(token));
}

/**
 * undoMove takes the last Insektenhotel move back and returns the table.
 * @param {string} code
 * @param {string} token
 * @returns {Promise<Table>}
 */
export function undoMove(code, token) {
  return request('DELETE', tablePath(code, '/moves/last'), undefined, undefined, bearer(token));
}

// ---------- history: groups, plays, leaderboards, players ----------
// Every history request names its group (?group=<id>): the group is the
// capability, so each call takes it explicitly; screens pass currentGroup().

/** @typedef {{id: string, name: string, createdAt: string, inviteUrl: string}} Group */
/** @typedef {{id: string, name: string}} PlayerRef */
/** @typedef {{player: string, playerId: string, total: number, rank: number, winner: boolean}} PlayResult */
/** @typedef {{id: string, game: string, finishedAt: string, results: PlayResult[]}} PlaySummary */
/**
 * @typedef {PlayResult & {nameAsEntered: string, breakdown: {key: string, label: string, points: number}[], board: any}} PlayPlayer
 * @typedef {{
 *   id: string, game: string, finishedAt: string, startedAt: string | null, durationSeconds: number | null,
 *   variants: Object<string, number>, tableCode?: string, results: PlayPlayer[], standings: Result | null,
 * }} Play
 */
/**
 * @typedef {{game: string, variants?: Object<string, number>, startedAt?: string, finishedAt?: string,
 *   players: PlayerEntry[]}} PlayRequest
 */
/**
 * @typedef {{plays: number, wins: number, winRate: number, avgScore: number | null, bestScore: number | null,
 *   rating: number | null, provisional: boolean, ratedPlays: number}} GameRecord
 * @typedef {GameRecord & {player: string, playerId: string}} LeaderboardEntry
 * @typedef {{playId: string, finishedAt: string, mu: number, sigma: number, rating: number}} RatingPoint
 * @typedef {{opponentId: string, opponent: string, plays: number, wins: number, losses: number, ties: number}} HeadToHead
 * @typedef {GameRecord & {game: string, lastPlayedAt: string, ratingHistory: RatingPoint[],
 *   scores: {score: number, count: number}[], headToHead: HeadToHead[]}} PlayerGame
 * @typedef {{player: PlayerRef, games: PlayerGame[], recent: PlaySummary[]}} PlayerStats
 */

/**
 * groupPath is the API path of a group, or of something below it.
 * @param {string} id
 * @param {string} [rest] "/qr.svg", "/export", …
 */
export function groupPath(id, rest = '') {
  return `/api/v1/groups/${encodeURIComponent(id)}${rest}`;
}

/**
 * inGroup adds ?group= (and any other query values given) to an API path.
 * @param {string} path
 * @param {string} group
 * @param {Object<string, string | number | undefined>} [query]
 */
export function inGroup(path, group, query = {}) {
  const q = new URLSearchParams({ group });
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '') q.set(k, String(v));
  return `${path}?${q}`;
}

/**
 * createGroup makes a new group; its id is its invite.
 * @param {string} name
 * @returns {Promise<Group>}
 */
export function createGroup(name) {
  return request('POST', '/api/v1/groups', { name });
}

/**
 * getGroup reads a group: what an invite link shows before joining.
 * @param {string} id
 * @returns {Promise<Group>}
 */
export function getGroup(id) {
  return request('GET', groupPath(id));
}

/**
 * groupPlayers lists a group's players by name.
 * @param {string} id
 * @returns {Promise<{players: PlayerRef[]}>}
 */
export function groupPlayers(id) {
  return request('GET', groupPath(id, '/players'));
}

/**
 * importGroup sends a group export file as it is; the answer is the group.
 * @param {string} json the file's text
 * @returns {Promise<Group>}
 */
export function importGroup(json) {
  return sendRaw('POST', '/api/v1/groups/import', json);
}

/**
 * sendRaw sends a body that is JSON text already (a file as it was read)
 * and keeps a problem's mergeInto on the error: the player a rename
 * collided with.
 * @param {string} method
 * @param {string} path
 * @param {string} body
 * @returns {Promise<any>}
 */
async function sendRaw(method, path, body) {
  let res;
  try {
    res = await fetch(path, {
      method, cache: 'no-store', body,
      headers: { Accept: 'application/json, application/problem+json', 'Content-Type': 'application/json' },
    });
  } catch {
    throw new ApiError(0, 'The server cannot be reached. Check the connection and try again.');
  }
  const data = await res.json().catch(() => null);
  if (!res.ok) {
    const err = toApiError(res.status, data);
    /** @type {any} */ (err).mergeInto = data && typeof data.mergeInto === 'string' ? data.mergeInto : '';
    throw err;
  }
  return data;
}

/**
 * listPlays reads a page of a group's plays, newest first.
 * @param {string} group
 * @param {{game?: string, player?: string, limit?: number, cursor?: string}} [filter]
 * @param {AbortSignal} [signal]
 * @returns {Promise<{plays: PlaySummary[], next: string | null}>}
 */
export function listPlays(group, filter = {}, signal) {
  return request('GET', inGroup('/api/v1/plays', group, filter), undefined, signal);
}

/**
 * getPlay reads a play with every board and breakdown.
 * @param {string} group
 * @param {string} id
 * @returns {Promise<Play>}
 */
export function getPlay(group, id) {
  return request('GET', inGroup(`/api/v1/plays/${encodeURIComponent(id)}`, group));
}

/**
 * logPlay records a play that had no table.
 * @param {string} group
 * @param {PlayRequest} req
 * @returns {Promise<Play>}
 */
export function logPlay(group, req) {
  return request('POST', inGroup('/api/v1/plays', group), req);
}

/**
 * editPlay replaces a play; the leaderboards follow.
 * @param {string} group
 * @param {string} id
 * @param {PlayRequest} req
 * @returns {Promise<Play>}
 */
export function editPlay(group, id, req) {
  return request('PUT', inGroup(`/api/v1/plays/${encodeURIComponent(id)}`, group), req);
}

/**
 * deletePlay removes a play from the group's history.
 * @param {string} group
 * @param {string} id
 */
export function deletePlay(group, id) {
  return request('DELETE', inGroup(`/api/v1/plays/${encodeURIComponent(id)}`, group));
}

/**
 * getLeaderboard reads a game's leaderboard in a group.
 * @param {string} group
 * @param {string} game
 * @returns {Promise<{game: string, entries: LeaderboardEntry[]}>}
 */
export function getLeaderboard(group, game) {
  return request('GET', inGroup(`/api/v1/leaderboards/${encodeURIComponent(game)}`, group));
}

/**
 * getPlayer reads a player's page: their record per game and recent plays.
 * @param {string} group
 * @param {string} id
 * @returns {Promise<PlayerStats>}
 */
export function getPlayer(group, id) {
  return request('GET', inGroup(`/api/v1/players/${encodeURIComponent(id)}`, group));
}

/**
 * renamePlayer renames a player. A name another player has is a 409 whose
 * problem carries mergeInto (see ApiError.mergeInto).
 * @param {string} group
 * @param {string} id
 * @param {string} name
 * @returns {Promise<PlayerRef>}
 */
export function renamePlayer(group, id, name) {
  return sendRaw('PATCH', inGroup(`/api/v1/players/${encodeURIComponent(id)}`, group), JSON.stringify({ name }));
}

/**
 * mergePlayer merges a player into another: their plays move, and the
 * answer is the page of the player merged into.
 * @param {string} group
 * @param {string} id
 * @param {string} into
 * @returns {Promise<PlayerStats>}
 */
export function mergePlayer(group, id, into) {
  return request('POST', inGroup(`/api/v1/players/${encodeURIComponent(id)}/merge`, group), { into });
}
