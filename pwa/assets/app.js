// app.js: the entry point. Routes, the home screen, and the service worker.
//
// Routes (History API; the server answers index.html for any path without
// a dot, so each is a deep link):
//   /                        home: pick a game
//   /score/{game}            enter the boards, totals live
//   /score/{game}/results    the ranked results
//   /tables/new              start a live table
//   /t/{code}                a live table (joined by QR code): the host's
//                            screen, a player's board, or the seat picker
//   /t/{code}/seats/{n}      the host fills in a seat's board
//   /history, /plays/…, /leaderboards/…, /players/…, /groups/…, /g/{id}
//                            the group's history (history.js lists them)

import { h, replace } from './ui/dom.js';
import { listGames } from './sync/api.js';
import { hasEntry, keptTables } from './sync/store.js';
import { interceptLinks, navigate } from './router.js';
import { scoreScreen } from './games/score.js';
import { newTableScreen, tableScreen } from './table/table.js';
import { groupBar, historyPanel, historyRoutes } from './history/history.js';

/** @typedef {(root: HTMLElement, params: string[]) => (void | (() => void) | Promise<void | (() => void)>)} Screen */

/** @type {[RegExp, Screen][]} */
const routes = [
  [/^\/$/, homeScreen],
  [/^\/score\/([a-z0-9-]+)\/?$/, (root, [game]) => scoreScreen(root, game, 'edit')],
  [/^\/score\/([a-z0-9-]+)\/results\/?$/, (root, [game]) => scoreScreen(root, game, 'results')],
  [/^\/tables\/new\/?$/, (root) => newTableScreen(root)],
  [/^\/t\/([A-Za-z0-9]+)\/?$/, (root, [code]) => tableScreen(root, code)],
  [/^\/t\/([A-Za-z0-9]+)\/seats\/(\d+)\/?$/, (root, [code, seat]) => tableScreen(root, code, Number(seat))],
  ...historyRoutes,
];

const root = /** @type {HTMLElement} */ (document.getElementById('app'));
/** @type {(() => void) | void} */
let leave;
let drawn = 0;

/** render draws the screen for the current location. */
async function render() {
  const turn = ++drawn;
  if (typeof leave === 'function') leave();
  leave = undefined;
  const path = location.pathname;
  const screen = routes.find(([re]) => re.test(path));
  const el = h('div', { class: 'screen' });
  replace(root, el);
  window.scrollTo(0, 0);
  try {
    const cleanup = screen ? await screen[1](el, /** @type {string[]} */ (screen[0].exec(path)).slice(1)) : notFound(el);
    if (turn === drawn) leave = cleanup;
    else if (typeof cleanup === 'function') cleanup();
  } catch (err) {
    if (turn === drawn) failed(el, err);
  }
  if (turn === drawn) {
    const heading = /** @type {HTMLElement | null} */ (el.querySelector('h1'));
    if (heading) {
      heading.tabIndex = -1;
      document.title = `${heading.textContent} · insectscore`;
      if (drawn > 1) heading.focus({ preventScroll: true });
    }
  }
}

/**
 * homeScreen lists the games as big buttons.
 * @param {HTMLElement} root
 */
async function homeScreen(root) {
  const list = h('ul', { class: 'games', 'aria-busy': 'true' });
  replace(root,
    groupBar(),
    h('header', { class: 'hero' },
      h('img', { src: new URL('./icon.svg', import.meta.url).pathname, alt: '', width: 56, height: 56, class: 'hero-icon' }),
      h('p', { class: 'brand' }, 'insectscore'),
      h('h1', {}, 'Score a game'),
      h('p', { class: 'lead' }, 'Enter the final boards and watch the totals add up. Nothing to install, nothing to sign up for.')),
    list,
    tablePanel(),
    historyPanel());
  const games = await listGames();
  list.removeAttribute('aria-busy');
  replace(list, games.map((g) => h('li', {},
    h('a', { class: ['game-btn', `game-${g.id}`], href: `/score/${g.id}` },
      h('span', { class: 'game-mark', 'aria-hidden': 'true' }, g.name.charAt(0)),
      h('span', { class: 'game-text' },
        h('span', { class: 'game-name' }, g.name),
        h('span', { class: 'game-meta' }, playerRange(g.minPlayers, g.maxPlayers))),
      hasEntry(g.id) ? h('span', { class: 'badge' }, 'In progress') : null,
      h('span', { class: 'chev', 'aria-hidden': 'true' }, '›')))));
}

