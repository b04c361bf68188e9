// tables.js: a live table's endpoints, and the sync reports each seat's
// phone sends (how much it has not sent yet).

import { copyOf, keepCopy } from './local.js';
import { currentGroup } from './kept.js';
import { newKey, pending, register, send } from './outbox.js';
import { ApiError, request } from './http.js';
import { read } from './read.js';

/** @typedef {{seat: number, name: string, claimed: boolean, board: any}} Seat */
/**
 * @typedef {{
 *   name: string, hotel: string, floors: {species: string, guests: number}[], guests: number,
 *   honey: number, honeyUsable: number, pile: number,
 * }} HotelPlayer
 */
/**
 * @typedef {{
 *   turn: number, round: number, first?: number, drawn: number, players: HotelPlayer[], deck: number | null,
 *   discard: number, finished: boolean, winner: number, log: string[],
 * }} HotelState
 */
/**
 * @typedef {{
 *   code: string, game: string, status: 'open' | 'finished', variants: Object<string, number>, first?: number,
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
 * @param {{game: string, players: string[], variants?: Object<string, number>, group?: string, first?: number}} req
 * @returns {Promise<CreatedTable>}
 */
export function createTable(req) {
  return send({
    kind: 'createTable', lane: 'tables', method: 'POST', path: '/api/v1/tables', body: { group: currentGroup(), ...req },
    key: newKey(), labelKey: 'ui.op.newTable',
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
 * @param {Table} table
 */
export function keepTable(table) {
  const path = tablePath(table.code);
  const old = copyOf(path);
  if (!old || !old.data || typeof old.data.version !== 'number' || old.data.version <= table.version) keepCopy(path, table);
}

/**
 * joinTable adds a new seat for name.
 * @param {string} code
 * @param {string} name
 * @returns {Promise<{seat: number, seatToken: string}>}
 */
export function joinTable(code, name) {
  return send({
    kind: 'join', lane: `table:${code}`, method: 'POST', path: tablePath(code, '/seats'), body: { name },
    key: newKey(), labelKey: 'ui.op.joinTable', labelArgs: { code }, meta: { code },
  });
}

/**
 * claimSeat takes a seat the host named; a seat can be claimed once.
 * @param {string} code
 * @param {number} seat
 * @returns {Promise<{seatToken: string}>}
 */
export function claimSeat(code, seat) {
  return send({
    kind: 'claim', lane: `table:${code}`, method: 'POST', path: tablePath(code, `/seats/${seat}/claim`),
    key: newKey(), labelKey: 'ui.op.takeSeat', labelArgs: { code }, meta: { code, seat },
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
 * @param {{key: string, args?: Object<string, string | number>}} [label] whose board, as a catalog key and its placeholders
 * @param {number} [delay] wait this long for a newer board (typing) before sending
 * @returns {Promise<{version: number, standings: Result | null, errors: FieldError[]}>}
 */
export function putBoard(code, seat, token, board, version, label = { key: 'ui.op.seatBoard', args: { seat: seat + 1 } }, delay = 0) {
  const headers = bearer(token);
  if (version !== undefined) headers['If-Match'] = `"${version}"`;
  return send({
    kind: 'board', lane: `table:${code}`, method: 'PUT', path: tablePath(code, `/seats/${seat}/board`), body: board,
    headers, coalesce: `board:${code}:${seat}`, labelKey: label.key, labelArgs: label.args, meta: { code, seat }, delay,
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
  const ops = pending((op) => op.kind === 'board' && op.meta?.code === code && op.meta?.seat === seat);
  const last = ops[ops.length - 1];
  return last ? { board: last.body, since: ops[0].createdAt } : null;
}

/** @type {Map<string, {board: any, version: number}>} the last board this page delivered per seat */
const delivered = new Map();

/**
 * deliveredBoard is the last board of a seat the outbox delivered since the
 * page loaded, and the table version its save made: a seat's screen knows
 * it for its own when the live table brings it, even if the write was made
 * before a reload and no screen waited for its answer.
 * @param {string} code
 * @param {number} seat
 * @returns {{board: any, version: number} | null}
 */
export function deliveredBoard(code, seat) {
  return delivered.get(`${code}:${seat}`) ?? null;
}

// A board refused as stale (409 with currentVersion) is sent again on top
// of the table as it is now.
register('board', {
  delivered(op, res) {
    delivered.set(`${op.meta.code}:${op.meta.seat}`, { board: op.body, version: res.version });
    // A newer board for the seat waiting behind this one can say which
    // version it builds on now.
    for (const q of pending((p) => p.coalesce === op.coalesce && p.id !== op.id)) q.headers['If-Match'] = `"${res.version}"`;
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
  return send({
    kind: 'sync', lane: `sync:${code}:${seat}`, method: 'PUT', path: tablePath(code, `/seats/${seat}/sync`),
    headers: bearer(token), coalesce: `sync:${code}:${seat}`, labelKey: 'ui.op.phoneState', meta: { code, seat }, quiet: true,
  });
}

register('sync', {
  body(op) {
    const p = pendingBoard(op.meta.code, op.meta.seat);
    return p ? { unsent: 1, unsentSeconds: Math.max(0, Math.floor((Date.now() - p.since) / 1000)) } : { unsent: 0, unsentSeconds: 0 };
  },
});

// The host's screen explains why a finish was refused: unsent changes
// (it offers to wait) and boards that break a rule (it marks them).
register('finish', {
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
  return send({
    kind: 'finish', lane: `table:${code}`, method: 'POST', path: tablePath(code, '/finish'), body: force ? { force: true } : undefined,
    headers: bearer(hostToken), key: newKey(), labelKey: 'ui.op.finishTable', labelArgs: { code }, meta: { code },
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
  return send({
    kind: 'move', lane: `table:${code}`, method: 'POST', path: tablePath(code, '/moves'), body: move,
    headers: bearer(token), key: newKey(), labelKey: 'ui.op.move', meta: { code },
  });
}

/**
 * undoMove takes the last Insektenhotel move back and returns the table.
 * @param {string} code
 * @param {string} token
 * @returns {Promise<Table>}
 */
export function undoMove(code, token) {
  return send({
    kind: 'undo', lane: `table:${code}`, method: 'DELETE', path: tablePath(code, '/moves/last'),
    headers: bearer(token), key: newKey(), labelKey: 'ui.op.undoMove', meta: { code },
  });
}

// Screens that wait for these writes show the server's refusal at the
// fields it names, or say what to do instead.
for (const kind of ['createTable', 'join', 'claim']) {
  register(kind, { explained: (err) => err instanceof ApiError && err.status >= 400 && err.status < 500 });
}
