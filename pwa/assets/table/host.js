// host.js: the host's screen of a live table: the invite, the seats with
// their live standings and their phones' state, each seat's board a tap
// away, the Insektenhotel moves, and Finish (which waits for phones that
// hold unsent changes, or not, as the host chooses).

import { h, replace, keepShowing } from '../ui/dom.js';
import { concerns } from '../ui/problems.js';
import { unitOf } from '../games/forms.js';
import { watchTable } from './live.js';
import { hotelPanel, hotelPhase } from './hotel.js';
import { ordinal, plural, t } from '../ui/i18n.js';
import { joinPanel } from './invite.js';
import { finisher } from './finish.js';
import { capitalize, entered, follower, reserveBar, resultOf, syncWords, topbar, unsentSeats, whoIs } from './shared.js';

/** @typedef {import('../sync/tables.js').Table} Table */
/** @typedef {import('../sync/http.js').FieldError} FieldError */
/** @typedef {import('./shared.js').TableContext} TableContext */

/** How often the host's screen reads the table while a phone has unsent changes. */
const watchUnsentEvery = 10000;

/**
 * hostView is the host's screen: the QR code and the code to join, the
 * seats with their live standings, each seat's board a tap away, the
 * Insektenhotel moves, and Finish.
 * @param {TableContext} ctx
 */
export function hostView({ root, spec, code, table: first, auth }) {
  let table = first;
  const follow = follower(code, () => table);
  const hostToken = /** @type {string} */ (auth.hostToken);
  const joinUrl = auth.joinUrl || `${location.origin}/t/${code}`;
  /** @type {number | undefined} */ let watchUnsent;

  const live = watchTable(code, apply, () => draw());
  const summary = h('p', { class: 'live-state' });
  const fin = finisher({
    root, spec, code, hostToken, table: () => table, draw: () => draw(), leave: follow.leave, refresh: () => live.refresh(),
    slow: () => { summary.textContent = t('ui.table.finishingWait'); },
  });
  const seatsEl = h('ol', { class: 'seat-list', 'aria-label': t('ui.table.playersAndStandings') });
  const paused = h('div', { class: 'notice', role: 'status', hidden: true });
  const joinHint = h('p', { class: 'hint' });
  const hotel = spec.tracked
    ? hotelPanel({ spec, code, token: hostToken, seat: -1, host: true, sheetHost: root, onTable: apply })
    : null;
  const hotelSlot = h('div', {});

  // The invite is what the host shows first; once a player has joined, the
  // standings matter more: it folds (once: the host may open it again).
  const invite = joinPanel(code, joinUrl, anyJoined(table), root);
  let folded = anyJoined(table);

  const bar = h('div', { class: 'actionbar host-bar' }, summary, fin.button);
  keepShowing(true);
  replace(root,
    topbar('/', t('ui.table.games'), t('ui.table.tableCode', { code }), spec.name),
    live.banner,
    invite,
    h('section', { class: 'panel seats-panel' },
      h('h2', {}, t('ui.table.players')),
      seatsEl, paused, joinHint),
    hotelSlot,
    fin.banner,
    bar);
  const unreserve = reserveBar(root, bar);
  draw();

  /** @param {Table} tb */
  function apply(tb) {
    if (!follow.takes(tb)) return;
    fin.took(tb);
    table = tb;
    if (!folded && anyJoined(table)) {
      folded = true;
      /** @type {HTMLDetailsElement} */ (invite).open = false;
    }
    draw();
    fin.settled();
  }

  function draw() {
    const phase = spec.tracked ? hotelPhase(table, spec) : 'board';
    replace(seatsEl, table.seats.length === 0
      ? h('li', { class: 'muted empty-seats' }, t('ui.table.noPlayers'))
      : byRank(table).map((i) => seatRow({ spec, code, table }, i, phase, fin.refusedAt(i))));
    const pausedBy = table.errors.length && !table.standings ? table.errors : [];
    replace(paused, pausedBy.length
      ? [h('p', {}, h('strong', {}, t('ui.table.paused')), t('ui.table.pausedUntil')),
        h('ul', { class: 'problem-list' }, pausedBy.map((e) => h('li', {}, whoIs(table, e.pointer), e.detail)))]
      : []);
    paused.hidden = pausedBy.length === 0;
    const open = spec.maxPlayers - table.seats.length;
    joinHint.textContent = open > 0
      ? plural('ui.table.canJoin', open)
      : t('ui.table.full', { game: spec.name, max: spec.maxPlayers });
    summary.textContent = [phonesSummary(table), live.live()
      ? (table.standings?.complete ? t('ui.table.gameOver') : t('ui.table.standingsLive'))
      : t('ui.table.reconnecting')].filter(Boolean).join(' · ');
    if (hotel) {
      if (phase === 'setup') {
        replace(hotelSlot, h('p', { class: 'notice', dataset: { testid: 'hotel-setup' } },
          t('ui.table.setUpHotels')));
      }
      else {
        hotel.update(table);
        if (hotelSlot.firstChild !== hotel.el) replace(hotelSlot, hotel.el);
      }
    }
    fin.drawBanner();
    // A phone with unsent changes turns silent with time alone: look again.
    const watch = unsentSeats(table).length > 0;
    if (watch && watchUnsent === undefined) watchUnsent = setInterval(() => { live.refresh(); }, watchUnsentEvery);
    if (!watch && watchUnsent !== undefined) {
      clearInterval(watchUnsent);
      watchUnsent = undefined;
    }
  }

  return () => {
    live.close();
    clearInterval(watchUnsent);
    keepShowing(false);
    unreserve();
  };
}

