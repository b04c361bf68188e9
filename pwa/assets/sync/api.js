// api.js: the phone's side of the server, in one module because the home
// screen needs every part of it at once (one request instead of five):
//
//   - what this phone keeps, in IndexedDB (was localdb.js);
//   - the group it keeps its history in (was history/groupstore.js);
//   - the quick-score entries and table tokens typed on it (was store.js);
//   - the outbox every write goes through (was outbox.js);
//   - the requests to the server, and the rules engine in their stead.
//
// Each part keeps its own opening comment below.

import { createStore, entries, set, del } from './idb-keyval.js';
import { language, t } from '../ui/i18n.js';

// ——— What this phone keeps ———
//
// In IndexedDB (through idb-keyval).
// Everything typed is written here as it is typed: quick-score boards, a
// play being logged, the outbox of writes not yet acknowledged, and the
// last copy of every screen's data. The store is read once when the app
// starts, so screens read it synchronously; every change is written
// through at once, in order. Where IndexedDB is unavailable (some private
// modes) the app keeps working from memory for the life of the page.
//
// IndexedDB commits a little after a write is made, and a page that goes
// away in between (a reload, a crashed tab) loses it. So each write is
// also journalled in localStorage, which writes at once; the journal entry
// goes when IndexedDB has committed, and one left over is replayed at the
// next start.

/** @type {Map<string, any>} */
const memory = new Map();
/** @type {ReturnType<typeof createStore> | null} */
let store = null;
/** @type {Promise<void>} resolves when every write so far has landed */
let writing = Promise.resolve();
/** set once a write failed: the phone is keeping things in memory only */
let failure = '';

const journalPrefix = 'insectscore.journal:';
/** @type {Map<string, number>} the newest journalled write per key */
const journalled = new Map();
let journalSeq = 0;

try {
  store = createStore('insectscore', 'kv');
  for (const [k, v] of await entries(store)) memory.set(String(k), v);
} catch (err) {
  store = null;
  failure = String(err && /** @type {any} */ (err).message || err);
}
replayJournal();

/** replayJournal applies the writes a page left in the journal and did not commit. */
function replayJournal() {
  /** @type {[string, any][]} */
  const found = [];
  try {
    for (let i = 0; i < localStorage.length; i++) {
      const jk = localStorage.key(i) ?? '';
      if (jk.startsWith(journalPrefix)) found.push([jk, JSON.parse(localStorage.getItem(jk) ?? 'null')]);
    }
  } catch {
    return;
  }
  for (const [jk, entry] of found) {
    const key = jk.slice(journalPrefix.length);
    if (!entry || typeof entry !== 'object') continue;
    if (entry.removed) removeLocal(key);
    else putLocal(key, entry.value);
  }
}

/**
 * journal notes a write in localStorage until IndexedDB has it; it returns
 * the write's number, or 0 when it could not be journalled (too large, no
 * storage).
 * @param {string} key
 * @param {any} entry
 */
function journal(key, entry) {
  const seq = ++journalSeq;
  try {
    localStorage.setItem(journalPrefix + key, JSON.stringify(entry));
  } catch {
    return 0;
  }
  journalled.set(key, seq);
  return seq;
}

/**
 * settle forgets a journalled write once IndexedDB has it, unless a newer
 * write of the key is journalled since.
 * @param {string} key
 * @param {number} seq
 */
function settle(key, seq) {
  if (!seq || journalled.get(key) !== seq) return;
  journalled.delete(key);
  try {
    localStorage.removeItem(journalPrefix + key);
  } catch {
    /* nothing to forget */
  }
}

/**
 * getLocal returns what is kept under key, or undefined. The value is the
 * caller's to read, not to change: change a copy and set it.
 * @param {string} key
 * @returns {any}
 */
export function getLocal(key) {
  return memory.get(key);
}

