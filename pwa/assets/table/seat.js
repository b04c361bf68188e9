// seat.js: one seat's board at a live table, on the player's own phone or
// opened by the host. Every change is kept on the phone and saved through
// the outbox; the standings of all seats run along the bottom, scored on
// the phone while a change waits.

import { h, replace, keepShowing } from '../ui/dom.js';
import { ApiError } from '../sync/http.js';
import { deliveredBoard, keepTable, pendingBoard, putBoard, reportSync } from '../sync/tables.js';
import { kick, subscribeOutbox } from '../sync/outbox.js';
import { engineReady, whenEngineReady } from '../engine/engine.js';
import { navigate } from '../router.js';
import { clearProblems, concerns, markProblems } from '../ui/problems.js';
import { boardField, boardRequest } from '../games/forms.js';
import { showSheetTotal } from '../games/totals.js';
import { watchTable } from './live.js';
import { hotelPanel, hotelPhase } from './hotel.js';
import { ordinal, t } from '../ui/i18n.js';
import { canon, capitalize, entered } from './shared.js';

/** @typedef {import('../games/forms.js').BoardForm} BoardForm */
/** @typedef {import('../sync/tables.js').Table} Table */
/** @typedef {import('./shared.js').TableContext} TableContext */

/** How long typing must pause before a board is saved. */
const saveDelay = 300;
/** How often a seat's phone tells the server what it still holds. */
const reportEvery = 10000;

/**
 * seatView is one seat's board: the player's own (seat token) or any seat
 * the host opens (host token). Every change is saved after a short pause
 * with If-Match; when the table moved on meanwhile, the change is applied
 * again on top only if this seat's board was not changed elsewhere, else
 * the other version is shown with a notice. The server's errors for the
 * seat appear at the fields; the standings of all seats run along the
 * bottom. An Insektenhotel seat sets up its hotel here, then plays moves.
 * @param {TableContext} ctx
 * @param {BoardForm} form
 * @param {number} seat
 * @param {string} token
 * @param {boolean} host
 */
