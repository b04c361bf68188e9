// syncstate.js: the one place a phone shows whether the server has what
// was entered on it: "Saved", "Saving…", or "Not saved yet — retrying"
// with the age of the oldest change waiting, read from the outbox. What
// the server refused for good is said here too, with what happened.

import { h, replace } from './dom.js';
import { dismissRefused, subscribe } from '../sync/outbox.js';

/** @typedef {import('../sync/outbox.js').OutboxState} OutboxState */

/** How long "Saved" stays on screens that do not keep it. */
const savedFor = 5000;

/**
 * age says how long ago a moment was, in short words: "12 s", "3 min", "2 h".
 * @param {number} since ms since the epoch
 * @param {number} [now]
 */
export function age(since, now = Date.now()) {
  const s = Math.max(0, Math.round((now - since) / 1000));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min`;
  return `${Math.floor(s / 3600)} h`;
}

/**
 * describe is the indicator's state and words for an outbox state.
 * @param {OutboxState} s
 * @param {boolean} online what the browser believes
 * @param {number} now
 * @param {boolean} sticky keep "Saved" showing
 * @returns {{state: string, text: string}}
 */
export function describe(s, online, now, sticky) {
  if (s.pending > 0) {
    if (!s.retrying) return { state: 'saving', text: 'Saving…' };
    const where = online ? 'retrying' : 'offline, kept on this phone';
    return { state: 'retrying', text: `Not saved yet — ${where} · oldest change ${age(s.oldest, now)} ago` };
  }
  if (s.savedAt && (sticky || now - s.savedAt < savedFor)) return { state: 'saved', text: 'Saved' };
  return { state: '', text: '' };
}

/** @type {boolean} */
let sticky = false;
/** @type {(() => void) | null} */
let redraw = null;

/**
 * keepShowing makes "Saved" stay (on the table screens, where it is the
 * reassurance people look for) or fade after a moment (elsewhere).
 * @param {boolean} on
 */
export function keepShowing(on) {
  sticky = on;
  redraw?.();
}

/**
 * syncIndicator builds the indicator; app.js places it once, above every screen.
 * @returns {HTMLElement}
 */
export function syncIndicator() {
  const text = h('span', { class: 'sync-text', dataset: { testid: 'save-state' } });
  const refusedEl = h('div', { class: 'sync-refused', role: 'alert', hidden: true, dataset: { testid: 'refused' } });
  const el = h('div', { class: 'sync-state', role: 'status', 'aria-live': 'polite', hidden: true }, text, refusedEl);
  /** @type {OutboxState | null} */ let last = null;
  /** @type {number | undefined} */ let timer;

  const draw = () => {
    if (!last) return;
    const d = describe(last, navigator.onLine, Date.now(), sticky);
    text.textContent = d.text;
    el.dataset.state = d.state;
    replace(refusedEl, last.refused.length ? [
      h('ul', {}, last.refused.map((r) => h('li', {}, h('strong', {}, `Not saved: ${r.label}. `), capitalize(r.detail)))),
      h('button', { type: 'button', class: 'btn btn-quiet', on: { click: dismissRefused } }, 'Dismiss'),
    ] : []);
    refusedEl.hidden = last.refused.length === 0;
    text.hidden = d.text === '';
    el.hidden = d.text === '' && last.refused.length === 0;
    // Other sticky notes (the live table's "Reconnecting…") sit below the strip.
    document.documentElement.style.setProperty('--sync-h', `${el.hidden ? 0 : el.offsetHeight}px`);
    clearTimeout(timer);
    // The age ticks, and "Saved" fades: look again in a moment.
    if (!el.hidden) timer = setTimeout(draw, d.state === 'retrying' ? 5000 : 1000);
  };
  redraw = draw;
  subscribe((s) => { last = s; draw(); });
  window.addEventListener('online', draw);
  window.addEventListener('offline', draw);
  return el;
}

/** @param {string} s */
function capitalize(s) {
  return s ? s.charAt(0).toUpperCase() + s.slice(1) : s;
}
