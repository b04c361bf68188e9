// totals.js: the totals sheet, a board entered the way a score pad takes
// it: one number per line of the score and per tiebreak, from the game's
// spec ("totals": each with its min, max and step). The server checks the
// numbers as strictly as a board (a line can only take the values the box
// allows) and ranks them the same way; its errors land at
// /players/N/board/totals/<id>.

import { h, uid } from '../ui/dom.js';
import { t } from '../ui/i18n.js';
import { field } from '../ui/widgets.js';

/** @typedef {import('../sync/http.js').Spec} Spec */
/** @typedef {import('./forms.js').FormContext} FormContext */
/** @typedef {{id: string, label: string, min: number, max: number, step: number}} TotalSpec */

/**
 * isTotals says whether a board is a totals sheet rather than a board.
 * @param {any} board
 */
export function isTotals(board) {
  return !!board && typeof board === 'object' && !!board.totals && typeof board.totals === 'object' && !Array.isArray(board.totals);
}

/**
 * totalsRequest is a totals sheet as the API takes it: the numbers entered, nothing else.
 * @param {any} board
 */
export function totalsRequest(board) {
  /** @type {Object<string, number>} */
  const out = {};
  for (const [k, v] of Object.entries(board.totals)) if (typeof v === 'number' && Number.isFinite(v)) out[k] = v;
  return { totals: out };
}

/**
 * renderTotals draws one number field per line of the game's score, then
 * one per tiebreak.
 * @param {FormContext} ctx
 * @returns {HTMLElement}
 */
export function renderTotals(ctx) {
  const { spec, board } = ctx;
  /** @type {TotalSpec[]} */
  const lines = /** @type {any} */ (spec).totals ?? [];
  const tiebreaks = new Set(spec.tiebreaks.map((tb) => tb.id));
  // The total is the rules' (showSheetTotal), never a sum made here: a
  // number the rules refuse would add up to a total the bar does not show.
  const total = h('strong', { class: 'totals-sum', dataset: { testid: 'totals-sum' } }, '–');
  return h('div', { class: 'totals-sheet' },
    lines.map((l) => numberField(ctx, l, tiebreaks.has(l.id))),
    h('p', { class: 'totals-foot' }, t('ui.results.total'), ' ', total));
}

/**
 * showSheetTotal writes the total the rules computed for a player into
 * their totals sheet, if the player's board is one, faded as the screen's
 * other totals are while the rules refuse the numbers entered: the sheet,
 * the tab and the bar always say the same.
 * @param {Element | null} panel the player's panel
 * @param {number | undefined} total
 * @param {boolean} stale
 */
export function showSheetTotal(panel, total, stale) {
  const el = panel?.querySelector('[data-testid=totals-sum]');
  if (!el) return;
  el.textContent = total === undefined ? '–' : String(total);
  el.classList.toggle('stale', stale);
}

/**
 * numberField is one line of the sheet: a number typed directly, or moved
 * by its step with − and +.
 * @param {FormContext} ctx
 * @param {TotalSpec} l
 * @param {boolean} tiebreak
 */
function numberField(ctx, l, tiebreak) {
  const id = uid('tot');
  const totals = ctx.board.totals;
  const step = l.step > 0 ? l.step : 1;
  const input = /** @type {HTMLInputElement} */ (h('input', {
    id, type: 'number', inputmode: 'numeric', min: l.min, max: l.max, step, class: 'num',
    value: typeof totals[l.id] === 'number' ? totals[l.id] : '',
    placeholder: tiebreak ? t('ui.form.forTies') : '0',
    on: {
      input: () => {
        if (input.value === '') delete totals[l.id];
        else totals[l.id] = Number(input.value);
        ctx.changed();
      },
      focus: () => input.select(),
    },
  }));
  /** @param {number} d */
  const bump = (d) => {
    // From empty, the first tap gives the line's smallest value.
    const cur = input.value === '' ? null : Number(input.value);
    const next = cur === null ? l.min : Math.min(l.max, Math.max(l.min, cur + d * step));
    input.value = String(next);
    totals[l.id] = next;
    ctx.changed();
  };
  const control = h('div', { class: 'stepper' },
    h('button', { type: 'button', class: 'step', 'aria-label': t('ui.widget.lessBy', { label: l.label, step }), on: { click: () => bump(-1) } }, '−'),
    input,
    h('button', { type: 'button', class: 'step', 'aria-label': t('ui.widget.moreBy', { label: l.label, step }), on: { click: () => bump(1) } }, '+'));
  const el = field({
    label: tiebreak ? t('ui.form.tiebreak', { label: capitalize(l.label) }) : l.label, pointer: `${ctx.base}/totals/${l.id}`, control, id,
    hint: step > 1 ? t('ui.form.inSteps', { step }) : undefined, class: 'field-stepper',
  });
  // A number being typed is not flagged until the field is left (problems.js).
  el.dataset.holdErrors = '';
  return el;
}

/** @param {string} s */
function capitalize(s) {
  return s ? s.charAt(0).toUpperCase() + s.slice(1) : s;
}
