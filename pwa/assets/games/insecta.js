// insecta.js: the Insecta board form. The collection is a 4×6 grid: tap an
// empty space to add an Insect or a Mail tile, tap a tile to edit or remove
// it. Then the researcher, the scoring track, the journal fragments and the
// medals claimed. The vocabulary comes from the spec.

import { h, replace } from '../ui/dom.js';
import { enumOf, labelOf, segmented, select, stepper, text, toggle } from '../ui/widgets.js';
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

/** @param {Board} b */
function progress(b) {
  const n = b?.tiles?.length ?? 0;
  return `${n} ${n === 1 ? 'tile' : 'tiles'}`;
}

/**
 * short abbreviates a label for a small cell: "Africa" → "Afr".
 * @param {string} label
 * @param {number} n
 */
function short(label, n = 3) {
  return label.length <= n + 1 ? label : label.slice(0, n);
}

/** initials of a label: "Entomological Society" → "ES". @param {string} label */
function initials(label) {
  return label.split(/[\s-]+/).filter(Boolean).map((w) => w[0].toUpperCase()).join('').slice(0, 3);
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
  const kinds = enumOf(spec, 'kind');

  const gridEl = h('div', { class: 'ic-grid', role: 'group', 'aria-label': 'Collection' });
  gridEl.style.gridTemplateColumns = `repeat(${cols}, minmax(0, 1fr))`;
  const counts = h('p', { class: 'hint', 'aria-live': 'polite' });
  const medalList = h('div', { class: 'medal-list' });

  /** @param {number} r @param {number} c */
  const tileAt = (r, c) => board.tiles.findIndex((t) => t.row === r && t.col === c);

  /** @param {Tile} t */
  const face = (t) => {
    if (t.kind === 'mail') {
      return [h('span', { class: 't-top' }, t.institution ? initials(labelOf(institutions, t.institution)) : '✉'),
        h('span', { class: 't-main' }, t.points ?? '?'),
        h('span', { class: 't-sub' }, t.scored ? '✓' : '')];
    }
    return [h('span', { class: 't-top' }, t.continent ? short(labelOf(continents, t.continent)) : '?'),
      h('span', { class: 't-main' }, t.order ? short(labelOf(orders, t.order)) : '?'),
      h('span', { class: 't-sub' }, `${t.size ? labelOf(sizes, t.size).charAt(0) : ''}${t.wreath ? ' ✿' : ''}`)];
  };

  /** @param {Tile} t */
  const describeTile = (t) => (t.kind === 'mail'
    ? `mail from ${labelOf(institutions, t.institution) || 'no institution'}, ${t.points ?? '?'} points${t.scored ? ', scored' : ''}`
    : `${t.name ? `${t.name}, ` : ''}insect, ${[labelOf(continents, t.continent), labelOf(orders, t.order), labelOf(sizes, t.size)].filter(Boolean).join(', ')}${t.wreath ? `, wreath of ${labelOf(researchers, t.wreath)}` : ''}`);

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
          'aria-label': `${where}: ${t ? `${describeTile(t)}. Edit` : 'empty. Add a tile'}`,
          on: { click: () => editTile(r, c) },
        }, t ? face(t) : h('span', { class: 'plus', 'aria-hidden': 'true' }, '+')));
      }
    }
    replace(gridEl, cells);
    const insects = board.tiles.filter((t) => t.kind === 'insect').length;
    counts.textContent = `${board.tiles.length} tiles: ${insects} insects, ${board.tiles.length - insects} mail. The end triggers at 12.`;
  };

  /**
   * editTile opens the tile editor: choose a kind for an empty space, then
   * its fields. Changes apply at once.
   * @param {number} r
   * @param {number} c
   */
  const editTile = (r, c) => {
    const body = h('div', { class: 'editor' });
    const update = () => { drawGrid(); ctx.changed(); };
    /** @returns {Tile | null} */
    const tile = () => { const i = tileAt(r, c); return i >= 0 ? board.tiles[i] : null; };
    const removeBtn = h('button', {
      type: 'button', class: 'btn btn-danger-quiet', hidden: !tile(),
      on: { click: () => { board.tiles.splice(tileAt(r, c), 1); sheet.close(); update(); } },
    }, 'Remove tile');

    /** @param {string} kind */
    const setKind = (kind) => {
      let t = tile();
      if (!t) {
        t = { row: r, col: c, kind };
        board.tiles.push(t);
      }
      for (const f of Object.values(kindFields).flat()) if (!kindFields[/** @type {'insect'|'mail'} */ (kind)]?.includes(f)) delete /** @type {any} */ (t)[f];
      t.kind = kind;
      removeBtn.hidden = false;
      draw();
      update();
    };

    const draw = () => {
      const t = tile();
      const ptr = `${base}/tiles/${t ? board.tiles.indexOf(t) : board.tiles.length}`;
      if (!t) {
        replace(body, h('p', { class: 'label' }, 'What is on this space?'),
          h('div', { class: 'kind-pick' }, kinds.map((k) => h('button', {
            type: 'button', class: ['btn', 'btn-big', `pick-${k.id}`], dataset: { value: k.id }, on: { click: () => setKind(k.id) },
          }, k.label))));
        return;
      }
      /** @param {keyof Tile} key @param {any} v */
      const set = (key, v) => {
        if (v === '' || v === undefined || v === null) delete t[key]; else /** @type {any} */ (t)[key] = v;
        update();
      };
      const kindCtl = segmented({ label: 'Tile', pointer: `${ptr}/kind`, options: kinds, value: t.kind, onChange: setKind });
      if (t.kind === 'mail') {
        replace(body, kindCtl,
          segmented({ label: 'Institution', pointer: `${ptr}/institution`, options: institutions, value: t.institution,
            class: 'stack', onChange: (v) => set('institution', v) }),
          stepper({ label: 'Victory points', pointer: `${ptr}/points`, value: t.points, min: 1, max: 10, onChange: (v) => set('points', v) }),
          toggle({ label: 'Scored (flipped over)', pointer: `${ptr}/scored`, checked: !!t.scored,
            hint: 'Its points are already on the track.', onChange: (v) => set('scored', v) }));
      } else {
        replace(body, kindCtl,
          segmented({ label: 'Continent', pointer: `${ptr}/continent`, options: continents, value: t.continent, onChange: (v) => set('continent', v) }),
          select({ label: 'Order', pointer: `${ptr}/order`, options: orders, value: t.order, none: 'Choose…', onChange: (v) => set('order', v) }),
          segmented({ label: 'Size', pointer: `${ptr}/size`, options: sizes, value: t.size, onChange: (v) => set('size', v) }),
          select({ label: 'Wreath (a researcher’s favourite)', pointer: `${ptr}/wreath`, options: researchers, value: t.wreath,
            none: 'No wreath', onChange: (v) => set('wreath', v) }),
          text({ label: 'Name (optional, for the tiebreak)', pointer: `${ptr}/name`, value: t.name, maxlength: 80,
            onChange: (v) => set('name', v.trim() ? v : '') }));
      }
      ctx.refreshErrors();
    };

    const sheet = openSheet({
      host: ctx.host,
      title: `Row ${r + 1}, column ${c + 1}`,
      body,
      actions: [removeBtn, h('button', { type: 'button', class: 'btn btn-primary sheet-done', on: { click: () => sheet.close() } }, 'Done')],
      onClose: () => {
        ctx.refreshErrors();
        // The grid was redrawn while the sheet was open: focus the new cell.
        /** @type {HTMLElement | null} */ (gridEl.querySelector(`[data-row="${r}"][data-col="${c}"]`))?.focus();
      },
    });
    draw();
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
          on: { click: () => { board.medals.splice(i, 1); drawMedals(); ctx.changed(); } } }, '✕'));
    }));
    ctx.refreshErrors();
  };

  drawGrid();
  drawMedals();
  return h('div', { class: 'form form-insecta' },
    select({ label: 'Researcher', pointer: `${base}/researcher`, options: researchers, value: board.researcher, none: 'Choose…',
      onChange: (v) => { board.researcher = v; ctx.changed(); } }),
    h('div', { class: 'field grid-field', dataset: { pointer: `${base}/tiles` } },
      h('p', { class: 'label' }, 'Collection'),
      h('p', { class: 'hint' }, 'Tap a space to add an insect or a mail tile; tap a tile to change it.'),
      gridEl, counts,
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

export default { emptyBoard, render, progress };
