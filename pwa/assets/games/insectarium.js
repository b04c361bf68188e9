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
import { breakable, checks, enumOf, labelOf, picker, stepper, text } from '../ui/widgets.js';
import { openSheet } from '../ui/sheet.js';

/** @typedef {import('../sync/api.js').Spec} Spec */
/** @typedef {import('../sync/api.js').Option} Option */
/** @typedef {import('./forms.js').FormContext} FormContext */
/** @typedef {{name?: string, color?: string, insect?: string, points?: number, tools: string[], wild?: boolean}} Card */
/**
 * @typedef {{grid: (Card | null)[][], rowTokens: (string | null)[], colTokens: (string | null)[],
 *            supply: number, toolBonusesForPoints: number, toolBonusesForTokens: number}} Board
 */
/** @typedef {{cell: [number, number]} | {side: 'rowTokens' | 'colTokens', i: number}} Step */

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
  const tokenColors = tokenList.length ? tokenList.filter((x) => colors.some((c) => c.id === x.id)) : colors;
  const tokenInsects = tokenList.length ? tokenList.filter((x) => !colors.some((c) => c.id === x.id)) : insects;
  const allTokens = [...tokenColors, ...tokenInsects];

  const gridEl = h('div', { class: 'ia-grid', role: 'group', 'aria-label': t('ui.insectarium.display') });
  const tally = h('p', { class: 'hint tool-tally', 'aria-live': 'polite' });
  /** @type {Card | null} the card added last, for "same as last card" */
  let last = null;

  /** @param {Step} s */
  const whereOf = (s) => ('cell' in s ? t('ui.form.cell', { row: s.cell[0] + 1, col: s.cell[1] + 1 })
    : t(s.side === 'rowTokens' ? 'ui.insectarium.rowToken' : 'ui.insectarium.colToken', { n: s.i + 1 }));

  /**
   * tokenButton is one token circle: a tap opens the token picker.
   * @param {'rowTokens' | 'colTokens'} side
   * @param {number} i
   */
  const tokenButton = (side, i) => {
    const value = board[side][i];
    const where = whereOf({ side, i });
    return h('div', { class: ['token-cell', side === 'rowTokens' ? 'token-row' : 'token-col'] },
      h('button', {
        type: 'button', class: ['token', value ? `tok-${value}` : 'tok-none'],
        dataset: { pointer: `${base}/${side}/${i}`, where, value: value ?? '' },
        on: { click: () => edit({ side, i }) },
      },
      h('span', { class: 'sr-only' }, `${where}: `),
      value && tokenColors.some((x) => x.id === value) ? h('span', { class: ['dot', `swatch-${value}`], 'aria-hidden': 'true' }) : null,
      value ? h('span', { class: 'tok-name' }, breakable(labelOf(allTokens, value))) : h('span', { class: 'tok-name tok-empty' }, t('ui.insectarium.token')),
      value ? null : h('span', { class: 'sr-only' }, t('ui.insectarium.notChosen'))));
  };

  /**
   * cardFace is what a cell shows. Its words are its accessible name: the
   * place first (for a screen reader only), then what is printed on it.
   * @param {Card | null} card
   * @param {string} where
   */
  const cardFace = (card, where) => {
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
  };

  const drawGrid = () => {
    /** @type {HTMLElement[]} */
    const cells = [];
    for (let r = 0; r < rows; r++) {
      for (let c = 0; c < cols; c++) {
        const card = board.grid[r][c];
        const where = whereOf({ cell: [r, c] });
        cells.push(h('button', {
          type: 'button',
          class: ['card', card ? 'filled' : 'empty', card?.wild ? 'wild' : card?.color && `c-${card.color}`],
          dataset: { pointer: `${base}/grid/${r}/${c}`, where },
          on: { click: () => edit({ cell: [r, c] }) },
        }, cardFace(card, where)));
      }
      cells.push(tokenButton('rowTokens', r));
    }
    for (let c = 0; c < cols; c++) cells.push(tokenButton('colTokens', c));
    cells.push(h('span', { class: 'corner', 'aria-hidden': 'true' }));
    replace(gridEl, cells);
    drawTally();
  };

  const drawTally = () => {
    const count = Object.fromEntries(tools.map((x) => [x.id, 0]));
    for (const card of board.grid.flat()) for (const id of card?.tools ?? []) if (id in count) count[id] += 1;
    const sets = tools.length ? Math.min(...tools.map((x) => count[x.id])) : 0;
    // English runs the tools into its sentence ("2 pin"); German and
    // Spanish count them as printed ("2 × Nadel").
    const named = tools.map((x) => t('ui.insectarium.toolCount', { n: count[x.id], tool: language() === 'en' ? x.label.toLowerCase() : x.label }));
    tally.textContent = plural('ui.insectarium.tally', sets, { tools: named.join(', ') });
  };

  /**
   * isEmpty says whether a step still waits for an entry.
   * @param {Step} s
   */
  const isEmpty = (s) => ('cell' in s ? !board.grid[s.cell[0]][s.cell[1]] : !board[s.side][s.i]);

  /**
   * nextEmpty is where the walk goes after s: the next other empty cell
   * (row by row, round the display), and once the display is full the next
   * empty token circle (rows, then columns); null when nothing is left.
   * @param {Step} s
   * @returns {Step | null}
   */
  const nextEmpty = (s) => {
    /** @type {Step[]} */
    const cells = [];
    for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) cells.push({ cell: [r, c] });
    /** @type {Step[]} */
    const circles = [...board.rowTokens.map((_, i) => ({ side: /** @type {const} */ ('rowTokens'), i })),
      ...board.colTokens.map((_, i) => ({ side: /** @type {const} */ ('colTokens'), i }))];
    /** @param {Step} x */
    const other = (x) => JSON.stringify(x) !== JSON.stringify(s);
    /** @param {Step[]} list @param {number} from */
    const round = (list, from) => list.map((_, k) => list[(from + k) % list.length]).find((x) => other(x) && isEmpty(x)) ?? null;
    const at = 'cell' in s ? s.cell[0] * cols + s.cell[1] + 1 : 0;
    const tokAt = 'cell' in s ? 0 : (s.side === 'rowTokens' ? 0 : rows) + s.i + 1;
    return round(cells, at) ?? round(circles, tokAt);
  };

  /**
   * edit opens the sheet at a cell or a token circle and walks on from there.
   * @param {Step} first
   */
  const edit = (first) => {
    /** @type {Step} */ let step = first;
    /** @type {Card} the card being filled in */ let draft = { tools: [] };
    /** @type {boolean} the step was empty when the walk reached it: an entry moves on */ let fresh = true;
    /** @type {Step[]} */ const trail = [];
    const body = h('div', { class: 'editor ia-editor' });

    const clearBtn = h('button', {
      type: 'button', class: 'btn btn-danger-quiet', on: {
        click: () => {
          if ('cell' in step) board.grid[step.cell[0]][step.cell[1]] = null;
          else board[step.side][step.i] = null;
          update();
          show(step);
        },
      },
    }, t('ui.form.clear'));
    const backBtn = /** @type {HTMLButtonElement} */ (h('button', {
      type: 'button', class: 'btn', 'aria-label': t('ui.insectarium.backLabel'), on: { click: () => { const s = trail.pop(); if (s) { keep(); show(s); } } },
    }, t('ui.form.back')));
    const nextBtn = h('button', { type: 'button', class: 'btn', on: { click: () => advance() } }, t('ui.form.next'));
    const sheet = openSheet({
      host: ctx.host,
      title: whereOf(first),
      body,
      class: 'walk',
      actions: [clearBtn, backBtn, nextBtn, h('button', { type: 'button', class: 'btn btn-primary sheet-done', on: { click: () => sheet.close() } }, t('ui.common.done'))],
      onClose: () => {
        keep();
        ctx.refreshErrors();
        // The grid was redrawn while the sheet was open: focus the step's new element.
        /** @type {HTMLElement | null} */ (gridEl.querySelector(`[data-pointer="${pointerOf(step)}"]`))?.focus();
      },
    });
    // Digits typed on a keyboard are the card's points.
    sheet.dialog.addEventListener('keydown', (e) => {
      const target = /** @type {HTMLElement} */ (e.target);
      if (!('cell' in step) || !/^[0-9]$/.test(e.key) || e.ctrlKey || e.metaKey || e.altKey || target.matches('input[type=text]')) return;
      e.preventDefault();
      pickPoints(Number(e.key));
    });

    const update = () => { drawGrid(); ctx.changed(); };

    /** @param {Step} s */
    const pointerOf = (s) => ('cell' in s ? `${base}/grid/${s.cell[0]}/${s.cell[1]}` : `${base}/${s.side}/${s.i}`);

    /**
     * keep puts a half-done card on the board as the walk leaves it, so
     * what is missing is shown at its cell; a blank one leaves the cell as it was.
     */
    const keep = () => {
      if (!('cell' in step) || complete(draft) || blank(draft)) return;
      const [r, c] = step.cell;
      if (JSON.stringify(board.grid[r][c]) === JSON.stringify(draft)) return;
      board.grid[r][c] = structuredClone(draft);
      update();
    };

    /** commit puts a finished card on the board; a new one moves the walk on. */
    const commit = () => {
      if (!('cell' in step) || !complete(draft)) return;
      const [r, c] = step.cell;
      board.grid[r][c] = structuredClone(draft);
      last = structuredClone(draft);
      delete last.name;
      update();
      if (fresh) advance();
      else clearBtn.hidden = false;
    };

    /** advance moves to the next empty step, or closes the sheet when none is left. */
    const advance = () => {
      keep();
      const n = nextEmpty(step);
      if (!n) {
        sheet.close();
        return;
      }
      trail.push(step);
      show(n);
    };

    /** @param {number} n */
    const pickPoints = (n) => {
      delete draft.wild;
      draft.points = n;
      points?.setValue(n);
      commit();
    };
    /** @type {(HTMLElement & {setValue: (v: any) => void}) | null} */
    let points = null;

    /**
     * show draws a step in the sheet.
     * @param {Step} s
     */
    const show = (s) => {
      step = s;
      fresh = isEmpty(s);
      backBtn.disabled = trail.length === 0;
      sheet.setTitle(whereOf(s), trail.length > 0);
      if ('cell' in s) {
        const card = board.grid[s.cell[0]][s.cell[1]];
        draft = card ? structuredClone(card) : { tools: [] };
        if (!Array.isArray(draft.tools)) draft.tools = [];
        clearBtn.hidden = !card;
        replace(body, cardFields());
      } else {
        clearBtn.hidden = !board[s.side][s.i];
        replace(body, tokenFields(s));
      }
    };

    /** cardFields are the sheet's rows for a card. */
    const cardFields = () => {
      const same = fresh && last ? /** @type {Card} */ (last) : null;
      points = picker({
        label: t('ui.insectarium.points'), class: 'keypad',
        value: draft.wild ? 'wild' : draft.points,
        options: [...Array.from({ length: 10 }, (_, n) => ({ id: String(n), label: String(n) })),
          { id: 'wild', label: t('ui.insectarium.dragonfly'), class: 'pick-wild', hint: t('ui.insectarium.wildHint') }],
        onPick: (v) => {
          if (v !== 'wild') {
            pickPoints(Number(v));
            return;
          }
          draft = { tools: draft.tools, wild: true, ...(draft.name ? { name: draft.name } : {}) };
          matrix.querySelectorAll('input').forEach((i) => { /** @type {HTMLInputElement} */ (i).checked = false; });
          commit();
        },
      });
      const matrix = identity();
      return [
        same ? h('button', {
          type: 'button', class: 'btn same-as-last', on: {
            click: () => { draft = { ...structuredClone(same), ...(draft.name ? { name: draft.name } : {}) }; commit(); },
          },
        }, t('ui.insectarium.sameAsLast'), h('span', { class: 'same-what' }, describe(same))) : null,
        matrix,
        checks({ label: t('ui.insectarium.tools'), options: tools, values: draft.tools, class: 'tool-checks',
          onChange: (v) => { draft.tools = v; if (!fresh) commit(); } }),
        h('details', { class: 'more', open: !!draft.name }, h('summary', {}, t('ui.insectarium.nameMore')),
          text({ label: t('ui.insectarium.name'), value: draft.name, maxlength: 60,
            onChange: (v) => { if (v.trim()) draft.name = v; else delete draft.name; if (!fresh) commit(); } })),
        points,
      ];
    };

    /**
     * identity is colour and insect in one tap: a row per insect, a
     * column per colour; each square is a radio named "Green Beetle".
     */
    const identity = () => {
      const name = `mx-${base.replaceAll('/', '-')}`;
      const chosen = draft.wild ? null : `${draft.color}:${draft.insect}`;
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
                    delete draft.wild;
                    draft.color = col.id;
                    draft.insect = ins.id;
                    points?.setValue(draft.points);
                    commit();
                  },
                },
              }),
              h('span', { class: 'sr-only' }, t('ui.insectarium.colorInsect', { color: col.label, insect: ins.label })))),
          ])));
    };

    /**
     * tokenFields are the sheet's rows for a token circle: one tap places
     * the token and moves on.
     * @param {{side: 'rowTokens' | 'colTokens', i: number}} s
     */
    const tokenFields = (s) => {
      const value = board[s.side][s.i];
      /** @param {string} v */
      const place = (v) => {
        board[s.side][s.i] = v || null;
        update();
        if (fresh) advance();
        else sheet.close();
      };
      return [
        h('p', { class: 'hint' }, s.side === 'rowTokens'
          ? t('ui.insectarium.rowTokenHint')
          : t('ui.insectarium.colTokenHint')),
        picker({ label: t('ui.insectarium.colors'), options: tokenColors, value, swatch: 'swatch-', class: 'token-pick', onPick: place }),
        picker({ label: t('ui.insectarium.insects'), options: tokenInsects.map((x) => ({ ...x, label: breakable(x.label) })), value, class: 'token-pick', onPick: place }),
        picker({ label: t('ui.insectarium.none'), hideLegend: true, options: [{ id: '', label: t('ui.insectarium.noToken') }], value: value ?? '', class: 'token-pick', onPick: place }),
      ];
    };

    /**
     * describe says what a card is, for "same as last card".
     * @param {Card} k
     */
    const describe = (k) => (k.wild ? t('ui.insectarium.dragonfly')
      : `${t('ui.insectarium.colorInsect', { color: labelOf(colors, k.color), insect: labelOf(insects, k.insect) })}, ${k.points}`)
      + ((k.tools ?? []).length ? `, ${k.tools.map((id) => labelOf(tools, id)).join(', ')}` : '');

    show(first);
  };

  drawGrid();
  return h('div', { class: 'form form-insectarium' },
    h('div', { class: 'field grid-field', dataset: { pointer: `${base}/grid` } },
      h('p', { class: 'label' }, t('ui.insectarium.display')),
      h('p', { class: 'hint' }, t('ui.insectarium.displayHint')),
      gridEl,
      h('div', { class: 'msgs' })),
    tally,
    stepper({ label: t('ui.insectarium.supply'), pointer: `${base}/supply`, value: board.supply, min: 0, max: 50,
      hint: t('ui.insectarium.supplyHint'), onChange: (v) => { board.supply = v; ctx.changed(); } }),
    h('div', { class: 'field-pair' },
      stepper({ label: t('ui.insectarium.bonusPoints'), pointer: `${base}/toolBonusesForPoints`, value: board.toolBonusesForPoints,
        min: 0, max: 10, hint: t('ui.insectarium.bonusPointsHint'), onChange: (v) => { board.toolBonusesForPoints = v; ctx.changed(); } }),
      stepper({ label: t('ui.insectarium.bonusTokens'), pointer: `${base}/toolBonusesForTokens`, value: board.toolBonusesForTokens,
        min: 0, max: 10, hint: t('ui.insectarium.bonusTokensHint'),
        onChange: (v) => { board.toolBonusesForTokens = v; ctx.changed(); } })));
}

export default { emptyBoard, render, progress, short };