/**
 * putLocal keeps value under key, on the device at once.
 * @param {string} key
 * @param {any} value a structured-cloneable value
 * @returns {Promise<void>} resolves once it is on disk
 */
export function putLocal(key, value) {
  memory.set(key, value);
  if (!store) return Promise.resolve();
  const seq = journal(key, { value });
  return write(() => set(key, value, /** @type {any} */ (store))).then(() => settle(key, seq));
}

/**
 * removeLocal forgets key.
 * @param {string} key
 * @returns {Promise<void>}
 */
export function removeLocal(key) {
  memory.delete(key);
  if (!store) return Promise.resolve();
  const seq = journal(key, { removed: true });
  return write(() => del(key, /** @type {any} */ (store))).then(() => settle(key, seq));
}

/**
 * keysWith lists the keys that start with prefix.
 * @param {string} prefix
 * @returns {string[]}
 */
export function keysWith(prefix) {
  return [...memory.keys()].filter((k) => k.startsWith(prefix));
}

/**
 * flushed resolves when every write so far is on disk.
 * @returns {Promise<void>}
 */
export function flushed() {
  return writing;
}

/**
 * storageProblem says why entries live only in memory, or '' when they
 * are kept on the device.
 */
export function storageProblem() {
  return failure;
}

/**
 * write starts one IndexedDB write at once (not after the last one ends: a
 * tap just before a reload must reach the disk). IndexedDB runs readwrite
 * transactions on one store in the order they were made, so writes land
 * in order all the same.
 * @param {() => Promise<any>} fn
 */
function write(fn) {
  if (!store) return Promise.resolve();
  const done = fn().then(() => { failure = ''; }, (err) => {
    failure = String(err && err.message || err);
  });
  writing = Promise.all([writing, done]).then(() => {});
  return done;
}

// ——— The group this phone is in ———
//
// The group this browser keeps its history in, and the
// groups it knows. A group's id is its invite (knowing it is being in the
// group), so the ids kept here are what makes this phone a member. With
// nothing kept, the phone is in the server's default group.

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
// being entered) are kept per game on the device (IndexedDB, above),
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

// ——— The outbox ———
//
// Every write the app makes goes through this one queue, which
// keeps it on the phone (above) until the server has acknowledged it.
// A failure that may pass (no network, a timeout, a 5xx, the server
// restarting, 429 or an answer with Retry-After) is retried with backoff
// and jitter for as long as it takes, whether or not the browser believes
// it is online; a refusal (a 4xx that sending again cannot change) ends
// the write and says why. Writes that create something carry an
// Idempotency-Key made here, so a retry the server already answered is
// answered again from its record instead of being recorded twice.
//
// Writes queue in lanes: a lane (one table, one group's history) sends in
// order, one write at a time; lanes do not wait for each other. A write
// with a coalesce key replaces a queued one with the same key (a seat's
// board: only the newest matters), keeping the older one's age. A write
// held back (a delete that can still be undone) is not sent before its
// time, and can be withdrawn until then.

/**
 * @typedef {Object} Op
 * @property {string} id
 * @property {string} kind what it is: "board", "sync", "logPlay", "move", …
 * @property {string} lane writes of one lane go in order
 * @property {string} method
 * @property {string} path
 * @property {any} [body] a JSON value; undefined sends none
 * @property {boolean} [raw] body is JSON text already (a file as it was read), sent as it is
 * @property {Object<string, string>} headers Authorization, If-Match, …
 * @property {string} [key] the Idempotency-Key
 * @property {string} [coalesce] a newer write with this key replaces this one
 * @property {string} [labelKey] what it is in words, as a catalog key ("ui.op.seatBoard"):
 *   the label is written in the language the app speaks when it is shown
 * @property {Object<string, string | number>} [labelArgs] the key's placeholders
 * @property {string} [label] what it is in words, as an older version of the app kept it
 * @property {any} [meta] what the kind's handlers need (a table code, a seat)
 * @property {number} createdAt when the oldest change it carries was made
 * @property {number} attempts failed tries so far
 * @property {number} nextAt when to try again (ms since the epoch)
 * @property {number} [notBefore] never sent before this (ms since the epoch), however nudged
 * @property {string} lastError why the last try failed
 * @property {boolean} [quiet] bookkeeping the user need not hear about
 */

