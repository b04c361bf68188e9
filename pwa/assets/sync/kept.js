// kept.js: what this phone keeps of its user's: the group it is in, the
// quick-score entries typed on it, and its tokens for live tables.
//
// ——— The group this phone is in ———
//
// The group this browser keeps its history in, and the
// groups it knows. A group's id is its invite (knowing it is being in the
// group), so the ids kept here are what makes this phone a member. With
// nothing kept, the phone is in the server's default group.

import { getLocal, putLocal } from './local.js';

/** @typedef {{id: string, name: string}} KnownGroup */

/** DEFAULT_GROUP is the group of a self-hosted server with no setup. */
export const DEFAULT_GROUP = 'default';

const currentKey = 'insectscore.group';
const knownKey = 'insectscore.groups';

/** @type {Map<string, string>} what this page keeps when storage is unavailable */
const groupMemory = new Map();

/** @param {string} key */
function readSetting(key) {
  try {
    return localStorage.getItem(key) ?? groupMemory.get(key) ?? null;
  } catch {
    return groupMemory.get(key) ?? null;
  }
}

/** @param {string} key @param {string} value */
function keepSetting(key, value) {
  groupMemory.set(key, value);
  try {
    localStorage.setItem(key, value);
  } catch {
    /* private mode or quota: kept until the tab closes */
  }
}

/**
 * groupId tidies an id as typed or read from a link: ids are lower case
 * letters and digits.
 * @param {string} id
 */
export function groupId(id) {
  return String(id || '').trim().toLowerCase();
}

/**
 * currentGroup is the id of the group new plays, tables and the history
 * screens use.
 * @returns {string}
 */
export function currentGroup() {
  const id = groupId(readSetting(currentKey) ?? '');
  return /^[a-z0-9]+$/.test(id) ? id : DEFAULT_GROUP;
}

/**
 * setCurrentGroup switches to a group (and remembers it).
 * @param {KnownGroup} g
 */
export function setCurrentGroup(g) {
  rememberGroup(g);
  keepSetting(currentKey, groupId(g.id));
}

/**
 * knownGroups lists the groups this browser has been in, the default
 * group first; a name may be "" until the server has been asked.
 * @returns {KnownGroup[]}
 */
export function knownGroups() {
  /** @type {KnownGroup[]} */
  let list = [];
  try {
    const raw = JSON.parse(readSetting(knownKey) || '[]');
    if (Array.isArray(raw)) {
      list = raw.filter((g) => g && typeof g.id === 'string' && /^[a-z0-9]+$/.test(g.id))
        .map((g) => ({ id: g.id, name: typeof g.name === 'string' ? g.name : '' }));
    }
  } catch {
    /* a broken record: start over */
  }
  if (!list.some((g) => g.id === DEFAULT_GROUP)) list.unshift({ id: DEFAULT_GROUP, name: '' });
  const cur = currentGroup();
  if (!list.some((g) => g.id === cur)) list.push({ id: cur, name: '' });
  return list;
}

/**
 * rememberGroup adds a group to the known ones, or updates its name.
 * @param {KnownGroup} g
 */
export function rememberGroup(g) {
  const id = groupId(g.id);
  const list = knownGroups();
  const at = list.findIndex((x) => x.id === id);
  if (at >= 0) list[at] = { id, name: g.name || list[at].name };
  else list.push({ id, name: g.name || '' });
  keepSetting(knownKey, JSON.stringify(list));
}

/**
 * forgetGroup drops a group from this browser; the default group stays.
 * Leaving the current group switches back to the default one.
 * @param {string} id
 */
export function forgetGroup(id) {
  const gid = groupId(id);
  if (gid === DEFAULT_GROUP) return;
  keepSetting(knownKey, JSON.stringify(knownGroups().filter((g) => g.id !== gid)));
  if (currentGroup() === gid) keepSetting(currentKey, DEFAULT_GROUP);
}

/**
 * groupName is the kept name of a group, or "" when not known yet.
 * @param {string} id
 */
export function groupName(id) {
  return knownGroups().find((g) => g.id === groupId(id))?.name ?? '';
}

// ——— What is typed survives ———
//
// What is typed survives a reload, a crashed tab or a phone put
// away. Quick-score entries (the players, their boards and the house rules
// being entered) are kept per game on the device (IndexedDB, local.js),
// written as they are typed. A table's tokens are kept in localStorage.

/**
 * @typedef {{players: PlayerEntry[], variants: Object<string, number>, active: number, kept?: string, keptPlay?: string}} Entry
 * kept: when this entry was handed to the history (so it is not logged
 * twice); keptPlay: the play it became, once the server has it
 */

const entryPrefix = 'insectscore:score:';

/**
 * loadEntry returns the saved entry for a game, or null. An entry an
 * older version kept in localStorage is taken over.
 * @param {string} game
 * @returns {Entry | null}
 */
export function loadEntry(game) {
  let e = getLocal(entryPrefix + game);
  if (e === undefined) {
    try {
      const raw = localStorage.getItem(entryPrefix + game);
      if (raw) {
        e = JSON.parse(raw);
        putLocal(entryPrefix + game, e);
        localStorage.removeItem(entryPrefix + game);
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
  putLocal(entryPrefix + game, structuredClone(entry));
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
 * @returns {boolean} whether the entry was the one kept (it still holds the play)
 */
export function unmarkKept(game, kept) {
  const e = loadEntry(game);
  if (!e || e.kept !== kept) return false;
  delete e.kept;
  delete e.keptPlay;
  saveEntry(game, e);
  return true;
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
  if (getLocal(entryPrefix + game)) return true;
  try {
    return localStorage.getItem(entryPrefix + game) !== null;
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
const tableMemory = new Map();

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
    let raw = tableMemory.get(tableKey(code)) ?? null;
    try {
      raw = localStorage.getItem(tableKey(code)) ?? raw;
    } catch {
      /* storage disabled: what this page kept in tableMemory */
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
  tableMemory.set(tableKey(code), value);
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
