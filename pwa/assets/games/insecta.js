// insecta.js: the Insecta board form. The researcher, the collection (a
// 4×6 grid of Insect and Mail tiles), the scoring track, the journal
// fragments and the medals claimed. The vocabulary comes from the spec.
//
// Tiles are entered in one sheet that walks the collection: a tap on a
// space opens it; a mail tile is one tap; an insect takes its optional
// order, size and wreath first and then its continent, the one thing its
// score needs, which adds it. Either way the sheet moves on to the next
// free space beside the collection. A tile being filled in is a draft: it
// reaches the board, and so the scoring and its errors, once it is added
// or when the sheet leaves it half done.

import { h, replace } from '../ui/dom.js';
import { enumOf, labelOf, picker, segmented, select, stepper, text, toggle } from '../ui/widgets.js';
import { openSheet } from '../ui/sheet.js';

/** @typedef {import('../sync/api.js').Spec} Spec */
/** @typedef {import('../sync/api.js').Option} Option */
/** @typedef {import('./forms.js').FormContext} FormContext */
/**
 * @typedef {{row: number, col: number, kind: string, name?: string, continent?: string, order?: string,
 *            size?: string, wreath?: string, institution?: string, points?: number, scored?: boolean}} Tile
 */
/** @typedef {{medal: string, level?: number}} Medal */
/** @typedef {{researcher: string, track: number, fragments: number, tiles: Tile[], medals: Medal[]}} Board */

/** The fields each kind of tile carries; the others are dropped on a switch. */
const kindFields = {
  insect: ['name', 'continent', 'order', 'size', 'wreath'],
  mail: ['institution', 'points', 'scored'],
};

/** @param {Spec} spec */
function size(spec) {
  return spec.grid ?? { rows: 4, cols: 6 };
}

/** @returns {Board} */
function emptyBoard() {
  return { researcher: '', track: 0, fragments: 0, tiles: [], medals: [] };
}

/** @param {Board} b */
function fit(b) {
  const e = emptyBoard();
  if (typeof b.researcher !== 'string') b.researcher = e.researcher;
  if (typeof b.track !== 'number') b.track = 0;
  if (typeof b.fragments !== 'number') b.fragments = 0;
  if (!Array.isArray(b.tiles)) b.tiles = [];
  if (!Array.isArray(b.medals)) b.medals = [];
}

/**
 * toRequest leaves out the medal rows added at the end but not chosen
 * yet, so a fresh row is not flagged before it is filled in. The rows
 * before keep their indexes, so the server's pointers still name them.
 * @param {Board} b
 */
function toRequest(b) {
  if (!Array.isArray(b?.medals)) return b;
  const medals = [...b.medals];
  while (medals.length && !medals[medals.length - 1].medal && medals[medals.length - 1].level === undefined) medals.pop();
  return medals.length === b.medals.length ? b : { ...b, medals };
}

/** @param {Board} b */
function progress(b) {
  return count(b?.tiles?.length ?? 0, 'tile');
}

/**
 * count says "1 tile", "2 tiles", "no tiles".
 * @param {number} n
 * @param {string} what
 */
function count(n, what) {
  return n === 0 ? `no ${what}s` : `${n} ${what}${n === 1 ? '' : 's'}`;
}

/**
 * code is the short mark a tile shows for a value, explained by the
 * legend under the collection: "AF" for Africa, "Col" for Coleoptera.
 * @param {string} label
 * @param {number} n
 */
function code(label, n) {
  return n === 2 ? label.slice(0, 2).toUpperCase() : label.slice(0, n);
}

/**
 * surname is how a wreath chip names a researcher, with the rest of her
 * name for a screen reader: "Mary Kingsley" shows "Kingsley".
 * @param {string} label
 */
function surname(label) {
  const i = label.lastIndexOf(' ');
  return i < 0 ? label : [h('span', { class: 'sr-only' }, label.slice(0, i + 1)), label.slice(i + 1)];
}

/**
 * render draws the form for one board.
 * @param {FormContext} ctx
 */
