// player.js: a player's page in the current group. Per game: the record,
// the rating over time and the scores as charts, and head-to-head against
// each opponent; then the recent plays. A typo made a second player? Rename
// (a name someone has already offers to merge the two) or merge into
// another player directly.

import { h, replace } from '../ui/dom.js';
import { plural, t } from '../ui/i18n.js';
import { ApiError } from '../sync/http.js';
import { currentGroup } from '../sync/kept.js';
import { deletingPlays, getPlayer, groupPlayers, mergePlayer, playerRatings, renamePlayer } from '../sync/history.js';
import { listGames } from '../sync/games.js';
import { navigate } from '../router.js';
import { openSheet } from '../ui/sheet.js';
import { ratingChart, scoreHistogram } from '../ui/charts.js';
import { MIN_RATED_PLAYS, dayDate, decimal, gamesById, inGroup, percent, playItems, shortName, topbar } from './historyui.js';

/** @typedef {import('../sync/history.js').PlayerGame} PlayerGame */

/**
 * playerScreen draws a player's page.
 * @param {HTMLElement} root
 * @param {string} id
 */
export async function playerScreen(root, id) {
  const group = currentGroup();
  const st = await inGroup(root, getPlayer(group, id));
  if (!st) return;
  const names = await gamesById();
  const order = (await listGames()).map((g) => g.id);
  const games = [...st.games].sort((a, b) => order.indexOf(a.game) - order.indexOf(b.game));
  const want = new URLSearchParams(location.search).get('game');
  const latest = [...games].sort((a, b) => b.lastPlayedAt.localeCompare(a.lastPlayedAt))[0];
  let shown = games.find((g) => g.game === want) ?? latest;
  const who = st.player.name;
  // A play whose delete waits (it can still be undone) is gone already.
  const gone = deletingPlays(group);
  const recent = st.recent.filter((p) => !gone.has(p.id));

  const sections = games.map((g) => gameSection(g, who, names.get(g.game)?.name ?? g.game, group, id));
  const picker = games.length > 1 ? h('div', { class: 'game-tabs', role: 'tablist', 'aria-label': t('ui.nav.games') }, games.map((g, i) => h('button', {
    type: 'button', role: 'tab', class: 'game-tab', id: `ptab-${g.game}`, 'aria-controls': `pgame-${g.game}`,
    'aria-selected': String(g === shown), tabindex: g === shown ? 0 : -1, dataset: { game: g.game },
    on: { click: () => show(i) },
  }, shortName(names.get(g.game)?.name ?? g.game)))) : null;
  sections.forEach((s, i) => {
    s.hidden = games[i] !== shown;
    if (picker) {
      s.setAttribute('role', 'tabpanel');
      s.setAttribute('aria-labelledby', `ptab-${games[i].game}`);
    }
  });

  replace(root,
    topbar(shown ? `/leaderboards/${shown.game}` : '/leaderboards', t('ui.lb.title'), who),
    games.length === 0 ? h('div', { class: 'panel empty-state' }, h('p', {}, t('ui.player.noPlays', { who }))) : null,
    picker,
    sections,
    recent.length ? h('section', { class: 'recent' },
      h('h2', {}, t('ui.player.recent')),
      h('ol', { class: 'play-list' }, playItems(recent, names, { me: id })),
      h('a', { class: 'btn btn-quiet', href: `/history?player=${id}` }, t('ui.player.allPlays', { who }))) : null,
    h('section', { class: 'panel player-admin' },
      h('h2', {}, t('ui.player.twoNames')),
      h('p', { class: 'muted' }, t('ui.player.twoNamesText')),
      h('div', { class: 'row-actions' },
        h('button', { type: 'button', class: 'btn', dataset: { testid: 'rename' }, on: { click: () => renameSheet(root, group, st.player) } }, t('ui.player.rename')),
        h('button', { type: 'button', class: 'btn', dataset: { testid: 'merge' }, on: { click: () => mergeSheet(root, group, st.player) } }, t('ui.player.mergeInto')))));

  /** @param {number} i */
  function show(i) {
    shown = games[i];
    sections.forEach((s, k) => { s.hidden = k !== i; });
    picker?.querySelectorAll('[role=tab]').forEach((tab, k) => {
      tab.setAttribute('aria-selected', String(k === i));
      tab.setAttribute('tabindex', k === i ? '0' : '-1');
    });
    const q = new URLSearchParams(location.search);
    q.set('game', shown.game);
    history.replaceState(null, '', `${location.pathname}?${q}`);
    const back = /** @type {HTMLAnchorElement | null} */ (root.querySelector('.topbar .back'));
    if (back) back.href = `/leaderboards/${shown.game}`;
  }
}