/**
 * seatRow is one seat of the host's list: rank, name, whether someone
 * holds it and its phone's state, total, its board a tap away, and what
 * a refused finish found in it.
 * @param {{spec: import('../sync/http.js').Spec, code: string, table: Table}} at
 * @param {number} i
 * @param {string} phase
 * @param {FieldError[]} mine the finish's refusal at this seat
 */
function seatRow({ spec, code, table }, i, phase, mine) {
  const s = table.seats[i];
  const r = resultOf(table, i);
  // Before any board holds anything, everyone would be "=1st".
  const ranked = !!r && table.seats.some((x) => entered(x.board));
  const errs = table.errors.filter((e) => concerns(e, i));
  const canEdit = phase !== 'playing';
  const tied = ranked && (table.standings?.results ?? []).some((o, k) => k !== i && o.rank === r.rank);
  return h('li', { class: ['seat-row', errs.length && 'has-error', r?.winner && table.standings?.complete && 'winner'], dataset: { seat: i } },
    h('span', { class: ['rank', tied && 'tied'], 'aria-label': ranked ? t(tied ? 'ui.table.rankTied' : 'ui.table.rank', { n: r.rank }) : t('ui.table.noRank'), dataset: { testid: `rank-${i}` } },
      ranked ? `${tied ? '=' : ''}${ordinal(r.rank)}` : '–'),
    h('span', { class: 'seat-who' },
      h('span', { class: 'seat-name' }, s.name),
      // A seat nobody claimed is the host's to fill in: it is here too.
      h('span', { class: ['claim', s.claimed ? 'claimed' : 'hosted'], dataset: { testid: `claim-${i}` } },
        s.claimed ? t('ui.table.onOwnPhone') : t('ui.table.onHostPhone')),
      syncNote(s),
      errs.length ? h('span', { class: 'seat-problem' }, plural('ui.table.needsLook', errs.length)) : null),
    h('span', { class: 'score' },
      h('strong', { class: 'total', dataset: { testid: `seat-total-${i}` } }, r ? String(r.total) : '–'),
      h('span', { class: 'unit' }, unitOf(spec, r?.total ?? 0))),
    canEdit
      ? h('a', { class: 'btn seat-edit', href: `/t/${code}/seats/${i}`, 'aria-label': t('ui.table.editBoard', { name: s.name }), dataset: { testid: `edit-${i}` } },
        phase === 'board' ? t('ui.table.board') : t('ui.table.hotel'))
      : h('span', {}),
    mine.length ? h('div', { class: 'msgs seat-msgs' }, mine.map((f) => h('p', { class: 'msg msg-error' }, capitalize(f.detail)))) : null);
}

/**
 * anyJoined says whether a player took a seat on their own phone.
 * @param {Table} tb
 */
function anyJoined(tb) {
  return tb.seats.some((s) => s.claimed);
}

/**
 * byRank orders a table's seats by their rank in the standings (seat order
 * among equals, and when there are no standings).
 * @param {Table} tb
 * @returns {number[]} seat indices
 */
function byRank(tb) {
  const rank = (/** @type {number} */ i) => tb.standings?.results[i]?.rank ?? Infinity;
  return tb.seats.map((_, i) => i).sort((a, b) => rank(a) - rank(b) || a - b);
}

/**
 * phonesSummary says where the seats are entered: on players' own phones
 * or on the host's (a seat nobody claimed is the host's to fill in).
 * @param {Table} tb
 */
function phonesSummary(tb) {
  const own = tb.seats.filter((s) => s.claimed).length;
  const host = tb.seats.length - own;
  return [own ? t('ui.table.onOwnCount', { n: own }) : '', host ? t('ui.table.onHostCount', { n: host }) : ''].filter(Boolean).join(', ');
}

/**
 * syncNote is a seat row's note on its phone, when it holds unsent changes.
 * @param {import('../sync/tables.js').Seat} s
 */
function syncNote(s) {
  const sync = /** @type {any} */ (s).sync;
  if (!sync || (sync.state === 'saved' && !(s.claimed && sync.lastSeenAt))) return null;
  return h('span', { class: ['seat-sync', `sync-${sync.state}`], dataset: { testid: `sync-${s.seat}` } }, syncWords(sync));
}
