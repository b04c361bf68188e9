// score.js: the quick-score screen of one game. The players' tabs, boards
// and live totals are boardset.js; this screen keeps them on the phone
// (a reload keeps every board), starts a new game, and shows the ranked
// results, from where the play can be kept in the group's history (once:
// the entry is then marked kept) or played again (a rematch, here or as a
// table). It works with no network: the totals come from the rules engine
// in the browser, and the entry is kept on the phone as it is typed.

import { h, replace } from '../ui/dom.js';
import { list, t } from '../ui/i18n.js';
import { ApiError } from '../sync/http.js';
import { currentGroup, loadEntry, saveEntry } from '../sync/kept.js';
import { getGame, scoreGame } from '../sync/games.js';
import { playerOf } from '../ui/problems.js';
import { renderResults } from './results.js';
import { openSheet } from '../ui/sheet.js';
import { boardRequest, loadForm } from './forms.js';
import { boardSet, playerName, scoreRequest } from './boardset.js';
import { knownPlayers } from '../sync/history.js';
import { navigate } from '../router.js';

/** @typedef {import('../sync/http.js').Spec} Spec */
/** @typedef {import('../sync/kept.js').Entry} Entry */
/** @typedef {import('./forms.js').BoardForm} BoardForm */
/** @typedef {(spec: Spec, form: BoardForm, entry: Entry, host: HTMLElement) => HTMLElement} KeepInHistory */

/**
 * scoreScreen draws the board entry ("edit") or results view of a game.
 * @param {HTMLElement} root
 * @param {string} game
 * @param {'edit' | 'results'} view
 * @param {KeepInHistory} keep the results' way into the group's history,
 *   and what stands there once the game is kept (history/logplay.js's
 *   keepInHistory, handed in by the app: games/ sits below history/ and
 *   imports none of it)
 * @returns {Promise<() => void>} cleanup
 */