/**
 * @typedef {Object} KindHandlers
 * @property {(op: Op, data: any) => void} [delivered] runs once the server acknowledged op, even after a reload
 * @property {(op: Op, err: any) => void} [refused] runs when the server refused op for good
 * @property {(op: Op, err: any) => Promise<boolean>} [conflict] a 409: fix op (a fresher If-Match) and
 *   resolve true to send it again at once, or false to treat it as refused
 * @property {(op: Op) => any} [body] builds the body when op is sent (a report of the queue's state)
 * @property {(err: any) => boolean} [explained] the screen that made the write explains this
 *   refusal itself, so the outbox's strip need not
 */

/**
 * @typedef {Object} OutboxState
 * @property {number} pending writes the server has not acknowledged
 * @property {number} oldest when the oldest of them was made (0: none)
 * @property {boolean} sending a write is on its way
 * @property {boolean} retrying a write failed and will be tried again
 * @property {string} lastError why the last try failed
 * @property {{labelKey?: string, labelArgs?: Object<string, string | number>, label?: string, detail: string, at: number}[]} refused
 *   what the server refused lately (its label as an op's: see opLabel)
 * @property {number} savedAt when the last write was acknowledged (0: none this session)
 */

const storeKey = 'outbox';
/** How long one try may take before it counts as failed. */
const timeout = 15000;
/** The longest wait between two tries: a server back up is reached within it. */
const maxDelay = 8000;
/** Conflicts fixed in a row before a write backs off like any failure. */
const maxConflicts = 5;

/** @type {Op[]} */
let queue = (getLocal(storeKey) ?? []).filter(isOp);
/** @type {Map<string, {resolve: (v: any) => void, reject: (e: any) => void}[]>} */
const waiting = new Map();
/** @type {Map<string, KindHandlers>} */
const kinds = new Map();
/** @type {Set<string>} lanes with a write on its way */
const busy = new Set();
/** @type {Set<string>} the ids of the writes on their way */
const flying = new Set();
/** @type {Set<(s: OutboxState) => void>} */
const listeners = new Set();
/** @type {OutboxState['refused']} */
let refused = [];
let savedAt = 0;
let lastError = '';
/** @type {number | undefined} */
let timer;
let started = false;

/**
 * register names what happens around writes of one kind; handlers
 * registered for a kind by several modules add up.
 * @param {string} kind
 * @param {KindHandlers} handlers
 */
export function register(kind, handlers) {
  kinds.set(kind, { ...kinds.get(kind), ...handlers });
}

/**
 * opLabel is what a write (or a refusal of one) is, in words, in the
 * language the app speaks now: an op keeps its label's key, not its words,
 * so a change queued before a switch reads in the new language. An op an
 * older version kept has its words only, which are shown as they are.
 * @param {{labelKey?: string, labelArgs?: Object<string, string | number>, label?: string}} op
 * @returns {string}
 */
export function opLabel(op) {
  return op.labelKey ? t(op.labelKey, op.labelArgs) : String(op.label ?? '');
}

/**
 * newKey makes an Idempotency-Key: 128 random bits. crypto.getRandomValues
 * works on plain http too (crypto.randomUUID does not), as on a LAN server.
 */
export function newKey() {
  const b = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
}

