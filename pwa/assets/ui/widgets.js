// widgets.js: the form controls every board form is made of. Each control
// sits in a .field wrapper that carries the JSON Pointer of the value it
// edits (data-pointer), so a server error about that value lands right
// there (see problems.js). All targets are at least 44 px.

import { h, uid } from './dom.js';
import { t } from './i18n.js';

/** @typedef {import('../sync/http.js').Option} Option */

/**
 * field wraps a control with its label and a slot for messages.
 * @param {{label: string, pointer?: string, control: HTMLElement, id?: string, hint?: string, class?: string}} o
 */
export function field(o) {
  const msgs = h('div', { class: 'msgs', 'aria-live': 'polite' });
  return h('div', { class: ['field', o.class], dataset: { pointer: o.pointer } },
    h('label', { class: 'label', for: o.id }, o.label),
    o.control,
    o.hint ? h('p', { class: 'hint' }, o.hint) : null,
    msgs);
}

/**
 * group is a fieldset of related controls (radio or check buttons).
 * @param {{label: string, pointer?: string, body: HTMLElement, class?: string, hideLegend?: boolean}} o
 */
export function group(o) {
  return h('fieldset', { class: ['field', 'group', o.class], dataset: { pointer: o.pointer } },
    h('legend', { class: o.hideLegend ? 'label sr-only' : 'label' }, o.label),
    o.body,
    h('div', { class: 'msgs', 'aria-live': 'polite' }));
}

/**
 * stepper is a number input between − and + buttons.
 * @param {{label: string, pointer?: string, value: number | undefined, min?: number, max?: number,
 *          onChange: (v: number) => void, hint?: string, class?: string}} o
 */
export function stepper(o) {
  const id = uid('num');
  const min = o.min ?? 0;
  const max = o.max ?? 999;
  const input = /** @type {HTMLInputElement} */ (h('input', {
    id, type: 'number', inputmode: 'numeric', min, max, step: 1,
    value: o.value ?? '', class: 'num',
    on: {
      input: () => { if (input.value !== '') o.onChange(Number(input.value)); },
      focus: () => input.select(),
    },
  }));
  /** @param {number} d */
  const bump = (d) => {
    // An empty field starts at its minimum, whichever button is pressed.
    const next = input.value === '' ? min : Math.min(max, Math.max(min, Number(input.value) + d));
    input.value = String(next);
    o.onChange(next);
  };
  const control = h('div', { class: 'stepper' },
    h('button', { type: 'button', class: 'step', 'aria-label': t('ui.widget.less', { label: o.label }), on: { click: () => bump(-1) } }, '−'),
    input,
    h('button', { type: 'button', class: 'step', 'aria-label': t('ui.widget.more', { label: o.label }), on: { click: () => bump(1) } }, '+'));
  const el = field({ label: o.label, pointer: o.pointer, control, id, hint: o.hint, class: ['field-stepper', o.class].filter(Boolean).join(' ') });
  // A number half typed ("1" on the way to "12") is not flagged until the field is left (problems.js).
  el.dataset.holdErrors = '';
  return el;
}

/**
 * segmented is a row of radio buttons that look like one control.
 * @param {{label: string, pointer?: string, options: Option[], value: string | number | undefined,
 *          onChange: (v: string) => void, class?: string, swatch?: string, hideLegend?: boolean}} o
 *   swatch: a prefix for a per-value class ("swatch-" gives "swatch-green")
 *   so a colour can be shown beside its name; unknown values just get none.
 */
export function segmented(o) {
  const name = uid('seg');
  const body = h('div', { class: 'segmented' }, o.options.map((opt) => {
    const input = h('input', {
      type: 'radio', name, value: opt.id, checked: String(o.value) === String(opt.id),
      class: 'sr-only', on: { change: () => o.onChange(opt.id) },
    });
    return h('label', { class: 'seg', dataset: { value: opt.id } },
      input,
      o.swatch ? h('span', { class: ['dot', o.swatch + opt.id], 'aria-hidden': 'true' }) : null,
      h('span', {}, opt.label));
  }));
  return group({ label: o.label, pointer: o.pointer, body, class: o.class, hideLegend: o.hideLegend });
}

/**
 * picker is a row of buttons that act at once: a tap picks a value and
 * the form may move on (a card's points, an insect's continent), which a
 * radio group cannot do without firing on every arrow key. The button of
 * the current value is pressed.
 * @param {{label: string, options: (Option & {class?: string, hint?: string})[], value?: string | number | null,
 *          onPick: (v: string) => void, class?: string, swatch?: string, hideLegend?: boolean}} o
 *   hint: words said after the label to a screen reader only ("adds the card")
 * @returns {HTMLElement & {setValue: (v: string | number | null | undefined) => void}}
 */
export function picker(o) {
  const buttons = o.options.map((opt) => h('button', {
    type: 'button', class: ['pick', opt.class], dataset: { value: opt.id },
    'aria-pressed': String(o.value !== undefined && o.value !== null && String(o.value) === String(opt.id)),
    on: { click: () => { setValue(opt.id); o.onPick(opt.id); } },
  },
  o.swatch ? h('span', { class: ['dot', o.swatch + opt.id], 'aria-hidden': 'true' }) : null,
  h('span', {}, opt.label),
  opt.hint ? h('span', { class: 'sr-only' }, ` ${opt.hint}`) : null));
  /** @param {string | number | null | undefined} v */
  const setValue = (v) => buttons.forEach((b) => b.setAttribute('aria-pressed', String(v !== undefined && v !== null && b.dataset.value === String(v))));
  const el = /** @type {any} */ (group({ label: o.label, body: h('div', { class: 'picker' }, buttons), class: ['field-picker', o.class].filter(Boolean).join(' '), hideLegend: o.hideLegend }));
  el.setValue = setValue;
  return el;
}

