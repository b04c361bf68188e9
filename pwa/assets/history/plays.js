// plays.js: the group's history list and a play's page, opened from the
// routes in history.js.

import { h, replace } from '../ui/dom.js';
import {
  currentGroup, deletePlay, deletingPlays, getGame, getPlay, groupPlayers, listGames, listPlays, newKey, withdraw,
} from '../sync/api.js';
import { navigate } from '../router.js';
import { renderResults } from '../games/results.js';
import { rematchButton } from '../games/score.js';
import { labelOf } from '../ui/widgets.js';
import {
  confirmSheet, dayDate, duration, gameNames, inGroup, longDate, playItems, topbar, undoToast,
} from './historyui.js';

/** @typedef {import('../sync/api.js').Play} Play */
/** @typedef {import('../sync/api.js').Result} Result */

/** How many plays a page of the history holds. */
const pageSize = 20;
/** How long a deleted play can be brought back: its delete waits in the outbox that long. */
const undoFor = 10000;

/**
 * historyScreen lists the group's plays, newest first, a page at a time,
 * filtered by game and player (kept in the address, so back returns to
 * the same list).
 * @param {HTMLElement} root
 */
export async function historyScreen(root) {
  const group = currentGroup();
  const params = new URLSearchParams(location.search);
  const filter = { game: params.get('game') ?? '', player: params.get('player') ?? '' };
  const [games, names] = await Promise.all([listGames(), gameNames()]);
  const known = await inGroup(root, groupPlayers(group));
  if (!known) return;
  const { players } = known;

  const list = h('ol', { class: 'play-list', 'aria-label': 'Plays, newest first', dataset: { testid: 'play-list' } });
  const more = /** @type {HTMLButtonElement} */ (h('button', { type: 'button', class: 'btn btn-wide', hidden: true, dataset: { testid: 'load-more' } }, 'Load more'));
  const status = h('p', { class: 'muted list-status', role: 'status' });
  /** @type {string | null} */ let next = null;
  let seq = 0;

  const gameSel = /** @type {HTMLSelectElement} */ (h('select', { id: 'filter-game' },
    h('option', { value: '' }, 'All games'),
    games.map((g) => h('option', { value: g.id, selected: g.id === filter.game }, g.name))));
  const playerSel = /** @type {HTMLSelectElement} */ (h('select', { id: 'filter-player' },
    h('option', { value: '' }, 'Everyone'),
    players.map((p) => h('option', { value: p.id, selected: p.id === filter.player }, p.name))));
  const refilter = () => {
    filter.game = gameSel.value;
    filter.player = playerSel.value;
    const q = new URLSearchParams();
    if (filter.game) q.set('game', filter.game);
    if (filter.player) q.set('player', filter.player);
    history.replaceState(null, '', `/history${q.size ? `?${q}` : ''}`);
    load(true);
  };
  gameSel.addEventListener('change', refilter);
  playerSel.addEventListener('change', refilter);
  more.addEventListener('click', () => load(false));

  replace(root,
    topbar('/', 'Home', 'History'),
    h('div', { class: 'filters' },
      h('div', { class: 'field' }, h('label', { class: 'label', for: 'filter-game' }, 'Game'), gameSel),
      h('div', { class: 'field' }, h('label', { class: 'label', for: 'filter-player' }, 'Player'), playerSel)),
    h('a', { class: 'btn btn-primary btn-wide', href: '/plays/new', dataset: { testid: 'log-play' } }, '+ Log a past play'),
    list, status, more);
  await load(true);

  /**
   * load reads the first page (fresh) or the next one.
   * @param {boolean} fresh
   */
  async function load(fresh) {
    const mine = ++seq;
    more.disabled = true;
    list.setAttribute('aria-busy', 'true');
    try {
      const page = await listPlays(group, { game: filter.game, player: filter.player, limit: pageSize, cursor: fresh ? undefined : next ?? undefined });
      if (mine !== seq) return;
      if (fresh) replace(list);
      // A play whose delete waits (it can still be undone) is gone already.
      const gone = deletingPlays(group);
      list.append(...playItems(page.plays.filter((p) => !gone.has(p.id)), names, { me: filter.player }));
      next = page.next;
      more.hidden = !next;
      status.textContent = list.children.length === 0
        ? (filter.game || filter.player ? 'No plays match.' : 'No plays yet. Finish a table, or log a game you played.')
        : '';
    } catch (err) {
      if (mine !== seq) return;
      status.textContent = err instanceof Error ? err.message : String(err);
    } finally {
      if (mine === seq) {
        more.disabled = false;
        list.removeAttribute('aria-busy');
      }
    }
  }
}