function render(ctx) {
  const { spec, base } = ctx;
  const board = /** @type {Board} */ (ctx.board);
  fit(board);
  const { rows, cols } = size(spec);
  const continents = enumOf(spec, 'continent');
  const orders = enumOf(spec, 'order');
  const sizes = enumOf(spec, 'size');
  const institutions = enumOf(spec, 'institution');
  const researchers = enumOf(spec, 'researcher');
  const medals = enumOf(spec, 'medal');

  const gridEl = h('div', { class: 'ic-grid', role: 'group', 'aria-label': 'Collection' });
  gridEl.style.gridTemplateColumns = `repeat(${cols}, minmax(0, 1fr))`;
  const counts = h('p', { class: 'hint', 'aria-live': 'polite' });
  const legend = h('p', { class: 'hint ic-legend' });
  const medalList = h('div', { class: 'medal-list' });
  /** @type {Tile | null} the insect added last, for "same as last tile" */
  let last = null;

  /** @param {number} r @param {number} c */
  const tileAt = (r, c) => board.tiles.findIndex((t) => t.row === r && t.col === c);

  /**
   * describeTile says what a tile is, in words.
   * @param {Tile} t
   */
  const describeTile = (t) => (t.kind === 'mail'
    ? ['mail', t.institution && `from ${labelOf(institutions, t.institution)}`, t.points !== undefined && `${t.points} ${t.points === 1 ? 'point' : 'points'}`, t.scored && 'scored']
      .filter(Boolean).join(', ')
    : [t.name, `${t.kind === 'insect' ? 'insect' : 'tile'}${t.continent ? ` from ${labelOf(continents, t.continent)}` : ', no continent yet'}`,
      labelOf(orders, t.order), labelOf(sizes, t.size).toLowerCase(), t.wreath && `wreath of ${labelOf(researchers, t.wreath)}`]
      .filter(Boolean).join(', '));

  /**
   * face is what a tile shows: short marks (read out in full instead).
   * @param {Tile} t
   */
  const face = (t) => {
    if (t.kind === 'mail') {
      return h('span', { class: 't-face', 'aria-hidden': 'true' },
        h('span', { class: 't-top' }, '✉'),
        h('span', { class: 't-main' }, t.points ?? 'Mail'),
        h('span', { class: 't-sub' }, t.scored ? '✓' : ''));
    }
    return h('span', { class: 't-face', 'aria-hidden': 'true' },
      h('span', { class: 't-top' }, t.continent ? code(labelOf(continents, t.continent), 2) : '?'),
      h('span', { class: 't-main' }, t.order ? code(labelOf(orders, t.order), 3) : ''),
      h('span', { class: 't-sub' }, `${t.size ? labelOf(sizes, t.size).charAt(0) : ''}${t.wreath ? '✿' : ''}`));
  };

  const drawGrid = () => {
    /** @type {HTMLElement[]} */
    const cells = [];
    for (let r = 0; r < rows; r++) {
      for (let c = 0; c < cols; c++) {
        const i = tileAt(r, c);
        const t = i >= 0 ? board.tiles[i] : null;
        const where = `Row ${r + 1}, column ${c + 1}`;
        cells.push(h('button', {
          type: 'button',
          class: ['tile', t ? `k-${t.kind}` : 'empty', t?.kind === 'insect' && t.continent && `ct-${t.continent}`, t?.scored && 'scored'],
          dataset: { pointer: t ? `${base}/tiles/${i}` : undefined, where, row: r, col: c },
          on: { click: () => edit(r, c) },
        },
        h('span', { class: 'sr-only' }, `${where}: ${t ? describeTile(t) : 'empty'}`),
        t ? face(t) : h('span', { class: 'plus', 'aria-hidden': 'true' }, '+')));
      }
    }
    replace(gridEl, cells);
    const insects = board.tiles.filter((t) => t.kind === 'insect').length;
    const n = board.tiles.length;
    counts.textContent = n
      ? `${count(n, 'tile')}: ${count(insects, 'insect')} and ${count(n - insects, 'mail tile')}. The game ends at a collection’s 12th tile.`
      : 'No tiles yet. The game ends at a collection’s 12th tile.';
    const used = (/** @type {Option[]} */ opts, /** @type {'continent' | 'order'} */ key, /** @type {number} */ len) => opts
      .filter((o) => board.tiles.some((t) => t[key] === o.id)).map((o) => `${code(o.label, len)} ${o.label}`);
    const marks = [...used(continents, 'continent', 2), ...used(orders, 'order', 3)];
    legend.textContent = marks.length ? `${marks.join(' · ')}. ✿ a wreath; S, M, L the size; ✉ a mail tile.` : '';
    legend.hidden = !marks.length;
  };

  /**
   * nextSpace is where the walk goes after row r, column c: the next free
   * space, row by row round the collection, that touches a tile (side or
   * corner), as every tile after the first must; null when none is left.
   * @param {number} r
   * @param {number} c
   * @returns {[number, number] | null}
   */
  const nextSpace = (r, c) => {
    const touches = (/** @type {number} */ y, /** @type {number} */ x) => board.tiles.some((t) => Math.abs(t.row - y) <= 1 && Math.abs(t.col - x) <= 1);
    for (let k = 1; k < rows * cols; k++) {
      const at = (r * cols + c + k) % (rows * cols);
      const y = Math.floor(at / cols);
      const x = at % cols;
      if (tileAt(y, x) < 0 && (board.tiles.length === 0 || touches(y, x))) return [y, x];
    }
    return null;
  };

  /**
   * edit opens the tile sheet at a space and walks on from there.
   * @param {number} r0
   * @param {number} c0
   */
  const edit = (r0, c0) => {
    let r = r0;
    let c = c0;
    /** @type {Tile} the tile being filled in */ let draft = { row: r, col: c, kind: 'insect' };
    /** @type {boolean} the space was free when the walk reached it: adding a tile moves on */ let fresh = true;
    /** @type {[number, number][]} */ const trail = [];
    const body = h('div', { class: 'editor ic-editor' });
    const update = () => { drawGrid(); ctx.changed(); };
    const where = () => `Row ${r + 1}, column ${c + 1}`;

    const removeBtn = h('button', {
      type: 'button', class: 'btn btn-danger-quiet', on: {
        click: () => {
          const i = tileAt(r, c);
          if (i >= 0) board.tiles.splice(i, 1);
          update();
          show(r, c);
        },
      },
    }, 'Remove');
    const backBtn = /** @type {HTMLButtonElement} */ (h('button', {
      type: 'button', class: 'btn', 'aria-label': 'Back to the previous tile', on: { click: () => { const s = trail.pop(); if (s) { keep(); show(...s); } } },
    }, '‹ Back'));
    const sheet = openSheet({
      host: ctx.host,
      title: where(),
      body,
      class: 'walk',
      actions: [removeBtn, backBtn, h('button', { type: 'button', class: 'btn', on: { click: () => advance() } }, 'Next ›'),
        h('button', { type: 'button', class: 'btn btn-primary sheet-done', on: { click: () => sheet.close() } }, 'Done')],
      onClose: () => {
        keep();
        ctx.refreshErrors();
        // The grid was redrawn while the sheet was open: focus the new cell.
        /** @type {HTMLElement | null} */ (gridEl.querySelector(`[data-row="${r}"][data-col="${c}"]`))?.focus();
      },
    });

    /** blank says whether the draft holds nothing yet. */
    const blank = () => draft.kind === 'insect' && !draft.continent && !draft.order && !draft.size && !draft.wreath && !draft.name;

    /** keep puts a half-done new insect on the board as the walk leaves it, so what is missing shows at its space. */
    const keep = () => {
      if (!fresh || blank() || tileAt(r, c) >= 0) return;
      board.tiles.push(structuredClone(draft));
      update();
    };

    /**
     * place puts the draft on the board: a new tile moves the walk on, a
     * tile already there is changed in place.
     */
    const place = () => {
      const i = tileAt(r, c);
      if (i >= 0) board.tiles[i] = structuredClone(draft);
      else board.tiles.push(structuredClone(draft));
      if (draft.kind === 'insect' && draft.continent) {
        last = structuredClone(draft);
        delete last.name;
        delete last.wreath;
      }
      update();
      if (fresh) advance();
      else removeBtn.hidden = false;
    };

    /** advance moves to the next free space beside the collection, or closes the sheet. */
    const advance = () => {
      keep();
      const n = nextSpace(r, c);
      if (!n) {
        sheet.close();
        return;
      }
      trail.push([r, c]);
      show(...n);
    };

    /**
     * setKind turns the tile into the other kind, keeping its place.
     * @param {string} kind
     */
    const setKind = (kind) => {
      for (const f of Object.values(kindFields).flat()) if (!kindFields[/** @type {'insect'|'mail'} */ (kind)]?.includes(f)) delete /** @type {any} */ (draft)[f];
      draft.kind = kind;
      const moving = fresh;
      place();
      if (!moving) replace(body, fields());
    };

    /**
     * set changes one field of the draft; a tile already on the board
     * follows at once, a new one waits for its continent.
     * @param {keyof Tile} key
     * @param {any} v
     */
    const set = (key, v) => {
      if (v === '' || v === undefined || v === null) delete draft[key]; else /** @type {any} */ (draft)[key] = v;
      if (!fresh) place();
    };

    /**
     * show draws the space at row y, column x in the sheet.
     * @param {number} y
     * @param {number} x
     */
    const show = (y, x) => {
      r = y;
      c = x;
      const i = tileAt(r, c);
      fresh = i < 0;
      draft = fresh ? { row: r, col: c, kind: 'insect' } : structuredClone(board.tiles[i]);
      removeBtn.hidden = fresh;
      backBtn.disabled = trail.length === 0;
      sheet.setTitle(where(), trail.length > 0);
      replace(body, fields());
    };

    /** fields are the sheet's rows for the draft. */
    const fields = () => (draft.kind === 'mail' ? mailFields() : insectFields());

    const insectFields = () => {
      const same = fresh && last ? /** @type {Tile} */ (last) : null;
      const mine = board.researcher;
      const wreaths = [{ id: '', label: 'None' }, ...researchers.filter((x) => x.id === mine), ...researchers.filter((x) => x.id !== mine)]
        .map((x) => ({ id: x.id, label: /** @type {any} */ (x.id ? [x.id === mine ? '★ ' : '', surname(x.label)] : x.label) }));
      return [
        fresh ? h('div', { class: 'ic-quick' },
          h('button', { type: 'button', class: 'btn pick-mail', dataset: { value: 'mail' }, on: { click: () => { setKind('mail'); } } },
            h('span', { 'aria-hidden': 'true' }, '✉ '), 'Mail tile'),
          same ? h('button', {
            type: 'button', class: 'btn same-as-last', on: {
              click: () => { draft = { ...structuredClone(same), row: r, col: c, ...(draft.name ? { name: draft.name } : {}), ...(draft.wreath ? { wreath: draft.wreath } : {}) }; place(); },
            },
          }, 'Same as last: ', h('span', { class: 'same-what' }, [labelOf(continents, same.continent), labelOf(orders, same.order), labelOf(sizes, same.size)].filter(Boolean).join(', ')))
            : null)
          : h('button', { type: 'button', class: 'btn kind-switch', on: { click: () => setKind('mail') } }, 'Change to a mail tile'),
        segmented({ label: 'Order (optional)', options: orders, value: draft.order, class: 'order-pick', onChange: (v) => set('order', v) }),
        segmented({ label: 'Size (optional)', options: sizes, value: draft.size, class: 'size-pick', onChange: (v) => set('size', v) }),
        segmented({ label: mine ? 'Wreath (★ your researcher’s favourite)' : 'Wreath (a researcher’s favourite)', options: wreaths, value: draft.wreath ?? '', class: 'wreath-pick',
          onChange: (v) => set('wreath', v) }),
        h('details', { class: 'more', open: !!draft.name }, h('summary', {}, 'Name (optional, for the tiebreak)'),
          text({ label: 'Insect name', value: draft.name, maxlength: 80, onChange: (v) => set('name', v.trim() ? v : '') })),
        picker({
          label: fresh ? 'Continent: adds the insect' : 'Continent', class: 'continent-pick', value: draft.continent,
          options: continents.map((x) => ({ ...x, class: `ct-${x.id}` })),
          onPick: (v) => { draft.continent = v; place(); },
        }),
      ];
    };

    const mailFields = () => [
      h('button', { type: 'button', class: 'btn kind-switch', on: { click: () => setKind('insect') } }, 'Change to an insect'),
      segmented({ label: 'Institution (optional)', options: institutions, value: draft.institution, class: 'stack', onChange: (v) => set('institution', v) }),
      stepper({ label: 'Victory points (optional)', value: draft.points, min: 1, max: 10,
        hint: 'Only checked against the scoring track once the tile is scored.', onChange: (v) => set('points', v) }),
      toggle({ label: 'Scored (flipped over)', checked: !!draft.scored,
        hint: 'Its points are already on the track.', onChange: (v) => set('scored', v || undefined) }),
    ];

    show(r0, c0);
  };

  const drawMedals = () => {
    replace(medalList, board.medals.map((m, i) => {
      const ptr = `${base}/medals/${i}`;
      return h('div', { class: 'medal-row', dataset: { pointer: ptr } },
        select({ label: `Medal ${i + 1}`, pointer: `${ptr}/medal`, options: medalGroups(medals), value: m.medal, none: 'Choose…',
          onChange: (v) => { m.medal = v; ctx.changed(); } }),
        stepper({ label: 'Level', pointer: `${ptr}/level`, value: m.level, min: 1, max: 12,
          onChange: (v) => { m.level = v; ctx.changed(); } }),
        h('button', { type: 'button', class: 'icon-btn remove', 'aria-label': `Remove medal ${i + 1}`,
          on: { click: () => { board.medals.splice(i, 1); drawMedals(); ctx.changed(); } } }, h('span', { 'aria-hidden': 'true' }, '✕')));
    }));
    ctx.refreshErrors();
  };

  drawGrid();
  drawMedals();
  return h('div', { class: 'form form-insecta' },
    segmented({ label: 'Researcher', pointer: `${base}/researcher`, value: board.researcher, class: 'researcher-pick',
      options: researchers.map((x) => ({ id: x.id, label: /** @type {any} */ (surname(x.label)) })),
      onChange: (v) => { board.researcher = v; ctx.changed(); } }),
    h('div', { class: 'field grid-field', dataset: { pointer: `${base}/tiles` } },
      h('p', { class: 'label' }, 'Collection'),
      h('p', { class: 'hint' }, 'Tap a space to enter the tiles one after another: a mail tile in one tap, an insect by its continent.'),
      gridEl, counts, legend,
      h('div', { class: 'msgs' })),
    stepper({ label: 'Scoring track', pointer: `${base}/track`, value: board.track, min: 0, max: 300,
      hint: 'Where your marker ended: mail and medal points scored during play.', onChange: (v) => { board.track = v; ctx.changed(); } }),
    segmented({ label: 'Journal fragments', pointer: `${base}/fragments`, value: board.fragments, class: 'numbers',
      options: [0, 1, 2, 3].map((n) => ({ id: String(n), label: String(n) })),
      onChange: (v) => { board.fragments = Number(v); ctx.changed(); } }),
    h('div', { class: 'field medals', dataset: { pointer: `${base}/medals` } },
      h('p', { class: 'label' }, 'Medals claimed'),
      h('p', { class: 'hint' }, 'Optional: each medal and your marker’s level on it, to check it against the collection.'),
      medalList,
      h('button', { type: 'button', class: 'btn add-medal', on: { click: () => { board.medals.push({ medal: '' }); drawMedals(); ctx.changed(); } } }, '+ Add medal'),
      h('div', { class: 'msgs' })));
}

/**
 * medalGroups groups medal options by the part of their id before ":"
 * ("continent:africa"), labelled by the part of the label before ":".
 * @param {Option[]} medals
 * @returns {{label: string, options: Option[]}[]}
 */
function medalGroups(medals) {
  /** @type {Map<string, {label: string, options: Option[]}>} */
  const groups = new Map();
  for (const m of medals) {
    const [kind] = m.id.split(':');
    const [head, ...rest] = m.label.split(': ');
    if (!groups.has(kind)) groups.set(kind, { label: head, options: [] });
    /** @type {{label: string, options: Option[]}} */ (groups.get(kind)).options.push({ id: m.id, label: rest.length ? rest.join(': ') : m.label });
  }
  return [...groups.values()];
}

export default { emptyBoard, render, progress, toRequest };
