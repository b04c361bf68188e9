// insectariumwalk.js: the Insectarium form's walk through one sheet (see
// insectarium.js): a tap on a cell opens it, one tap picks colour and
// insect together, the tools are optional, and the points add the card and
// move to the next empty cell; once the display is full the walk goes on
// to the empty token circles, a tap each.

import { h, replace } from '../ui/dom.js';
import { t } from '../ui/i18n.js';
import { breakable, checks, labelOf, picker, text } from '../ui/widgets.js';
import { openSheet } from '../ui/sheet.js';

/** @typedef {import('../sync/http.js').Option} Option */
/** @typedef {import('./forms.js').FormContext} FormContext */
/** @typedef {{name?: string, color?: string, insect?: string, points?: number, tools: string[], wild?: boolean}} Card */
/**
 * @typedef {{grid: (Card | null)[][], rowTokens: (string | null)[], colTokens: (string | null)[],
 *            supply: number, toolBonusesForPoints: number, toolBonusesForTokens: number}} Board
 */
/** @typedef {{cell: [number, number]} | {side: 'rowTokens' | 'colTokens', i: number}} Step */

/**
 * @typedef {Object} Display what the parts of one board's form share
 * @property {FormContext} ctx
 * @property {Board} board
 * @property {string} base the board's JSON Pointer
 * @property {number} rows
 * @property {number} cols
 * @property {Option[]} colors
 * @property {Option[]} insects
 * @property {Option[]} tools
 * @property {Option[]} tokenColors
 * @property {Option[]} tokenInsects
 * @property {HTMLElement} gridEl the display's cells and token circles
 * @property {HTMLElement} tally the Display Tools counted
 * @property {Card | null} last the card added last, for "same as last card"
 * @property {() => void} redraw draws the display again (insectarium.js's drawGrid)
 */

/**
 * whereOf names a step: a cell by row and column, or a token circle.
 * @param {Step} s
 */
export function whereOf(s) {
  return 'cell' in s ? t('ui.form.cell', { row: s.cell[0] + 1, col: s.cell[1] + 1 })
    : t(s.side === 'rowTokens' ? 'ui.insectarium.rowToken' : 'ui.insectarium.colToken', { n: s.i + 1 });
}

/**
 * pointerOf is a step's JSON Pointer.
 * @param {Display} d
 * @param {Step} s
 */
function pointerOf(d, s) {
  return 'cell' in s ? `${d.base}/grid/${s.cell[0]}/${s.cell[1]}` : `${d.base}/${s.side}/${s.i}`;
}

/**
 * isEmpty says whether a step still waits for an entry.
 * @param {Display} d
 * @param {Step} s
 */
function isEmpty(d, s) {
  return 'cell' in s ? !d.board.grid[s.cell[0]][s.cell[1]] : !d.board[s.side][s.i];
}

/**
 * nextEmpty is where the walk goes after s: the next other empty cell
 * (row by row, round the display), and once the display is full the next
 * empty token circle (rows, then columns); null when nothing is left.
 * @param {Display} d
 * @param {Step} s
 * @returns {Step | null}
 */
function nextEmpty(d, s) {
  const { board, rows, cols } = d;
  /** @type {Step[]} */
  const cells = [];
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) cells.push({ cell: [r, c] });
  /** @type {Step[]} */
  const circles = [...board.rowTokens.map((_, i) => ({ side: /** @type {const} */ ('rowTokens'), i })),
    ...board.colTokens.map((_, i) => ({ side: /** @type {const} */ ('colTokens'), i }))];
  /** @param {Step} x */
  const other = (x) => JSON.stringify(x) !== JSON.stringify(s);
  /** @param {Step[]} list @param {number} from */
  const round = (list, from) => list.map((_, k) => list[(from + k) % list.length]).find((x) => other(x) && isEmpty(d, x)) ?? null;
  const at = 'cell' in s ? s.cell[0] * cols + s.cell[1] + 1 : 0;
  const tokAt = 'cell' in s ? 0 : (s.side === 'rowTokens' ? 0 : rows) + s.i + 1;
  return round(cells, at) ?? round(circles, tokAt);
}

/**
 * complete says whether a card can go on the board as it is.
 * @param {Card} k
 */
function complete(k) {
  return !!k.wild || (!!k.color && !!k.insect && typeof k.points === 'number');
}

/**
 * blank says whether a draft holds nothing at all.
 * @param {Card} k
 */
function blank(k) {
  return !k.wild && !k.color && !k.insect && k.points === undefined && !(k.tools ?? []).length && !k.name;
}

/**
 * @typedef {Object} Walk the sheet a walk goes through, and where it is
 * @property {Display} d
 * @property {Step} step the step shown
 * @property {Card} draft the card being filled in
 * @property {boolean} fresh the step was empty when the walk reached it: an entry moves on
 * @property {Step[]} trail the steps walked, for Back
 * @property {HTMLElement} body
 * @property {HTMLElement} clearBtn
 * @property {HTMLButtonElement} backBtn
 * @property {ReturnType<typeof openSheet>} sheet
 * @property {(HTMLElement & {setValue: (v: any) => void}) | null} points the card's points keypad
 */