/**
 * gameSection is a player's record in one game.
 * @param {PlayerGame} g
 * @param {string} who
 * @param {string} gameName
 * @param {string} group
 * @param {string} id the player's
 */
function gameSection(g, who, gameName, group, id) {
  const points = g.avgScore !== null;
  const more = Math.max(1, MIN_RATED_PLAYS - g.ratedPlays);
  /** @param {string} label @param {string} value @param {string} key */
  const stat = (label, value, key) => h('div', { class: 'stat', dataset: { stat: key } }, h('dt', {}, label), h('dd', {}, value));
  return h('section', { class: 'player-game', id: `pgame-${g.game}`, dataset: { game: g.game }, 'aria-label': gameName },
    // A <dl> holds only its term groups: the notes follow it, in the same panel.
    h('div', { class: 'stats panel' },
      h('dl', { class: 'stats-list' },
        stat(t('ui.lb.plays'), String(g.plays), 'plays'),
        stat(t('ui.lb.wins'), String(g.wins), 'wins'),
        stat(t('ui.lb.winRate'), percent(g.winRate), 'winRate'),
        points ? stat(t('ui.player.average'), decimal(g.avgScore), 'avg') : null,
        points ? stat(t('ui.lb.bestShort'), g.bestScore === null ? '–' : String(g.bestScore), 'best') : null,
        stat(t('ui.lb.rating'), g.rating === null ? '–' : decimal(g.rating), 'rating')),
      g.provisional ? h('p', { class: 'prov-badge stat-note' }, plural('ui.player.provisional', more)) : null,
      h('p', { class: 'stat-note muted' }, t('ui.player.lastPlayed', { date: dayDate(g.lastPlayedAt) }))),
    h('section', { class: 'panel chart-panel' },
      h('h2', {}, t('ui.player.ratingOverTime')),
      ratingPanel(g, who, group, id)),
    points && g.scores.length ? h('section', { class: 'panel chart-panel' },
      h('h2', {}, t('ui.player.scores')),
      h('figure', { class: 'chart-fig', dataset: { testid: 'score-histogram' } }, scoreHistogram(g.scores, who, t('ui.form.points.other')))) : null,
    g.headToHead.length ? h('section', { class: 'panel h2h' },
      h('h2', {}, t('ui.player.h2h')),
      h('div', { class: 'table-scroll' },
        h('table', { class: 'h2h-table', dataset: { testid: 'head-to-head' } },
          h('caption', { class: 'sr-only' }, t('ui.player.h2hCaption', { who, game: gameName })),
          h('thead', {}, h('tr', {},
            h('th', { scope: 'col' }, t('ui.player.opponent')),
            h('th', { scope: 'col', class: 'num' }, t('ui.lb.plays')),
            h('th', { scope: 'col', class: 'num' }, h('abbr', { title: t('ui.player.aheadTitle', { who }) }, t('ui.player.won'))),
            h('th', { scope: 'col', class: 'num' }, h('abbr', { title: t('ui.player.behindTitle', { who }) }, t('ui.player.lost'))),
            h('th', { scope: 'col', class: 'num' }, h('abbr', { title: t('ui.player.levelTitle') }, t('ui.player.tied'))))),
          h('tbody', {}, g.headToHead.map((o) => h('tr', {},
            h('th', { scope: 'row' }, h('a', { href: `/players/${o.opponentId}?game=${g.game}` }, o.opponent)),
            h('td', { class: 'num' }, String(o.plays)),
            h('td', { class: 'num' }, String(o.wins)),
            h('td', { class: 'num' }, String(o.losses)),
            h('td', { class: 'num' }, String(o.ties))))))),
      h('p', { class: 'hint' }, t('ui.player.h2hNote'))) : null);
}

/** @typedef {{points: import('../sync/history.js').RatingPoint[], next: string | null, before: number}} RatingPage */

/**
 * counted is what of a page of ratings the chart draws: the ratings from
 * the MIN_RATED_PLAYS-th rated play on, the first the header and the
 * leaderboard show. The ones before are provisional, and not drawn.
 * @param {RatingPage} page
 */
function counted(page) {
  return page.points.slice(Math.max(0, MIN_RATED_PLAYS - 1 - page.before));
}

/**
 * hasEarlier says whether ratings the chart draws come before a page's.
 * @param {RatingPage} page
 */
function hasEarlier(page) {
  return page.next !== null && page.before >= MIN_RATED_PLAYS;
}

