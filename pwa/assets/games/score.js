// score.js: the quick-score screen of one game. The players' tabs, boards
// and live totals are boardset.js; this screen keeps them on the phone
// (a reload keeps every board), starts a new game, and shows the ranked
// results, from where the play can be kept in the group's history. It
// works with no network: the totals come from the rules engine in the
// browser, and the entry is kept on the phone as it is typed.

import { h, replace } from '../ui/dom.js';
import { ApiError, getGame, scoreGame } from '../sync/api.js';
import { loadEntry, saveEntry } from '../sync/store.js';
import { playerOf } from '../ui/problems.js';
import { renderResults } from './results.js';
import { openSheet } from '../ui/sheet.js';
import { loadForm } from './forms.js';
import { boardSet, scoreRequest } from './boardset.js';
import { keepInHistory } from '../history/logplay.js';

/** @typedef {import('../sync/api.js').Spec} Spec */
/** @typedef {import('../sync/store.js').Entry} Entry */
/** @typedef {import('./forms.js').BoardForm} BoardForm */

/**
 * scoreScreen draws the board entry ("edit") or results view of a game.
 * @param {HTMLElement} root
 * @param {string} game
 * @param {'edit' | 'results'} view
 * @returns {Promise<() => void>} cleanup
 */
export async function scoreScreen(root, game, view) {
  const spec = await getGame(game);
  const form = await loadForm(spec.id);
  const entry = loadEntry(spec.id) ?? newEntry(spec, form);
  fitEntry(entry, spec, form);
  if (view === 'results') return resultsView(root, spec, form, entry);
  return editView(root, spec, form, entry);
}

/**
 * newEntry starts a game with the fewest players it takes.
 * @param {Spec} spec
 * @param {BoardForm} form
 * @returns {Entry}
 */
function newEntry(spec, form) {
  const n = Math.max(1, spec.minPlayers);
  return {
    players: Array.from({ length: n }, (_, i) => ({ name: `Player ${i + 1}`, board: form.emptyBoard(spec) })),
    variants: {},
    active: 0,
  };
}

/**
 * fitEntry repairs a saved entry against the current spec.
 * @param {Entry} entry
 * @param {Spec} spec
 * @param {BoardForm} form
 */
function fitEntry(entry, spec, form) {
  entry.players = entry.players.slice(0, spec.maxPlayers);
  if (entry.players.length === 0) entry.players = newEntry(spec, form).players;
  for (const p of entry.players) {
    if (typeof p.name !== 'string') p.name = '';
    if (!p.board || typeof p.board !== 'object') p.board = form.emptyBoard(spec);
  }
  for (const k of Object.keys(entry.variants)) if (!spec.variants.some((v) => v.key === k)) delete entry.variants[k];
  entry.active = Math.min(Math.max(0, entry.active), entry.players.length - 1);
}

/**
 * editView is the board entry: tabs of players, each with its form; every
 * change is kept on the phone (IndexedDB).
 * @param {HTMLElement} root
 * @param {Spec} spec
 * @param {BoardForm} form
 * @param {Entry} entry
 */
function editView(root, spec, form, entry) {
  const boards = boardSet({
    spec, form, state: entry, root, liveNames: true,
    action: h('a', { class: 'btn btn-primary', href: `/score/${spec.id}/results`, dataset: { testid: 'see-results' } }, 'See results'),
    persist: () => saveEntry(spec.id, entry),
    newName: (i) => `Player ${i + 1}`,
    confirmRemove: (who, remove) => confirmSheet(root, `Remove ${who}?`, 'Their board is deleted too.', 'Remove', remove),
    note: (result, i) => [form.progress?.(entry.players[i]?.board, spec) ?? '', result?.complete ? 'final' : ''].filter(Boolean).join(' · '),
  });

  replace(root,
    h('header', { class: 'topbar' },
      h('a', { class: 'back', href: '/' }, h('span', { 'aria-hidden': 'true' }, '‹'), ' Games'),
      h('h1', {}, spec.name),
      h('button', { type: 'button', class: 'btn btn-quiet', on: { click: confirmNewGame } }, 'New game')),
    boards.body,
    boards.bar);

  function confirmNewGame() {
    confirmSheet(root, 'Start a new game?', 'Every board is cleared; the players stay.', 'Clear the boards', () => {
      for (const p of entry.players) p.board = form.emptyBoard(spec);
      entry.variants = {};
      entry.active = 0;
      boards.restart();
    });
  }

  return boards.stop;
}

/**
 * confirmSheet asks before something that cannot be undone.
 * @param {HTMLElement} host
 * @param {string} title
 * @param {string} body
 * @param {string} yes
 * @param {() => void} action
 */
function confirmSheet(host, title, body, yes, action) {
  const s = openSheet({
    host, title, body: h('p', {}, body),
    actions: [
      h('button', { type: 'button', class: 'btn', on: { click: () => s.close() } }, 'Cancel'),
      h('button', { type: 'button', class: 'btn btn-danger', on: { click: () => { s.close(); action(); } } }, yes),
    ],
  });
}

/**
 * resultsView scores the saved boards and shows the ranked results.
 * @param {HTMLElement} root
 * @param {Spec} spec
 * @param {BoardForm} form
 * @param {Entry} entry
 */
async function resultsView(root, spec, form, entry) {
  const body = h('div', { class: 'results-body', 'aria-busy': 'true' }, h('p', { class: 'muted' }, 'Adding up…'));
  replace(root,
    h('header', { class: 'topbar' },
      h('a', { class: 'back', href: `/score/${spec.id}` }, h('span', { 'aria-hidden': 'true' }, '‹'), ' Boards'),
      h('h1', {}, 'Results'),
      h('span', { class: 'topbar-game' }, spec.name)),
    body);
  const ctrl = new AbortController();
  try {
    const res = await scoreGame(spec.id, scoreRequest(entry, form), ctrl.signal);
    replace(body, renderResults(spec, res, entry, res.complete ? {
      actions: [
        h('a', { class: 'btn', href: `/score/${spec.id}` }, 'Edit the boards'),
        keepInHistory(spec, entry),
        h('a', { class: 'btn btn-quiet', href: '/' }, 'Another game')],
    } : {}));
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    replace(body, h('div', { class: 'panel', role: 'alert' },
      h('h2', {}, err.status === 0 ? 'Cannot add up yet' : 'Some entries need fixing'),
      err.fields.length
        ? h('ul', { class: 'problem-list' }, err.fields.map((f) => h('li', {}, h('strong', {}, whoIs(entry, f.pointer)), f.detail)))
        : h('p', {}, err.message),
      h('a', { class: 'btn btn-primary', href: `/score/${spec.id}` }, 'Back to the boards')));
  }
  body.removeAttribute('aria-busy');
  return () => ctrl.abort();
}

/**
 * whoIs names the player a pointer is about, as a prefix for a message.
 * @param {Entry} entry
 * @param {string} pointer
 */
function whoIs(entry, pointer) {
  const i = playerOf(pointer);
  return i >= 0 ? `${entry.players[i]?.name || `Player ${i + 1}`}: ` : '';
}