/**
 * send queues a write and resolves with the server's answer once it is
 * acknowledged, or rejects with the refusal (an ApiError-like object from
 * toError). A write that creates something should carry a key (newKey()).
 * A write with a delay waits that long before it is sent, so that a newer
 * one (typing goes on) can replace it: it is on the phone all the same. A
 * write with hold waits that long whatever happens (kick, another write
 * answered), so that withdraw can still take it back. id names the write
 * (newKey() when not given), for withdraw.
 * @param {{kind: string, lane: string, method: string, path: string, body?: any, raw?: boolean,
 *   headers?: Object<string, string>, key?: string, coalesce?: string, labelKey: string, labelArgs?: Object<string, string | number>,
 *   meta?: any, quiet?: boolean,
 *   delay?: number, hold?: number, id?: string}} w
 * @returns {Promise<any>}
 */
export function send(w) {
  const now = Date.now();
  const notBefore = w.hold ? now + w.hold : undefined;
  /** @type {Op} */
  const op = {
    id: w.id || newKey(), kind: w.kind, lane: w.lane, method: w.method, path: w.path, body: w.body, raw: w.raw,
    headers: { ...(w.headers ?? {}) }, key: w.key, coalesce: w.coalesce,
    labelKey: w.labelKey, labelArgs: w.labelArgs, meta: w.meta,
    createdAt: now, attempts: 0, nextAt: Math.max(now + (w.delay ?? 0), notBefore ?? 0), lastError: '', quiet: w.quiet, notBefore,
  };
  const promise = new Promise((resolve, reject) => {
    waiting.set(op.id, [{ resolve, reject }]);
  });
  const old = op.coalesce ? queue.findIndex((q) => q.coalesce === op.coalesce && !flying.has(q.id)) : -1;
  if (old >= 0) {
    // The newer write carries the older one's change too: it takes its
    // place and age, and whoever waited for the older one waits for it.
    const prev = queue[old];
    op.createdAt = prev.createdAt;
    op.attempts = prev.attempts;
    waiting.get(op.id)?.push(...(waiting.get(prev.id) ?? []));
    waiting.delete(prev.id);
    queue[old] = op;
  } else {
    queue.push(op);
  }
  save();
  pump();
  return promise;
}

/**
 * pending lists the writes not yet acknowledged, oldest first.
 * @param {(op: Op) => boolean} [filter]
 * @returns {Op[]}
 */
export function pending(filter = () => true) {
  return queue.filter(filter);
}

/**
 * withdraw takes a write back that has not been sent yet (a delete undone):
 * it leaves the queue, and whoever waits for it gets an AbortError. A write
 * on its way or already answered cannot be withdrawn.
 * @param {string} id
 * @returns {boolean} whether it was withdrawn
 */
export function withdraw(id) {
  const op = queue.find((q) => q.id === id);
  if (!op || flying.has(id)) return false;
  queue = queue.filter((q) => q !== op);
  save();
  for (const w of waiting.get(id) ?? []) w.reject(new DOMException(t('ui.op.withdrawn', { label: opLabel(op) }), 'AbortError'));
  waiting.delete(id);
  pump();
  return true;
}

/**
 * soonest is when op may be tried at the earliest from now on.
 * @param {Op} op
 * @param {number} now
 */
function soonest(op, now) {
  return Math.max(now, op.notBefore ?? 0);
}

/**
 * kick tries every waiting write now (the network or the server is back),
 * but a write held back until later.
 */
export function kick() {
  const now = Date.now();
  let due = false;
  for (const op of queue) {
    if (op.nextAt > soonest(op, now)) {
      op.nextAt = soonest(op, now);
      due = true;
    }
  }
  if (due || queue.length) pump();
}

/**
 * subscribeOutbox calls fn with the outbox's state now and on every change.
 * @param {(s: OutboxState) => void} fn
 * @returns {() => void} unsubscribe
 */
export function subscribeOutbox(fn) {
  listeners.add(fn);
  fn(outboxState());
  return () => listeners.delete(fn);
}

/** dismissRefused forgets the refusals shown. */
export function dismissRefused() {
  refused = [];
  notify();
}

