// insektenhotel.js: the Insektenhotel board form: the hotel's colour and
// its three floors, each for one species with two rooms (0–2 guests).
// Every choice is one tap on a chip: a final hotel takes seven.

import { h } from '../ui/dom.js';
import { t } from '../ui/i18n.js';
import { enumOf, segmented } from '../ui/widgets.js';

/** @typedef {import('../sync/http.js').Spec} Spec */
/** @typedef {import('./forms.js').FormContext} FormContext */
/** @typedef {{species: string, guests: number}} Floor */
/** @typedef {{hotel: string, floors: Floor[]}} Board */

const floorCount = 3;
const rooms = 2;

/** @returns {Board} */
function emptyBoard() {
  return { hotel: '', floors: Array.from({ length: floorCount }, () => ({ species: '', guests: 0 })) };
}

/** @param {Board} b */
function fit(b) {
  if (typeof b.hotel !== 'string') b.hotel = '';
  if (!Array.isArray(b.floors)) b.floors = [];
  while (b.floors.length < floorCount) b.floors.push({ species: '', guests: 0 });
}

/**
 * toRequest leaves out the floors not set up yet at the end, so a hotel can
 * be scored while its floors are entered one by one. Indexes are kept, so
 * the server's pointers still name the right floor.
 * @param {Board} b
 */
function toRequest(b) {
  const floors = [...b.floors];
  while (floors.length && !floors[floors.length - 1].species && !floors[floors.length - 1].guests) floors.pop();
  return { hotel: b.hotel, floors };
}

/** @param {Board} b */
function progress(b) {
  const n = (b?.floors ?? []).reduce((s, f) => s + (f.guests || 0), 0);
  return t('ui.insektenhotel.progress', { n, total: floorCount * rooms });
}

/**
 * render draws the form for one board.
 * @param {FormContext} ctx
 */
function render(ctx) {
  const { spec, base } = ctx;
  const board = /** @type {Board} */ (ctx.board);
  fit(board);
  const species = enumOf(spec, 'species');
  const hotels = enumOf(spec, 'hotel');
  const guestOptions = [{ id: '0', label: t('ui.insektenhotel.guestsNone') }, { id: '1', label: t('ui.insektenhotel.guestsOne') }, { id: '2', label: t('ui.insektenhotel.guestsPair') }];

  /** @param {number} i */
  const floor = (i) => {
    const f = board.floors[i];
    const ptr = `${base}/floors/${i}`;
    const roomsEl = h('div', { class: 'rooms', 'aria-hidden': 'true' });
    const drawRooms = () => {
      roomsEl.replaceChildren(...Array.from({ length: rooms }, (_, k) => h('span', { class: ['room', k < f.guests && 'taken'] },
        k < f.guests ? '●' : '')));
    };
    drawRooms();
    return h('section', { class: 'floor field', dataset: { pointer: ptr } },
      h('div', { class: 'floor-head' }, h('h3', {}, t('ui.insektenhotel.floor', { n: i + 1 })), ctx.setup ? null : roomsEl),
      segmented({ label: t('ui.insektenhotel.species'), pointer: `${ptr}/species`, options: species, value: f.species, class: 'species-pick',
        onChange: (v) => { f.species = v; drawRooms(); ctx.changed(); } }),
      ctx.setup ? null : segmented({ label: t('ui.insektenhotel.guests'), pointer: `${ptr}/guests`, options: guestOptions, value: f.guests,
        onChange: (v) => { f.guests = Number(v); drawRooms(); ctx.changed(); } }),
      h('div', { class: 'msgs' }));
  };

  return h('div', { class: 'form form-hotel' },
    hotels.length
      ? segmented({ label: t('ui.insektenhotel.hotel'), pointer: `${base}/hotel`, options: hotels, value: board.hotel, swatch: 'swatch-',
        onChange: (v) => { board.hotel = v; ctx.changed(); } })
      : null,
    h('div', { class: 'field floors', dataset: { pointer: `${base}/floors` } },
      h('p', { class: 'label' }, t('ui.insektenhotel.floors')),
      h('p', { class: 'hint' }, ctx.setup
        ? t('ui.insektenhotel.setupHint')
        : t('ui.insektenhotel.hint')),
      Array.from({ length: floorCount }, (_, i) => floor(i)),
      h('div', { class: 'msgs' })));
}

export default { emptyBoard, render, progress, toRequest };
