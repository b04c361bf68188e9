// local.js: what this phone keeps, in IndexedDB (through idb-keyval),
// and the copies of the server's answers read through it (read.js).
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

import { createStore, entries, set, del } from './idb-keyval.js';
import { language } from '../ui/i18n.js';

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
