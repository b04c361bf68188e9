// api.js: the one place that talks to the server. Reads go to the server
// and keep a copy on the phone: when the server cannot be reached, the
// last copy is shown instead, marked with its time (an "insectscore:stale"
// event, which app.js shows). The game list, the games' specs and scoring
// come from the rules engine in the browser (engine/engine.js, the same Go
// code as the server's, compiled to WebAssembly) as soon as it is loaded,
// and from the server until then. Every write goes through the outbox
// (outbox.js), which keeps it until the server acknowledges it. RFC 9457
// problem+json answers become an ApiError carrying the status, the
// server's detail and its field errors (JSON Pointers into the request).

import { currentGroup } from '../history/groupstore.js';
import { engineReady, loadEngine } from '../engine/engine.js';
import { get as getLocal, keysWith, put as putLocal, remove as removeLocal } from './localdb.js';
import * as outbox from './outbox.js';

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
   * @param {any} [data] the whole problem, for the fields some answers add (mergeInto, seats)
   */
  constructor(status, detail, fields = [], title = '', currentVersion = undefined, data = null) {
    super(detail || title || `request failed (${status})`);
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
const offline = 'The server cannot be reached. What you enter is kept on this phone and sent when it is back.';

outbox.setErrorMaker((status, data, why) => (status === 0
  ? new ApiError(0, why ? `Not sent yet: ${why}. It is kept on this phone and sent when the server answers.` : offline)
  : toApiError(status, data)));

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
    throw new ApiError(0, offline);
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
    return new ApiError(status, String(data.detail || ''), fields, String(data.title || ''), current, data);
  }
  return new ApiError(status, `The server answered ${status}.`);
}

/** @param {any} e @returns {e is FieldError} */
function isFieldError(e) {
  return e && typeof e.pointer === 'string' && typeof e.detail === 'string';
}

/** How many copies of server answers the phone keeps for offline reading. */
const maxCopies = 300;
const copyPrefix = 'copy:';

/**
 * @typedef {{at: number, data: any}} Copy
 * A copy of a server's answer, and when it was received.
 */

/**
 * keepCopy stores an answer for reading offline, forgetting the oldest
 * copies beyond maxCopies.
 * @param {string} path
 * @param {any} data
 */
export function keepCopy(path, data) {
  putLocal(copyPrefix + path, { at: Date.now(), data });
  const keys = keysWith(copyPrefix);
  if (keys.length <= maxCopies) return;
  keys.map((k) => [k, /** @type {Copy} */ (getLocal(k))?.at ?? 0])
    .sort((a, b) => Number(a[1]) - Number(b[1]))
    .slice(0, keys.length - maxCopies)
    .forEach(([k]) => removeLocal(String(k)));
}

/**
 * copyOf returns the copy kept of an answer, if any.
 * @param {string} path
 * @returns {Copy | undefined}
 */
export function copyOf(path) {
  return getLocal(copyPrefix + path);
}

/**
 * unreachable says whether an error means the server did not answer (or
 * answered that it cannot now): a copy may stand in for the answer.
 * @param {any} err
 */
export function unreachable(err) {
  return err instanceof ApiError && (err.status === 0 || err.status >= 500);
}

/**
 * read GETs a path and keeps a copy; when the server cannot be reached it
 * returns the last copy instead and announces its age ("insectscore:stale").
 * @param {string} path
 * @param {AbortSignal} [signal]
 * @returns {Promise<any>}
 */
export async function read(path, signal) {
  try {
    const data = await request('GET', path, undefined, signal);
    keepCopy(path, data);
    outbox.kick();
    return data;
  } catch (err) {
    if (!unreachable(err)) throw err;
    const copy = copyOf(path);
    if (!copy) {
      throw new ApiError(/** @type {ApiError} */ (err).status, 'This page needs the server, which cannot be reached now, and this phone has no copy of it yet. '
        + 'Scoring a game works without the server; this page opens once the server is back.');
    }
    window.dispatchEvent(new CustomEvent('insectscore:stale', { detail: { path, at: copy.at } }));
    return copy.data;
  }
}

