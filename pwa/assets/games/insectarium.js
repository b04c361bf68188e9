// insectarium.js: the Insectarium board form. A 3×3 display of tappable
// cells, a token circle beside every row and under every column, the
// unused tokens and the Display Tool bonuses. The vocabulary (colours,
// insects, tokens, tools) comes from the spec.
//
// Entry is a walk through one sheet: a tap on a cell opens it, one tap
// picks colour and insect together (a row per insect, a column per
// colour), the tools are optional, and the points add the card and move
// to the next empty cell. Once the display is full the walk goes on to the
// empty token circles, a tap each. A card being filled in is a draft: it
// reaches the board, and so the scoring and its errors, once it has a
// colour, an insect and points (or is a dragonfly), or when the sheet
// leaves it half done.

import { h, replace } from '../ui/dom.js';
import { language, plural, t } from '../ui/i18n.js';
import { breakable, enumOf, labelOf, stepper } from '../ui/widgets.js';
import { walk, whereOf } from './insectariumwalk.js';

/** @typedef {import('../sync/http.js').Spec} Spec */
/** @typedef {import('../sync/http.js').Option} Option */
/** @typedef {import('./forms.js').FormContext} FormContext */
/** @typedef {import('./insectariumwalk.js').Card} Card */
/** @typedef {import('./insectariumwalk.js').Board} Board */
/** @typedef {import('./insectariumwalk.js').Step} Step */
/** @typedef {import('./insectariumwalk.js').Display} Display */

/** @param {Spec} spec */
function size(spec) {
  return spec.grid ?? { rows: 3, cols: 3 };
}

/**
 * emptyBoard is a display with no cards and no tokens.
 * @param {Spec} spec
 * @returns {Board}
 */
function emptyBoard(spec) {
  const { rows, cols } = size(spec);
  return {
    grid: Array.from({ length: rows }, () => Array(cols).fill(null)),
    rowTokens: Array(rows).fill(null),
    colTokens: Array(cols).fill(null),
    supply: 0,
    toolBonusesForPoints: 0,
    toolBonusesForTokens: 0,
  };
}

/**
 * fit makes a saved board match the grid size, so every cell exists.
 * @param {Board} b
 * @param {Spec} spec
 */
function fit(b, spec) {
  const { rows, cols } = size(spec);
  const e = emptyBoard(spec);
  if (!Array.isArray(b.grid)) b.grid = e.grid;
  for (let r = 0; r < rows; r++) {
    if (!Array.isArray(b.grid[r])) b.grid[r] = Array(cols).fill(null);
    for (let c = 0; c < cols; c++) if (b.grid[r][c] === undefined) b.grid[r][c] = null;
  }
  if (!Array.isArray(b.rowTokens)) b.rowTokens = e.rowTokens;
  if (!Array.isArray(b.colTokens)) b.colTokens = e.colTokens;
  for (const k of /** @type {const} */ (['supply', 'toolBonusesForPoints', 'toolBonusesForTokens'])) {
    if (typeof b[k] !== 'number') b[k] = 0;
  }
}

/**
 * progress counts the cards on the display.
 * @param {Board} b
 * @param {Spec} spec
 */
function progress(b, spec) {
  const { rows, cols } = size(spec);
  const n = (b?.grid ?? []).flat().filter(Boolean).length;
  return t('ui.insectarium.progress', { n, total: rows * cols });
}

/**
 * short says whether the display still lacks cards: the game ends when
 * every display is full.
 * @param {Board} b
 * @param {Spec} spec
 */
function short(b, spec) {
  const { rows, cols } = size(spec);
  return (b?.grid ?? []).flat().filter(Boolean).length < rows * cols;
}

/**
 * render draws the form for one board: the display, the tools counted,
 * the unused tokens and the Display Tool bonuses.
 * @param {FormContext} ctx
 */
function render(ctx) {
  const d = display(ctx);
  const { board, base } = d;
  drawGrid(d);
  return h('div', { class: 'form form-insectarium' },
    h('div', { class: 'field grid-field', dataset: { pointer: `${base}/grid` } },
      h('p', { class: 'label' }, t('ui.insectarium.display')),
      h('p', { class: 'hint' }, t('ui.insectarium.displayHint')),
      d.gridEl,
      h('div', { class: 'msgs' })),
    d.tally,
    stepper({ label: t('ui.insectarium.supply'), pointer: `${base}/supply`, value: board.supply, min: 0, max: 50,
      hint: t('ui.insectarium.supplyHint'), onChange: (v) => { board.supply = v; ctx.changed(); } }),
    h('div', { class: 'field-pair' },
      stepper({ label: t('ui.insectarium.bonusPoints'), pointer: `${base}/toolBonusesForPoints`, value: board.toolBonusesForPoints,
        min: 0, max: 10, hint: t('ui.insectarium.bonusPointsHint'), onChange: (v) => { board.toolBonusesForPoints = v; ctx.changed(); } }),
      stepper({ label: t('ui.insectarium.bonusTokens'), pointer: `${base}/toolBonusesForTokens`, value: board.toolBonusesForTokens,
        min: 0, max: 10, hint: t('ui.insectarium.bonusTokensHint'),
        onChange: (v) => { board.toolBonusesForTokens = v; ctx.changed(); } })));
}

/**
 * display reads the spec's vocabulary for one board's form.
 * @param {FormContext} ctx
 * @returns {Display}
 */