/**
 * startOutbox sends what an earlier page left in the outbox, and retries at
 * once when the phone comes back online or the app comes back in view.
 */
export function startOutbox() {
  if (started) return;
  started = true;
  window.addEventListener('online', kick);
  document.addEventListener('visibilitychange', () => { if (document.visibilityState === 'visible') kick(); });
  pump();
}

/**
 * outboxState is the outbox as the sync indicator shows it.
 * @returns {OutboxState}
 */
export function outboxState() {
  // A write held back (a delete that can still be undone) is not being
  // saved yet.
  const now = Date.now();
  const shown = queue.filter((op) => !op.quiet && !((op.notBefore ?? 0) > now));
  return {
    pending: shown.length,
    oldest: shown.reduce((m, op) => (m === 0 ? op.createdAt : Math.min(m, op.createdAt)), 0),
    sending: shown.some((op) => flying.has(op.id)),
    retrying: shown.some((op) => op.attempts > 0),
    lastError,
    refused,
    savedAt,
  };
}

function notify() {
  const s = outboxState();
  for (const fn of listeners) fn(s);
}

function save() {
  // Ops are plain data; the promises waiting for them stay in memory.
  putLocal(storeKey, queue.map((op) => ({ ...op })));
  notify();
}

/** pump sends the first write of every idle lane that is due, and sets a timer for the next. */
function pump() {
  if (!started) return;
  clearTimeout(timer);
  timer = undefined;
  const now = Date.now();
  let next = Infinity;
  const heads = new Map();
  for (const op of queue) if (!heads.has(op.lane)) heads.set(op.lane, op);
  for (const [lane, op] of heads) {
    if (busy.has(lane)) continue;
    if (op.nextAt <= now) deliver(op);
    else next = Math.min(next, op.nextAt);
  }
  if (next < Infinity) timer = setTimeout(pump, Math.max(0, next - Date.now()));
}

/**
 * deliver sends one write and settles it: acknowledged, refused, or
 * scheduled again.
 * @param {Op} op
 */
async function deliver(op) {
  busy.add(op.lane);
  flying.add(op.id);
  notify();
  const h = kinds.get(op.kind) ?? {};
  let conflicts = 0;
  try {
    for (;;) {
      const res = await attempt(op, h);
      if (res.ok) {
        finish(op, true, res.data);
        return;
      }
      if (res.status === 409 && h.conflict && !res.retryAfter && ++conflicts <= maxConflicts) {
        const again = await h.conflict(op, res.error).catch(() => null);
        if (again === true) continue;
        if (again === false) {
          finish(op, false, res.error);
          return;
        }
        retryLater(op, res.error.message, 0);
        return;
      }
      if (res.retry) {
        retryLater(op, res.error.message, res.retryAfter);
        return;
      }
      finish(op, false, res.error);
      return;
    }
  } finally {
    busy.delete(op.lane);
    flying.delete(op.id);
    pump();
  }
}

/**
 * attempt makes one try at op.
 * @param {Op} op
 * @param {KindHandlers} h
 * @returns {Promise<{ok: true, data: any} | {ok: false, status: number, retry: boolean, retryAfter: number, error: any}>}
 */
async function attempt(op, h) {
  const ctrl = new AbortController();
  const stop = setTimeout(() => ctrl.abort(), timeout);
  /** @type {Object<string, string>} */
  const headers = { Accept: 'application/json, application/problem+json', 'Accept-Language': language(), ...op.headers };
  const body = h.body ? h.body(op) : op.body;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (op.key) headers['Idempotency-Key'] = op.key;
  let res;
  try {
    res = await fetch(op.path, {
      method: op.method, headers, cache: 'no-store', signal: ctrl.signal,
      body: body === undefined ? undefined : op.raw ? body : JSON.stringify(body),
    });
  } catch {
    clearTimeout(stop);
    const why = ctrl.signal.aborted ? t('ui.api.tooSlow') : t('ui.api.unreachable');
    return { ok: false, status: 0, retry: true, retryAfter: 0, error: toError(0, null, why) };
  }
  const type = res.headers.get('Content-Type') || '';
  const data = type.includes('json') ? await res.json().catch(() => null) : null;
  clearTimeout(stop);
  if (res.ok) return { ok: true, data };
  const retryAfter = Math.min(30, Number(res.headers.get('Retry-After')) || 0) * 1000;
  const transient = res.status >= 500 || [408, 425, 429].includes(res.status) || (res.status === 409 && retryAfter > 0);
  return { ok: false, status: res.status, retry: transient, retryAfter, error: toError(res.status, data) };
}