/** @type {Map<string, Promise<any>>} */
const cache = new Map();

/**
 * cached memoises a read for the life of the page; a failure is not kept.
 * @param {string} path
 */
function cached(path) {
  let p = cache.get(path);
  if (!p) {
    p = read(path);
    p.catch(() => cache.delete(path));
    cache.set(path, p);
  }
  return p;
}

/**
 * @typedef {{status: number, body: any}} EngineAnswer
 * @typedef {{games: () => EngineAnswer, spec: (id: string) => EngineAnswer, score: (id: string, req: any) => EngineAnswer}} Engine
 */

/**
 * answerOf turns the engine's answer into the server's: the body, or the
 * ApiError the server would have sent.
 * @param {EngineAnswer} a
 */
function answerOf(a) {
  if (a.status >= 200 && a.status < 300) return a.body;
  throw toApiError(a.status, a.body);
}

/**
 * rules asks the rules engine when it is loaded, else the server; when the
 * server cannot be reached it waits for the engine (the service worker
 * keeps it, so it loads offline).
 * @template T
 * @param {(e: Engine) => EngineAnswer} local
 * @param {() => Promise<T>} remote
 * @returns {Promise<T>}
 */
async function rules(local, remote) {
  const ready = /** @type {Engine | null} */ (engineReady());
  if (ready) return answerOf(local(ready));
  try {
    return await remote();
  } catch (err) {
    if (!unreachable(err)) throw err;
    /** @type {Engine} */ let e;
    try {
      e = /** @type {Engine} */ (await loadEngine());
    } catch {
      throw err;
    }
    return answerOf(local(e));
  }
}

/**
 * listGames returns the games that can be scored.
 * @returns {Promise<GameInfo[]>}
 */
export function listGames() {
  return rules((e) => e.games(), () => cached('/api/v1/games'));
}

/**
 * getGame returns a game's spec: player counts and the vocabulary of its boards.
 * @param {string} id
 * @returns {Promise<Spec>}
 */
export function getGame(id) {
  return rules((e) => e.spec(id), () => cached(`/api/v1/games/${encodeURIComponent(id)}`));
}

/**
 * scoreGame scores a set of boards without storing anything: in the
 * browser when the engine is loaded, on the server until then.
 * @param {string} id
 * @param {ScoreRequest} req
 * @param {AbortSignal} [signal]
 * @returns {Promise<Result>}
 */
export function scoreGame(id, req, signal) {
  return rules((e) => e.score(id, req), () => request('POST', `/api/v1/games/${encodeURIComponent(id)}/score`, req, signal));
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
  return outbox.send({
    kind: 'createTable', lane: 'tables', method: 'POST', path: '/api/v1/tables', body: { group: currentGroup(), ...req },
    key: outbox.newKey(), label: 'the new table',
  });
}

/**
 * getTable reads a table: its seats, boards and live standings.
 * @param {string} code
 * @param {AbortSignal} [signal]
 * @returns {Promise<Table>}
 */
export function getTable(code, signal) {
  return read(tablePath(code), signal);
}

/**
 * keepTable keeps the newest table seen (from the live stream, or a
 * write's answer) as the copy a screen opens offline.
 * @param {Table} t
 */
export function keepTable(t) {
  const path = tablePath(t.code);
  const old = copyOf(path);
  if (!old || !old.data || typeof old.data.version !== 'number' || old.data.version <= t.version) keepCopy(path, t);
}

/**
 * joinTable adds a new seat for name.
 * @param {string} code
 * @param {string} name
 * @returns {Promise<{seat: number, seatToken: string}>}
 */
export function joinTable(code, name) {
  return outbox.send({
    kind: 'join', lane: `table:${code}`, method: 'POST', path: tablePath(code, '/seats'), body: { name },
    key: outbox.newKey(), label: `joining table ${code}`, meta: { code },
  });
}