/**
 * ratingPanel is the body of a player's "Rating over time" in one game.
 * The chart agrees with the header: while the rating is provisional, a
 * sentence says how many more plays with others it needs instead; then
 * the chart starts at the first rating shown, and says so.
 * @param {PlayerGame} g
 * @param {string} who
 * @param {string} group
 * @param {string} id the player's
 */
function ratingPanel(g, who, group, id) {
  if (g.ratedPlays === 0) return h('p', { class: 'muted' }, t('ui.player.noOpponents'));
  if (g.provisional) {
    return h('p', { class: 'muted', dataset: { testid: 'rating-soon' } },
      plural('ui.player.ratingSoon', Math.max(1, MIN_RATED_PLAYS - g.ratedPlays), { need: MIN_RATED_PLAYS }));
  }
  /** @type {RatingPage} */
  const page = { points: g.ratingHistory, next: g.ratingHistoryNext, before: g.ratedPlays - g.ratingHistory.length };
  const shown = counted(page);
  return [
    h('figure', { class: 'chart-fig', dataset: { testid: 'rating-chart' } },
      ratingChart(shown, who, page.before + page.points.length - shown.length + 1)),
    h('p', { class: 'hint', dataset: { testid: 'rating-from' } }, t('ui.player.ratingFrom', { n: MIN_RATED_PLAYS })),
    hasEarlier(page) ? ratingPager(page, who, group, id, g.game) : null,
  ];
}

/**
 * ratingPager pages the rating chart back and forth through a long
 * history, a chart's worth of ratings at a time: the page shows the
 * newest, and each earlier page is read once, when first asked for.
 * @param {RatingPage} newest the page the player's page came with
 * @param {string} who
 * @param {string} group
 * @param {string} id the player's
 * @param {string} game
 */
function ratingPager(newest, who, group, id, game) {
  /** @type {RatingPage[]} */
  const pages = [newest];
  let at = 0;
  const problem = h('p', { class: 'msg msg-error', role: 'alert', hidden: true });
  const earlier = /** @type {HTMLButtonElement} */ (h('button', { type: 'button', class: 'btn btn-quiet', dataset: { testid: 'ratings-earlier' }, on: { click: () => turn(1) } }, t('ui.player.earlier')));
  const later = /** @type {HTMLButtonElement} */ (h('button', { type: 'button', class: 'btn btn-quiet', dataset: { testid: 'ratings-later' }, disabled: true, on: { click: () => turn(-1) } }, t('ui.player.later')));
  const pager = h('div', { class: 'row-actions', role: 'group', 'aria-label': t('ui.player.ratingPages') }, earlier, later, problem);

  /** @param {number} step 1 for earlier ratings, -1 for later ones */
  async function turn(step) {
    problem.hidden = true;
    earlier.disabled = later.disabled = true;
    try {
      const cursor = pages[at].next;
      if (step > 0 && at + 1 === pages.length && cursor) {
        const r = await playerRatings(group, id, game, cursor);
        pages.push({ points: r.points, next: r.next, before: pages[at].before - r.points.length });
      }
      at = Math.max(0, Math.min(pages.length - 1, at + step));
    } catch (err) {
      problem.textContent = String(/** @type {any} */ (err).message ?? err);
      problem.hidden = false;
    }
    const fig = pager.parentElement?.querySelector('[data-testid=rating-chart]');
    const shown = counted(pages[at]);
    fig?.replaceChildren(ratingChart(shown, who, pages[at].before + pages[at].points.length - shown.length + 1));
    earlier.disabled = !hasEarlier(pages[at]);
    later.disabled = at === 0;
  }
  return pager;
}

/**
 * renameSheet asks for a new name. A name another player has means the two
 * are probably one person: the sheet then offers to merge them.
 * @param {HTMLElement} root
 * @param {string} group
 * @param {{id: string, name: string}} player
 */
