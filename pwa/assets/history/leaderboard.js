// leaderboard.js: a game's leaderboard in the current group. Rated players
// come first, by rating (OpenSkill's conservative estimate); players with
// too few plays with others follow, marked provisional, by wins.
// A game won without points (its info says winsOnly) shows wins only. Without a
// game named, it opens on the game the group plays most. After a change
// to the past (a play logged late, an edit, a delete, a merge) the server
// works it into the ratings in the background: the board then says the
// ratings are updating, and redraws itself until they are done.

import { h, replace } from '../ui/dom.js';
import { plural, t } from '../ui/i18n.js';
import { ApiError } from '../sync/http.js';
import { getLeaderboard, listPlays } from '../sync/history.js';
import { listGames } from '../sync/games.js';
import { currentGroup } from '../sync/kept.js';
import { navigate } from '../router.js';
import { MIN_RATED_PLAYS, decimal, inGroup, percent, shortName, topbar } from './historyui.js';

/** @typedef {import('../sync/history.js').LeaderboardEntry} LeaderboardEntry */
/** @typedef {import('../sync/http.js').GameInfo} GameInfo */

/** How many of the newest plays say which game a group plays most. */
const recentPlays = 100;

/** How long to wait before reading an updating leaderboard again, at first and at most (ms). */
const firstPoll = 1000;
const slowestPoll = 10000;

/**
 * mostPlayed is the game a group played most among its newest plays (the
 * first game listed when it has none, or they cannot be read).
 * @param {string} group
 * @param {{id: string}[]} games
 */
async function mostPlayed(group, games) {
  /** @type {Map<string, number>} */
  const count = new Map();
  try {
    const { plays } = await listPlays(group, { limit: recentPlays });
    for (const p of plays) count.set(p.game, (count.get(p.game) ?? 0) + 1);
  } catch {
    /* nothing to count: the first game */
  }
  let best = games[0];
  for (const g of games) if ((count.get(g.id) ?? 0) > (count.get(best.id) ?? 0)) best = g;
  return best.id;
}

/**
 * leaderboardScreen draws the leaderboard of a game, with a tab per game.
 * @param {HTMLElement} root
 * @param {string} game "" for the game the group plays most
 */
export async function leaderboardScreen(root, game) {
  const games = await listGames();
  if (!game) {
    navigate(`/leaderboards/${await mostPlayed(currentGroup(), games)}`, { replace: true });
    return;
  }
  const spec = games.find((g) => g.id === game);
  if (!spec) throw new ApiError(404, t('ui.game.noSuchGame', { game }));
  const group = currentGroup();
  const body = h('div', { class: 'lb-body', 'aria-busy': 'true' }, h('p', { class: 'muted' }, t('ui.common.loading')));
  replace(root,
    topbar('/', t('ui.nav.home'), t('ui.lb.title')),
    h('nav', { class: 'game-tabs', 'aria-label': t('ui.nav.games') }, games.map((g) => h('a', {
      class: 'game-tab', href: `/leaderboards/${g.id}`, 'aria-current': g.id === game ? 'page' : false,
      dataset: { game: g.id },
    }, shortName(g.name)))),
    body);
  let board = await inGroup(root, getLeaderboard(group, game));
  if (!board) return;
  body.removeAttribute('aria-busy');
  drawBoard(body, board, spec);
  // While the server is updating the ratings, read the board again now
  // and then, for as long as it is on screen.
  for (let wait = firstPoll; board.updating; wait = Math.min(2 * wait, slowestPoll)) {
    await new Promise((resolve) => setTimeout(resolve, wait));
    if (!body.isConnected) return;
    const next = await getLeaderboard(group, game).catch(() => null);
    if (!body.isConnected) return;
    if (next) {
      board = next;
      drawBoard(body, board, spec);
    }
  }
}

/**
 * drawBoard fills the leaderboard screen's body with a board as read.
 * @param {HTMLElement} body
 * @param {{entries: LeaderboardEntry[], updating?: boolean}} board
 * @param {GameInfo} spec the game's
 */