/**
 * claimSeat takes a seat the host named; a seat can be claimed once.
 * @param {string} code
 * @param {number} seat
 * @returns {Promise<{seatToken: string}>}
 */
export function claimSeat(code, seat) {
  return outbox.send({
    kind: 'claim', lane: `table:${code}`, method: 'POST', path: tablePath(code, `/seats/${seat}/claim`),
    key: outbox.newKey(), label: `taking a seat at table ${code}`, meta: { code, seat },
  });
}

/**
 * putBoard saves one seat's board through the outbox; a newer board for
 * the seat replaces one still waiting. With version, the server refuses
 * (409) when the table changed since that version: the outbox then reads
 * the table and sends the board again on top (a seat only ever writes its
 * own board).
 * @param {string} code
 * @param {number} seat
 * @param {string} token the host's or the seat's token
 * @param {any} board
 * @param {number} [version]
 * @param {string} [label] whose board, in words
 * @param {number} [delay] wait this long for a newer board (typing) before sending
 * @returns {Promise<{version: number, standings: Result | null, errors: FieldError[]}>}
 */
export function putBoard(code, seat, token, board, version, label = `seat ${seat + 1}'s board`, delay = 0) {
  const headers = bearer(token);
  if (version !== undefined) headers['If-Match'] = `"${version}"`;
  return outbox.send({
    kind: 'board', lane: `table:${code}`, method: 'PUT', path: tablePath(code, `/seats/${seat}/board`), body: board,
    headers, coalesce: `board:${code}:${seat}`, label, meta: { code, seat }, delay,
  });
}

/**
 * pendingBoard is a seat's board still waiting in the outbox, if any: what
 * was typed on this phone and not yet acknowledged.
 * @param {string} code
 * @param {number} seat
 * @returns {{board: any, since: number} | null}
 */
export function pendingBoard(code, seat) {
  const ops = outbox.pending((op) => op.kind === 'board' && op.meta?.code === code && op.meta?.seat === seat);
  const last = ops[ops.length - 1];
  return last ? { board: last.body, since: ops[0].createdAt } : null;
}

// A board refused as stale (409 with currentVersion) is sent again on top
// of the table as it is now.
outbox.register('board', {
  // A newer board for the seat waiting behind this one can say which
  // version it builds on now.
  delivered(op, res) {
    for (const q of outbox.pending((p) => p.coalesce === op.coalesce && p.id !== op.id)) q.headers['If-Match'] = `"${res.version}"`;
  },
  async conflict(op, err) {
    if (!(err instanceof ApiError) || err.currentVersion === undefined) return false;
    const fresh = await request('GET', tablePath(op.meta.code));
    if (fresh.status === 'finished') return false;
    keepTable(fresh);
    op.headers['If-Match'] = `"${fresh.version}"`;
    return true;
  },
});

/**
 * reportSync tells the server what this phone still holds for a seat, so
 * the host sees it: it is built when sent, from the outbox as it is then.
 * @param {string} code
 * @param {number} seat
 * @param {string} token
 */
export function reportSync(code, seat, token) {
  return outbox.send({
    kind: 'sync', lane: `sync:${code}:${seat}`, method: 'PUT', path: tablePath(code, `/seats/${seat}/sync`),
    headers: bearer(token), coalesce: `sync:${code}:${seat}`, label: 'this phone\'s state', meta: { code, seat }, quiet: true,
  });
}

outbox.register('sync', {
  body(op) {
    const p = pendingBoard(op.meta.code, op.meta.seat);
    return p ? { unsent: 1, unsentSeconds: Math.max(0, Math.floor((Date.now() - p.since) / 1000)) } : { unsent: 0, unsentSeconds: 0 };
  },
});