/**
 * playerRange says "1–4 players".
 * @param {number} min
 * @param {number} max
 */
function playerRange(min, max) {
  return min === max ? `${min} player${min === 1 ? '' : 's'}` : `${min}–${max} players`;
}

/**
 * tablePanel offers the other way to play: a live table where every
 * player enters their own board on their own phone; and leads back to the
 * tables this browser is part of, or into one by its code.
 */
function tablePanel() {
  const input = /** @type {HTMLInputElement} */ (h('input', {
    id: 'join-code', type: 'text', maxlength: 6, autocomplete: 'off', autocapitalize: 'characters', spellcheck: 'false',
    placeholder: 'ABC234', class: 'code-input',
  }));
  const kept = keptTables();
  return h('section', { class: 'panel table-cta', 'aria-labelledby': 'table-cta-title' },
    h('h2', { id: 'table-cta-title' }, 'Everyone on their own phone'),
    h('p', { class: 'muted' }, 'Start a table and show its QR code: each player scans it, enters their own board, and everyone sees the standings change live.'),
    h('a', { class: 'btn btn-primary btn-wide', href: '/tables/new', dataset: { testid: 'start-table' } }, 'Start a table'),
    kept.length ? h('ul', { class: 'kept-tables', 'aria-label': 'Your tables' }, kept.map((k) => h('li', {},
      h('a', { class: 'btn', href: `/t/${k.code}` }, `Table ${k.code}`, h('span', { class: 'muted' }, k.host ? ' · host' : ' · your seat'))))) : null,
    h('form', {
      class: 'join-by-code', novalidate: true,
      on: {
        submit: (/** @type {Event} */ e) => {
          e.preventDefault();
          const code = input.value.trim().toUpperCase().replace(/[^A-Z0-9]/g, '');
          if (code) navigate(`/t/${code}`);
          else input.focus();
        },
      },
    },
    h('label', { class: 'label', for: 'join-code' }, 'Have a table code?'),
    h('div', { class: 'code-row' }, input, h('button', { type: 'submit', class: 'btn' }, 'Join'))));
}

/** @param {HTMLElement} root */
function notFound(root) {
  replace(root,
    h('header', { class: 'topbar' }, h('a', { class: 'back', href: '/' }, h('span', { 'aria-hidden': 'true' }, '‹'), ' Games'),
      h('h1', {}, 'Not found')),
    h('div', { class: 'panel empty-state' }, h('p', {}, 'There is nothing at this address.'),
      h('a', { class: 'btn btn-primary', href: '/' }, 'Back to the games')));
}

/**
 * failed shows an error that stopped a screen from drawing.
 * @param {HTMLElement} root
 * @param {any} err
 */
function failed(root, err) {
  replace(root,
    h('header', { class: 'topbar' }, h('a', { class: 'back', href: '/' }, h('span', { 'aria-hidden': 'true' }, '‹'), ' Games'),
      h('h1', {}, err && err.status === 404 ? 'Not found' : 'Something went wrong')),
    h('div', { class: 'panel empty-state', role: 'alert' }, h('p', {}, String(err && err.message ? err.message : err)),
      h('a', { class: 'btn', href: location.pathname }, 'Try again')));
}

interceptLinks(document);
window.addEventListener('popstate', render);
window.addEventListener('route', render);
render();

if ('serviceWorker' in navigator) {
  window.addEventListener('load', () => {
    navigator.serviceWorker.register('/sw.js').catch(() => { /* the app works without it */ });
  });
}