/**
 * retryLater schedules op's next try with exponential backoff and jitter.
 * @param {Op} op
 * @param {string} why
 * @param {number} after at least this long (a Retry-After), in ms
 */
function retryLater(op, why, after) {
  op.attempts++;
  op.lastError = why;
  lastError = why;
  const backoff = Math.min(maxDelay, 500 * 2 ** Math.min(op.attempts, 10));
  op.nextAt = Date.now() + Math.max(after, backoff * (0.5 + Math.random() / 2));
  save();
}

/**
 * finish takes op off the queue and tells whoever waits.
 * @param {Op} op
 * @param {boolean} ok
 * @param {any} result the answer, or the refusal
 */
function finish(op, ok, result) {
  queue = queue.filter((q) => q.id !== op.id);
  const h = kinds.get(op.kind) ?? {};
  if (ok) {
    savedAt = Date.now();
    lastError = '';
    // The server answered: any write waiting for it may go now.
    for (const q of queue) if (q.nextAt > soonest(q, Date.now())) q.nextAt = soonest(q, Date.now());
  } else if (!op.quiet && !h.explained?.(result)) {
    refused = [...refused.slice(-4), {
      labelKey: op.labelKey, labelArgs: op.labelArgs, label: op.label, detail: result?.message ?? String(result), at: Date.now(),
    }];
  }
  save();
  try {
    if (ok) h.delivered?.(op, result);
    else h.refused?.(op, result);
  } catch (err) {
    console.error('outbox handler', op.kind, err);
  }
  for (const w of waiting.get(op.id) ?? []) (ok ? w.resolve : w.reject)(result);
  waiting.delete(op.id);
}

/** @type {(status: number, data: any, why?: string) => any} */
let toError = (status, data, why) => Object.assign(new Error(why || (data && data.detail) || t('ui.api.answered', { status })), { status, data });

/**
 * setErrorMaker lets the requests (below) turn failed answers into its ApiError.
 * @param {(status: number, data: any, why?: string) => any} fn
 */
export function setErrorMaker(fn) {
  toError = fn;
}

/** @param {any} op @returns {op is Op} */
function isOp(op) {
  return op && typeof op.id === 'string' && typeof op.path === 'string' && typeof op.method === 'string' && typeof op.lane === 'string';
}

// ——— The requests ———
//
// The one place that talks to the server. Reads go to the server
// and keep a copy on the phone: when the server cannot be reached, the
// last copy is shown instead, marked with its time (an "insectscore:stale"
// event, which app.js shows). The game list, the games' specs and scoring
// come from the rules engine in the browser (engine/engine.js, the same Go
// code as the server's, compiled to WebAssembly) as soon as it is loaded,
// and from the server until then. Every write goes through the outbox
// (above), which keeps it until the server acknowledges it. RFC 9457
// problem+json answers become an ApiError carrying the status, the
// server's detail and its field errors (JSON Pointers into the request).

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

