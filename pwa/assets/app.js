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

import { date, keepCatalogs, plural, t } from './ui/i18n.js';
import { h, languageSwitch, replace, syncIndicator } from './ui/dom.js';
import { entryState, keptTables } from './sync/kept.js';
import { getGame, listGames, loadEngine } from './sync/games.js';
import { dismissRefused, opLabel, startOutbox, subscribeOutbox } from './sync/outbox.js';
// A write left from an earlier page may be sent from any screen: the
// outbox's handlers for a table's writes and the history's register there.
import './sync/tables.js';
import './sync/history.js';
import { groupBar, historyPanel, historyRoutes, loadHistoryScreens } from './history/history.js';
import { interceptLinks, navigate, takeNotice } from './router.js';

/** @typedef {(root: HTMLElement, params: string[]) => (void | (() => void) | Promise<void | (() => void)>)} Screen */

// A screen's modules load when its route opens: the home screen's first
// load carries only its own (index.html preloads them), and the service
// worker caches the rest in the background for offline use.
/** @type {[RegExp, Screen][]} */
const routes = [
  [/^\/$/, homeScreen],
  [/^\/score\/([a-z0-9-]+)\/?$/, (root, [game]) => scoreRoute(root, game, 'edit')],
  [/^\/score\/([a-z0-9-]+)\/results\/?$/, (root, [game]) => scoreRoute(root, game, 'results')],
  [/^\/tables\/new\/?$/, (root) => import('./table/table.js').then((m) => m.newTableScreen(root))],
  [/^\/t\/([A-Za-z0-9]+)\/?$/, (root, [code]) => import('./table/table.js').then((m) => m.tableScreen(root, code))],
  [/^\/t\/([A-Za-z0-9]+)\/seats\/(\d+)\/?$/, (root, [code, seat]) => import('./table/table.js').then((m) => m.tableScreen(root, code, Number(seat)))],
  ...historyRoutes,
];

/**
 * scoreRoute opens a game's quick score. What the screen waits for loads
 * side by side rather than one after another: its modules, the game's spec
 * and, once the spec names it, the game's board form (scoreScreen then
 * finds both ready; a failure is its to report).
 * @param {HTMLElement} root
 * @param {string} game
 * @param {'edit' | 'results'} view
 */
function scoreRoute(root, game, view) {
  const form = import('./games/forms.js');
  Promise.all([getGame(game), form]).then(([spec, m]) => m.loadForm(spec)).catch(() => { /* scoreScreen says why */ });
  return Promise.all([import('./games/score.js'), import('./history/logplay.js')])
    .then(([m, log]) => m.scoreScreen(root, game, view, log.keepInHistory));
}

const root = /** @type {HTMLElement} */ (document.getElementById('app'));
/** @type {(() => void) | void} */
let leave;
let drawn = 0;
/** the page has loaded and its first screen is drawn */
let loaded = false;
/** @type {HTMLElement | null} the screen drawn last */
let screenEl = null;
/** @type {number | null} the age of the oldest copy the screen being drawn shows */
let stale = null;

// A screen drawn from the phone's copies (the server did not answer) says
// so, with the time of the copy. Copies come while a screen draws, or
// later (a "load more"): both land in the same note.
window.addEventListener('insectscore:stale', (e) => {
  const at = /** @type {CustomEvent} */ (e).detail.at;
  stale = stale === null ? at : Math.min(stale, at);
  if (screenEl && screenEl.isConnected) showStale(screenEl, stale);
});

// Once the server answers (a read, a save, a live stream), it is no longer
// "not answering": the note goes. A live table's copy is read again then.
window.addEventListener('insectscore:answered', () => {
  if (stale === null) return;
  stale = null;
  screenEl?.querySelector('[data-testid=stale]')?.remove();
});

/**
 * note puts a note at the top of a screen, below its title bar.
 * @param {HTMLElement} screen
 * @param {HTMLElement} el
 */
function note(screen, el) {
  const bar = screen.querySelector(':scope > header, :scope > .group-bar');
  if (bar) bar.after(el); else screen.prepend(el);
}

/**
 * showStale marks a screen as the copy of a given time.
 * @param {HTMLElement} screen
 * @param {number} at
 */