export async function scoreScreen(root, game, view, keep) {
  const spec = await getGame(game);
  const form = await loadForm(spec);
  const entry = loadEntry(spec.id) ?? newEntry(spec, form);
  fitEntry(entry, spec, form);
  if (view === 'results') return resultsView(root, spec, form, entry, keep);
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
    players: Array.from({ length: n }, () => ({ name: '', board: form.emptyBoard(spec) })),
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
  entry.players.forEach((p, i) => {
    if (typeof p.name !== 'string') p.name = '';
    // Older versions prefilled "Player 2": typing then gave "Player 2Ana".
    if (p.name === `Player ${i + 1}`) p.name = '';
    if (!p.board || typeof p.board !== 'object') p.board = form.emptyBoard(spec);
  });
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
    action: h('a', { class: 'btn btn-primary', href: `/score/${spec.id}/results`, dataset: { testid: 'see-results' } }, t('ui.score.seeResults')),
    persist: () => saveEntry(spec.id, entry),
    newName: () => '',
    names: knownPlayers(currentGroup()),
    confirmRemove: (who, remove) => confirmSheet(root, t('ui.score.removeTitle', { who }), t('ui.score.removeBody'), t('ui.score.remove'), remove),
    note: (result, i) => [form.progress?.(entry.players[i]?.board, spec) ?? '', result?.complete ? t('ui.form.final') : ''].filter(Boolean).join(' · '),
  });
  // A game kept in history stays on this screen until a new one starts:
  // say so, so it is not taken for a game still to keep.
  const keptNote = h('p', { class: 'notice kept-note', role: 'status', dataset: { testid: 'kept-note' }, hidden: !entry.kept },
    t('ui.score.keptNote'));

  replace(root,
    h('header', { class: 'topbar' },
      h('a', { class: 'back', href: '/' }, h('span', { 'aria-hidden': 'true' }, '‹'), ' ', t('ui.nav.games')),
      h('h1', {}, spec.name),
      h('button', { type: 'button', class: 'btn btn-quiet', on: { click: confirmNewGame } }, t('ui.score.newGame'))),
    keptNote,
    boards.body,
    boards.bar);

  function confirmNewGame() {
    confirmSheet(root, t('ui.score.newGameTitle'), t('ui.score.newGameBody'), t('ui.score.clearBoards'), () => {
      for (const p of entry.players) p.board = form.emptyBoard(spec);
      entry.variants = {};
      entry.active = 0;
      delete entry.kept;
      delete entry.keptPlay;
      keptNote.hidden = true;
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
      h('button', { type: 'button', class: 'btn', on: { click: () => s.close() } }, t('ui.common.cancel')),
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
 * @param {KeepInHistory} keep
 */
async function resultsView(root, spec, form, entry, keep) {
  const body = h('div', { class: 'results-body', 'aria-busy': 'true' }, h('p', { class: 'muted' }, t('ui.score.addingUp')));
  replace(root,
    h('header', { class: 'topbar' },
      h('a', { class: 'back', href: `/score/${spec.id}` }, h('span', { 'aria-hidden': 'true' }, '‹'), ' ', t('ui.score.boards')),
      h('h1', {}, t('ui.score.results')),
      h('span', { class: 'topbar-game' }, spec.name)),
    body);
  const ctrl = new AbortController();
  try {
    const res = await scoreGame(spec.id, scoreRequest(entry, form), ctrl.signal);
    replace(body, renderResults(spec, res, entry, res.complete ? {
      actions: [
        h('a', { class: 'btn', href: `/score/${spec.id}` }, t('ui.score.editBoards')),
        keep(spec, form, entry, root),
        rematchButton(root, spec, entry.players.map((p) => p.name), entry.variants),
        h('a', { class: 'btn btn-quiet', href: '/' }, t('ui.score.anotherGame'))],
      share: { when: new Date() },
    } : {}));
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    replace(body, h('div', { class: 'panel', role: 'alert' },
      h('h2', {}, err.status === 0 ? t('ui.score.cannotAddUp') : t('ui.score.needFixing')),
      err.fields.length
        ? h('ul', { class: 'problem-list' }, err.fields.map((f) => h('li', {}, h('strong', {}, whoIs(entry, f.pointer)), f.detail)))
        : h('p', {}, err.message),
      h('a', { class: 'btn btn-primary', href: `/score/${spec.id}` }, t('ui.score.backToBoards'))));
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
  return i >= 0 ? `${playerName(entry.players[i], i)}: ` : '';
}

/**
 * rematchButton offers to play the same game again with the same players
 * and house rules: scored on this phone, or as a live table.
 * @param {HTMLElement} host where the choice opens
 * @param {Spec} spec
 * @param {string[]} names the players, in their order ("" for a player not named)
 * @param {Object<string, number>} variants
 */
export function rematchButton(host, spec, names, variants) {
  const ask = () => {
    const all = names.map((n, i) => n.trim() || t('ui.score.playerN', { n: i + 1 }));
    const s = openSheet({
      host, title: t('ui.score.rematchTitle', { game: spec.name }),
      body: h('p', {}, t('ui.score.rematchBody', { who: list(all) })),
      actions: [
        h('button', {
          type: 'button', class: 'btn', dataset: { testid: 'rematch-table' },
          on: { click: () => { s.close(); navigate(rematchTablePath(spec.id, names, variants)); } },
        }, t('ui.score.asTable')),
        h('button', {
          type: 'button', class: 'btn btn-primary', dataset: { testid: 'rematch-here' },
          on: { click: () => { s.close(); rematchHere(host, spec, names, variants); } },
        }, t('ui.score.onThisPhone')),
      ],
    });
  };
  return h('button', { type: 'button', class: 'btn', dataset: { testid: 'rematch' }, on: { click: ask } }, t('ui.score.rematch'));
}

/**
 * rematchTablePath is "start a table" with the game, the players and the
 * house rules filled in.
 * @param {string} game
 * @param {string[]} names
 * @param {Object<string, number>} variants
 */
export function rematchTablePath(game, names, variants) {
  const q = new URLSearchParams({ game });
  for (const n of names) q.append('player', n.trim());
  for (const [k, v] of Object.entries(variants ?? {})) q.append('rule', `${k}:${v}`);
  return `/tables/new?${q}`;
}

/**
 * rematchHere starts the quick score of the game afresh with the players
 * and house rules; a game being entered there that is not kept in history
 * is cleared only after asking.
 * @param {HTMLElement} host
 * @param {Spec} spec
 * @param {string[]} names
 * @param {Object<string, number>} variants
 */
async function rematchHere(host, spec, names, variants) {
  const form = await loadForm(spec);
  const start = () => {
    saveEntry(spec.id, {
      players: names.slice(0, spec.maxPlayers).map((name) => ({ name, board: form.emptyBoard(spec) })),
      variants: { ...variants }, active: 0,
    });
    navigate(`/score/${spec.id}`);
  };
  const old = loadEntry(spec.id);
  const empty = sorted(boardRequest(form, form.emptyBoard(spec)));
  const busy = old && !old.kept && old.players.some((p) => sorted(boardRequest(form, p.board)) !== empty);
  if (busy) confirmSheet(host, t('ui.score.clearTitle'), t('ui.score.clearBody', { game: spec.name }), t('ui.score.clearAndStart'), start);
  else start();
}

/**
 * sorted writes a value as JSON with its keys in order, so two boards
 * compare equal however their keys were made.
 * @param {any} v
 * @returns {string}
 */
function sorted(v) {
  if (Array.isArray(v)) return `[${v.map(sorted).join(',')}]`;
  if (v && typeof v === 'object') return `{${Object.keys(v).sort().filter((k) => v[k] !== undefined).map((k) => `${JSON.stringify(k)}:${sorted(v[k])}`).join(',')}}`;
  return JSON.stringify(v ?? null);
}
