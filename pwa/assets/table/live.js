// live.js: keeps a screen's copy of a table current. The server pushes the
// table JSON over Server-Sent Events on every change, or, when much
// smaller, a "delta": JSON Patch operations from the version this screen
// has (applied here; on any gap the table is read whole). EventSource
// reconnects by itself and resumes with Last-Event-ID. While the stream is
// down a "Reconnecting…" banner shows; it goes at the next message. The
// table is also read again when the phone comes back online or the page
// becomes visible, since a sleeping phone may have missed events. A screen
// that says the standings are live hears when they are not (onLink).

import { h } from '../ui/dom.js';
import { ApiError, answered, request } from '../sync/http.js';
import { keepTable, tablePath } from '../sync/tables.js';
import { kick } from '../sync/outbox.js';
import { t } from '../ui/i18n.js';

/** @typedef {import('../sync/tables.js').Table} Table */

/** The longest wait between two attempts when EventSource gave up. */
const maxRetry = 15000;

/**
 * @typedef {Object} LiveTable
 * @property {HTMLElement} banner the "Reconnecting…" banner, to place on screen
 * @property {() => Promise<void>} refresh reads the table now
 * @property {() => boolean} live whether the standings follow the server now (not reconnecting)
 * @property {() => void} close stops listening
 */

/**
 * watchTable listens to a table's changes. onTable gets every table JSON
 * that is not older than the last one it got, from the stream or a read;
 * onLink hears when the connection goes (false) and comes back (true).
 * @param {string} code
 * @param {(t: Table) => void} onTable
 * @param {(up: boolean) => void} [onLink]
 * @returns {LiveTable}
 */
export function watchTable(code, onTable, onLink) {
  const banner = h('div', { class: 'banner reconnecting', role: 'status', hidden: true, dataset: { testid: 'reconnecting' } },
    h('span', { class: 'spinner', 'aria-hidden': 'true' }), t('ui.live.reconnecting'));
  /** @type {EventSource | null} */ let es = null;
  /** @type {number | undefined} */ let timer;
  let closed = false;
  let lost = false;
  let retry = 1000;
  let version = -1;
  /** The last table delivered, which deltas apply to. @type {Table | null} */
  let current = null;

  /** @param {Table} tb */
  const deliver = (tb) => {
    if (closed || !tb || typeof tb.version !== 'number' || tb.version < version) return;
    version = tb.version;
    current = tb;
    keepTable(tb);
    onTable(tb);
  };
  /** @param {boolean} down */
  const setLost = (down) => {
    const changed = down !== lost;
    lost = down;
    banner.hidden = !down;
    if (changed && !closed) onLink?.(!down);
  };

  const open = () => {
    timer = undefined;
    if (closed) return;
    es = new EventSource(tablePath(code, '/events?deltas=1'));
    es.addEventListener('table', (e) => {
      retry = 1000;
      setLost(false);
      try {
        deliver(JSON.parse(/** @type {MessageEvent} */ (e).data));
      } catch {
        /* a broken event: the next one, or a read, brings the table */
      }
    });
    es.addEventListener('delta', (e) => {
      retry = 1000;
      setLost(false);
      /** @type {Delta | null} */ let d = null;
      try {
        d = JSON.parse(/** @type {MessageEvent} */ (e).data);
      } catch {
        /* a broken event: read the table below */
      }
      const tb = d && applyDelta(current, d);
      if (tb) deliver(tb);
      // A gap (the delta is not from the table here) or a broken event:
      // read the table whole, unless this screen is already past it.
      else if (!d || typeof d.version !== 'number' || d.version > version) refresh();
    });
    // After a drop the server only sends the table if it changed meanwhile,
    // so read it once to know the stream is back and nothing was missed.
    es.addEventListener('open', () => {
      // The server answers again: whatever waits in the outbox goes now.
      answered();
      kick();
      if (lost) refresh();
    });
    es.addEventListener('error', () => {
      if (closed) return;
      setLost(true);
      // EventSource retries a dropped connection itself; an answer that is
      // not a stream (the server restarting, a proxy error) ends it for good.
      if (es && es.readyState === EventSource.CLOSED) reopenLater();
    });
  };

  const reopenLater = () => {
    es?.close();
    es = null;
    clearTimeout(timer);
    timer = setTimeout(open, retry);
    retry = Math.min(retry * 2, maxRetry);
  };

  const refresh = async () => {
    if (closed) return;
    try {
      const tb = await request('GET', tablePath(code));
      setLost(false);
      deliver(tb);
    } catch (err) {
      if (err instanceof ApiError && err.status === 0) setLost(true);
    }
    if (!closed && (!es || es.readyState === EventSource.CLOSED)) {
      clearTimeout(timer);
      retry = 1000;
      open();
    }
  };

  const onVisible = () => { if (document.visibilityState === 'visible') refresh(); };
  // The server answered another request (a save, a read) while the stream
  // waits to try again: it need not wait any longer.
  const onAnswered = () => {
    if (closed || !lost || es !== null || timer === undefined) return;
    clearTimeout(timer);
    retry = 1000;
    open();
  };
  window.addEventListener('online', refresh);
  window.addEventListener('insectscore:answered', onAnswered);
  document.addEventListener('visibilitychange', onVisible);
  open();

  return {
    banner,
    refresh,
    live: () => !lost,
    close() {
      closed = true;
      clearTimeout(timer);
      es?.close();
      window.removeEventListener('online', refresh);
      window.removeEventListener('insectscore:answered', onAnswered);
      document.removeEventListener('visibilitychange', onVisible);
    },
  };
}

