// forms.js: what the quick-score screen and the live table share: the
// board form of each game (one module per game, ./<game>.js), the wrapper
// that gives a board its JSON Pointer and message slot, and the unit a
// game's total counts.

import { h } from '../ui/dom.js';

/** @typedef {import('../sync/api.js').Spec} Spec */

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
 * @property {(board: any) => any} [toRequest] the board as sent, when it differs from the form's state
 */

/**
 * loadForm imports the board form of a game.
 * @param {string} game
 * @returns {Promise<BoardForm>}
 */
export async function loadForm(game) {
  return (await import(`./${game}.js`)).default;
}

/**
 * boardRequest is a board as the API takes it.
 * @param {BoardForm} form
 * @param {any} board
 */
export function boardRequest(form, board) {
  return form.toRequest ? form.toRequest(board) : board;
}

/**
 * boardField draws a board's form inside the field that carries the
 * board's pointer, so an error about the board as a whole lands above it.
 * @param {BoardForm} form
 * @param {FormContext} ctx
 * @returns {HTMLElement}
 */
export function boardField(form, ctx) {
  return h('div', { class: 'board field', dataset: { pointer: ctx.base } },
    h('div', { class: 'msgs' }),
    form.render(ctx));
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
    const unit = spec.breakdown[0].label.toLowerCase();
    return n === 1 && unit.endsWith('s') ? unit.slice(0, -1) : unit;
  }
  return n === 1 ? 'point' : 'points';
}