function drawBoard(body, board, spec) {
  const { name: gameName, id: game } = spec;
  const updating = board.updating
    ? h('p', { class: 'hint lb-updating', role: 'status', dataset: { testid: 'lb-updating' } },
      t('ui.lb.updating'))
    : null;
  if (board.entries.length === 0) {
    replace(body, updating, h('div', { class: 'panel empty-state' },
      h('p', {}, t('ui.lb.empty', { game: gameName })),
      h('div', { class: 'row-actions' },
        h('a', { class: 'btn btn-primary', href: '/tables/new' }, t('ui.home.startTable')),
        h('a', { class: 'btn', href: `/plays/new?game=${game}` }, t('ui.lb.logPlay')))));
    return;
  }
  replace(body, updating, leaderboardTable(board.entries, !spec.winsOnly, gameName),
    h('p', { class: 'hint lb-note' },
      t('ui.lb.note', { n: MIN_RATED_PLAYS })));
}

/**
 * leaderboardTable draws the entries as a table: position, player (a link
 * to their page), plays, wins, win rate, average and best score (for a game
 * with points), and rating or how many plays until there is one.
 * @param {LeaderboardEntry[]} entries
 * @param {boolean} points whether the game has points
 * @param {string} gameName
 */
function leaderboardTable(entries, points, gameName) {
  // A header too long for a phone shows its short form, named in full.
  /** @param {string} label @param {string} [abbr] */
  const th = (label, abbr) => h('th', { scope: 'col', class: 'num' }, abbr && abbr !== label ? h('abbr', { title: label }, abbr) : label);
  return h('div', { class: 'table-scroll lb-scroll' },
    h('table', { class: ['lb', points ? 'lb-points' : 'lb-wins'], dataset: { testid: 'leaderboard' } },
      h('caption', { class: 'sr-only' }, t('ui.lb.caption', { game: gameName })),
      h('thead', {}, h('tr', {},
        h('th', { scope: 'col', class: 'pos' }, h('abbr', { title: t('ui.lb.position') }, '#')),
        h('th', { scope: 'col', class: 'who-col' }, t('ui.history.player')),
        th(t('ui.lb.plays'), t('ui.lb.playsShort')),
        th(t('ui.lb.wins'), t('ui.lb.winsShort')),
        th(t('ui.lb.winRate'), t('ui.lb.winRateShort')),
        points ? th(t('ui.lb.average'), t('ui.lb.averageShort')) : null,
        points ? th(t('ui.lb.best'), t('ui.lb.bestShort')) : null,
        th(t('ui.lb.rating'), t('ui.lb.ratingShort')))),
      h('tbody', {}, entries.map((e, i) => {
        const more = Math.max(1, MIN_RATED_PLAYS - e.ratedPlays);
        return h('tr', { class: ['lb-row', e.provisional && 'provisional'], dataset: { testid: 'lb-row', playerId: e.playerId } },
          h('td', { class: 'pos' }, String(i + 1)),
          h('th', { scope: 'row', class: 'who-col' },
            h('a', { href: `/players/${e.playerId}`, class: 'lb-name', dataset: { col: 'player' } }, e.player),
            e.provisional ? h('span', { class: 'prov-badge', dataset: { testid: 'provisional' } }, plural('ui.lb.provisional', more)) : null),
          h('td', { class: 'num', dataset: { col: 'plays' } }, String(e.plays)),
          h('td', { class: 'num', dataset: { col: 'wins' } }, String(e.wins)),
          h('td', { class: 'num', dataset: { col: 'winRate' } }, percent(e.winRate)),
          points ? h('td', { class: 'num', dataset: { col: 'avg' } }, decimal(e.avgScore)) : null,
          points ? h('td', { class: 'num', dataset: { col: 'best' } }, e.bestScore === null ? '–' : String(e.bestScore)) : null,
          h('td', { class: 'num rating', dataset: { col: 'rating' } },
            e.rating === null ? h('span', { 'aria-label': t('ui.lb.noRating') }, '–') : decimal(e.rating)));
      }))));
}