/**
 * checks is a row of toggle buttons for a set of values (checkboxes).
 * @param {{label: string, pointer?: string, options: Option[], values: string[],
 *          onChange: (v: string[]) => void, class?: string}} o
 */
export function checks(o) {
  const picked = new Set(o.values);
  const body = h('div', { class: 'segmented' }, o.options.map((opt) => h('label', { class: 'seg', dataset: { value: opt.id } },
    h('input', {
      type: 'checkbox', value: opt.id, checked: picked.has(opt.id), class: 'sr-only',
      on: {
        change: (/** @type {Event} */ e) => {
          if (/** @type {HTMLInputElement} */ (e.target).checked) picked.add(opt.id); else picked.delete(opt.id);
          o.onChange(o.options.map((x) => x.id).filter((id) => picked.has(id)));
        },
      },
    }),
    h('span', {}, opt.label))));
  return group({ label: o.label, pointer: o.pointer, body, class: o.class });
}

/**
 * select is a native <select>; none (when given) is the label of the empty choice.
 * @param {{label: string, pointer?: string, options: Option[] | {label: string, options: Option[]}[],
 *          value: string | undefined | null, none?: string, onChange: (v: string) => void,
 *          class?: string, hint?: string}} o
 */
export function select(o) {
  const id = uid('sel');
  /** @param {Option} opt */
  const option = (opt) => h('option', { value: opt.id, selected: opt.id === o.value }, opt.label);
  const sel = /** @type {HTMLSelectElement} */ (h('select', { id, on: { change: () => o.onChange(sel.value) } },
    o.none !== undefined ? h('option', { value: '', selected: !o.value }, o.none) : null,
    o.options.map((x) => ('options' in x ? h('optgroup', { label: x.label }, x.options.map(option)) : option(x)))));
  return field({ label: o.label, pointer: o.pointer, control: sel, id, class: o.class, hint: o.hint });
}

/**
 * toggle is an on/off switch (a styled checkbox).
 * @param {{label: string, pointer?: string, checked: boolean, onChange: (v: boolean) => void, hint?: string}} o
 */
export function toggle(o) {
  const id = uid('tog');
  const input = /** @type {HTMLInputElement} */ (h('input', {
    id, type: 'checkbox', role: 'switch', class: 'switch', checked: o.checked,
    on: { change: () => o.onChange(input.checked) },
  }));
  const msgs = h('div', { class: 'msgs', 'aria-live': 'polite' });
  return h('div', { class: 'field field-toggle', dataset: { pointer: o.pointer } },
    h('label', { class: 'toggle-row', for: id }, h('span', { class: 'label' }, o.label), input),
    o.hint ? h('p', { class: 'hint' }, o.hint) : null,
    msgs);
}

/**
 * text is a one-line text input.
 * @param {{label: string, pointer?: string, value: string | undefined, onChange: (v: string) => void,
 *          placeholder?: string, maxlength?: number, autocomplete?: string, class?: string}} o
 */
export function text(o) {
  const id = uid('txt');
  const input = /** @type {HTMLInputElement} */ (h('input', {
    id, type: 'text', value: o.value ?? '', placeholder: o.placeholder, maxlength: o.maxlength,
    autocomplete: o.autocomplete ?? 'off', spellcheck: 'false',
    on: { input: () => o.onChange(input.value) },
  }));
  return field({ label: o.label, pointer: o.pointer, control: input, id, class: o.class });
}

/**
 * enumOf finds an enumeration in a spec by the first of several names it
 * may go by; [] when the server offers none of them.
 * @param {import('../sync/http.js').Spec} spec
 * @param {...string} names
 * @returns {Option[]}
 */
export function enumOf(spec, ...names) {
  for (const n of names) if (spec.enums && Array.isArray(spec.enums[n])) return spec.enums[n];
  return [];
}

/**
 * labelOf returns the label of an id in an enumeration, or the id itself.
 * @param {Option[]} opts
 * @param {string | undefined | null} id
 */
export function labelOf(opts, id) {
  if (!id) return '';
  return opts.find((o) => o.id === id)?.label ?? humanize(id);
}

/**
 * humanize turns an id like "try-again" into "Try again".
 * @param {string} id
 */
export function humanize(id) {
  const s = String(id).replace(/[-_:]+/g, ' ').trim();
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/**
 * breakable lets a label wrap in a narrow cell instead of being cut: a
 * break is allowed after each slash ("Cricket/Grasshopper"), and a long
 * word may hyphenate where two consonants meet nearest its middle
 * ("Grass-hopper"), as CSS hyphens: auto would where the browser has no
 * dictionary.
 * @param {string} label
 */
export function breakable(label) {
  return label.split('/').map((part) => part.split(' ').map(soften).join(' ')).join('/\u200B');
}

/** @param {string} word */
function soften(word) {
  if (word.length < 10) return word;
  const consonant = (/** @type {string} */ ch) => /[a-z]/i.test(ch) && !/[aeiouy]/i.test(ch);
  let best = -1;
  for (let i = 3; i <= word.length - 3; i++) {
    if (consonant(word[i - 1]) && consonant(word[i]) && (best < 0 || Math.abs(i - word.length / 2) < Math.abs(best - word.length / 2))) best = i;
  }
  return best < 0 ? word : `${word.slice(0, best)}\u00AD${word.slice(best)}`;
}
