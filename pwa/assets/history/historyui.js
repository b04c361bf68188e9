// historyui.js: what the history screens share: their top bar with the
// current group, dates and figures written for people, the list of plays,
// a confirmation sheet, what to show when the group is not on this
// server, and a note with an Undo button.

import { h, replace } from '../ui/dom.js';
import { date, number, ordinal, t } from '../ui/i18n.js';
import { ApiError } from '../sync/http.js';
import { DEFAULT_GROUP, currentGroup, groupName, setCurrentGroup } from '../sync/kept.js';
import { listGames } from '../sync/games.js';
import { groupLink } from './grouplink.js';
import { openSheet } from '../ui/sheet.js';

/** @typedef {import('../sync/history.js').PlaySummary} PlaySummary */
/** @typedef {import('../sync/http.js').GameInfo} GameInfo */

/** MIN_RATED_PLAYS is how many plays with others a rating needs (the server's MinRatedPlays). */
export const MIN_RATED_PLAYS = 3;

/**
 * topbar is the header of a history screen: back, the title, and the
 * current group at the right.
 * @param {string} href where back leads
 * @param {string} back its label
 * @param {string} title
 * @param {HTMLElement | null} [aside] instead of the group link
 */
export function topbar(href, back, title, aside) {
  return h('header', { class: 'topbar' },
    h('a', { class: 'back', href }, h('span', { 'aria-hidden': 'true' }, '‹'), ` ${back}`),
    h('h1', {}, title),
    aside === undefined ? groupLink('group-link topbar-group') : aside);
}

/**
 * gamesById maps game ids to the games as listed.
 * @returns {Promise<Map<string, GameInfo>>}
 */
export async function gamesById() {
  const games = await listGames();
  return new Map(games.map((g) => [g.id, g]));
}

/**
 * shortName is a game's name without its subtitle, for tabs:
 * "Insecta: The Ladies of Entomology" → "Insecta".
 * @param {string} name
 */
export function shortName(name) {
  return name.split(':')[0].trim();
}

/**
 * longDate writes when a play finished: "Sat 14 Mar 2026, 20:30".
 * @param {string} iso
 */