/**
 * walk opens the sheet at a cell or a token circle and walks on from there.
 * @param {Display} d
 * @param {Step} first
 */
export function walk(d, first) {
  const w = /** @type {Walk} */ ({ d, step: first, draft: { tools: [] }, fresh: true, trail: [], body: h('div', { class: 'editor ia-editor' }), points: null });
  w.clearBtn = h('button', {
    type: 'button', class: 'btn btn-danger-quiet', on: {
      click: () => {
        const s = w.step;
        if ('cell' in s) d.board.grid[s.cell[0]][s.cell[1]] = null;
        else d.board[s.side][s.i] = null;
        update(w);
        show(w, s);
      },
    },
  }, t('ui.form.clear'));
  w.backBtn = /** @type {HTMLButtonElement} */ (h('button', {
    type: 'button', class: 'btn', 'aria-label': t('ui.insectarium.backLabel'), on: { click: () => { const s = w.trail.pop(); if (s) { keep(w); show(w, s); } } },
  }, t('ui.form.back')));
  const nextBtn = h('button', { type: 'button', class: 'btn', on: { click: () => advance(w) } }, t('ui.form.next'));
  w.sheet = openSheet({
    host: d.ctx.host,
    title: whereOf(first),
    body: w.body,
    class: 'walk',
    actions: [w.clearBtn, w.backBtn, nextBtn, h('button', { type: 'button', class: 'btn btn-primary sheet-done', on: { click: () => w.sheet.close() } }, t('ui.common.done'))],
    onClose: () => {
      keep(w);
      d.ctx.refreshErrors();
      // The grid was redrawn while the sheet was open: focus the step's new element.
      /** @type {HTMLElement | null} */ (d.gridEl.querySelector(`[data-pointer="${pointerOf(d, w.step)}"]`))?.focus();
    },
  });
  // Digits typed on a keyboard are the card's points.
  w.sheet.dialog.addEventListener('keydown', (e) => {
    const target = /** @type {HTMLElement} */ (e.target);
    if (!('cell' in w.step) || !/^[0-9]$/.test(e.key) || e.ctrlKey || e.metaKey || e.altKey || target.matches('input[type=text]')) return;
    e.preventDefault();
    pickPoints(w, Number(e.key));
  });
  show(w, first);
}

/**
 * update redraws the display after the walk changed the board.
 * @param {Walk} w
 */
function update(w) {
  w.d.redraw();
  w.d.ctx.changed();
}

/**
 * keep puts a half-done card on the board as the walk leaves it, so
 * what is missing is shown at its cell; a blank one leaves the cell as it was.
 * @param {Walk} w
 */
function keep(w) {
  if (!('cell' in w.step) || complete(w.draft) || blank(w.draft)) return;
  const [r, c] = w.step.cell;
  if (JSON.stringify(w.d.board.grid[r][c]) === JSON.stringify(w.draft)) return;
  w.d.board.grid[r][c] = structuredClone(w.draft);
  update(w);
}

/**
 * commit puts a finished card on the board; a new one moves the walk on.
 * @param {Walk} w
 */
function commit(w) {
  if (!('cell' in w.step) || !complete(w.draft)) return;
  const [r, c] = w.step.cell;
  w.d.board.grid[r][c] = structuredClone(w.draft);
  const last = structuredClone(w.draft);
  delete last.name;
  w.d.last = last;
  update(w);
  if (w.fresh) advance(w);
  else w.clearBtn.hidden = false;
}

/**
 * advance moves to the next empty step, or closes the sheet when none is left.
 * @param {Walk} w
 */
function advance(w) {
  keep(w);
  const n = nextEmpty(w.d, w.step);
  if (!n) {
    w.sheet.close();
    return;
  }
  w.trail.push(w.step);
  show(w, n);
}

/**
 * pickPoints gives the card its points.
 * @param {Walk} w
 * @param {number} n
 */
function pickPoints(w, n) {
  delete w.draft.wild;
  w.draft.points = n;
  w.points?.setValue(n);
  commit(w);
}

/**
 * show draws a step in the sheet.
 * @param {Walk} w
 * @param {Step} s
 */
function show(w, s) {
  const { board } = w.d;
  w.step = s;
  w.fresh = isEmpty(w.d, s);
  w.backBtn.disabled = w.trail.length === 0;
  w.sheet.setTitle(whereOf(s), w.trail.length > 0);
  if ('cell' in s) {
    const card = board.grid[s.cell[0]][s.cell[1]];
    w.draft = card ? structuredClone(card) : { tools: [] };
    if (!Array.isArray(w.draft.tools)) w.draft.tools = [];
    w.clearBtn.hidden = !card;
    replace(w.body, cardFields(w));
  } else {
    w.clearBtn.hidden = !board[s.side][s.i];
    replace(w.body, tokenFields(w, s));
  }
}

/**
 * cardFields are the sheet's rows for a card.
 * @param {Walk} w
 */
