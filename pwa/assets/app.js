// app.js: the entry point. Routes, the home screen, and the service worker.
//
// Routes (History API; the server answers index.html for any path without
// a dot, so each is a deep link):
//   /                        home: pick a game
//   /score/{game}            enter the boards, totals live
//   /score/{game}/results    the ranked results
//   /t/{code}                a live table (joined by QR code)

import { h, replace } from './dom.js';
import { listGames } from './api.js';
import { hasEntry } from './store.js';
import { interceptLinks } from './router.js';
import { scoreScreen } from './score.js';

/** @typedef {(root: HTMLElement, params: string[]) => (void | (() => void) | Promise<void | (() => void)>)} Screen */

/** @type {[RegExp, Screen][]} */
const routes = [
  [/^\/$/, homeScreen],
  [/^\/score\/([a-z0-9-]+)\/?$/, (root, [game]) => scoreScreen(root, game, 'edit')],
  [/^\/score\/([a-z0-9-]+)\/results\/?$/, (root, [game]) => scoreScreen(root, game, 'results')],
  [/^\/t\/([A-Za-z0-9]+)\/?$/, tableScreen],
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
    h('header', { class: 'hero' },
      h('img', { src: new URL('./icon.svg', import.meta.url).pathname, alt: '', width: 56, height: 56, class: 'hero-icon' }),
      h('p', { class: 'brand' }, 'insectscore'),
      h('h1', {}, 'Score a game'),
      h('p', { class: 'lead' }, 'Enter the final boards and watch the totals add up. Nothing to install, nothing to sign up for.')),
    list);
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
 * tableScreen is where a shared table link lands.
 * @param {HTMLElement} root
 * @param {string[]} params
 */
function tableScreen(root, [code]) {
  replace(root,
    h('header', { class: 'topbar' }, h('a', { class: 'back', href: '/' }, h('span', { 'aria-hidden': 'true' }, '‹'), ' Games'),
      h('h1', {}, `Table ${code.toUpperCase()}`)),
    h('div', { class: 'panel empty-state' },
      h('p', {}, 'Live tables are not in this version yet. Score the game on one phone instead:'),
      h('a', { class: 'btn btn-primary', href: '/' }, 'Score a game')));
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
