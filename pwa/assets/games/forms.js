// forms.js: what the quick-score screen and the live table share: the
// board form of each game (one module per game, named by the game's info:
// its form), the wrapper
// that gives a board its JSON Pointer and message slot, and the unit a
// game's total counts. Every board can instead be entered as a totals
// sheet (totals.js): each player chooses, above their board.

import { h, replace } from '../ui/dom.js';
import { language, plural, t } from '../ui/i18n.js';
import { segmented } from '../ui/widgets.js';
import { isTotals, renderTotals, totalsRequest } from './totals.js';

/** @typedef {import('../sync/http.js').Spec} Spec */

/**
 * @typedef {Object} FormContext
 * @property {Spec} spec
 * @property {any} board the player's board, in the API's shape; forms mutate it
 * @property {string} base the JSON Pointer of the board ("/players/0/board")
 * @property {HTMLElement} host where a form attaches its dialogs
 * @property {() => void} changed call after every change: saves and rescores
 * @property {() => void} refreshErrors call after redrawing part of the form
 * @property {boolean} [setup] only what a live table sets up before play
 *   (an Insektenhotel hotel and its floors: the guests come from the moves)
 */

/**
 * @typedef {Object} BoardForm
 * @property {(spec: Spec) => any} emptyBoard
 * @property {(ctx: FormContext) => HTMLElement} render
 * @property {(board: any, spec: Spec) => string} [progress] a short "7/9 cards"
 * @property {(board: any, spec: Spec) => boolean} [short] says whether this board alone
 *   keeps the game from ending (an Insectarium display without its 9 cards); a game
 *   whose end no single board decides has none
 * @property {(board: any) => any} [toRequest] the board as sent, when it differs from the form's state
 */

/** @type {Map<string, BoardForm>} */
const forms = new Map();

/**
 * loadForm imports the board form of a game, the module its info names
 * (a path below assets/, as "games/insecta.js"). The form it returns also
 * knows totals sheets: their progress note and their request.
 * @param {{id: string, form: string}} game the game's info or spec
 * @returns {Promise<BoardForm>}
 */
export async function loadForm(game) {
  const known = forms.get(game.id);
  if (known) return known;
  /** @type {BoardForm} */
  const f = (await import(`../${game.form}`)).default;
  /** @type {BoardForm} */
  const form = {
    ...f,
    progress: (board, spec) => (isTotals(board) ? t('ui.form.totalsProgress') : f.progress?.(board, spec) ?? ''),
    // A totals sheet is a final board.
    short: (board, spec) => !isTotals(board) && !!f.short?.(board, spec),
    toRequest: (board) => (isTotals(board) ? totalsRequest(board) : f.toRequest ? f.toRequest(board) : board),
  };
  forms.set(game.id, form);
  return form;
}

/**
 * boardRequest is a board as the API takes it.
 * @param {BoardForm} form
 * @param {any} board
 */
export function boardRequest(form, board) {
  return form.toRequest ? form.toRequest(board) : board;
}

/** @type {WeakMap<object, {board?: any, totals?: any}>} what each shape held, to switch back to */
const stashes = new WeakMap();

/**
 * switchShape turns a board into a totals sheet or back, in place (the
 * screen holds the object), keeping what the other shape held for this page.
 * @param {BoardForm} form
 * @param {FormContext} ctx
 * @param {'board' | 'totals'} to
 */
function switchShape(form, ctx, to) {
  const board = ctx.board;
  const stash = stashes.get(board) ?? {};
  stashes.set(board, stash);
  if (to === 'totals') stash.board = structuredClone(board);
  else stash.totals = structuredClone(board.totals);
  for (const k of Object.keys(board)) delete board[k];
  if (to === 'totals') board.totals = stash.totals ?? {};
  else Object.assign(board, stash.board ?? form.emptyBoard(ctx.spec));
}

/**
 * boardField draws a board's form inside the field that carries the
 * board's pointer, so an error about the board as a whole lands above it.
 * Above it, the player chooses between the board and a totals sheet
 * (not while a live table sets up an Insektenhotel hotel: its guests come
 * from the moves).
 * @param {BoardForm} form
 * @param {FormContext} ctx
 * @returns {HTMLElement}
 */
export function boardField(form, ctx) {
  const slot = h('div', { class: 'board-slot' });
  const draw = () => replace(slot, isTotals(ctx.board) ? renderTotals(ctx) : form.render(ctx));
  const offer = !ctx.setup && (/** @type {any} */ (ctx.spec).totals ?? []).length > 0;
  draw();
  return h('div', { class: 'board field', dataset: { pointer: ctx.base } },
    offer ? segmented({
      label: t('ui.form.enter'), class: 'shape-pick', hideLegend: true, value: isTotals(ctx.board) ? 'totals' : 'board',
      options: [{ id: 'board', label: t('ui.form.board') }, { id: 'totals', label: t('ui.form.totalsOnly') }],
      onChange: (v) => {
        switchShape(form, ctx, v === 'totals' ? 'totals' : 'board');
        draw();
        ctx.changed();
        ctx.refreshErrors();
      },
    }) : null,
    h('div', { class: 'msgs' }),
    slot);
}

/**
 * unitOf names what a game's total counts. A game whose score has a single
 * category (Insektenhotel's guests) counts that; the others count points.
 * One of them is singular: "1 guest", "1 point".
 * @param {Spec} spec
 * @param {number} n
 */
export function unitOf(spec, n) {
  if (spec.breakdown.length === 1) {
    // The label comes translated, in the plural ("Guests", "Gäste",
    // "Huéspedes"); English makes its singular, German keeps its capital.
    const label = spec.breakdown[0].label;
    if (language() === 'de') return label;
    const unit = label.toLowerCase();
    return language() === 'en' && n === 1 && unit.endsWith('s') ? unit.slice(0, -1) : unit;
  }
  return plural('ui.form.points', n).trim();
}