// Screens that wait for these writes show the server's refusal at the
// fields it names, or say what to do instead.
for (const kind of ['createTable', 'join', 'claim', 'createGroup', 'import', 'rename', 'merge']) {
  outbox.register(kind, { explained: (err) => err instanceof ApiError && err.status >= 400 && err.status < 500 });
}

// The host's screen explains why a finish was refused: unsent changes
// (it offers to wait) and boards that break a rule (it marks them).
outbox.register('finish', {
  explained: (err) => err instanceof ApiError && (err.type === '/api/problems/unsent-changes' || err.status === 422),
});

/**
 * finishTable ends the game and records it (host only). Without force the
 * server refuses (409, type /api/problems/unsent-changes) while a seat's
 * phone holds changes it has not sent; err.data.seats names them.
 * @param {string} code
 * @param {string} hostToken
 * @param {boolean} [force] finish all the same
 * @returns {Promise<{playId: any, standings: Result}>}
 */
export function finishTable(code, hostToken, force = false) {
  return outbox.send({
    kind: 'finish', lane: `table:${code}`, method: 'POST', path: tablePath(code, '/finish'), body: force ? { force: true } : undefined,
    headers: bearer(hostToken), key: outbox.newKey(), label: `finishing table ${code}`, meta: { code },
  });
}

/**
 * addMove records one Insektenhotel move and returns the table after it.
 * @param {string} code
 * @param {string} token the host's, or the token of the seat on turn
 * @param {any} move
 * @returns {Promise<Table>}
 */
export function addMove(code, token, move) {
  return outbox.send({
    kind: 'move', lane: `table:${code}`, method: 'POST', path: tablePath(code, '/moves'), body: move,
    headers: bearer(token), key: outbox.newKey(), label: 'a move', meta: { code },
  });
}

/**
 * undoMove takes the last Insektenhotel move back and returns the table.
 * @param {string} code
 * @param {string} token
 * @returns {Promise<Table>}
 */