/**
 * @typedef {Object} PatchOp one JSON Patch (RFC 6902) operation
 * @property {'add' | 'remove' | 'replace'} op
 * @property {string} path a JSON Pointer into the table
 * @property {unknown} [value]
 */

/**
 * @typedef {Object} Delta the data of a "delta" event
 * @property {number} from the version the patch applies to
 * @property {number} version the version it makes
 * @property {PatchOp[]} patch
 */

/**
 * applyDelta returns the table d makes of base, or null when d does not
 * start from base's version or an operation does not fit: the caller then
 * reads the table whole. base itself is left as it was.
 * @param {Table | null} base
 * @param {Delta} d
 * @returns {Table | null}
 */
export function applyDelta(base, d) {
  if (!base || !d || base.version !== d.from || typeof d.version !== 'number' || !Array.isArray(d.patch)) return null;
  const tb = structuredClone(base);
  for (const op of d.patch) {
    if (!applyOp(tb, op)) return null;
  }
  return tb.version === d.version ? tb : null;
}

/**
 * applyOp applies one operation to doc in place; false if it does not fit.
 * @param {any} doc
 * @param {PatchOp} o
 * @returns {boolean}
 */
function applyOp(doc, o) {
  if (!o || typeof o.path !== 'string' || !o.path.startsWith('/')) return false;
  const keys = o.path.slice(1).split('/').map((k) => k.replaceAll('~1', '/').replaceAll('~0', '~'));
  const last = /** @type {string} */ (keys.pop());
  let parent = doc;
  for (const k of keys) {
    parent = Array.isArray(parent) ? parent[Number(k)] : parent?.[k];
    if (parent === null || typeof parent !== 'object') return false;
  }
  if (Array.isArray(parent)) {
    const i = Number(last);
    if (!Number.isInteger(i) || i < 0 || i > parent.length || (i === parent.length && o.op !== 'add')) return false;
    if (o.op === 'add') parent.splice(i, 0, o.value);
    else if (o.op === 'replace') parent[i] = o.value;
    else if (o.op === 'remove') parent.splice(i, 1);
    else return false;
    return true;
  }
  if (o.op === 'add' || (o.op === 'replace' && Object.hasOwn(parent, last))) parent[last] = o.value;
  else if (o.op === 'remove' && Object.hasOwn(parent, last)) delete parent[last];
  else return false;
  return true;
}
