// localdb.js: what this phone keeps, in IndexedDB (through idb-keyval).
// Everything typed is written here as it is typed: quick-score boards, a
// play being logged, the outbox of writes not yet acknowledged, and the
// last copy of every screen's data. The store is read once when the app
// starts, so screens read it synchronously; every change is written
// through at once, in order. Where IndexedDB is unavailable (some private
// modes) the app keeps working from memory for the life of the page.

import { createStore, entries, set, del } from './idb-keyval.js';

/** @type {Map<string, any>} */
const memory = new Map();
/** @type {ReturnType<typeof createStore> | null} */
let store = null;
/** @type {Promise<void>} the last write, so writes land in order */
let writing = Promise.resolve();
/** set once a write failed: the phone is keeping things in memory only */
let failure = '';

try {
  store = createStore('insectscore', 'kv');
  for (const [k, v] of await entries(store)) memory.set(String(k), v);
} catch (err) {
  store = null;
  failure = String(err && /** @type {any} */ (err).message || err);
}

/**
 * get returns what is kept under key, or undefined. The value is the
 * caller's to read, not to change: change a copy and set it.
 * @param {string} key
 * @returns {any}
 */
export function get(key) {
  return memory.get(key);
}

/**
 * put keeps value under key, on the device at once.
 * @param {string} key
 * @param {any} value a structured-cloneable value
 * @returns {Promise<void>} resolves once it is on disk
 */
export function put(key, value) {
  memory.set(key, value);
  return write(() => set(key, value, /** @type {any} */ (store)));
}

/**
 * remove forgets key.
 * @param {string} key
 * @returns {Promise<void>}
 */
export function remove(key) {
  memory.delete(key);
  return write(() => del(key, /** @type {any} */ (store)));
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
 * write chains one IndexedDB write after the others.
 * @param {() => Promise<any>} fn
 */
function write(fn) {
  if (!store) return Promise.resolve();
  writing = writing.then(fn).then(() => { failure = ''; }, (err) => {
    failure = String(err && err.message || err);
  });
  return writing;
}
