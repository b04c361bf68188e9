// playnotes.js: what a play says beside its scores (where it was played,
// who started, free notes), as fields of the log and edit screens and of
// the play page, and the play page's way to BG Stats.

import { h, uid } from '../ui/dom.js';
import { t } from '../ui/i18n.js';
import { field } from '../ui/widgets.js';

/** The longest notes and location the server keeps, in characters. */
export const maxNotes = 2000;
export const maxLocation = 80;

/**
 * @typedef {{notes: string, location: string, startPlayer: string}} NotesState
 * startPlayer is the start player's index as text, "" when not noted.
 */

/**
 * notesOf is a play's notes as the fields edit them.
 * @param {{notes?: string, location?: string, startPlayer?: number | null}} play
 * @returns {NotesState}
 */
export function notesOf(play) {
  return {
    notes: play.notes ?? '', location: play.location ?? '',
    startPlayer: Number.isInteger(play.startPlayer) ? String(play.startPlayer) : '',
  };
}

/**
 * notesRequest is the notes part of a play request: all three, so an edit
 * can clear them. A start player who is no longer in the play is dropped.
 * @param {NotesState} s
 * @param {number} players how many players the play has
 * @returns {{notes: string, location: string, startPlayer: number | null}}
 */
export function notesRequest(s, players) {
  const i = s.startPlayer === '' ? NaN : Number(s.startPlayer);
  return {
    notes: s.notes.trim(), location: s.location.trim(),
    startPlayer: Number.isInteger(i) && i >= 0 && i < players ? i : null,
  };
}

/**
 * notesFields draws the location, start player and notes fields, each at
 * its JSON Pointer, so the server's refusals land there.
 * @param {NotesState} s edited in place
 * @param {() => string[]} players the players' names now, in seat order
 * @param {() => void} changed called after each edit
 * @param {string[]} [places] locations to offer
 * @returns {HTMLElement}
 */
export function notesFields(s, players, changed, places = []) {
  const listId = uid('places');
  const locationIn = /** @type {HTMLInputElement} */ (h('input', {
    id: uid('location'), type: 'text', value: s.location, maxlength: maxLocation, autocomplete: 'off',
    placeholder: t('ui.notes.placePlaceholder'), list: places.length ? listId : undefined, dataset: { testid: 'play-location' },
    on: { input: () => { s.location = locationIn.value; changed(); } },
  }));
  const startSel = /** @type {HTMLSelectElement} */ (h('select', {
    id: uid('start'), dataset: { testid: 'play-start' },
    on: {
      change: () => { s.startPlayer = startSel.value; changed(); },
      // The players may have changed since: their names are read again.
      focus: () => fillStart(),
      pointerdown: () => fillStart(),
    },
  }));
  const notesIn = /** @type {HTMLTextAreaElement} */ (h('textarea', {
    id: uid('notes'), rows: 3, maxlength: maxNotes, placeholder: t('ui.notes.notesPlaceholder'), dataset: { testid: 'play-notes' },
    on: { input: () => { s.notes = notesIn.value; changed(); } },
  }));
  notesIn.value = s.notes;
  fillStart();

  function fillStart() {
    const names = players();
    if (Number(s.startPlayer) >= names.length) s.startPlayer = '';
    startSel.replaceChildren(h('option', { value: '' }, t('ui.notes.notNoted')),
      ...names.map((n, i) => h('option', { value: String(i) }, n)));
    startSel.value = s.startPlayer;
  }

  return h('div', { class: 'play-notes-fields' },
    places.length ? h('datalist', { id: listId }, places.map((p) => h('option', { value: p }))) : null,
    h('div', { class: 'field-pair' },
      field({ label: t('ui.history.location'), pointer: '/location', control: locationIn, id: locationIn.id }),
      field({ label: t('ui.play.firstPlayer'), pointer: '/startPlayer', control: startSel, id: startSel.id })),
    field({ label: t('ui.play.notes'), pointer: '/notes', control: notesIn, id: notesIn.id }));
}

/**
 * bgStatsLink is the play page's "Send to BG Stats": the link the server
 * made, opened in a new tab (BG Stats takes it over where it is installed).
 * @param {{links?: {bgStats?: string}}} play
 * @returns {HTMLElement | null}
 */
export function bgStatsLink(play) {
  const href = play.links?.bgStats;
  if (!href) return null;
  return h('a', {
    class: 'btn', href, target: '_blank', rel: 'noopener', dataset: { testid: 'bgstats' },
    title: t('ui.notes.bgStatsTitle'),
  }, t('ui.notes.bgStats'));
}
