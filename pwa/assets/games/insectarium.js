// insectarium.js: the Insectarium board form. A 3×3 display of tappable
// cells (each opens the card editor), a token circle beside every row and
// under every column, the unused tokens and the Display Tool bonuses.
// The vocabulary (colours, insects, tokens, tools) comes from the spec.

import { h, replace } from '../ui/dom.js';
import { checks, enumOf, labelOf, segmented, stepper, text, toggle } from '../ui/widgets.js';
import { openSheet } from '../ui/sheet.js';

/** @typedef {import('../sync/api.js').Spec} Spec */
/** @typedef {import('./forms.js').FormContext} FormContext */
/** @typedef {{name?: string, color?: string, insect?: string, points?: number, tools: string[], wild?: boolean}} Card */
/**
 * @typedef {{grid: (Card | null)[][], rowTokens: (string | null)[], colTokens: (string | null)[],
 *            supply: number, toolBonusesForPoints: number, toolBonusesForTokens: number}} Board
 */

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
  return `${n}/${rows * cols} cards`;
}

/**
 * render draws the form for one board.
 * @param {FormContext} ctx
 */
function render(ctx) {
  const { spec, base } = ctx;
  const board = /** @type {Board} */ (ctx.board);
  fit(board, spec);
  const { rows, cols } = size(spec);
  const colors = enumOf(spec, 'color');
  const insects = enumOf(spec, 'insect');
  const tools = enumOf(spec, 'tool');
  const tokenList = enumOf(spec, 'token');
  const tokens = tokenList.length ? tokenList : [{ label: 'Colours', options: colors }, { label: 'Insects', options: insects }];

  const gridEl = h('div', { class: 'ia-grid', role: 'group', 'aria-label': 'Display board' });
  const tally = h('p', { class: 'hint tool-tally', 'aria-live': 'polite' });

  /**
   * tokenSelect is one token circle.
   * @param {'rowTokens' | 'colTokens'} side
   * @param {number} i
   */
  const tokenSelect = (side, i) => {
    const where = side === 'rowTokens' ? `Row ${i + 1} token` : `Column ${i + 1} token`;
    const id = `${base.replaceAll('/', '-')}-${side}-${i}`;
    const value = board[side][i];
    const sel = /** @type {HTMLSelectElement} */ (h('select', {
      id, class: ['token', value ? `tok-${value}` : 'tok-none'],
      dataset: { pointer: `${base}/${side}/${i}`, where },
      on: {
        change: () => {
          board[side][i] = sel.value || null;
          sel.className = `token ${sel.value ? `tok-${sel.value}` : 'tok-none'}`;
          ctx.changed();
        },
      },
    },
    h('option', { value: '', selected: !value }, '—'),
    tokens.map((t) => ('options' in t
      ? h('optgroup', { label: t.label }, t.options.map((o) => h('option', { value: o.id, selected: o.id === value }, o.label)))
      : h('option', { value: t.id, selected: t.id === value }, t.label)))));
    return h('div', { class: ['token-cell', side === 'rowTokens' ? 'token-row' : 'token-col'] },
      h('label', { class: 'sr-only', for: id }, where), sel);
  };

  /**
   * cardFace is what a cell shows.
   * @param {Card | null} card
   */
  const cardFace = (card) => {
    if (!card) return [h('span', { class: 'plus', 'aria-hidden': 'true' }, '+'), h('span', { class: 'card-empty' }, 'Add card')];
    const toolChips = (card.tools ?? []).length
      ? h('span', { class: 'chips' }, card.tools.map((t) => h('span', { class: 'chip' }, labelOf(tools, t).split(' ')[0])))
      : null;
    if (card.wild) {
      return [h('span', { class: 'card-pts' }, '★'), h('span', { class: 'card-insect' }, 'Dragonfly'),
        h('span', { class: 'card-color' }, 'wild'), toolChips];
    }
    return [
      h('span', { class: 'card-pts' }, card.points ?? '?'),
      h('span', { class: 'card-insect' }, card.insect ? labelOf(insects, card.insect).split('/')[0] : 'Insect?'),
      h('span', { class: 'card-color' }, card.color ? labelOf(colors, card.color) : 'Colour?'),
      toolChips,
    ];
  };

  /**
   * describe is a cell's accessible name.
   * @param {Card | null} card
   * @param {string} where
   */
  const describe = (card, where) => {
    if (!card) return `${where}: empty. Add a card`;
    const t = (card.tools ?? []).map((x) => labelOf(tools, x)).join(', ');
    const what = card.wild ? 'dragonfly, wild' : `${labelOf(colors, card.color) || 'no colour'} ${labelOf(insects, card.insect) || 'no insect'}, ${card.points ?? 0} points`;
    return `${where}: ${what}${t ? `, tools ${t}` : ''}. Edit`;
  };

  const drawGrid = () => {
    /** @type {HTMLElement[]} */
    const cells = [];
    for (let r = 0; r < rows; r++) {
      for (let c = 0; c < cols; c++) {
        const card = board.grid[r][c];
        const where = `Row ${r + 1}, column ${c + 1}`;
        cells.push(h('button', {
          type: 'button',
          class: ['card', card ? 'filled' : 'empty', card?.wild ? 'wild' : card?.color && `c-${card.color}`],
          dataset: { pointer: `${base}/grid/${r}/${c}`, where },
          'aria-label': describe(card, where),
          on: { click: () => editCard(r, c) },
        }, cardFace(card)));
      }
      cells.push(tokenSelect('rowTokens', r));
    }
    for (let c = 0; c < cols; c++) cells.push(tokenSelect('colTokens', c));
    cells.push(h('span', { class: 'corner', 'aria-hidden': 'true' }));
    replace(gridEl, cells);
    drawTally();
  };

  const drawTally = () => {
    const count = Object.fromEntries(tools.map((t) => [t.id, 0]));
    for (const card of board.grid.flat()) for (const t of card?.tools ?? []) if (t in count) count[t] += 1;
    const sets = tools.length ? Math.min(...tools.map((t) => count[t.id])) : 0;
    tally.textContent = `Tools on the display: ${tools.map((t) => `${count[t.id]} ${labelOf(tools, t.id).toLowerCase()}`).join(', ')} — `
      + `${sets} full ${sets === 1 ? 'set' : 'sets'}.`;
  };

  /**
   * editCard opens the card editor for one cell. Every change is applied
   * at once, so the total behind the sheet follows along.
   * @param {number} r
   * @param {number} c
   */
  const editCard = (r, c) => {
    const ptr = `${base}/grid/${r}/${c}`;
    /** @returns {Card} */
    const card = () => {
      if (!board.grid[r][c]) board.grid[r][c] = { tools: [] };
      return /** @type {Card} */ (board.grid[r][c]);
    };
    const current = board.grid[r][c];
    const update = () => { drawGrid(); ctx.changed(); };
    /**
     * typedFields are the colour, insect and points of a card that is not wild.
     * @param {Card | null} k
     */
    const typedFields = (k) => [
      segmented({ label: 'Colour', pointer: `${ptr}/color`, options: colors, value: k?.color, swatch: 'swatch-',
        onChange: (v) => { card().color = v; update(); } }),
      segmented({ label: 'Insect', pointer: `${ptr}/insect`, options: insects, value: k?.insect,
        onChange: (v) => { card().insect = v; update(); } }),
      stepper({ label: 'Points', pointer: `${ptr}/points`, value: k?.points, min: 0, max: 9,
        onChange: (v) => { card().points = v; update(); } }),
    ];
    const typed = h('div', { class: 'typed', hidden: !!current?.wild }, typedFields(current));
    const body = h('div', { class: 'editor' },
      toggle({
        label: 'Dragonfly (wild card)', pointer: `${ptr}/wild`, checked: !!current?.wild,
        hint: 'Wild for colour and insect: 1 point in each line with a token.',
        onChange: (on) => {
          const k = card();
          if (on) {
            k.wild = true;
            delete k.color; delete k.insect; delete k.points;
          } else delete k.wild;
          typed.hidden = on;
          if (!on) replace(typed, typedFields(null));
          update();
        },
      }),
      typed,
      checks({ label: 'Display tools', pointer: `${ptr}/tools`, options: tools, values: current?.tools ?? [],
        onChange: (v) => { card().tools = v; update(); } }),
      text({ label: 'Card name (optional)', pointer: `${ptr}/name`, value: current?.name, maxlength: 60,
        onChange: (v) => { const k = card(); if (v.trim()) k.name = v; else delete k.name; update(); } }));
    const sheet = openSheet({
      host: ctx.host,
      title: `Row ${r + 1}, column ${c + 1}`,
      body,
      actions: [
        h('button', { type: 'button', class: 'btn btn-danger-quiet', on: { click: () => { board.grid[r][c] = null; sheet.close(); update(); } } }, 'Clear cell'),
        h('button', { type: 'button', class: 'btn btn-primary sheet-done', on: { click: () => sheet.close() } }, 'Done'),
      ],
      onClose: () => {
        const k = board.grid[r][c];
        // An editor opened and closed without a choice leaves the cell empty.
        if (k && !k.wild && !k.color && !k.insect && k.points === undefined && !k.tools.length && !k.name) {
          board.grid[r][c] = null;
          update();
        }
        ctx.refreshErrors();
        // The grid was redrawn while the sheet was open: focus the new cell.
        /** @type {HTMLElement | null} */ (gridEl.querySelector(`[data-pointer="${ptr}"]`))?.focus();
      },
    });
    ctx.refreshErrors();
  };

  drawGrid();
  return h('div', { class: 'form form-insectarium' },
    h('div', { class: 'field grid-field', dataset: { pointer: `${base}/grid` } },
      h('p', { class: 'label' }, 'Display board'),
      h('p', { class: 'hint' }, 'Tap a space to enter its card. Choose the token in each circle: beside the rows, under the columns.'),
      gridEl,
      h('div', { class: 'msgs' })),
    stepper({ label: 'Unused tokens', pointer: `${base}/supply`, value: board.supply, min: 0, max: 50,
      hint: '1 point per 2 tokens.', onChange: (v) => { board.supply = v; ctx.changed(); } }),
    h('div', { class: 'field-pair' },
      stepper({ label: 'Tool bonuses for points', pointer: `${base}/toolBonusesForPoints`, value: board.toolBonusesForPoints,
        min: 0, max: 10, hint: '5 points each.', onChange: (v) => { board.toolBonusesForPoints = v; ctx.changed(); } }),
      stepper({ label: 'Tool bonuses for tokens', pointer: `${base}/toolBonusesForTokens`, value: board.toolBonusesForTokens,
        min: 0, max: 10, hint: 'No points; counted for the check.', onChange: (v) => { board.toolBonusesForTokens = v; ctx.changed(); } })),
    tally);
}

export default { emptyBoard, render, progress };