export function seatView({ root, spec, code, table: first }, form, seat, token, host) {
  let table = first;
  const base = `/players/${seat}/board`;
  const hotelGame = spec.tracked;
  /** @param {any} b */
  const copyOf = (b) => (b && typeof b === 'object' ? JSON.parse(JSON.stringify(b)) : form.emptyBoard(spec));
  let board = copyOf(table.seats[seat].board);
  // synced is this seat's board as the server is known to hold it, and
  // baseVersion the table version it was known at: the If-Match of a save.
  let synced = canon(table.seats[seat].board);
  let baseVersion = table.version;
  let closed = false;
  let leaving = false;
  let formGen = 0;
  /** the version of the delivered board (deliveredBoard) this screen has compared */
  let deliveredSeen = -1;
  let phase = hotelGame ? hotelPhase(table, spec) : 'board';

  // A board typed on this phone that the server has not acknowledged
  // (before a reload, a crash, a phone put away) is in the outbox: it is
  // shown, and the outbox goes on sending it.
  const held = pendingBoard(code, seat);
  if (held) board = copyOf(held.board);

  const live = watchTable(code, apply, () => drawStandings());
  const notice = h('div', { class: 'notice', role: 'status', hidden: true, dataset: { testid: 'notice' } });
  const lostBanner = h('div', { class: 'banner', role: 'alert', hidden: true });
  const formSlot = h('div', { class: 'form-slot' });
  const hotelSlot = h('div', {});
  const standingState = h('span', { class: 'standing-state' });
  const chips = h('ol', { class: 'mini-standings', 'aria-label': t('ui.table.standings') });
  const hotel = hotelGame ? hotelPanel({ spec, code, token, seat: host ? -1 : seat, host, sheetHost: root, onTable: apply }) : null;
  const nameOf = () => table.seats[seat]?.name ?? t('ui.table.player', { n: seat + 1 });
  const headingText = () => t(host
    ? (hotelGame ? 'ui.table.theirHotel' : 'ui.table.theirBoard')
    : (hotelGame ? 'ui.table.yourHotel' : 'ui.table.yourBoard'), { name: nameOf() });
  const heading = h('h1', {}, headingText());
  /** @type {import('../sync/http.js').Result | null} standings with this phone's board, from the engine */
  let local = null;
  /** counts rescoreHere's calls: only the newest one's answer is shown */
  let localSeq = 0;

  replace(root,
    seatTopbar(code, host, heading),
    live.banner,
    notice,
    lostBanner,
    hotelSlot,
    formSlot,
    h('div', { class: 'actionbar standings-bar' },
      h('p', { class: 'bar-state', 'aria-live': 'polite' }, standingState),
      chips));
  keepShowing(true);
  drawPhase();
  rescoreHere();
  drawStandings();
  showProblems();
  // Once the engine is there, what this phone holds is scored here too.
  whenEngineReady().then(() => {
    if (closed) return;
    rescoreHere();
    drawStandings();
    showProblems();
  });

  // A change typed just before leaving is sent at once rather than at the
  // next visit (it is kept on the phone either way).
  const onHide = () => kick();
  window.addEventListener('pagehide', onHide);
  const stopReporting = host ? () => {} : reportPhone(code, seat, token);

  /** drawPhase shows the board form, the hotel set-up, or the moves. */
  function drawPhase() {
    if (hotel && phase !== 'setup') {
      hotel.update(table);
      if (hotelSlot.firstChild !== hotel.el) replace(hotelSlot, hotel.el);
    } else replace(hotelSlot);
    drawForm();
  }

  /** drawForm (re)draws the board form from `board`. */
  function drawForm() {
    const gen = ++formGen;
    root.querySelectorAll('dialog.sheet[open]').forEach((d) => /** @type {HTMLDialogElement} */ (d).close());
    if (phase === 'playing') {
      replace(formSlot);
      return;
    }
    const panel = h('section', { class: 'panel player field', dataset: { pointer: `/players/${seat}` } },
      h('div', { class: 'msgs' }),
      boardField(form, {
        spec, board, base, host: root, setup: hotelGame,
        changed: () => { if (gen === formGen) changed(); },
        refreshErrors: () => { if (gen === formGen) showProblems(); },
      }));
    replace(formSlot, phase === 'ready'
      ? h('details', { class: 'panel setup-again' }, h('summary', {}, host ? t('ui.table.changeThisHotel') : t('ui.table.changeYourHotel')), panel)
      : panel);
    showProblems();
  }

  function changed() {
    notice.hidden = true;
    save();
    rescoreHere();
    drawStandings();
    showProblems();
  }

  /** pending says whether this phone holds a change the server has not acknowledged. */
  function pending() {
    return pendingBoard(code, seat) !== null;
  }

  /**
   * save hands the board to the outbox at once, so it is on the phone; the
   * outbox sends it once typing pauses, and until the server has it (a
   * newer board replaces one still waiting).
   */
  function save() {
    const body = boardRequest(form, board);
    putBoard(code, seat, token, body, baseVersion, host ? { key: 'ui.table.theirBoard', args: { name: nameOf() } } : { key: 'ui.table.yourBoardShort' }, saveDelay).then((res) => {
      baseVersion = Math.max(baseVersion, res.version);
      if (!pending()) {
        // The last write delivered carried the board as it is now.
        synced = canon(boardRequest(form, board));
        // The server has the change: its standings are the ones to show
        // (an engine answer still on its way is dropped), and "with your
        // change" goes with the change.
        local = null;
        localSeq++;
      }
      if (res.version > table.version) {
        table = {
          ...table, version: res.version, standings: res.standings, errors: res.errors ?? [],
          seats: table.seats.map((s, i) => (i === seat ? { ...s, board: boardRequest(form, board) } : s)),
        };
        keepTable(table);
      }
      if (!closed) afterTable();
    }, (err) => {
      if (closed) return;
      if (err instanceof ApiError && err.status === 409) live.refresh();
      notice.textContent = t('ui.table.notSaved', { why: capitalize(err.message) });
      notice.hidden = false;
    });
  }

  /**
   * rescoreHere scores the table with this phone's board in the browser
   * (the engine's worker), so the standings follow every change without a
   * round trip; they are redrawn when the newest answer comes.
   */
  function rescoreHere() {
    const mine = ++localSeq;
    const engine = engineReady();
    if (!engine || phase === 'playing' || !pending()) {
      local = null;
      return;
    }
    const req = {
      players: table.seats.map((s, i) => ({ name: s.name, board: i === seat ? boardRequest(form, board) : s.board })),
      variants: table.variants ?? {},
    };
    engine.score(spec.id, req).then((a) => (a.status === 200 ? a.body : null), () => null).then((res) => {
      if (closed || mine !== localSeq) return;
      local = res;
      drawStandings();
      showProblems();
    });
  }

  /**
   * apply takes a table from the live stream or a move's answer.
   * @param {Table} tb
   */
  function apply(tb) {
    if (leaving || tb.version < table.version) return;
    takeTable(tb);
  }

  /**
   * takeTable makes tb the table shown, and follows this seat's board when
   * it changed elsewhere and nothing typed here is waiting to be saved.
   * @param {Table} tb
   */
  function takeTable(tb) {
    if (closed || leaving) return;
    if (tb.status === 'finished') {
      leaving = true;
      navigate(`/t/${code}`, { replace: true });
      return;
    }
    table = tb;
    const before = phase;
    phase = hotelGame ? hotelPhase(tb, spec) : 'board';
    const server = canon(tb.seats[seat]?.board);
    const sent = sentFromHere(tb, server);
    if (phase === 'playing' || server === synced) {
      synced = server;
      baseVersion = Math.max(baseVersion, tb.version);
    } else if (pending()) {
      // This phone's change is on its way: it is applied on top.
    } else if (sent) {
      // The server has what this phone sent, by a save no screen waited
      // for (made before a reload): nobody else changed the board.
      takeOwnBoard();
    } else {
      adoptServerBoard(host ? t('ui.table.changedElsewhere', { name: nameOf() }) : t('ui.table.hostChanged'));
    }
    if (phase !== before) drawPhase();
    else if (hotel && phase !== 'setup') hotel.update(tb);
    rescoreHere();
    afterTable();
  }

  /**
   * sentFromHere says whether server, this seat's board in tb, is the one
   * this phone shows or the last one its outbox delivered. A delivered
   * board is compared with the first table at or past the version its
   * save made, and only then: a later change elsewhere back to the same
   * board is another's.
   * @param {Table} tb
   * @param {string} server
   */
  function sentFromHere(tb, server) {
    if (server === canon(boardRequest(form, board))) return true;
    const last = deliveredBoard(code, seat);
    if (!last || tb.version < last.version || last.version <= deliveredSeen) return false;
    deliveredSeen = last.version;
    return canon(last.board) === server;
  }

  /** takeOwnBoard follows the server's board, which this phone sent, without a notice. */
  function takeOwnBoard() {
    const server = table.seats[seat]?.board;
    synced = canon(server);
    baseVersion = Math.max(baseVersion, table.version);
    if (synced === canon(boardRequest(form, board))) return;
    board = copyOf(server);
    drawForm();
  }

  /**
   * adoptServerBoard shows the server's version of this seat's board.
   * @param {string} why
   */
  function adoptServerBoard(why) {
    const server = table.seats[seat]?.board;
    board = copyOf(server);
    synced = canon(server);
    baseVersion = table.version;
    drawForm();
    notice.textContent = why;
    notice.hidden = false;
  }

  /** afterTable redraws what depends on the whole table. */
  function afterTable() {
    heading.textContent = headingText();
    drawStandings();
    showProblems();
  }

  /** standings are this phone's while it holds a change, else the server's. */
  function standings() {
    return local ?? table.standings;
  }

  function drawStandings() {
    const st = standings();
    replace(chips, standingChips(table, st, seat, boardRequest(form, board)));
    const mine = table.errors.filter((e) => concerns(e, seat));
    showSheetTotal(formSlot, st?.results[seat]?.total, !local && mine.length > 0);
    standingState.textContent = standingWords(table, seat, local, live.live());
  }

  /** showProblems marks this seat's errors and warnings at its fields. */
  function showProblems() {
    clearProblems(formSlot);
    const errors = local ? [] : table.errors.filter((e) => concerns(e, seat));
    const warnings = standings()?.results[seat]?.warnings ?? [];
    const lost = phase === 'playing' ? errors : markProblems(formSlot, errors, 'error');
    if (phase !== 'playing') markProblems(formSlot, warnings, 'warning');
    replace(lostBanner, lost.map((e) => h('p', {}, capitalize(e.detail))));
    lostBanner.hidden = lost.length === 0;
  }

  return () => {
    // The screen goes; the outbox goes on sending what it holds.
    closed = true;
    live.close();
    stopReporting();
    keepShowing(false);
    window.removeEventListener('pagehide', onHide);
  };
}