/**
 * resultOf is the scored result of a play with every player under their
 * name now (a renamed or merged player shows as they are called today).
 * @param {Play} play
 * @returns {Result}
 */
function resultOf(play) {
  const rec = play.standings;
  return {
    game: play.game,
    complete: true,
    winners: rec?.winners ?? play.results.flatMap((r, i) => (r.winner ? [i] : [])),
    tiebreak: rec?.tiebreak,
    soloRating: rec?.soloRating,
    results: play.results.map((r, i) => ({
      name: r.player, total: r.total, rank: r.rank, winner: r.winner, breakdown: r.breakdown,
      tiebreaks: rec?.results[i]?.tiebreaks ?? [], warnings: rec?.results[i]?.warnings ?? [],
    })),
  };
}

/**
 * playScreen shows one play: when and how long, the ranks and totals, each
 * player's breakdown, and ways to edit or delete it.
 * @param {HTMLElement} root
 * @param {string} id
 */
export async function playScreen(root, id) {
  const group = currentGroup();
  const play = await inGroup(root, getPlay(group, id));
  if (!play) return;
  const spec = await getGame(play.game);
  const res = resultOf(play);
  const del = h('button', {
    type: 'button', class: 'btn btn-danger-quiet', dataset: { testid: 'delete-play' },
    on: {
      click: () => confirmSheet(root, 'Delete this play?',
        `The ${spec.name} play of ${dayDate(play.finishedAt)} leaves the history, and the leaderboard forgets it. You can undo it for ${undoFor / 1000} seconds.`,
        'Delete', () => removePlay(group, id, `${spec.name} play of ${dayDate(play.finishedAt)}`)),
    },
  }, 'Delete');
  const body = renderResults(spec, res, { players: play.results }, {
    actions: [
      h('a', { class: 'btn btn-primary', href: `/plays/${id}/edit`, dataset: { testid: 'edit-play' } }, 'Edit boards'),
      rematchButton(root, spec, play.results.map((r) => r.player), play.variants ?? {}),
      del,
    ],
    share: { when: play.finishedAt },
  });
  // Each name leads to the player's page.
  body.querySelectorAll('.standing').forEach((li) => {
    const i = Number(/** @type {HTMLElement} */ (li).dataset.player);
    const name = li.querySelector('.who-name');
    const r = play.results[i];
    if (name && r) name.replaceChildren(h('a', { href: `/players/${r.playerId}` }, r.player));
    if (r && name && fold(r.nameAsEntered) !== fold(r.player)) {
      name.after(h('span', { class: 'as-entered muted' }, `entered as “${r.nameAsEntered}”`));
    }
  });

  const variants = Object.entries(play.variants ?? {});
  replace(root,
    topbar('/history', 'History', spec.name),
    h('dl', { class: 'play-meta panel', dataset: { testid: 'play-meta' } },
      h('div', {}, h('dt', {}, 'Finished'), h('dd', {}, h('time', { datetime: play.finishedAt }, longDate(play.finishedAt)))),
      h('div', {}, h('dt', {}, 'Length'), h('dd', {}, play.durationSeconds ? duration(play.durationSeconds) : 'not known')),
      variants.length ? h('div', {}, h('dt', {}, 'House rules'), h('dd', {}, variants.map(([k, v]) => {
        const spec1 = spec.variants.find((x) => x.key === k);
        return `${spec1 ? spec1.label : labelOf([], k)}: ${v}`;
      }).join('; '))) : null,
      play.tableCode ? h('div', {}, h('dt', {}, 'Table'), h('dd', {}, play.tableCode)) : null),
    body);
}

/**
 * removePlay deletes a play through the outbox, held back for a few
 * seconds: the history opens without it at once, with an Undo button that
 * withdraws the delete before it is sent.
 * @param {string} group
 * @param {string} id
 * @param {string} what the play in words
 */
function removePlay(group, id, what) {
  const op = newKey();
  deletePlay(group, id, { hold: undoFor, op }).catch(() => { /* undone; a refusal shows in the sync strip */ });
  navigate('/history', { replace: true });
  undoToast(`Deleted the ${what}.`, () => {
    if (!withdraw(op)) return;
    // Redraw the screen shown: the play is back in its lists.
    window.dispatchEvent(new Event('route'));
  }, undoFor);
}

/**
 * fold is a name as the server matches it: case and spaces do not count.
 * @param {string} name
 */
function fold(name) {
  return String(name ?? '').toLowerCase().replace(/\s+/g, ' ').trim();
}