function display(ctx) {
  const { spec, base } = ctx;
  const board = /** @type {Board} */ (ctx.board);
  fit(board, spec);
  const { rows, cols } = size(spec);
  const colors = enumOf(spec, 'color');
  const insects = enumOf(spec, 'insect');
  const tokenList = enumOf(spec, 'token');
  /** @type {Display} */
  const d = {
    ctx, board, base, rows, cols, colors, insects,
    tools: enumOf(spec, 'tool'),
    tokenColors: tokenList.length ? tokenList.filter((x) => colors.some((c) => c.id === x.id)) : colors,
    tokenInsects: tokenList.length ? tokenList.filter((x) => !colors.some((c) => c.id === x.id)) : insects,
    gridEl: h('div', { class: 'ia-grid', role: 'group', 'aria-label': t('ui.insectarium.display') }),
    tally: h('p', { class: 'hint tool-tally', 'aria-live': 'polite' }),
    last: null,
    redraw: () => drawGrid(d),
  };
  return d;
}

/**
 * tokenButton is one token circle: a tap opens the token picker.
 * @param {Display} d
 * @param {'rowTokens' | 'colTokens'} side
 * @param {number} i
 */
function tokenButton(d, side, i) {
  const value = d.board[side][i];
  const where = whereOf({ side, i });
  return h('div', { class: ['token-cell', side === 'rowTokens' ? 'token-row' : 'token-col'] },
    h('button', {
      type: 'button', class: ['token', value ? `tok-${value}` : 'tok-none'],
      dataset: { pointer: `${d.base}/${side}/${i}`, where, value: value ?? '' },
      on: { click: () => walk(d, { side, i }) },
    },
    h('span', { class: 'sr-only' }, `${where}: `),
    value && d.tokenColors.some((x) => x.id === value) ? h('span', { class: ['dot', `swatch-${value}`], 'aria-hidden': 'true' }) : null,
    value ? h('span', { class: 'tok-name' }, breakable(labelOf([...d.tokenColors, ...d.tokenInsects], value))) : h('span', { class: 'tok-name tok-empty' }, t('ui.insectarium.token')),
    value ? null : h('span', { class: 'sr-only' }, t('ui.insectarium.notChosen'))));
}

/**
 * cardFace is what a cell shows. Its words are its accessible name: the
 * place first (for a screen reader only), then what is printed on it.
 * @param {Display} d
 * @param {Card | null} card
 * @param {string} where
 */
function cardFace(d, card, where) {
  const { colors, insects, tools } = d;
  const place = h('span', { class: 'sr-only' }, `${where}: `);
  if (!card) return [place, h('span', { class: 'plus', 'aria-hidden': 'true' }, '+'), h('span', { class: 'card-empty' }, t('ui.insectarium.addCard'))];
  const toolNames = (card.tools ?? []).map((id) => labelOf(tools, id));
  const toolLine = toolNames.length ? h('span', { class: 'card-tools' }, h('span', { class: 'sr-only' }, t('ui.insectarium.toolsPrefix')), toolNames.join(', ')) : null;
  if (card.wild) {
    return [place, h('span', { class: 'card-pts', 'aria-hidden': 'true' }, '★'),
      h('span', { class: 'card-insect' }, t('ui.insectarium.dragonfly')), h('span', { class: 'card-color' }, t('ui.insectarium.wild')), toolLine];
  }
  return [
    place,
    h('span', { class: 'card-pts' }, card.points ?? '?'),
    h('span', { class: 'sr-only' }, plural('ui.insectarium.cardPoints', card.points ?? 0)),
    h('span', { class: 'card-insect' }, card.insect ? breakable(labelOf(insects, card.insect)) : t('ui.insectarium.insectUnknown')),
    h('span', { class: 'sr-only' }, ', '),
    h('span', { class: 'card-color' }, card.color ? labelOf(colors, card.color) : t('ui.insectarium.colorUnknown')),
    toolLine ? h('span', { class: 'sr-only' }, ', ') : null,
    toolLine,
  ];
}

/**
 * drawGrid draws the display's cells and token circles, and the tally.
 * @param {Display} d
 */
function drawGrid(d) {
  /** @type {HTMLElement[]} */
  const cells = [];
  for (let r = 0; r < d.rows; r++) {
    for (let c = 0; c < d.cols; c++) {
      const card = d.board.grid[r][c];
      const where = whereOf({ cell: [r, c] });
      cells.push(h('button', {
        type: 'button',
        class: ['card', card ? 'filled' : 'empty', card?.wild ? 'wild' : card?.color && `c-${card.color}`],
        dataset: { pointer: `${d.base}/grid/${r}/${c}`, where },
        on: { click: () => walk(d, { cell: [r, c] }) },
      }, cardFace(d, card, where)));
    }
    cells.push(tokenButton(d, 'rowTokens', r));
  }
  for (let c = 0; c < d.cols; c++) cells.push(tokenButton(d, 'colTokens', c));
  cells.push(h('span', { class: 'corner', 'aria-hidden': 'true' }));
  replace(d.gridEl, cells);
  drawTally(d);
}

/**
 * drawTally counts the Display Tools on the display, and the full sets.
 * @param {Display} d
 */
function drawTally(d) {
  const { tools } = d;
  const count = Object.fromEntries(tools.map((x) => [x.id, 0]));
  for (const card of d.board.grid.flat()) for (const id of card?.tools ?? []) if (id in count) count[id] += 1;
  const sets = tools.length ? Math.min(...tools.map((x) => count[x.id])) : 0;
  // English runs the tools into its sentence ("2 pin"); German and
  // Spanish count them as printed ("2 × Nadel").
  const named = tools.map((x) => t('ui.insectarium.toolCount', { n: count[x.id], tool: language() === 'en' ? x.label.toLowerCase() : x.label }));
  d.tally.textContent = plural('ui.insectarium.tally', sets, { tools: named.join(', ') });
}

export default { emptyBoard, render, progress, short };
