// plays.js: the group's history list and a play's page, opened from the
// routes in history.js.

import { h, replace } from '../ui/dom.js';
import { t } from '../ui/i18n.js';
import { ApiError } from '../sync/http.js';
import { currentGroup } from '../sync/kept.js';
import { deletePlay, deletingPlays, editPlay, getPlay, groupPlayers, listPlays } from '../sync/history.js';
import { getGame, listGames } from '../sync/games.js';
import { newKey, withdraw } from '../sync/outbox.js';
import { clearProblems, markProblems } from '../ui/problems.js';
import { bgStatsLink, maxLocation, notesFields, notesOf, notesRequest } from './playnotes.js';
import { navigate } from '../router.js';
import { renderResults } from '../games/results.js';
import { rematchButton } from '../games/score.js';
import { labelOf } from '../ui/widgets.js';
import {
  confirmSheet, dayDate, duration, gamesById, inGroup, longDate, playItems, topbar, undoToast,
} from './historyui.js';

/** @typedef {import('../sync/history.js').Play} Play */
/** @typedef {import('../sync/http.js').Result} Result */

/** How many plays a page of the history holds. */
const pageSize = 20;
/** How long a deleted play can be brought back: its delete waits in the outbox that long. */
const undoFor = 10000;

/**
 * historyScreen lists the group's plays, newest first, a page at a time,
 * filtered by game, player and location (kept in the address, so back
 * returns to the same list).
 * @param {HTMLElement} root
 */
export async function historyScreen(root) {
  const group = currentGroup();
  const params = new URLSearchParams(location.search);
  const filter = { game: params.get('game') ?? '', player: params.get('player') ?? '', location: params.get('location') ?? '' };
  const [games, names] = await Promise.all([listGames(), gamesById()]);
  const known = await inGroup(root, groupPlayers(group));
  if (!known) return;
  const { players } = known;

  const list = h('ol', { class: 'play-list', 'aria-label': t('ui.history.listLabel'), dataset: { testid: 'play-list' } });
  const more = /** @type {HTMLButtonElement} */ (h('button', { type: 'button', class: 'btn btn-wide', hidden: true, dataset: { testid: 'load-more' } }, t('ui.history.loadMore')));
  const status = h('p', { class: 'muted list-status', role: 'status' });
  /** @type {string | null} */ let next = null;
  let seq = 0;

  const gameSel = /** @type {HTMLSelectElement} */ (h('select', { id: 'filter-game' },
    h('option', { value: '' }, t('ui.history.allGames')),
    games.map((g) => h('option', { value: g.id, selected: g.id === filter.game }, g.name))));
  const playerSel = /** @type {HTMLSelectElement} */ (h('select', { id: 'filter-player' },
    h('option', { value: '' }, t('ui.history.everyone')),
    players.map((p) => h('option', { value: p.id, selected: p.id === filter.player }, p.name))));
  // Locations are matched as names are: the ones seen so far are offered.
  const places = h('datalist', { id: 'filter-places' });
  /** @type {Map<string, string>} */ const seen = new Map();
  const placeIn = /** @type {HTMLInputElement} */ (h('input', {
    id: 'filter-location', type: 'search', value: filter.location, maxlength: maxLocation, list: 'filter-places',
    placeholder: t('ui.history.anywhere'), autocomplete: 'off', enterkeyhint: 'search',
  }));
  const refilter = () => {
    filter.game = gameSel.value;
    filter.player = playerSel.value;
    filter.location = placeIn.value.trim();
    const q = new URLSearchParams();
    if (filter.game) q.set('game', filter.game);
    if (filter.player) q.set('player', filter.player);
    if (filter.location) q.set('location', filter.location);
    history.replaceState(null, '', `/history${q.size ? `?${q}` : ''}`);
    load(true);
  };
  gameSel.addEventListener('change', refilter);
  playerSel.addEventListener('change', refilter);
  placeIn.addEventListener('change', refilter);
  more.addEventListener('click', () => load(false));

  replace(root,
    topbar('/', t('ui.nav.home'), t('ui.home.history')),
    h('div', { class: 'filters' },
      h('div', { class: 'field' }, h('label', { class: 'label', for: 'filter-game' }, t('ui.history.game')), gameSel),
      h('div', { class: 'field' }, h('label', { class: 'label', for: 'filter-player' }, t('ui.history.player')), playerSel),
      h('div', { class: 'field filter-wide' }, h('label', { class: 'label', for: 'filter-location' }, t('ui.history.location')), placeIn, places)),
    h('a', { class: 'btn btn-primary btn-wide', href: '/plays/new', dataset: { testid: 'log-play' } }, t('ui.home.logPlay')),
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
      const page = await listPlays(group, {
        game: filter.game, player: filter.player, location: filter.location, limit: pageSize, cursor: fresh ? undefined : next ?? undefined,
      });
      if (mine !== seq) return;
      if (fresh) replace(list);
      // A play whose delete waits (it can still be undone) is gone already.
      const gone = deletingPlays(group);
      list.append(...playItems(page.plays.filter((p) => !gone.has(p.id)), names, { me: filter.player }));
      for (const p of page.plays) {
        const key = p.location?.toLowerCase();
        if (key && !seen.has(key)) {
          seen.set(key, p.location);
          places.append(h('option', { value: p.location }));
        }
      }
      next = page.next;
      more.hidden = !next;
      status.textContent = list.children.length === 0
        ? (filter.game || filter.player || filter.location ? t('ui.history.noMatch') : t('ui.history.empty'))
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
      click: () => confirmSheet(root, t('ui.play.deleteTitle'),
        t('ui.play.deleteBody', { game: spec.name, date: dayDate(play.finishedAt), seconds: undoFor / 1000 }),
        t('ui.play.delete'), () => removePlay(group, id, t('ui.play.what', { game: spec.name, date: dayDate(play.finishedAt) }))),
    },
  }, t('ui.play.delete'));
  const body = renderResults(spec, res, { players: play.results }, {
    actions: [
      h('a', { class: 'btn btn-primary', href: `/plays/${id}/edit`, dataset: { testid: 'edit-play' } }, t('ui.play.editBoards')),
      rematchButton(root, spec, play.results.map((r) => r.player), play.variants ?? {}),
      bgStatsLink(play),
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
      name.after(h('span', { class: 'as-entered muted' }, t('ui.play.enteredAs', { name: r.nameAsEntered })));
    }
  });

  const variants = Object.entries(play.variants ?? {});
  const starter = Number.isInteger(play.startPlayer) ? play.results[/** @type {number} */ (play.startPlayer)]?.player : '';
  replace(root,
    topbar('/history', t('ui.home.history'), spec.name),
    h('dl', { class: 'play-meta panel', dataset: { testid: 'play-meta' } },
      h('div', {}, h('dt', {}, t('ui.play.finished')), h('dd', {}, h('time', { datetime: play.finishedAt }, longDate(play.finishedAt)))),
      h('div', {}, h('dt', {}, t('ui.play.length')), h('dd', {}, play.durationSeconds ? duration(play.durationSeconds) : t('ui.play.notKnown'))),
      variants.length ? h('div', {}, h('dt', {}, t('ui.play.houseRules')), h('dd', {}, variants.map(([k, v]) => {
        const spec1 = spec.variants.find((x) => x.key === k);
        return `${spec1 ? spec1.label : labelOf([], k)}: ${v}`;
      }).join('; '))) : null,
      play.tableCode ? h('div', {}, h('dt', {}, t('ui.play.table')), h('dd', {}, play.tableCode)) : null,
      play.location ? h('div', {}, h('dt', {}, t('ui.history.location')), h('dd', { dataset: { testid: 'meta-location' } }, play.location)) : null,
      starter ? h('div', {}, h('dt', {}, t('ui.play.firstPlayer')), h('dd', { dataset: { testid: 'meta-start' } }, starter)) : null),
    notesPanel(group, play),
    body);
}

