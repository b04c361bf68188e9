// dom.js: a tiny element builder, so screens read as a tree of calls
// instead of string templates (the CSP forbids inline handlers anyway);
// and the sync indicator every screen carries, built with it (one module,
// as the home screen loads both). The indicator is handed the outbox by
// app.js, so ui/ imports nothing of sync/.

import { LANGUAGES, LANGUAGE_NAMES, language, setLanguage, t } from './i18n.js';

/**
 * @typedef {Object<string, any>} Props
 * Keys: "class" (string or array), "on" (event name → handler),
 * "dataset" (data-* values), "style" (object for element.style),
 * "text" (textContent); "value", "checked", "disabled", "hidden",
 * "selected" are set as properties; everything else as an attribute
 * (false/null/undefined skip it, true sets it empty).
 */

/** @typedef {Node | string | number | null | undefined | false | Array<Node | string | number | null | undefined | false | any[]>} Child */

/**
 * h builds an element.
 * @param {string} tag
 * @param {Props} [props]
 * @param {...Child} children
 * @returns {HTMLElement}
 */
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    switch (key) {
      case 'class':
        el.className = Array.isArray(value) ? value.filter(Boolean).join(' ') : value;
        break;
      case 'on':
        for (const [type, fn] of Object.entries(value)) el.addEventListener(type, fn);
        break;
      case 'dataset':
        for (const [k, v] of Object.entries(value)) if (v !== undefined && v !== null) el.dataset[k] = String(v);
        break;
      case 'style':
        Object.assign(el.style, value);
        break;
      case 'text':
        el.textContent = String(value);
        break;
      case 'value':
      case 'checked':
      case 'disabled':
      case 'hidden':
      case 'selected':
        /** @type {any} */ (el)[key] = value;
        break;
      default:
        el.setAttribute(key, value === true ? '' : String(value));
    }
  }
  append(el, children);
  return el;
}

/**
 * append adds children, flattening arrays and skipping empty values.
 * @param {Node} parent
 * @param {Child[]} children
 */
export function append(parent, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(parent, c);
    else parent.appendChild(typeof c === 'object' ? c : document.createTextNode(String(c)));
  }
}

/**
 * replace swaps an element's children for new ones.
 * @param {Element} el
 * @param {...Child} children
 */
export function replace(el, ...children) {
  el.replaceChildren();
  append(el, children);
}

let idSeq = 0;
/**
 * uid returns a document-unique id for label/aria wiring.
 * @param {string} [prefix]
 */
export function uid(prefix = 'f') {
  idSeq += 1;
  return `${prefix}-${idSeq}`;
}

/**
 * debounce delays fn until calls stop for ms milliseconds.
 * @template {any[]} A
 * @param {(...args: A) => void} fn
 * @param {number} ms
 * @returns {((...args: A) => void) & {flush: () => void, cancel: () => void}}
 */
export function debounce(fn, ms) {
  /** @type {number | undefined} */ let timer;
  /** @type {A | null} */ let pending = null;
  const run = () => {
    timer = undefined;
    if (pending) {
      const args = pending;
      pending = null;
      fn(...args);
    }
  };
  const d = /** @type {any} */ ((/** @type {A} */ ...args) => {
    pending = args;
    clearTimeout(timer);
    timer = setTimeout(run, ms);
  });
  d.flush = () => { clearTimeout(timer); run(); };
  d.cancel = () => { clearTimeout(timer); pending = null; };
  return d;
}

// ——— The sync indicator ———
//
// The one place a phone shows whether the server has what
// was entered on it: "Saved", "Saving…", or "Not saved yet — retrying"
// with the age of the oldest change waiting, read from the outbox. What
// the server refused for good is said here too, with what happened.

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
  if (s < 60) return t('ui.age.seconds', { n: s });
  if (s < 3600) return t('ui.age.minutes', { n: Math.floor(s / 60) });
  return t('ui.age.hours', { n: Math.floor(s / 3600) });
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
    if (!s.retrying) return { state: 'saving', text: t('ui.sync.saving') };
    const oldest = age(s.oldest, now);
    if (!online) return { state: 'retrying', text: t('ui.sync.offline', { age: oldest }) };
    // The server answered but cannot save now (its database is busy or
    // away): say so, as it said it.
    if (s.serverSaid) return { state: 'retrying', text: t('ui.sync.retryingBecause', { why: s.serverSaid, age: oldest }) };
    return { state: 'retrying', text: t('ui.sync.retrying', { age: oldest }) };
  }
  if (s.savedAt && (sticky || now - s.savedAt < savedFor)) return { state: 'saved', text: t('ui.sync.saved') };
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
 * @param {{subscribeOutbox: (fn: (s: OutboxState) => void) => () => void, dismissRefused: () => void,
 *   opLabel: (op: OutboxState['refused'][number]) => string}} outbox sync/outbox.js's
 * @returns {HTMLElement}
 */
export function syncIndicator({ subscribeOutbox, dismissRefused, opLabel }) {
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
      h('ul', {}, last.refused.map((r) => h('li', {}, h('strong', {}, t('ui.sync.notSaved', { label: opLabel(r) }), ' '), capitalize(r.detail)))),
      h('button', { type: 'button', class: 'btn btn-quiet', on: { click: dismissRefused } }, t('ui.sync.dismiss')),
    ] : []);
    refusedEl.hidden = last.refused.length === 0;
    text.hidden = d.text === '';
    el.hidden = d.text === '' && last.refused.length === 0;
    // Other sticky notes (the live table's "Reconnecting…") sit below the strip.
    document.documentElement.style.setProperty('--sync-h', `${el.hidden ? 0 : el.offsetHeight}px`);
    // While the strip says the server is not answering, "Reconnecting…" would
    // say it again in a second yellow banner: the strip is the one shown.
    document.documentElement.toggleAttribute('data-sync-retrying', !el.hidden && d.state === 'retrying');
    clearTimeout(timer);
    // The age ticks, and "Saved" fades: look again in a moment.
    if (!el.hidden) timer = setTimeout(draw, d.state === 'retrying' ? 5000 : 1000);
  };
  redraw = draw;
  subscribeOutbox((s) => { last = s; draw(); });
  window.addEventListener('insectscore:language', draw);
  window.addEventListener('online', draw);
  window.addEventListener('offline', draw);
  return el;
}

/** @param {string} s */
function capitalize(s) {
  return s ? s.charAt(0).toUpperCase() + s.slice(1) : s;
}

/**
 * languageSwitch is the labelled choice of the app's language, each
 * language named in itself; a change applies at once and is remembered.
 */
export function languageSwitch() {
  const id = uid('language');
  const sel = /** @type {HTMLSelectElement} */ (h('select', {
    id, dataset: { testid: 'language' },
    on: {
      change: () => {
        sel.disabled = true;
        setLanguage(sel.value).catch(() => {
          sel.value = language();
          status.textContent = t('ui.language.failed');
        }).finally(() => { sel.disabled = false; });
      },
    },
  }, LANGUAGES.map((l) => h('option', { value: l, lang: l, selected: l === language() }, LANGUAGE_NAMES[l]))));
  const status = h('p', { class: 'hint', role: 'status' });
  return h('div', { class: 'field' }, h('label', { class: 'label', for: id }, t('ui.language.label')), sel, status);
}