function renameSheet(root, group, player) {
  const input = /** @type {HTMLInputElement} */ (h('input', {
    id: 'rename-input', type: 'text', value: player.name, maxlength: 40, autocomplete: 'off', spellcheck: 'false',
  }));
  const msgs = h('div', { class: 'msgs', 'aria-live': 'polite' });
  const field = h('div', { class: 'field', dataset: { pointer: '/name' } },
    h('label', { class: 'label', for: 'rename-input' }, t('ui.score.name')), input, msgs);
  const body = h('form', { class: 'editor', novalidate: true, on: { submit: (/** @type {Event} */ e) => { e.preventDefault(); save(); } } }, field);
  const saveBtn = /** @type {HTMLButtonElement} */ (h('button', { type: 'button', class: 'btn btn-primary', dataset: { testid: 'rename-save' }, on: { click: save } }, t('ui.common.save')));
  const s = openSheet({
    host: root, title: t('ui.player.renameTitle', { name: player.name }), body,
    actions: [h('button', { type: 'button', class: 'btn', on: { click: () => s.close() } }, t('ui.common.cancel')), saveBtn],
  });
  input.select();

  async function save() {
    const name = input.value.trim();
    replace(msgs);
    field.classList.remove('has-error');
    saveBtn.disabled = true;
    try {
      await renamePlayer(group, player.id, name);
      s.close();
      navigate(location.pathname + location.search, { replace: true });
    } catch (err) {
      saveBtn.disabled = false;
      const into = /** @type {any} */ (err).mergeInto;
      if (err instanceof ApiError && err.status === 409 && into) {
        // Name the other player as the group knows them, not as typed.
        const other = await groupPlayers(group).then((r) => r.players.find((p) => p.id === into)?.name).catch(() => '');
        offerMerge(into, other || name);
        return;
      }
      field.classList.add('has-error');
      input.setAttribute('aria-invalid', 'true');
      const detail = err instanceof ApiError && err.fields.length ? err.fields.map((f) => f.detail).join('; ') : String(/** @type {any} */ (err).message ?? err);
      msgs.append(h('p', { class: 'msg msg-error' }, detail.charAt(0).toUpperCase() + detail.slice(1)));
    }
  }

  /**
   * offerMerge replaces the form by the question: merge into the player
   * who has that name?
   * @param {string} into
   * @param {string} other the name of the player who has it
   */
  function offerMerge(into, other) {
    const problem = h('p', { class: 'msg msg-error', role: 'alert', hidden: true });
    const yes = /** @type {HTMLButtonElement} */ (h('button', {
      type: 'button', class: 'btn btn-primary', dataset: { testid: 'merge-offer' },
      on: {
        click: async () => {
          yes.disabled = true;
          try {
            await mergePlayer(group, player.id, into);
            s.close();
            navigate(`/players/${into}`, { replace: true });
          } catch (err) {
            yes.disabled = false;
            problem.textContent = String(/** @type {any} */ (err).message ?? err);
            problem.hidden = false;
          }
        },
      },
    }, t('ui.player.mergeIntoName', { other })));
    replace(body, h('div', { class: 'merge-offer', dataset: { testid: 'merge-question' } },
      h('p', {}, h('strong', {}, t('ui.player.taken', { other }))),
      h('p', {}, t('ui.player.samePerson', { name: player.name, other })),
      problem));
    const actions = s.dialog.querySelector('.sheet-actions');
    if (actions) replace(actions, h('button', { type: 'button', class: 'btn', on: { click: () => s.close() } }, t('ui.player.keepApart')), yes);
    yes.focus();
  }
}

/**
 * mergeSheet picks another player of the group to merge this one into.
 * @param {HTMLElement} root
 * @param {string} group
 * @param {{id: string, name: string}} player
 */
async function mergeSheet(root, group, player) {
  const { players } = await groupPlayers(group);
  const others = players.filter((p) => p.id !== player.id);
  const sel = /** @type {HTMLSelectElement} */ (h('select', { id: 'merge-into' },
    h('option', { value: '' }, t('ui.player.choose')),
    others.map((p) => h('option', { value: p.id }, p.name))));
  const problem = h('p', { class: 'msg msg-error', role: 'alert', hidden: true });
  const yes = /** @type {HTMLButtonElement} */ (h('button', {
    type: 'button', class: 'btn btn-danger', dataset: { testid: 'merge-confirm' },
    on: {
      click: async () => {
        if (!sel.value) {
          problem.textContent = t('ui.player.chooseMerge');
          problem.hidden = false;
          sel.focus();
          return;
        }
        yes.disabled = true;
        try {
          await mergePlayer(group, player.id, sel.value);
          s.close();
          navigate(`/players/${sel.value}`, { replace: true });
        } catch (err) {
          yes.disabled = false;
          problem.textContent = String(/** @type {any} */ (err).message ?? err);
          problem.hidden = false;
        }
      },
    },
  }, t('ui.player.merge')));
  const s = openSheet({
    host: root, title: t('ui.player.mergeTitle', { name: player.name }),
    body: h('div', { class: 'editor' },
      others.length
        ? h('div', { class: 'field' }, h('label', { class: 'label', for: 'merge-into' }, t('ui.player.reallyAre')), sel,
          h('p', { class: 'hint' }, t('ui.player.mergeHint', { name: player.name })))
        : h('p', {}, t('ui.player.nobodyElse')),
      problem),
    actions: [h('button', { type: 'button', class: 'btn', on: { click: () => s.close() } }, t('ui.common.cancel')), others.length ? yes : null].filter(Boolean),
  });
}