/**
 * notesPanel shows a play's notes, and edits them with its location and
 * first player: the play is sent again through the outbox (PUT), boards
 * and times as recorded.
 * @param {string} group
 * @param {Play} play
 */
function notesPanel(group, play) {
  const shown = h('p', { class: 'play-notes-text', dataset: { testid: 'meta-notes' } }, play.notes || t('ui.play.noNotes'));
  if (!play.notes) shown.classList.add('muted');
  const msg = h('p', { class: 'msg', role: 'status', hidden: true });
  const state = notesOf(play);
  /** @type {HTMLElement | null} */ let form = null;
  const editBtn = /** @type {HTMLButtonElement} */ (h('button', {
    type: 'button', class: 'btn', dataset: { testid: 'edit-notes' }, 'aria-expanded': 'false', on: { click: open },
  }, t('ui.play.editNotes')));
  const panel = h('section', { class: 'panel play-notes', 'aria-labelledby': 'play-notes-h' },
    h('h2', { id: 'play-notes-h' }, t('ui.play.notes')), shown, editBtn, msg);
  return panel;

  function open() {
    if (form) return;
    const saveBtn = /** @type {HTMLButtonElement} */ (h('button', { type: 'button', class: 'btn btn-primary', dataset: { testid: 'save-notes' }, on: { click: save } }, t('ui.play.saveNotes')));
    const cancel = h('button', { type: 'button', class: 'btn btn-quiet', on: { click: close } }, t('ui.common.cancel'));
    form = h('div', { class: 'notes-form' },
      notesFields(state, () => play.results.map((r) => r.player), () => {}),
      h('div', { class: 'row-actions' }, saveBtn, cancel));
    editBtn.hidden = true;
    editBtn.setAttribute('aria-expanded', 'true');
    shown.hidden = true;
    panel.insertBefore(form, msg);
    form.querySelector('input')?.focus();

    async function save() {
      if (!form) return;
      clearProblems(form);
      msg.hidden = true;
      saveBtn.disabled = true;
      /** @type {import('../sync/history.js').PlayRequest} */
      const req = {
        game: play.game, variants: { ...(play.variants ?? {}) }, finishedAt: play.finishedAt,
        players: play.results.map((r) => ({ name: r.player, board: r.board })),
        ...notesRequest(state, play.results.length),
      };
      if (play.startedAt) req.startedAt = play.startedAt;
      const sent = editPlay(group, play.id, req);
      try {
        /** @type {any} */
        const answer = await Promise.race([sent, new Promise((r) => { setTimeout(() => r(null), 2500); })]);
        if (answer) {
          // Redraw the play as the server has it now.
          window.dispatchEvent(new Event('route'));
          return;
        }
        sent.catch(() => { /* the outbox shows a refusal */ });
        close();
        msg.textContent = t('ui.play.notesKept');
        msg.hidden = false;
      } catch (err) {
        saveBtn.disabled = false;
        if (!(err instanceof ApiError) || !form) throw err;
        const rest = markProblems(form, err.fields, 'error');
        if (rest.length || !err.fields.length) {
          msg.textContent = rest.map((e) => e.detail).join(' ') || err.detail || err.message;
          msg.hidden = false;
        }
      }
    }
  }

  function close() {
    form?.remove();
    form = null;
    editBtn.hidden = false;
    editBtn.setAttribute('aria-expanded', 'false');
    shown.hidden = false;
  }
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
  undoToast(t('ui.play.deleted', { what }), () => {
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
