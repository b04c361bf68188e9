// history.js: the group's memory: the routes of every history screen, and
// their entries on the home screen, with the link to the current group
// (grouplink.js). A screen's module loads when its route opens, so the
// home screen loads only this file of them; navigation is the router's
// (router.js).
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
// Every request names the current group (kept by sync/kept.js).

import { h } from '../ui/dom.js';
import { t } from '../ui/i18n.js';
import { groupLink } from './grouplink.js';

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