export function longDate(iso) {
  return date(iso, { weekday: 'short', day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit' });
}

/**
 * dayDate writes a date without the time: "14 Mar 2026".
 * @param {string} iso
 */
export function dayDate(iso) {
  return date(iso, { day: 'numeric', month: 'short', year: 'numeric' });
}

/**
 * duration writes a length of time: "45 min", "1 h 05 min".
 * @param {number} seconds
 */
export function duration(seconds) {
  const m = Math.round(seconds / 60);
  if (m < 60) return t('ui.duration.minutes', { m });
  return t('ui.duration.hours', { h: Math.floor(m / 60), m: String(m % 60).padStart(2, '0') });
}

/**
 * percent writes a win rate (0–1) as "67 %".
 * @param {number} rate
 */
export function percent(rate) {
  return number(rate, { style: 'percent', maximumFractionDigits: 0 });
}

/**
 * decimal writes a figure with one decimal, or "–" when there is none.
 * @param {number | null | undefined} n
 */
export function decimal(n) {
  return n === null || n === undefined ? '–' : number(Math.round(n * 10) / 10, { minimumFractionDigits: 1, maximumFractionDigits: 1 });
}

/**
 * playItems draws play summaries as a list of links, each with the game,
 * the date, the players in rank order with their totals, and where it was
 * played when that is known.
 * @param {PlaySummary[]} plays
 * @param {Map<string, GameInfo>} games the games, by id (gamesById)
 * @param {{me?: string}} [opts] me: a player id to mark
 */
export function playItems(plays, games, opts = {}) {
  return plays.map((p) => {
    const ranked = [...p.results].sort((a, b) => a.rank - b.rank);
    const name = games.get(p.game)?.name ?? p.game;
    return h('li', {},
      h('a', { class: 'play-item', href: `/plays/${p.id}`, dataset: { testid: 'play-item', id: p.id } },
        h('span', { class: ['play-mark', `game-${p.game}`], 'aria-hidden': 'true' },
          h('span', { class: 'game-mark' }, name.charAt(0).toUpperCase())),
        h('span', { class: 'play-text' },
          h('span', { class: 'play-head' },
            h('span', { class: 'play-game' }, name),
            h('time', { class: 'play-date', datetime: p.finishedAt }, dayDate(p.finishedAt))),
          h('span', { class: 'play-results' }, ranked.map((r, i) => [
            i > 0 ? h('span', { class: 'sep', 'aria-hidden': 'true' }, ' · ') : null,
            h('span', { class: ['play-who', r.winner && 'won', opts.me === r.playerId && 'me'] },
              h('span', { class: 'sr-only' }, t('ui.plays.rankPrefix', { rank: ordinal(r.rank) })),
          r.winner ? h('span', { class: 'crown', 'aria-hidden': 'true' }, '★ ') : null,
              r.player, ' ', h('span', { class: 'play-total' }, String(r.total)),
              r.winner ? h('span', { class: 'sr-only' }, t('ui.plays.wonSuffix')) : null)])),
          p.location ? h('span', { class: 'play-where', dataset: { testid: 'play-where' } }, p.location) : null),
        h('span', { class: 'chev', 'aria-hidden': 'true' }, '›')));
  });
}

/**
 * confirmSheet asks before something that cannot be undone.
 * @param {HTMLElement} host
 * @param {string} title
 * @param {string} body
 * @param {string} yes the label of the button that does it
 * @param {() => (void | Promise<void>)} action
 */
export function confirmSheet(host, title, body, yes, action) {
  const msg = h('p', { class: 'msg msg-error', role: 'alert', hidden: true });
  const yesBtn = /** @type {HTMLButtonElement} */ (h('button', {
    type: 'button', class: 'btn btn-danger', dataset: { testid: 'confirm' },
    on: {
      click: async () => {
        yesBtn.disabled = true;
        try {
          await action();
          s.close();
        } catch (err) {
          msg.textContent = err instanceof Error ? err.message : String(err);
          msg.hidden = false;
          yesBtn.disabled = false;
        }
      },
    },
  }, yes));
  const s = openSheet({
    host, title, body: h('div', { class: 'confirm-body' }, h('p', {}, body), msg),
    actions: [h('button', { type: 'button', class: 'btn', on: { click: () => s.close() } }, t('ui.common.cancel')), yesBtn],
  });
  return s;
}

/**
 * inGroup awaits a request about the current group. When the server does
 * not know the group, it draws what to do instead (groupTrouble) and
 * resolves to null; any other error is thrown on.
 * @template T
 * @param {HTMLElement} root
 * @param {Promise<T>} request
 * @returns {Promise<T | null>}
 */
export async function inGroup(root, request) {
  try {
    return await request;
  } catch (err) {
    if (groupTrouble(root, err)) return null;
    throw err;
  }
}

/**
 * groupTrouble draws what to do when the current group is not on this
 * server (a 404 naming the group); it says whether it did.
 * @param {HTMLElement} root
 * @param {any} err
 */
function groupTrouble(root, err) {
  if (!(err instanceof ApiError) || err.status !== 404 || currentGroup() === DEFAULT_GROUP) return false;
  // The detail is in the app's language: the group's id in it says it is
  // the group the server does not know (not a play or a player in it).
  if (!err.detail.includes(`"${currentGroup()}"`)) return false;
  replace(root,
    topbar('/', t('ui.nav.home'), t('ui.group.notFound'), null),
    h('div', { class: 'panel empty-state', role: 'alert' },
      h('p', {}, t('ui.group.unknownHere', { group: groupName(currentGroup()) || currentGroup() })),
      h('div', { class: 'row-actions' },
        h('a', { class: 'btn', href: '/groups' }, t('ui.group.groups')),
        h('button', {
          type: 'button', class: 'btn btn-primary',
          on: { click: () => { setCurrentGroup({ id: DEFAULT_GROUP, name: '' }); window.dispatchEvent(new Event('route')); } },
        }, t('ui.group.useDefault')))));
  return true;
}

/** @type {{el: HTMLElement, timer: number} | null} the note showing */
let undoNote = null;

/**
 * undoToast shows a note at the bottom of the screen with an Undo button
 * for ms milliseconds; it stays across screens (the history opens after a
 * delete). A newer note replaces it.
 * @param {string} text
 * @param {() => void} undo
 * @param {number} ms
 */
export function undoToast(text, undo, ms) {
  dismissUndo();
  const el = h('div', { class: 'undo-toast', role: 'status', dataset: { testid: 'undo-toast' } },
    h('span', {}, text),
    h('button', {
      type: 'button', class: 'btn', dataset: { testid: 'undo' },
      on: { click: () => { dismissUndo(); undo(); } },
    }, t('ui.common.undo')));
  document.body.append(el);
  undoNote = { el, timer: setTimeout(dismissUndo, ms) };
}

/** dismissUndo takes the Undo note away. */
export function dismissUndo() {
  if (!undoNote) return;
  clearTimeout(undoNote.timer);
  undoNote.el.remove();
  undoNote = null;
}