function cardFields(w) {
  const { d } = w;
  const same = w.fresh && d.last ? /** @type {Card} */ (d.last) : null;
  w.points = picker({
    label: t('ui.insectarium.points'), class: 'keypad',
    value: w.draft.wild ? 'wild' : w.draft.points,
    options: [...Array.from({ length: 10 }, (_, n) => ({ id: String(n), label: String(n) })),
      { id: 'wild', label: t('ui.insectarium.dragonfly'), class: 'pick-wild', hint: t('ui.insectarium.wildHint') }],
    onPick: (v) => {
      if (v !== 'wild') {
        pickPoints(w, Number(v));
        return;
      }
      w.draft = { tools: w.draft.tools, wild: true, ...(w.draft.name ? { name: w.draft.name } : {}) };
      matrix.querySelectorAll('input').forEach((i) => { /** @type {HTMLInputElement} */ (i).checked = false; });
      commit(w);
    },
  });
  const matrix = identity(w);
  return [
    same ? h('button', {
      type: 'button', class: 'btn same-as-last', on: {
        click: () => { w.draft = { ...structuredClone(same), ...(w.draft.name ? { name: w.draft.name } : {}) }; commit(w); },
      },
    }, t('ui.insectarium.sameAsLast'), h('span', { class: 'same-what' }, describe(d, same))) : null,
    matrix,
    checks({ label: t('ui.insectarium.tools'), options: d.tools, values: w.draft.tools, class: 'tool-checks',
      onChange: (v) => { w.draft.tools = v; if (!w.fresh) commit(w); } }),
    h('details', { class: 'more', open: !!w.draft.name }, h('summary', {}, t('ui.insectarium.nameMore')),
      text({ label: t('ui.insectarium.name'), value: w.draft.name, maxlength: 60,
        onChange: (v) => { if (v.trim()) w.draft.name = v; else delete w.draft.name; if (!w.fresh) commit(w); } })),
    w.points,
  ];
}

/**
 * identity is colour and insect in one tap: a row per insect, a
 * column per colour; each square is a radio named "Green Beetle".
 * @param {Walk} w
 */
function identity(w) {
  const { colors, insects, base } = w.d;
  const name = `mx-${base.replaceAll('/', '-')}`;
  const chosen = w.draft.wild ? null : `${w.draft.color}:${w.draft.insect}`;
  return h('fieldset', { class: 'field group matrix-field' },
    h('legend', { class: 'label' }, t('ui.insectarium.identity')),
    h('div', { class: 'matrix' },
      h('span', { class: 'mx-corner', 'aria-hidden': 'true' }),
      colors.map((col) => h('span', { class: 'mx-color', 'aria-hidden': 'true' }, col.label)),
      insects.map((ins) => [
        h('span', { class: 'mx-insect', 'aria-hidden': 'true' }, breakable(ins.label)),
        colors.map((col) => h('label', { class: ['mx', `swatch-${col.id}`], dataset: { color: col.id, insect: ins.id } },
          h('input', {
            type: 'radio', name, value: `${col.id}:${ins.id}`, class: 'sr-only', checked: chosen === `${col.id}:${ins.id}`,
            on: {
              change: () => {
                delete w.draft.wild;
                w.draft.color = col.id;
                w.draft.insect = ins.id;
                w.points?.setValue(w.draft.points);
                commit(w);
              },
            },
          }),
          h('span', { class: 'sr-only' }, t('ui.insectarium.colorInsect', { color: col.label, insect: ins.label })))),
      ])));
}

/**
 * tokenFields are the sheet's rows for a token circle: one tap places
 * the token and moves on.
 * @param {Walk} w
 * @param {{side: 'rowTokens' | 'colTokens', i: number}} s
 */
function tokenFields(w, s) {
  const { board, tokenColors, tokenInsects } = w.d;
  const value = board[s.side][s.i];
  /** @param {string} v */
  const place = (v) => {
    board[s.side][s.i] = v || null;
    update(w);
    if (w.fresh) advance(w);
    else w.sheet.close();
  };
  return [
    h('p', { class: 'hint' }, s.side === 'rowTokens'
      ? t('ui.insectarium.rowTokenHint')
      : t('ui.insectarium.colTokenHint')),
    picker({ label: t('ui.insectarium.colors'), options: tokenColors, value, swatch: 'swatch-', class: 'token-pick', onPick: place }),
    picker({ label: t('ui.insectarium.insects'), options: tokenInsects.map((x) => ({ ...x, label: breakable(x.label) })), value, class: 'token-pick', onPick: place }),
    picker({ label: t('ui.insectarium.none'), hideLegend: true, options: [{ id: '', label: t('ui.insectarium.noToken') }], value: value ?? '', class: 'token-pick', onPick: place }),
  ];
}

/**
 * describe says what a card is, for "same as last card".
 * @param {Display} d
 * @param {Card} k
 */
function describe(d, k) {
  const { colors, insects, tools } = d;
  return (k.wild ? t('ui.insectarium.dragonfly')
    : `${t('ui.insectarium.colorInsect', { color: labelOf(colors, k.color), insect: labelOf(insects, k.insect) })}, ${k.points}`)
    + ((k.tools ?? []).length ? `, ${k.tools.map((id) => labelOf(tools, id)).join(', ')}` : '');
}