/**
 * seatTopbar is a seat screen's header: back to the table (the host) or
 * home (the seat's own phone), the heading, and the table's code.
 * @param {string} code
 * @param {boolean} host
 * @param {HTMLElement} heading
 */
function seatTopbar(code, host, heading) {
  return h('header', { class: 'topbar' },
    host
      ? h('a', { class: 'back', href: `/t/${code}` }, h('span', { 'aria-hidden': 'true' }, '‹'), ` ${t('ui.table.table')}`)
      : h('a', { class: 'back', href: '/' }, h('span', { 'aria-hidden': 'true' }, '‹'), ` ${t('ui.table.games')}`),
    heading,
    h('span', { class: 'topbar-game' }, t('ui.table.tableCode', { code })));
}

/**
 * reportPhone has a seat's own phone tell the server what it holds for the
 * seat, so the host sees unsent changes: now, whenever that changes, and
 * every few seconds while the screen is in view.
 * @param {string} code
 * @param {number} seat
 * @param {string} token
 * @returns {() => void} stops reporting
 */
function reportPhone(code, seat, token) {
  let stopped = false;
  let hadPending = pendingBoard(code, seat) !== null;
  const report = () => { if (!stopped) reportSync(code, seat, token).catch(() => { /* the table is gone: the screen says so */ }); };
  const unwatch = subscribeOutbox(() => {
    const has = pendingBoard(code, seat) !== null;
    if (has !== hadPending) {
      hadPending = has;
      report();
    }
  });
  const timer = setInterval(() => { if (document.visibilityState === 'visible') report(); }, reportEvery);
  report();
  return () => {
    stopped = true;
    unwatch();
    clearInterval(timer);
  };
}