export function undoMove(code, token) {
  return outbox.send({
    kind: 'undo', lane: `table:${code}`, method: 'DELETE', path: tablePath(code, '/moves/last'),
    headers: bearer(token), key: outbox.newKey(), label: 'taking a move back', meta: { code },
  });
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
 * @typedef {GameRecord & {game: string, lastPlayedAt: string, ratingHistory: RatingPoint[], ratingHistoryNext: string | null,
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
  return outbox.send({
    kind: 'createGroup', lane: 'groups', method: 'POST', path: '/api/v1/groups', body: { name },
    key: outbox.newKey(), label: `the group ${name}`,
  });
}

/**
 * getGroup reads a group: what an invite link shows before joining.
 * @param {string} id
 * @returns {Promise<Group>}
 */
export function getGroup(id) {
  return read(groupPath(id));
}

/**
 * groupPlayers lists a group's players by name.
 * @param {string} id
 * @returns {Promise<{players: PlayerRef[]}>}
 */
export function groupPlayers(id) {
  return read(groupPath(id, '/players'));
}

/**
 * importGroup sends a group export file as it is; the answer is the group.
 * @param {string} json the file's text
 * @returns {Promise<Group>}
 */
export function importGroup(json) {
  return outbox.send({
    kind: 'import', lane: 'groups', method: 'POST', path: '/api/v1/groups/import', body: json, raw: true,
    key: outbox.newKey(), label: 'the imported group',
  });
}

/**
 * listPlays reads a page of a group's plays, newest first.
 * @param {string} group
 * @param {{game?: string, player?: string, limit?: number, cursor?: string}} [filter]
 * @param {AbortSignal} [signal]
 * @returns {Promise<{plays: PlaySummary[], next: string | null}>}
 */
export function listPlays(group, filter = {}, signal) {
  return read(inGroup('/api/v1/plays', group, filter), signal);
}

/**
 * getPlay reads a play with every board and breakdown.
 * @param {string} group
 * @param {string} id
 * @returns {Promise<Play>}
 */
export function getPlay(group, id) {
  return read(inGroup(`/api/v1/plays/${encodeURIComponent(id)}`, group));
}

/**
 * logPlay records a play that had no table.
 * @param {string} group
 * @param {PlayRequest} req
 * @param {Object<string, string>} [meta] what the kind's handlers need (the quick score it keeps)
 * @returns {Promise<Play>}
 */
export function logPlay(group, req, meta = {}) {
  return outbox.send({
    kind: 'logPlay', lane: `group:${group}`, method: 'POST', path: inGroup('/api/v1/plays', group), body: req,
    key: outbox.newKey(), label: 'a logged play', meta: { ...meta, group },
  });
}

/**
 * editPlay replaces a play; the leaderboards follow.
 * @param {string} group
 * @param {string} id
 * @param {PlayRequest} req
 * @returns {Promise<Play>}
 */
export function editPlay(group, id, req) {
  return outbox.send({
    kind: 'editPlay', lane: `group:${group}`, method: 'PUT', path: inGroup(`/api/v1/plays/${encodeURIComponent(id)}`, group), body: req,
    key: outbox.newKey(), label: 'a change to a play', meta: { group, id },
  });
}

/**
 * deletePlay removes a play from the group's history. With hold, the
 * delete waits that long (ms) in the outbox before it is sent, even when
 * the outbox is nudged: until then outbox.withdraw(op) takes it back.
 * @param {string} group
 * @param {string} id
 * @param {{hold?: number, op?: string}} [opts] op: the outbox id to give the write
 */
export function deletePlay(group, id, opts = {}) {
  return outbox.send({
    kind: 'deletePlay', lane: `group:${group}`, method: 'DELETE', path: inGroup(`/api/v1/plays/${encodeURIComponent(id)}`, group),
    key: outbox.newKey(), label: 'deleting a play', meta: { group, id }, id: opts.op, hold: opts.hold,
  });
}

/**
 * deletingPlays lists the plays of a group whose delete waits in the
 * outbox: lists leave them out at once.
 * @param {string} group
 * @returns {Set<string>}
 */
export function deletingPlays(group) {
  return new Set(outbox.pending((op) => op.kind === 'deletePlay' && op.meta?.group === group).map((op) => String(op.meta.id)));
}

/**
 * getLeaderboard reads a game's leaderboard in a group.
 * @param {string} group
 * @param {string} game
 * @returns {Promise<{game: string, entries: LeaderboardEntry[]}>}
 */
export function getLeaderboard(group, game) {
  return read(inGroup(`/api/v1/leaderboards/${encodeURIComponent(game)}`, group));
}

/**
 * getPlayer reads a player's page: their record per game and recent plays.
 * @param {string} group
 * @param {string} id
 * @returns {Promise<PlayerStats>}
 */
export function getPlayer(group, id) {
  return read(inGroup(`/api/v1/players/${encodeURIComponent(id)}`, group));
}

/**
 * playerRatings reads a page of a player's ratings in a game, oldest
 * first: those before cursor (ratingHistoryNext of the player's page, or
 * the next of an earlier page).
 * @param {string} group
 * @param {string} id
 * @param {string} game
 * @param {string} cursor
 * @returns {Promise<{game: string, points: RatingPoint[], next: string | null}>}
 */
export function playerRatings(group, id, game, cursor) {
  return read(inGroup(`/api/v1/players/${encodeURIComponent(id)}/ratings`, group, { game, cursor }));
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
  return outbox.send({
    kind: 'rename', lane: `group:${group}`, method: 'PATCH', path: inGroup(`/api/v1/players/${encodeURIComponent(id)}`, group), body: { name },
    key: outbox.newKey(), label: `renaming a player to ${name}`, meta: { group, id },
  });
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
  return outbox.send({
    kind: 'merge', lane: `group:${group}`, method: 'POST', path: inGroup(`/api/v1/players/${encodeURIComponent(id)}/merge`, group), body: { into },
    key: outbox.newKey(), label: 'merging two players', meta: { group, id },
  });
}
