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
import { plural, t } from '../ui/i18n.js';
import { enumOf, labelOf, picker, segmented, select, stepper, text, toggle } from '../ui/widgets.js';
import { openSheet } from '../ui/sheet.js';

/** @typedef {import('../sync/http.js').Spec} Spec */
/** @typedef {import('../sync/http.js').Option} Option */
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
  return count(b?.tiles?.length ?? 0, 'tiles');
}

/**
 * count says "1 tile", "2 tiles", "no tiles" (ui.insecta.tiles and
 * ui.insecta.noTiles; likewise insects and mailTiles).
 * @param {number} n
 * @param {'tiles' | 'insects' | 'mailTiles'} what
 */
function count(n, what) {
  if (n === 0) return t({ tiles: 'ui.insecta.noTiles', insects: 'ui.insecta.noInsects', mailTiles: 'ui.insecta.noMailTiles' }[what]);
  return plural({ tiles: 'ui.insecta.tiles', insects: 'ui.insecta.insects', mailTiles: 'ui.insecta.mailTiles' }[what], n);
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

  const gridEl = h('div', { class: 'ic-grid', role: 'group', 'aria-label': t('ui.insecta.collection') });
  gridEl.style.gridTemplateColumns = `repeat(${cols}, minmax(0, 1fr))`;
  const counts = h('p', { class: 'hint', 'aria-live': 'polite' });
  const legend = h('p', { class: 'hint ic-legend' });
  const medalList = h('div', { class: 'medal-list' });
  /** @type {Tile | null} the insect added last, for "same as last tile" */
  let last = null;

  /** @param {number} r @param {number} c */
  const tileAt = (r, c) => board.tiles.findIndex((x) => x.row === r && x.col === c);

  /**
   * describeTile says what a tile is, in words.
   * @param {Tile} tile
   */
  const describeTile = (tile) => (tile.kind === 'mail'
    ? [t('ui.insecta.mail'), tile.institution && t('ui.insecta.from', { institution: labelOf(institutions, tile.institution) }),
      tile.points !== undefined && plural('ui.insecta.points', tile.points), tile.scored && t('ui.insecta.scored')]
      .filter(Boolean).join(', ')
    : [tile.name, tile.continent ? t('ui.insecta.insectFrom', { continent: labelOf(continents, tile.continent) }) : t('ui.insecta.insectNoContinent'),
      labelOf(orders, tile.order), labelOf(sizes, tile.size).toLowerCase(), tile.wreath && t('ui.insecta.wreathOf', { researcher: labelOf(researchers, tile.wreath) })]
      .filter(Boolean).join(', '));

  /**
   * face is what a tile shows: short marks (read out in full instead).
   * @param {Tile} tile
   */
  const face = (tile) => {
    if (tile.kind === 'mail') {
      return h('span', { class: 't-face', 'aria-hidden': 'true' },
        h('span', { class: 't-top' }, '✉'),
        h('span', { class: 't-main' }, tile.points ?? t('ui.insecta.mailFace')),
        h('span', { class: 't-sub' }, tile.scored ? '✓' : ''));
    }
    return h('span', { class: 't-face', 'aria-hidden': 'true' },
      h('span', { class: 't-top' }, tile.continent ? code(labelOf(continents, tile.continent), 2) : '?'),
      h('span', { class: 't-main' }, tile.order ? code(labelOf(orders, tile.order), 3) : ''),
      h('span', { class: 't-sub' }, `${tile.size ? labelOf(sizes, tile.size).charAt(0) : ''}${tile.wreath ? '✿' : ''}`));
  };

  const drawGrid = () => {
    /** @type {HTMLElement[]} */
    const cells = [];
    for (let r = 0; r < rows; r++) {
      for (let c = 0; c < cols; c++) {
        const i = tileAt(r, c);
        const tile = i >= 0 ? board.tiles[i] : null;
        const where = t('ui.form.cell', { row: r + 1, col: c + 1 });
        cells.push(h('button', {
          type: 'button',
          class: ['tile', tile ? `k-${tile.kind}` : 'empty', tile?.kind === 'insect' && tile.continent && `ct-${tile.continent}`, tile?.scored && 'scored'],
          dataset: { pointer: tile ? `${base}/tiles/${i}` : undefined, where, row: r, col: c },
          on: { click: () => edit(r, c) },
        },
        h('span', { class: 'sr-only' }, `${where}: ${tile ? describeTile(tile) : t('ui.form.empty')}`),
        tile ? face(tile) : h('span', { class: 'plus', 'aria-hidden': 'true' }, '+')));
      }
    }
    replace(gridEl, cells);
    const insects = board.tiles.filter((x) => x.kind === 'insect').length;
    const n = board.tiles.length;
    counts.textContent = n
      ? t('ui.insecta.counts', { tiles: count(n, 'tiles'), insects: count(insects, 'insects'), mails: count(n - insects, 'mailTiles') })
      : t('ui.insecta.noTilesYet');
    const used = (/** @type {Option[]} */ opts, /** @type {'continent' | 'order'} */ key, /** @type {number} */ len) => opts
      .filter((o) => board.tiles.some((x) => x[key] === o.id)).map((o) => `${code(o.label, len)} ${o.label}`);
    const marks = [...used(continents, 'continent', 2), ...used(orders, 'order', 3)];
    const sizeMarks = sizes.map((o) => o.label.charAt(0)).join(', ');
    legend.textContent = marks.length ? t('ui.insecta.legend', { marks: marks.join(' · '), sizes: sizeMarks }) : '';
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
    const touches = (/** @type {number} */ y, /** @type {number} */ x) => board.tiles.some((tile) => Math.abs(tile.row - y) <= 1 && Math.abs(tile.col - x) <= 1);
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
    const where = () => t('ui.form.cell', { row: r + 1, col: c + 1 });

    const removeBtn = h('button', {
      type: 'button', class: 'btn btn-danger-quiet', on: {
        click: () => {
          const i = tileAt(r, c);
          if (i >= 0) board.tiles.splice(i, 1);
          update();
          show(r, c);
        },
      },
    }, t('ui.form.remove'));
    const backBtn = /** @type {HTMLButtonElement} */ (h('button', {
      type: 'button', class: 'btn', 'aria-label': t('ui.insecta.backLabel'), on: { click: () => { const s = trail.pop(); if (s) { keep(); show(...s); } } },
    }, t('ui.form.back')));
    const sheet = openSheet({
      host: ctx.host,
      title: where(),
      body,
      class: 'walk',
      actions: [removeBtn, backBtn, h('button', { type: 'button', class: 'btn', on: { click: () => advance() } }, t('ui.form.next')),
        h('button', { type: 'button', class: 'btn btn-primary sheet-done', on: { click: () => sheet.close() } }, t('ui.common.done'))],
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
      const wreaths = [{ id: '', label: t('ui.insecta.noWreath') }, ...researchers.filter((x) => x.id === mine), ...researchers.filter((x) => x.id !== mine)]
        .map((x) => ({ id: x.id, label: /** @type {any} */ (x.id ? [x.id === mine ? '★ ' : '', surname(x.label)] : x.label) }));
      return [
        fresh ? h('div', { class: 'ic-quick' },
          h('button', { type: 'button', class: 'btn pick-mail', dataset: { value: 'mail' }, on: { click: () => { setKind('mail'); } } },
            h('span', { 'aria-hidden': 'true' }, '✉ '), t('ui.insecta.mailTile')),
          same ? h('button', {
            type: 'button', class: 'btn same-as-last', on: {
              click: () => { draft = { ...structuredClone(same), row: r, col: c, ...(draft.name ? { name: draft.name } : {}), ...(draft.wreath ? { wreath: draft.wreath } : {}) }; place(); },
            },
          }, t('ui.insecta.sameAsLast'), h('span', { class: 'same-what' }, [labelOf(continents, same.continent), labelOf(orders, same.order), labelOf(sizes, same.size)].filter(Boolean).join(', ')))
            : null)
          : h('button', { type: 'button', class: 'btn kind-switch', on: { click: () => setKind('mail') } }, t('ui.insecta.toMail')),
        segmented({ label: t('ui.insecta.order'), options: orders, value: draft.order, class: 'order-pick', onChange: (v) => set('order', v) }),
        segmented({ label: t('ui.insecta.size'), options: sizes, value: draft.size, class: 'size-pick', onChange: (v) => set('size', v) }),
        segmented({ label: mine ? t('ui.insecta.wreathMine') : t('ui.insecta.wreath'), options: wreaths, value: draft.wreath ?? '', class: 'wreath-pick',
          onChange: (v) => set('wreath', v) }),
        h('details', { class: 'more', open: !!draft.name }, h('summary', {}, t('ui.insecta.nameMore')),
          text({ label: t('ui.insecta.name'), value: draft.name, maxlength: 80, onChange: (v) => set('name', v.trim() ? v : '') })),
        picker({
          label: fresh ? t('ui.insecta.continentAdds') : t('ui.insecta.continent'), class: 'continent-pick', value: draft.continent,
          options: continents.map((x) => ({ ...x, class: `ct-${x.id}` })),
          onPick: (v) => { draft.continent = v; place(); },
        }),
      ];
    };

    const mailFields = () => [
      h('button', { type: 'button', class: 'btn kind-switch', on: { click: () => setKind('insect') } }, t('ui.insecta.toInsect')),
      segmented({ label: t('ui.insecta.institution'), options: institutions, value: draft.institution, class: 'stack', onChange: (v) => set('institution', v) }),
      stepper({ label: t('ui.insecta.victoryPoints'), value: draft.points, min: 1, max: 10,
        hint: t('ui.insecta.victoryPointsHint'), onChange: (v) => set('points', v) }),
      toggle({ label: t('ui.insecta.scoredToggle'), checked: !!draft.scored,
        hint: t('ui.insecta.scoredHint'), onChange: (v) => set('scored', v || undefined) }),
    ];

    show(r0, c0);
  };

  const drawMedals = () => {
    replace(medalList, board.medals.map((m, i) => {
      const ptr = `${base}/medals/${i}`;
      return h('div', { class: 'medal-row', dataset: { pointer: ptr } },
        select({ label: t('ui.insecta.medal', { n: i + 1 }), pointer: `${ptr}/medal`, options: medalGroups(medals), value: m.medal, none: t('ui.insecta.choose'),
          onChange: (v) => { m.medal = v; ctx.changed(); } }),
        stepper({ label: t('ui.insecta.level'), pointer: `${ptr}/level`, value: m.level, min: 1, max: 12,
          onChange: (v) => { m.level = v; ctx.changed(); } }),
        h('button', { type: 'button', class: 'icon-btn remove', 'aria-label': t('ui.insecta.removeMedal', { n: i + 1 }),
          on: { click: () => { board.medals.splice(i, 1); drawMedals(); ctx.changed(); } } }, h('span', { 'aria-hidden': 'true' }, '✕')));
    }));
    ctx.refreshErrors();
  };

  drawGrid();
  drawMedals();
  return h('div', { class: 'form form-insecta' },
    segmented({ label: t('ui.insecta.researcher'), pointer: `${base}/researcher`, value: board.researcher, class: 'researcher-pick',
      options: researchers.map((x) => ({ id: x.id, label: /** @type {any} */ (surname(x.label)) })),
      onChange: (v) => { board.researcher = v; ctx.changed(); } }),
    h('div', { class: 'field grid-field', dataset: { pointer: `${base}/tiles` } },
      h('p', { class: 'label' }, t('ui.insecta.collection')),
      h('p', { class: 'hint' }, t('ui.insecta.collectionHint')),
      gridEl, counts, legend,
      h('div', { class: 'msgs' })),
    stepper({ label: t('ui.insecta.track'), pointer: `${base}/track`, value: board.track, min: 0, max: 300,
      hint: t('ui.insecta.trackHint'), onChange: (v) => { board.track = v; ctx.changed(); } }),
    segmented({ label: t('ui.insecta.fragments'), pointer: `${base}/fragments`, value: board.fragments, class: 'numbers',
      options: [0, 1, 2, 3].map((n) => ({ id: String(n), label: String(n) })),
      onChange: (v) => { board.fragments = Number(v); ctx.changed(); } }),
    h('div', { class: 'field medals', dataset: { pointer: `${base}/medals` } },
      h('p', { class: 'label' }, t('ui.insecta.medals')),
      h('p', { class: 'hint' }, t('ui.insecta.medalsHint')),
      medalList,
      h('button', { type: 'button', class: 'btn add-medal', on: { click: () => { board.medals.push({ medal: '' }); drawMedals(); ctx.changed(); } } }, t('ui.insecta.addMedal')),
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