/**
 * standingChips are the standings bar's chips, one a seat.
 * @param {Table} tb
 * @param {import('../sync/http.js').Result | null} st the standings shown
 * @param {number} seat this screen's seat
 * @param {any} board the seat's board as this phone holds it
 */
function standingChips(tb, st, seat, board) {
  // Before any board holds anything, everyone would be 1st.
  const ranked = tb.seats.some((s, i) => entered(i === seat ? board : s.board));
  return tb.seats.map((s, i) => {
    const r = st?.results[i];
    return h('li', { class: ['chip-standing', i === seat && 'me', r?.winner && st?.complete && 'lead'] },
      h('span', { class: 'cs-rank' }, r && ranked ? ordinal(r.rank) : '–'),
      h('span', { class: 'cs-name' }, s.name),
      h('strong', { class: 'cs-total', dataset: { testid: `standing-${i}` } }, r ? String(r.total) : '–'));
  });
}

/**
 * standingWords says whose standings the bar shows: with this phone's
 * change, the server's (live, or as last seen), or what they wait for.
 * @param {Table} tb
 * @param {number} seat
 * @param {import('../sync/http.js').Result | null} local the standings with this phone's change, if it holds one
 * @param {boolean} live the table follows the server now
 */
function standingWords(tb, seat, local, live) {
  if (local) return local.complete ? t('ui.table.finalWithYours') : t('ui.table.withYours');
  if (tb.standings) return !live ? t('ui.table.lastSeenStandings') : tb.standings.complete ? t('ui.table.finalHostCan') : t('ui.table.standingsLive');
  if (tb.errors.some((e) => concerns(e, seat))) return t('ui.table.waitThisBoard');
  return tb.errors.some((e) => !concerns(e, seat)) ? t('ui.table.waitOtherBoard') : '';
}
