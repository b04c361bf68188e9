// outbox.js: the outbox, its lanes, idempotency keys and retries.
//
// Every write the app makes goes through this one queue, which
// keeps it on the phone (local.js) until the server has acknowledged it.
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

import { getLocal, putLocal } from './local.js';
import { ApiError, answered, toApiError } from './http.js';
import { language, t } from '../ui/i18n.js';

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
 * @property {string} serverSaid why the server turned the last try away for now (a 503's
 *   detail, in the app's language), when it answered; '' when it did not answer
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
let serverSaid = '';
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
    serverSaid,
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
        serverSaid = res.status > 0 ? res.error.message : '';
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
  if (res.status < 500) answered();
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
    serverSaid = '';
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

/**
 * toError is what a failed try ends in: the server's problem as an
 * ApiError, or, with no answer, why the write is not sent yet.
 * @param {number} status 0 when no answer came
 * @param {any} data
 * @param {string} [why]
 */
function toError(status, data, why) {
  return status === 0 ? new ApiError(0, why ? t('ui.api.notSentYet', { why }) : t('ui.api.offline')) : toApiError(status, data);
}

/** @param {any} op @returns {op is Op} */
function isOp(op) {
  return op && typeof op.id === 'string' && typeof op.path === 'string' && typeof op.method === 'string' && typeof op.lane === 'string';
}