function showStale(screen, at) {
  const when = new Date(at);
  const sameDay = when.toDateString() === new Date().toDateString();
  const stamp = date(when, sameDay ? { hour: '2-digit', minute: '2-digit' } : { day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit' });
  const text = navigator.onLine ? t('ui.stale.noServer', { stamp }) : t('ui.stale.offline', { stamp });
  const old = screen.querySelector('[data-testid=stale]');
  if (old) {
    old.textContent = text;
    return;
  }
  note(screen, h('p', { class: 'notice stale-note', role: 'status', dataset: { testid: 'stale' } }, text));
}

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
  const notice = takeNotice();
  stale = null;
  try {
    const cleanup = screen ? await screen[1](el, /** @type {string[]} */ (screen[0].exec(path)).slice(1)) : notFound(el);
    if (turn === drawn) leave = cleanup;
    else if (typeof cleanup === 'function') cleanup();
  } catch (err) {
    if (turn === drawn) failed(el, err);
  }
  if (turn === drawn) {
    plainHttpNote(el);
    if (notice) note(el, h('p', { class: 'notice', role: 'status', dataset: { testid: 'screen-notice' } }, notice));
    if (stale) showStale(el, stale);
    screenEl = el;
    const heading = /** @type {HTMLElement | null} */ (el.querySelector('h1'));
    if (heading) {
      heading.tabIndex = -1;
      document.title = `${heading.textContent} · insectscore`;
      if (drawn > 1) heading.focus({ preventScroll: true });
    }
    if (loaded) warmScreens();
  }
}

// ——— A plain http address ———
// A LAN address over plain http is not a secure context: the browser gives
// it no service worker, so nothing keeps a copy of the app. The page then
// loads every screen itself while the server answers, and says once what
// it cannot do.

/** Where the phone remembers that it was told what plain http costs. */
const plainHttpKey = 'insectscore.plainHttpTold';

/** No service worker keeps the app: a plain http address (or a browser without one). */
const noServiceWorker = !('serviceWorker' in navigator && window.isSecureContext);

/** @type {Promise<void> | null} warmScreens at work */
let warming = null;
/** Every screen's modules and the engine are loaded: any screen opens with the server down. */
let screensReady = false;

/**
 * warmScreens loads every screen's modules, the board forms, the other
 * languages' catalogs and the rules engine while the server answers, as
 * the service worker's install does on a secure origin: where there is
 * none, what the page has loaded is all it has once the server is gone,
 * and it keeps that while it stays open. A failure is tried again when the
 * next screen draws.
 */
function warmScreens() {
  if (!noServiceWorker || screensReady || warming) return;
  warming = (async () => {
    const games = await listGames();
    await Promise.all([
      import('./table/table.js'),
      import('./games/score.js'),
      import('./games/results.js'),
      import('./games/card.js'),
      import('./games/forms.js').then((m) => Promise.all(games.map((g) => m.loadForm(g)))),
      loadHistoryScreens(),
      keepCatalogs(),
      loadEngine(),
    ]);
    screensReady = true;
  })().catch(() => { /* the next screen tries again */ }).finally(() => { warming = null; });
}

/**
 * canScoreOffline: a game can be scored with the server down, as the
 * service worker keeps the app, or this page has loaded every screen.
 */
function canScoreOffline() {
  return screensReady || Boolean(navigator.serviceWorker?.controller);
}

/**
 * told says whether this phone was already told what plain http costs.
 */
function told() {
  try {
    return localStorage.getItem(plainHttpKey) === '1';
  } catch {
    return false;
  }
}

/**
 * plainHttpNote tells the phone, on a plain http address, that a reload
 * without the server cannot open the app, until it is dismissed; the
 * phone remembers the dismissal.
 * @param {HTMLElement} screen
 */
function plainHttpNote(screen) {
  if (window.isSecureContext || told()) return;
  const el = h('div', { class: 'notice plain-http-note', role: 'note', dataset: { testid: 'plain-http-notice' } },
    h('p', {}, t('ui.plainHttp.notice')),
    h('button', {
      type: 'button', class: 'btn',
      on: {
        click: () => {
          try {
            localStorage.setItem(plainHttpKey, '1');
          } catch { /* told again next time */ }
          el.remove();
        },
      },
    }, t('ui.plainHttp.dismiss')));
  note(screen, el);
}

/**
 * moduleMissing says whether err is a screen's module that could not be
 * fetched (the server is down and nothing kept it), as Chromium, Firefox
 * and Safari word it.
 * @param {any} err
 */
function moduleMissing(err) {
  return err instanceof TypeError && /dynamically imported module|module script/i.test(String(err.message));
}

// The home screen's icon is icon.svg, inline (TestHomeIconIsTheAppIcon
// holds them equal): one request fewer on the first load.
const iconURL = `data:image/svg+xml,${encodeURIComponent(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 512 512">
<title>insectscore</title>
<rect width="512" height="512" rx="112" fill="#1f5a3d"/>
<g transform="translate(256 256) scale(.84) translate(-256 -256)">
<g stroke="#f2b33d" stroke-linecap="round" stroke-width="18">
<path d="M150 220 92 180M140 292 78 300M152 366 100 420M362 220 420 180M372 292 434 300M360 366 412 420"/>
<path d="M242 84 198 36M270 84 314 36" stroke-width="14"/>
</g>
<g fill="#f2b33d">
<ellipse cx="256" cy="100" rx="34" ry="30"/>
<ellipse cx="256" cy="162" rx="80" ry="44"/>
<ellipse cx="256" cy="298" rx="120" ry="150"/>
</g>
<g fill="#1f5a3d">
<circle cx="206" cy="262" r="22"/><circle cx="306" cy="262" r="22"/>
<circle cx="214" cy="356" r="17"/><circle cx="298" cy="356" r="17"/>
</g>
<path d="M256 176V446M170 204H342" stroke="#1f5a3d" stroke-width="11" stroke-linecap="round"/>
</g>
</svg>`)}`;

/** Where the home screen remembers how many games it listed. */
const gameCountKey = 'insectscore.games';

/**
 * gameCount is how many games the home screen listed last time (three on
 * a first visit), so the list's space is kept while it loads.
 */
function gameCount() {
  try {
    const n = Number(localStorage.getItem(gameCountKey));
    return Number.isInteger(n) && n > 0 && n < 50 ? n : 3;
  } catch {
    return 3;
  }
}

/**
 * homeScreen lists the games as big buttons. Until the list has come, as
 * many blank buttons as last time keep its place, so the panels below do
 * not jump when it arrives.
 * @param {HTMLElement} root
 */
async function homeScreen(root) {
  const list = h('ul', { class: 'games', 'aria-busy': 'true' },
    Array.from({ length: gameCount() }, () => h('li', { class: 'game-slot', 'aria-hidden': 'true' })));
  replace(root,
    groupBar(),
    h('header', { class: 'hero' },
      h('img', { src: iconURL, alt: '', width: 56, height: 56, class: 'hero-icon' }),
      h('p', { class: 'brand' }, 'insectscore'),
      h('h1', {}, t('ui.home.title')),
      h('p', { class: 'lead' }, t('ui.home.lead'))),
    list,
    tablePanel(),
    historyPanel(),
    languagePanel());
  const games = await listGames();
  try {
    localStorage.setItem(gameCountKey, String(games.length));
  } catch {
    /* no storage: three slots next time */
  }
  list.removeAttribute('aria-busy');
  replace(list, games.map((g) => h('li', {},
    h('a', { class: ['game-btn', `game-${g.id}`], href: `/score/${g.id}` },
      h('span', { class: 'game-mark', 'aria-hidden': 'true' }, g.name.charAt(0)),
      h('span', { class: 'game-text' },
        h('span', { class: 'game-name' }, g.name),
        h('span', { class: 'game-meta' }, playerRange(g.minPlayers, g.maxPlayers))),
      badge(entryState(g.id)),
      h('span', { class: 'chev', 'aria-hidden': 'true' }, '›')))));
}

/**
 * badge marks a game whose quick score is being entered, or was kept.
 * @param {'kept' | 'progress' | ''} state
 */
function badge(state) {
  if (!state) return null;
  return h('span', { class: ['badge', state === 'kept' && 'badge-kept'] }, state === 'kept' ? t('ui.home.badgeKept') : t('ui.home.badgeProgress'));
}

/**
 * playerRange says "1–4 players".
 * @param {number} min
 * @param {number} max
 */
function playerRange(min, max) {
  return min === max ? plural('ui.home.players', min) : t('ui.home.playerRange', { min, max });
}

/**
 * tablePanel offers the other way to play: a live table where every
 * player enters their own board on their own phone; and leads back to the
 * tables this browser is part of, or into one by its code.
 */
function tablePanel() {
  const input = /** @type {HTMLInputElement} */ (h('input', {
    id: 'join-code', type: 'text', maxlength: 6, autocomplete: 'off', autocapitalize: 'characters', spellcheck: 'false',
    placeholder: t('ui.home.codePlaceholder'), class: 'code-input',
  }));
  const kept = keptTables();
  return h('section', { class: 'panel table-cta', 'aria-labelledby': 'table-cta-title' },
    h('h2', { id: 'table-cta-title' }, t('ui.home.tableTitle')),
    h('p', { class: 'muted' }, t('ui.home.tableText')),
    h('a', { class: 'btn btn-primary btn-wide', href: '/tables/new', dataset: { testid: 'start-table' } }, t('ui.home.startTable')),
    kept.length ? h('ul', { class: 'kept-tables', 'aria-label': t('ui.home.yourTables') }, kept.map((k) => h('li', {},
      h('a', { class: 'btn', href: `/t/${k.code}` }, t('ui.home.tableCode', { code: k.code }), h('span', { class: 'muted' }, k.host ? t('ui.home.asHost') : t('ui.home.asSeat')))))) : null,
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
    h('label', { class: 'label', for: 'join-code' }, t('ui.home.haveCode')),
    h('div', { class: 'code-row' }, input, h('button', { type: 'submit', class: 'btn' }, t('ui.home.join')))));
}

/**
 * languagePanel is the switch of the app's language: it changes at once,
 * and the device remembers it.
 */
function languagePanel() {
  return h('section', { class: 'panel language-panel', 'aria-labelledby': 'language-title' },
    h('h2', { id: 'language-title' }, t('ui.language.title')),
    languageSwitch());
}

/** @param {HTMLElement} root */
function notFound(root) {
  replace(root,
    h('header', { class: 'topbar' }, h('a', { class: 'back', href: '/' }, h('span', { 'aria-hidden': 'true' }, '‹'), ' ', t('ui.nav.games')),
      h('h1', {}, t('ui.error.notFound'))),
    h('div', { class: 'panel empty-state' }, h('p', {}, t('ui.error.nothingHere')),
      h('a', { class: 'btn btn-primary', href: '/' }, t('ui.error.backToGames'))));
}

/**
 * failed shows what stopped a screen from drawing, and what still works.
 * @param {HTMLElement} root
 * @param {any} err
 */
function failed(root, err) {
  const missing = moduleMissing(err);
  const status = missing ? 0 : err && typeof err.status === 'number' ? err.status : -1;
  const title = status === 404 ? t('ui.error.notFound')
    : status === 0 || status >= 500 ? t('ui.error.needsServer')
      : status > 0 ? t('ui.error.couldNotOpen') : t('ui.error.broke');
  const detail = missing ? t('ui.error.notLoaded')
    : status >= 0 ? String(err.message)
    : t('ui.error.fault', { error: String(err && err.message ? err.message : err) });
  replace(root,
    h('header', { class: 'topbar' }, h('a', { class: 'back', href: '/' }, h('span', { 'aria-hidden': 'true' }, '‹'), ' ', t('ui.nav.games')),
      h('h1', {}, title)),
    h('div', { class: 'panel empty-state', role: 'alert' }, h('p', {}, detail),
      (status === 0 || status >= 500) && canScoreOffline() ? h('p', { class: 'muted' }, t('ui.error.scoreOffline')) : null,
      h('button', { type: 'button', class: 'btn', dataset: { testid: 'try-again' }, on: { click: render } }, t('ui.error.tryAgain'))));
  if (status < 0) console.error(err);
}

interceptLinks(document);
window.addEventListener('popstate', render);
window.addEventListener('route', render);
// A switch of language draws the current screen again, in the new words.
window.addEventListener('insectscore:language', render);
document.body.prepend(syncIndicator({ subscribeOutbox, dismissRefused, opLabel }));
startOutbox();
const firstDraw = render();

// The stores are read before this module runs (a top-level await), so the
// page may have loaded already.
if (document.readyState === 'complete') afterLoad();
else window.addEventListener('load', afterLoad);

/**
 * afterLoad registers the service worker and warms the rules engine;
 * without a service worker, it loads every screen (warmScreens).
 */
async function afterLoad() {
  if ('serviceWorker' in navigator) {
    navigator.serviceWorker.register('/sw.js').catch(() => { /* the app works without it */ });
  }
  // The rules engine is never on the first paint's path: once the page
  // has loaded, the service worker fetches it into its cache, and then the
  // app loads it from there. Until it is ready, the server scores.
  const idle = window.requestIdleCallback ?? ((/** @type {() => void} */ fn) => setTimeout(fn, 200));
  idle(() => { warmEngine().catch(() => { /* the server scores meanwhile; offline scoring waits for a reload */ }); });
  // Without a service worker the page loads every screen itself, once its
  // first screen is drawn.
  await firstDraw;
  loaded = true;
  idle(warmScreens);
}

/**
 * warmEngine has the service worker cache the engine, then loads it.
 */
async function warmEngine() {
  if ('serviceWorker' in navigator && window.isSecureContext) {
    const reg = await Promise.race([navigator.serviceWorker.ready, new Promise((r) => { setTimeout(() => r(null), 10000); })]);
    const worker = /** @type {ServiceWorkerRegistration | null} */ (reg)?.active;
    if (worker) {
      await new Promise((resolve) => {
        const ch = new MessageChannel();
        ch.port1.onmessage = () => resolve(null);
        worker.postMessage('cache-engine', [ch.port2]);
        setTimeout(resolve, 60000);
      });
    }
  }
  await loadEngine();
}
