// store.js: what is typed survives a reload, a crashed tab or a phone put
// away. Quick-score entries (the players, their boards and the house rules
// being entered) are kept per game on the device (IndexedDB, localdb.js),
// written as they are typed. A table's tokens are kept in localStorage.

import { get, put } from './localdb.js';

/** @typedef {import('./api.js').PlayerEntry} PlayerEntry */
/**
 * @typedef {{players: PlayerEntry[], variants: Object<string, number>, active: number, kept?: string, keptPlay?: string}} Entry
 * kept: when this entry was handed to the history (so it is not logged
 * twice); keptPlay: the play it became, once the server has it
 */

const prefix = 'insectscore:score:';

/**
 * loadEntry returns the saved entry for a game, or null. An entry an
 * older version kept in localStorage is taken over.
 * @param {string} game
 * @returns {Entry | null}
 */
export function loadEntry(game) {
  let e = get(prefix + game);
  if (e === undefined) {
    try {
      const raw = localStorage.getItem(prefix + game);
      if (raw) {
        e = JSON.parse(raw);
        put(prefix + game, e);
        localStorage.removeItem(prefix + game);
      }
    } catch {
      /* no storage: nothing to take over */
    }
  }
  if (!e || !Array.isArray(e.players)) return null;
  const copy = structuredClone(e);
  return {
    players: copy.players, variants: copy.variants || {}, active: Number(copy.active) || 0,
    kept: copy.kept || undefined, keptPlay: copy.keptPlay || undefined,
  };
}

/**
 * saveEntry keeps a game's entry on the device.
 * @param {string} game
 * @param {Entry} entry
 */
export function saveEntry(game, entry) {
  put(prefix + game, structuredClone(entry));
}

/**
 * markKept records that a game's entry went to the history: kept is the
 * moment it was handed over, play the play it became (once known). A
 * play is only pinned to the entry it was kept from: one begun since is
 * left alone.
 * @param {string} game
 * @param {string} kept
 * @param {string} [play]
 */
export function markKept(game, kept, play) {
  const e = loadEntry(game);
  if (!e || (play && e.kept !== kept)) return;
  e.kept = kept;
  if (play) e.keptPlay = play;
  saveEntry(game, e);
}

/**
 * unmarkKept takes the mark back when the history refused the play: the
 * game can be kept again.
 * @param {string} game
 * @param {string} kept
 */
export function unmarkKept(game, kept) {
  const e = loadEntry(game);
  if (!e || e.kept !== kept) return;
  delete e.kept;
  delete e.keptPlay;
  saveEntry(game, e);
}

/**
 * entryState says what the home screen shows of a game's quick score:
 * "kept" once it went to the history, "progress" while it is being
 * entered, "" when there is none.
 * @param {string} game
 * @returns {'kept' | 'progress' | ''}
 */
export function entryState(game) {
  if (!hasEntry(game)) return '';
  return loadEntry(game)?.kept ? 'kept' : 'progress';
}

/**
 * hasEntry says whether a game has saved entries.
 * @param {string} game
 */
export function hasEntry(game) {
  if (get(prefix + game)) return true;
  try {
    return localStorage.getItem(prefix + game) !== null;
  } catch {
    return false;
  }
}

/**
 * @typedef {{hostToken?: string, joinUrl?: string, seat?: number, seatToken?: string, finished?: boolean}} TableAuth
 * What this browser holds for a live table: the host's token (and the join
 * link the server gave, which GET does not repeat), or a claimed seat; and
 * whether the table was seen finished.
 */

/** @type {Map<string, string>} tables kept for this page when storage is unavailable */
const memory = new Map();

/** @param {string} code */
function tableKey(code) {
  return `insectscore.table.${code.toUpperCase()}`;
}

/**
 * loadTableAuth returns the tokens kept for a table, or an empty record.
 * @param {string} code
 * @returns {TableAuth}
 */
export function loadTableAuth(code) {
  try {
    let raw = memory.get(tableKey(code)) ?? null;
    try {
      raw = localStorage.getItem(tableKey(code)) ?? raw;
    } catch {
      /* storage disabled: what this page kept in memory */
    }
    const a = JSON.parse(raw || 'null');
    if (!a || typeof a !== 'object') return {};
    /** @type {TableAuth} */
    const out = {};
    if (typeof a.hostToken === 'string' && a.hostToken) out.hostToken = a.hostToken;
    if (typeof a.joinUrl === 'string' && a.joinUrl) out.joinUrl = a.joinUrl;
    if (a.finished === true) out.finished = true;
    if (Number.isInteger(a.seat) && a.seat >= 0 && typeof a.seatToken === 'string' && a.seatToken) {
      out.seat = a.seat;
      out.seatToken = a.seatToken;
    }
    return out;
  } catch {
    return {};
  }
}

/**
 * saveTableAuth keeps a table's tokens, merged with what is kept already,
 * so a reload finds the host screen or the seat again.
 * @param {string} code
 * @param {TableAuth} auth
 */
export function saveTableAuth(code, auth) {
  const value = JSON.stringify({ ...loadTableAuth(code), ...auth });
  memory.set(tableKey(code), value);
  try {
    localStorage.setItem(tableKey(code), value);
  } catch {
    /* private mode or quota: the seat lasts until the tab closes */
  }
}

/**
 * keptTables lists the open tables this browser holds a token for,
 * with the role it holds, so the home screen can lead back to them.
 * @returns {{code: string, host: boolean}[]}
 */
export function keptTables() {
  /** @type {{code: string, host: boolean}[]} */
  const out = [];
  try {
    for (let i = 0; i < localStorage.length; i++) {
      const key = localStorage.key(i) ?? '';
      if (!key.startsWith('insectscore.table.')) continue;
      const code = key.slice('insectscore.table.'.length);
      const a = loadTableAuth(code);
      if ((a.hostToken || a.seatToken) && !a.finished) out.push({ code, host: !!a.hostToken });
    }
  } catch {
    /* no storage: nothing kept */
  }
  return out.sort((a, b) => a.code.localeCompare(b.code));
}