setErrorMaker((status, data, why) => (status === 0
  ? new ApiError(0, why ? t('ui.api.notSentYet', { why }) : offline())
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
  return new ApiError(status, t('ui.api.serverAnswered', { status }));
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
  putLocal(copyKey(path), { at: Date.now(), data });
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
  return getLocal(copyKey(path));
}

/**
 * copyKey is where the copy of an answer is kept: per language, as the
 * server's answers carry its words (a game's labels, its details), so a
 * copy read after a switch is never in the old language.
 * @param {string} path
 */
function copyKey(path) {
  return `${copyPrefix}${language()}:${path}`;
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
    kick();
    return data;
  } catch (err) {
    if (!unreachable(err)) throw err;
    const copy = copyOf(path);
    if (!copy) {
      throw new ApiError(/** @type {ApiError} */ (err).status, t('ui.api.noCopy'));
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

/** @type {typeof import('../engine/engine.js') | null} the engine's loader, once fetched */
let engineModule = null;

/**
 * loadEngine loads the rules engine (engine/engine.js) once. Its loader is
 * fetched here, when first needed: after the first paint (app.js warms
 * it), or offline when the server cannot score. The home screen's first
 * load never carries it.
 */
export async function loadEngine() {
  if (!engineModule) {
    const m = await import('../engine/engine.js');
    engineModule ??= m;
    engineLanguage();
  }
  return engineModule.loadEngine();
}

/** engineLanguage has the engine answer in the app's language. */
function engineLanguage() {
  /** @type {any} */ (engineModule)?.setEngineLanguage?.(language());
}

// A switch of language: answers read in the old one (the games' specs)
// are read again, and the engine speaks the new one.
window.addEventListener('insectscore:language', () => {
  cache.clear();
  engineLanguage();
});

/**
 * @typedef {{status: number, body: any}} EngineAnswer
 * @typedef {{games: () => Promise<EngineAnswer>, spec: (id: string) => Promise<EngineAnswer>, score: (id: string, req: any) => Promise<EngineAnswer>}} Engine
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
 * rules asks the rules engine when it is loaded (in its worker), else the
 * server, and the server too when the engine stopped mid-call; when the
 * server cannot be reached it waits for the engine (the service worker
 * keeps it, so it loads offline).
 * @template T
 * @param {(e: Engine) => Promise<EngineAnswer>} local
 * @param {() => Promise<T>} remote
 * @returns {Promise<T>}
 */
async function rules(local, remote) {
  const ready = /** @type {Engine | null} */ (engineModule?.engineReady() ?? null);
  if (ready) {
    /** @type {EngineAnswer | null} */ let a = null;
    try {
      a = await local(ready);
    } catch { /* the engine stopped: the server answers */ }
    if (a) return answerOf(a);
  }
  try {
    return await remote();
  } catch (err) {
    if (!unreachable(err)) throw err;
    /** @type {EngineAnswer} */ let a;
    try {
      a = await local(/** @type {Engine} */ (await loadEngine()));
    } catch {
      throw err;
    }
    return answerOf(a);
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

// A board refused as stale (409 with currentVersion) is sent again on top
// of the table as it is now.
register('board', {
  // A newer board for the seat waiting behind this one can say which
  // version it builds on now.
  delivered(op, res) {
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

// Screens that wait for these writes show the server's refusal at the
// fields it names, or say what to do instead.
for (const kind of ['createTable', 'join', 'claim', 'createGroup', 'import', 'rename', 'merge']) {
  register(kind, { explained: (err) => err instanceof ApiError && err.status >= 400 && err.status < 500 });
}

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

// ---------- history: groups, plays, leaderboards, players ----------
// Every history request names its group (?group=<id>): the group is the
// capability, so each call takes it explicitly; screens pass currentGroup().

/** @typedef {{id: string, name: string, createdAt: string, inviteUrl: string}} Group */
/** @typedef {{id: string, name: string}} PlayerRef */
/** @typedef {{player: string, playerId: string, total: number, rank: number, winner: boolean}} PlayResult */
/**
 * @typedef {{notes: string, location: string, startPlayer: number | null, links: {bgStats: string}}} PlayNotes
 * startPlayer is an index into results; links.bgStats hands the play to BG Stats.
 */
/** @typedef {{id: string, game: string, finishedAt: string, results: PlayResult[]} & PlayNotes} PlaySummary */
/**
 * @typedef {PlayResult & {nameAsEntered: string, breakdown: {key: string, label: string, points: number}[], board: any}} PlayPlayer
 * @typedef {{
 *   id: string, game: string, finishedAt: string, startedAt: string | null, durationSeconds: number | null,
 *   variants: Object<string, number>, tableCode?: string, results: PlayPlayer[], standings: Result | null,
 * } & PlayNotes} Play
 */
/**
 * @typedef {{game: string, variants?: Object<string, number>, startedAt?: string, finishedAt?: string,
 *   players: PlayerEntry[], notes?: string, location?: string, startPlayer?: number | null}} PlayRequest
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
  return send({
    kind: 'createGroup', lane: 'groups', method: 'POST', path: '/api/v1/groups', body: { name },
    key: newKey(), labelKey: 'ui.op.group', labelArgs: { name },
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
  return send({
    kind: 'import', lane: 'groups', method: 'POST', path: '/api/v1/groups/import', body: json, raw: true,
    key: newKey(), labelKey: 'ui.op.importedGroup',
  });
}

/**
 * listPlays reads a page of a group's plays, newest first.
 * @param {string} group
 * @param {{game?: string, player?: string, location?: string, limit?: number, cursor?: string}} [filter]
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
  return send({
    kind: 'logPlay', lane: `group:${group}`, method: 'POST', path: inGroup('/api/v1/plays', group), body: req,
    key: newKey(), labelKey: 'ui.op.loggedPlay', meta: { ...meta, group },
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
  return send({
    kind: 'editPlay', lane: `group:${group}`, method: 'PUT', path: inGroup(`/api/v1/plays/${encodeURIComponent(id)}`, group), body: req,
    key: newKey(), labelKey: 'ui.op.changePlay', meta: { group, id },
  });
}

/**
 * deletePlay removes a play from the group's history. With hold, the
 * delete waits that long (ms) in the outbox before it is sent, even when
 * the outbox is nudged: until then withdraw(op) takes it back.
 * @param {string} group
 * @param {string} id
 * @param {{hold?: number, op?: string}} [opts] op: the outbox id to give the write
 */
export function deletePlay(group, id, opts = {}) {
  return send({
    kind: 'deletePlay', lane: `group:${group}`, method: 'DELETE', path: inGroup(`/api/v1/plays/${encodeURIComponent(id)}`, group),
    key: newKey(), labelKey: 'ui.op.deletePlay', meta: { group, id }, id: opts.op, hold: opts.hold,
  });
}

/**
 * deletingPlays lists the plays of a group whose delete waits in the
 * outbox: lists leave them out at once.
 * @param {string} group
 * @returns {Set<string>}
 */
export function deletingPlays(group) {
  return new Set(pending((op) => op.kind === 'deletePlay' && op.meta?.group === group).map((op) => String(op.meta.id)));
}

/**
 * getLeaderboard reads a game's leaderboard in a group.
 * @param {string} group
 * @param {string} game
 * @returns {Promise<{game: string, entries: LeaderboardEntry[], updating: boolean}>}
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
  return send({
    kind: 'rename', lane: `group:${group}`, method: 'PATCH', path: inGroup(`/api/v1/players/${encodeURIComponent(id)}`, group), body: { name },
    key: newKey(), labelKey: 'ui.op.renamePlayer', labelArgs: { name }, meta: { group, id },
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
  return send({
    kind: 'merge', lane: `group:${group}`, method: 'POST', path: inGroup(`/api/v1/players/${encodeURIComponent(id)}/merge`, group), body: { into },
    key: newKey(), labelKey: 'ui.op.mergePlayers', meta: { group, id },
  });
}
