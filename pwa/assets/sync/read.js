// read.js: a read from the server that keeps a copy on the phone, and
// shows the last copy when the server cannot be reached.

import { copyOf, keepCopy } from './local.js';
import { kick } from './outbox.js';
import { ApiError, request, unreachable } from './http.js';
import { t } from '../ui/i18n.js';

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
export function cached(path) {
  let p = cache.get(path);
  if (!p) {
    p = read(path);
    p.catch(() => cache.delete(path));
    cache.set(path, p);
  }
  return p;
}

// A switch of language: answers read in the old one (the games' specs)
// are read again.
window.addEventListener('insectscore:language', () => cache.clear());
