// history.js: the group's memory, and the History API's navigation. The
// routes of every history screen, and their entries on the home screen,
// with the link to the current group. A screen's module loads when its
// route opens, so the home screen loads only this file. Screens call
// navigate(); app.js listens for the "route" event and for popstate and
// draws the screen (one module with the routes, as the home screen loads
// both).
//
//   /history                 plays, newest first; ?game= and ?player= filter (plays.js)
//
//   /plays/new               log a past play (logplay.js)
//   /plays/{id}              one play: when, how long, ranks, breakdown (plays.js)
//   /plays/{id}/edit         edit its boards (logplay.js)
//   /leaderboards/{game}     a game's leaderboard (leaderboard.js)
//   /players/{id}            a player's page (player.js)
//   /groups, /groups/{id}    switch, create, invite; export and import (groups.js)
//   /g/{id}                  an invite link: join the group (groups.js)
//
// Every request names the current group (kept by sync/api.js).

import { h } from '../ui/dom.js';
import { t } from '../ui/i18n.js';
import { DEFAULT_GROUP, currentGroup, getGroup, groupName, rememberGroup } from '../sync/api.js';

// ——— Navigation ———

/** @type {string} a note for the next screen drawn */
let notice = '';

/**
 * takeNotice returns the note navigate left for the screen now drawn, once.
 */
export function takeNotice() {
  const n = notice;
  notice = '';
  return n;
}

/**
 * navigate shows another route without reloading the page.
 * @param {string} path
 * @param {{replace?: boolean, notice?: string}} [opts] notice: a note the next screen shows
 */
export function navigate(path, opts = {}) {
  notice = opts.notice ?? '';
  if (opts.replace) history.replaceState(null, '', path);
  else history.pushState(null, '', path);
  window.dispatchEvent(new Event('route'));
}

/**
 * interceptLinks turns clicks on same-origin links into navigate() calls.
 * @param {Document} doc
 */
export function interceptLinks(doc) {
  doc.addEventListener('click', (e) => {
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    const a = /** @type {Element} */ (e.target).closest('a[href]');
    if (!(a instanceof HTMLAnchorElement) || a.target || a.hasAttribute('download')) return;
    const url = new URL(a.href);
    if (url.origin !== location.origin || url.pathname.startsWith('/api/')) return;
    e.preventDefault();
    if (url.pathname + url.search !== location.pathname + location.search) navigate(url.pathname + url.search);
  });
}

// ——— The history screens ———

/** @type {[RegExp, (root: HTMLElement, params: string[]) => any][]} */
export const historyRoutes = [
  [/^\/history\/?$/, (root) => import('./plays.js').then((m) => m.historyScreen(root))],
  [/^\/plays\/new\/?$/, (root) => import('./logplay.js').then((m) => m.logPlayScreen(root))],
  [/^\/plays\/([a-z0-9]+)\/?$/, (root, [id]) => import('./plays.js').then((m) => m.playScreen(root, id))],
  [/^\/plays\/([a-z0-9]+)\/edit\/?$/, (root, [id]) => import('./logplay.js').then((m) => m.editPlayScreen(root, id))],
  [/^\/leaderboards\/?$/, (root) => import('./leaderboard.js').then((m) => m.leaderboardScreen(root, ''))],
  [/^\/leaderboards\/([a-z0-9-]+)\/?$/, (root, [game]) => import('./leaderboard.js').then((m) => m.leaderboardScreen(root, game))],
  [/^\/players\/([a-z0-9]+)\/?$/, (root, [id]) => import('./player.js').then((m) => m.playerScreen(root, id))],
  [/^\/groups\/?$/, (root) => import('./groups.js').then((m) => m.groupsScreen(root))],
  [/^\/groups\/([a-z0-9]+)\/?$/, (root, [id]) => import('./groups.js').then((m) => m.groupScreen(root, id))],
  [/^\/g\/([A-Za-z0-9]+)\/?$/, (root, [id]) => import('./groups.js').then((m) => m.joinGroupScreen(root, id))],
];

/**
 * loadHistoryScreens loads the modules of every history screen (those
 * historyRoutes open), without drawing any.
 */
export function loadHistoryScreens() {
  return Promise.all([import('./plays.js'), import('./logplay.js'), import('./leaderboard.js'), import('./player.js'), import('./groups.js')]);
}

/**
 * groupBar shows the current group at the top of the home screen, as a
 * way to the switcher.
 */
export function groupBar() {
  return h('div', { class: 'group-bar' }, groupLink('group-link group-chip'));
}

/**
 * historyPanel is the home screen's way into what the group remembers.
 */
export function historyPanel() {
  return h('section', { class: 'panel history-cta', 'aria-labelledby': 'history-cta-title' },
    h('h2', { id: 'history-cta-title' }, t('ui.home.historyTitle')),
    h('p', { class: 'muted' }, t('ui.home.historyText')),
    h('div', { class: 'history-links' },
      h('a', { class: 'btn', href: '/history', dataset: { testid: 'home-history' } }, h('span', { class: 'ico ico-history', 'aria-hidden': 'true' }), t('ui.home.history')),
      h('a', { class: 'btn', href: '/leaderboards', dataset: { testid: 'home-leaderboards' } }, h('span', { class: 'ico ico-trophy', 'aria-hidden': 'true' }), t('ui.home.leaderboards'))),
    h('a', { class: 'btn btn-quiet log-link', href: '/plays/new', dataset: { testid: 'home-log-play' } }, t('ui.home.logPlay')));
}

/** @type {Map<string, Promise<string>>} */
const naming = new Map();

/**
 * nameOfGroup resolves a group's name: kept, or asked of the server once
 * per page. A group the server does not know resolves to "".
 * @param {string} id
 * @returns {Promise<string>}
 */
export function nameOfGroup(id) {
  const kept = groupName(id);
  if (kept) return Promise.resolve(kept);
  let p = naming.get(id);
  if (!p) {
    p = getGroup(id).then((g) => {
      rememberGroup({ id: g.id, name: g.name });
      return g.name;
    }).catch(() => {
      naming.delete(id);
      return '';
    });
    naming.set(id, p);
  }
  return p;
}

/**
 * groupLink is a link to the group switcher that names the current group;
 * the name fills in when the server has told it.
 * @param {string} [cls]
 */
export function groupLink(cls = 'group-link') {
  const id = currentGroup();
  const name = h('span', { class: 'group-name', dataset: { testid: 'current-group' } }, groupTitle(id, groupName(id)) || '…');
  nameOfGroup(id).then((n) => { if (n) name.textContent = groupTitle(id, n); });
  // The visible name starts the link's accessible name (a voice user says
  // what they see); what the link does follows for screen readers.
  return h('a', { class: cls, href: '/groups' },
    h('span', { class: 'group-icon', 'aria-hidden': 'true' }), name, h('span', { class: 'sr-only' }, t('ui.group.linkHint')));
}

/**
 * groupTitle is a group's name as shown: the default group, which the
 * server names "Our table" when it creates it, in the app's language.
 * @param {string} id
 * @param {string} name as the server has it
 */
export function groupTitle(id, name) {
  return id === DEFAULT_GROUP && (!name || name === 'Our table') ? t('ui.group.default') : name;
}
