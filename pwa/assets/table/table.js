// table.js: live tables. One phone starts a table and shows its QR code;
// the others open /t/CODE, pick their seat and enter their own board, and
// every screen follows the standings as they change (live.js).
//
//   /tables/new          start a table: game, player names, house rules
//                        (?game=, ?player= and ?rule=key:value fill them in:
//                        a rematch)
//   /t/CODE              the host's screen, a player's board, or the seat
//                        picker, depending on the token this browser keeps;
//                        the results once the table is finished
//   /t/CODE/seats/N      the host fills in seat N (one phone passed around)
//
// Tokens are kept per table in localStorage (sync/kept.js), so a reload keeps
// the host screen or the seat. Every write goes through the outbox
// (sync/outbox.js): a seat's board is kept on the phone as it is typed and
// sent until the server has it; the seat's phone reports what it still
// holds, so the host sees it and finishing waits for it.

// The tokens a join, a claim or a new table brings are kept when the
// server answers, even if that is after a reload.
register('join', { delivered: (op, r) => saveTableAuth(op.meta.code, { seat: r.seat, seatToken: r.seatToken }) });
register('claim', { delivered: (op, r) => saveTableAuth(op.meta.code, { seat: op.meta.seat, seatToken: r.seatToken }) });
register('createTable', { delivered: (_op, tb) => saveTableAuth(tb.code, { hostToken: tb.hostToken, joinUrl: tb.joinUrl }) });

/** How long a write may take before the screen says it waits for the server. */
const patience = 2000;

/**
 * waitNote calls show if the write it is made for has not settled within
 * a moment (the outbox is still trying).
 * @param {() => void} show
 * @returns {() => void} call once settled: stops the note from coming
 */
function waitNote(show) {
  const timer = setTimeout(show, patience);
  return () => clearTimeout(timer);
}

import { h, replace } from '../ui/dom.js';
import { ApiError } from '../sync/http.js';
import { claimSeat, createTable, deliveredBoard, finishTable, getTable, joinTable, keepTable, pendingBoard, putBoard, reportSync, tablePath } from '../sync/tables.js';
import { getGame, listGames } from '../sync/games.js';
import { loadTableAuth, saveTableAuth } from '../sync/kept.js';
import { kick, register, subscribeOutbox } from '../sync/outbox.js';
import { engineReady, whenEngineReady } from '../engine/engine.js';
import { age, keepShowing } from '../ui/dom.js';
import { navigate } from '../router.js';
import { clearProblems, concerns, markProblems, playerOf } from '../ui/problems.js';
import { segmented, text, toggle } from '../ui/widgets.js';
import { boardField, boardRequest, loadForm, unitOf } from '../games/forms.js';
import { showSheetTotal } from '../games/totals.js';
import { renderResults } from '../games/results.js';
import { rematchButton } from '../games/score.js';
import { watchTable } from './live.js';
import { openSheet } from '../ui/sheet.js';
import { hotelPanel, hotelPhase } from './hotel.js';
import { foldName, nameChips } from '../ui/names.js';
import { knownPlayers } from '../sync/history.js';
import { currentGroup } from '../sync/kept.js';
import { list, ordinal, plural, t } from '../ui/i18n.js';

/** @typedef {import('../sync/http.js').Spec} Spec */
/** @typedef {import('../sync/tables.js').Table} Table */
/** @typedef {import('../sync/http.js').FieldError} FieldError */
/** @typedef {import('../games/forms.js').BoardForm} BoardForm */
/** @typedef {import('../sync/kept.js').TableAuth} TableAuth */

/** How long typing must pause before a board is saved. */
const saveDelay = 300;
/** How often a seat's phone tells the server what it still holds. */
const reportEvery = 10000;
/** How often the host's screen reads the table while a phone has unsent changes. */
const watchUnsentEvery = 10000;

/**
 * topbar is the header of a table screen.
 * @param {string} href where back leads
 * @param {string} back its label
 * @param {string} title
 * @param {string} [aside] a short note at the right (the game)
 */
function topbar(href, back, title, aside) {
  return h('header', { class: 'topbar' },
    h('a', { class: 'back', href }, h('span', { 'aria-hidden': 'true' }, '‹'), ` ${back}`),
    h('h1', {}, title),
    aside ? h('span', { class: 'topbar-game' }, aside) : null);
}

/**
 * canon writes a value as JSON with sorted keys, so two boards compare
 * equal however their keys were ordered.
 * @param {any} v
 * @returns {string}
 */
export function canon(v) {
  if (v === undefined) return 'null';
  if (Array.isArray(v)) return `[${v.map(canon).join(',')}]`;
  if (v && typeof v === 'object') {
    return `{${Object.keys(v).sort().filter((k) => v[k] !== undefined).map((k) => `${JSON.stringify(k)}:${canon(v[k])}`).join(',')}}`;
  }
  return JSON.stringify(v);
}

/**
 * newTableScreen starts a table: the game, the names of the players at
 * hand (the others join by the code) and the house rules.
 * @param {HTMLElement} root
 */
export async function newTableScreen(root) {
  const games = await listGames();
  const q = new URLSearchParams(location.search);
  const wanted = q.get('game');
  let game = games.find((g) => g.id === wanted)?.id ?? '';
  /** @type {string[]} */
  const names = q.getAll('player').map((n) => n.trim()).slice(0, 8);
  while (names.length < 2) names.push('');
  /** @type {Object<string, number>} the house rules; a rematch's until the game is changed */
  let variants = {};
  for (const r of q.getAll('rule')) {
    const [k, v] = r.split(':');
    if (k && v !== undefined && Number.isFinite(Number(v))) variants[k] = Number(v);
  }
  /** @type {Spec | null} */ let spec = null;
  /** The line of names whose player starts a table played move by move. */
  let first = 0;
  // The group's players, most recent first: a tap fills the first empty
  // name (a new line when every line has one); a tap on a name taken
  // takes it back.
  const chips = nameChips({
    names: knownPlayers(currentGroup()), label: t('ui.table.groupPlayers'),
    current: () => names,
    pick: (n) => {
      const free = names.findIndex((x) => !x.trim());
      if (free >= 0) names[free] = n;
      else if (names.length < (spec?.maxPlayers ?? 4)) names.push(n);
      else return;
      drawNames();
    },
    unpick: (n) => {
      const at = names.findIndex((x) => foldName(x) === foldName(n));
      if (at < 0) return;
      names[at] = '';
      drawNames();
    },
  });

  const banner = h('div', { class: 'banner', role: 'alert', hidden: true });
  const namesEl = h('div', { class: 'names' });
  const variantsEl = h('div', { class: 'new-variants' });
  const firstEl = h('div', { class: 'new-first' });
  const addBtn = h('button', { type: 'button', class: 'btn btn-quiet add-name', on: { click: addName } }, t('ui.table.addPlayer'));
  const createBtn = /** @type {HTMLButtonElement} */ (h('button', { type: 'submit', class: 'btn btn-primary', dataset: { testid: 'create-table' } }, t('ui.table.create')));

  replace(root,
    topbar('/', t('ui.table.games'), t('ui.table.startTitle')),
    h('p', { class: 'lead intro' }, t('ui.table.intro')),
    h('form', { class: 'new-table', novalidate: true, on: { submit: create } },
      h('section', { class: 'panel' },
        segmented({ label: t('ui.table.game'), pointer: '/game', class: 'stack', options: games.map((g) => ({ id: g.id, label: g.name })), value: game,
          onChange: (v) => { if (v !== game) variants = {}; game = v; loadSpec(); } })),
      h('section', { class: 'panel' },
        h('div', { class: 'field', dataset: { pointer: '/players' } },
          h('h2', {}, t('ui.table.players')),
          h('p', { class: 'hint' }, t('ui.table.namePlayers')),
          h('div', { class: 'msgs' })),
        chips.el, namesEl, addBtn),
      firstEl,
      variantsEl,
      banner,
      h('div', { class: 'actionbar' },
        h('p', { class: 'live-state' }, t('ui.table.qrNext')),
        createBtn)));
  drawNames();
  if (game) await loadSpec();

  /** loadSpec fetches the chosen game's player counts and house rules. */
  async function loadSpec() {
    const id = game;
    const s = await getGame(id);
    if (id !== game) return;
    spec = s;
    // Redraw the names only when some must go: someone may be typing one.
    if (names.length > spec.maxPlayers) {
      names.length = spec.maxPlayers;
      drawNames();
    }
    // House rules the game does not have (a rematch's, from the address) go.
    for (const [k, v] of Object.entries(variants)) {
      if (!spec.variants.some((x) => x.key === k && x.values.includes(v))) delete variants[k];
    }
    addBtn.hidden = names.length >= spec.maxPlayers;
    drawVariants();
    drawFirst();
  }

  function drawNames() {
    replace(namesEl, names.map((n, i) => text({
      label: i === 0 ? t('ui.table.playerYou', { n: 1 }) : t('ui.table.player', { n: i + 1 }), pointer: `/players/${i}`, value: n, maxlength: 40,
      autocomplete: i === 0 ? 'nickname' : 'off', placeholder: i === 0 ? t('ui.table.yourName') : t('ui.table.nameOrEmpty'),
      onChange: (v) => { names[i] = v; chips.refresh(); drawFirst(); },
    })));
    addBtn.hidden = names.length >= (spec?.maxPlayers ?? 4);
    chips.refresh();
    drawFirst();
  }

  /**
   * drawFirst asks who starts a table played move by move (Insektenhotel:
   * "the player who was the last to stay in a hotel"). The choices
   * are the names entered; without one, the first seat starts.
   */
  function drawFirst() {
    const named = names.map((n, i) => ({ id: String(i), label: n.trim() })).filter((o) => o.label);
    if (!spec?.tracked || named.length < 2) {
      replace(firstEl);
      return;
    }
    if (!named.some((o) => o.id === String(first))) first = Number(named[0].id);
    // Typing a name redraws this; keep the focus where it is.
    const focused = firstEl.contains(document.activeElement);
    replace(firstEl, h('section', { class: 'panel' },
      segmented({ label: t('ui.table.whoStarts'), pointer: '/first', class: 'stack', options: named,
        value: String(first), onChange: (v) => { first = Number(v); } })));
    if (focused) /** @type {HTMLElement | null} */ (firstEl.querySelector('input:checked'))?.focus();
  }

  function addName() {
    names.push('');
    drawNames();
    /** @type {HTMLInputElement | null} */ (namesEl.querySelector(`[data-pointer="/players/${names.length - 1}"] input`))?.focus();
  }

  function drawVariants() {
    if (!spec || spec.variants.length === 0) {
      replace(variantsEl);
      return;
    }
    replace(variantsEl, h('section', { class: 'panel variants-new' },
      h('h2', {}, t('ui.table.houseRules')),
      spec.variants.map((v) => {
        const pointer = `/variants/${v.key}`;
        const value = variants[v.key] ?? v.default;
        /** @param {number} x */
        const set = (x) => { if (x === v.default) delete variants[v.key]; else variants[v.key] = x; };
        if (v.values.length === 2 && v.values.includes(0) && v.values.includes(1)) {
          return toggle({ label: v.label, pointer, checked: value === 1, onChange: (on) => set(on ? 1 : 0) });
        }
        return segmented({ label: v.label, pointer, value, class: 'numbers', options: v.values.map((x) => ({ id: String(x), label: String(x) })),
          onChange: (x) => set(Number(x)) });
      })));
  }

  /** @param {Event} e */
  async function create(e) {
    e.preventDefault();
    clearProblems(root);
    banner.hidden = true;
    if (!game) {
      markProblems(root, [{ pointer: '/game', detail: t('ui.table.chooseGame') }], 'error');
      return;
    }
    // Empty lines are players who will join by the code; the server's
    // pointers count the names sent, so keep where each came from.
    const sent = names.map((n, i) => ({ n: n.trim(), i })).filter((x) => x.n);
    createBtn.disabled = true;
    /** @type {{game: string, players: string[], variants: Object<string, number>, first?: number}} */
    const body = { game, players: sent.map((x) => x.n), variants };
    const at = sent.findIndex((x) => x.i === first);
    if (spec?.tracked && at > 0) body.first = at;
    const req = createTable(body);
    const quiet = waitNote(() => {
      replace(banner, h('p', {}, t('ui.table.waitCreate')));
      banner.hidden = false;
    });
    try {
      const tb = await req;
      quiet();
      saveTableAuth(tb.code, { hostToken: tb.hostToken, joinUrl: tb.joinUrl });
      if (location.pathname.startsWith('/tables/new')) navigate(`/t/${tb.code}`);
    } catch (err) {
      quiet();
      if (!(err instanceof ApiError)) throw err;
      const fields = err.fields.map((f) => {
        const m = /^\/players\/(\d+)(.*)$/.exec(f.pointer);
        return m && sent[Number(m[1])] ? { ...f, pointer: `/players/${sent[Number(m[1])].i}${m[2]}` } : f;
      });
      const lost = markProblems(root, fields, 'error');
      const lines = fields.length ? lost.map((f) => f.detail) : [err.message];
      replace(banner, lines.map((l) => h('p', {}, l)));
      banner.hidden = lines.length === 0;
    } finally {
      createBtn.disabled = false;
    }
  }
}

/**
 * tableScreen draws a table for whoever opens it: the host (this browser
 * created it), a seated player, or a newcomer who picks a seat.
 * @param {HTMLElement} root
 * @param {string} rawCode
 * @param {number} [seat] the seat the host opens (/t/CODE/seats/N)
 * @returns {Promise<(() => void) | void>}
 */
export async function tableScreen(root, rawCode, seat) {
  const code = rawCode.toUpperCase();
  const table = await getTable(code);
  const spec = await getGame(table.game);
  const auth = loadTableAuth(code);
  const ctx = { root, spec, code, table, auth };
  if (table.status === 'finished') return finishedView(ctx);
  if (seat !== undefined) {
    if (!auth.hostToken || !table.seats[seat]) {
      navigate(`/t/${code}`, { replace: true });
      return undefined;
    }
    return seatView(ctx, await loadForm(spec), seat, auth.hostToken, true);
  }
  if (auth.hostToken) return hostView(ctx);
  if (auth.seatToken && auth.seat !== undefined && table.seats[auth.seat]) {
    return seatView(ctx, await loadForm(spec), auth.seat, auth.seatToken, false);
  }
  return joinView(ctx);
}

/**
 * @typedef {{root: HTMLElement, spec: Spec, code: string, table: Table, auth: TableAuth}} TableContext
 */

/**
 * resultOf is a seat's line of the live standings, if there are standings.
 * @param {Table} tb
 * @param {number} i
 */
function resultOf(tb, i) {
  return tb.standings?.results[i];
}

/**
 * follower guards the tables a host or join screen takes: one older than
 * the table shown is dropped, and a finished one sends the screen on to
 * /t/CODE (its results). leave moves on the same way, once, after which
 * nothing more is taken.
 * @param {string} code
 * @param {() => Table} shown the table on screen
 */
function follower(code, shown) {
  let gone = false;
  const leave = () => {
    if (gone) return;
    gone = true;
    navigate(`/t/${code}`, { replace: true });
  };
  return {
    leave,
    /** takes says whether to show tb. @param {Table} tb */
    takes(tb) {
      if (gone || tb.version < shown().version) return false;
      if (tb.status !== 'finished') return true;
      leave();
      return false;
    },
  };
}

/**
 * finishedView shows a finished table's results, read-only.
 * @param {TableContext} ctx
 */
function finishedView({ root, spec, code, table, auth }) {
  if (auth.hostToken || auth.seatToken) saveTableAuth(code, { finished: true });
  const hotel = table.hotel ? hotelPanel({ spec, code, token: '', seat: -2, host: false, sheetHost: root, onTable: () => {} }) : null;
  hotel?.update(table);
  replace(root,
    topbar('/', t('ui.table.games'), t('ui.table.results'), t('ui.table.tableCode', { code })),
    h('p', { class: 'notice finished-note' }, t('ui.table.finishedNote')),
    table.standings
      ? renderResults(spec, table.standings, { players: table.seats }, {
        actions: [
          rematchButton(root, spec, table.seats.map((s) => s.name), table.variants ?? {}),
          h('a', { class: 'btn', href: '/tables/new' }, t('ui.table.startAnother')),
          h('a', { class: 'btn btn-quiet', href: '/' }, t('ui.table.home'))],
        share: { when: new Date() },
      })
      : h('p', { class: 'panel' }, t('ui.table.noStandings')),
    hotel ? h('div', { class: 'finished-hotels' }, hotel.el) : null);
}

/**
 * hostView is the host's screen: the QR code and the code to join, the
 * seats with their live standings, each seat's board a tap away, the
 * Insektenhotel moves, and Finish.
 * @param {TableContext} ctx
 */
function hostView({ root, spec, code, table: first, auth }) {
  let table = first;
  const follow = follower(code, () => table);
  const hostToken = /** @type {string} */ (auth.hostToken);
  const joinUrl = auth.joinUrl || `${location.origin}/t/${code}`;
  /** @type {FieldError[]} */ let finishFields = [];
  /** @type {string[]} */ let finishLines = [];
  /** waiting: the host chose to wait for phones with unsent changes; the finish follows by itself */
  let waiting = false;
  let finishing = false;
  /** @type {number | undefined} */ let watchUnsent;

  const live = watchTable(code, apply, () => draw());
  const seatsEl = h('ol', { class: 'seat-list', 'aria-label': t('ui.table.playersAndStandings') });
  const paused = h('div', { class: 'notice', role: 'status', hidden: true });
  const joinHint = h('p', { class: 'hint' });
  const finishBanner = h('div', { class: 'banner', role: 'alert', hidden: true, dataset: { testid: 'finish-problem' } });
  const summary = h('p', { class: 'live-state' });
  const finishBtn = /** @type {HTMLButtonElement} */ (h('button', {
    type: 'button', class: 'btn btn-primary', dataset: { testid: 'finish' }, on: { click: confirmFinish },
  }, t('ui.table.finishGame')));
  const hotel = spec.tracked
    ? hotelPanel({ spec, code, token: hostToken, seat: -1, host: true, sheetHost: root, onTable: apply })
    : null;
  const hotelSlot = h('div', {});

  // The invite is what the host shows first; once a player has joined, the
  // standings matter more: it folds (once: the host may open it again).
  const invite = joinPanel(code, joinUrl, anyJoined(table), root);
  let folded = anyJoined(table);

  const bar = h('div', { class: 'actionbar host-bar' }, summary, finishBtn);
  keepShowing(true);
  replace(root,
    topbar('/', t('ui.table.games'), t('ui.table.tableCode', { code }), spec.name),
    live.banner,
    invite,
    h('section', { class: 'panel seats-panel' },
      h('h2', {}, t('ui.table.players')),
      seatsEl, paused, joinHint),
    hotelSlot,
    finishBanner,
    bar);
  const unreserve = reserveBar(root, bar);
  draw();

  /** @param {Table} tb */
  function apply(tb) {
    if (!follow.takes(tb)) return;
    if (tb.version !== table.version && !waiting) {
      finishFields = [];
      finishLines = [];
    }
    table = tb;
    if (!folded && anyJoined(table)) {
      folded = true;
      /** @type {HTMLDetailsElement} */ (invite).open = false;
    }
    draw();
    if (waiting && !finishing && unsentSeats(table).length === 0) finish(false);
  }

  function draw() {
    const phase = spec.tracked ? hotelPhase(table, spec) : 'board';
    replace(seatsEl, table.seats.length === 0
      ? h('li', { class: 'muted empty-seats' }, t('ui.table.noPlayers'))
      : byRank(table).map((i) => seatRow(table.seats[i], i, phase)));
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
    replace(finishBanner, waiting ? waitingNote() : finishLines.map((l) => h('p', {}, l)));
    finishBanner.hidden = !waiting && finishLines.length === 0;
    // A phone with unsent changes turns silent with time alone: look again.
    const watch = unsentSeats(table).length > 0;
    if (watch && watchUnsent === undefined) watchUnsent = setInterval(() => { live.refresh(); }, watchUnsentEvery);
    if (!watch && watchUnsent !== undefined) {
      clearInterval(watchUnsent);
      watchUnsent = undefined;
    }
  }

  /** waitingNote says which phones the finish waits for, with a way out. */
  function waitingNote() {
    const names = unsentSeats(table).map((s) => s.name);
    return [
      h('p', { dataset: { testid: 'finish-waiting' } }, names.length
        ? plural('ui.table.waitingFor', names.length, { names: list(names) })
        : t('ui.table.finishing')),
      h('div', { class: 'banner-actions' },
        h('button', { type: 'button', class: 'btn', on: { click: () => { waiting = false; draw(); } } }, t('ui.table.stopWaiting')),
        h('button', { type: 'button', class: 'btn btn-danger', dataset: { testid: 'finish-anyway' }, on: { click: confirmForce } }, t('ui.table.finishAnyway'))),
    ];
  }

  /**
   * seatRow is one seat: rank, name, whether someone holds it, total.
   * @param {import('../sync/tables.js').Seat} s
   * @param {number} i
   * @param {string} phase
   */
  function seatRow(s, i, phase) {
    const r = resultOf(table, i);
    // Before any board holds anything, everyone would be "=1st".
    const ranked = !!r && table.seats.some((x) => entered(x.board));
    const errs = table.errors.filter((e) => concerns(e, i));
    const mine = finishFields.filter((e) => playerOf(e.pointer) === i);
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
   * confirmFinish asks before the game is recorded, naming the seats with
   * nothing entered (a seat at 0 points because nobody entered its board
   * would go into the history as played). Cancelling records nothing.
   */
  function confirmFinish() {
    const names = table.seats.filter((s) => !entered(s.board)).map((s) => s.name);
    const s = openSheet({
      host: root,
      title: names.length ? plural('ui.table.enteredNothing', names.length, { names: list(names) }) : t('ui.table.finishTitle'),
      body: h('p', { dataset: { testid: 'finish-confirm' } }, t('ui.table.finishRecords')),
      actions: [
        h('button', { type: 'button', class: 'btn', dataset: { testid: 'finish-cancel' }, on: { click: () => s.close() } }, t('ui.common.cancel')),
        h('button', {
          type: 'button', class: ['btn', names.length ? 'btn-danger' : 'btn-primary'], dataset: { testid: 'finish-confirm-yes' },
          on: { click: () => { s.close(); finish(false); } },
        }, names.length ? t('ui.table.finishAnyway') : t('ui.table.finishGame')),
      ],
    });
  }

  /**
   * finish records the game. While a seat's phone holds changes it has not
   * sent, the server refuses, and the host chooses: wait (the finish then
   * follows by itself) or finish without them.
   * @param {boolean} [force]
   */
  async function finish(force = false) {
    if (finishing) return;
    finishing = true;
    finishBtn.disabled = true;
    const req = finishTable(code, hostToken, force);
    const quiet = waitNote(() => { summary.textContent = t('ui.table.finishingWait'); });
    try {
      await req;
      quiet();
      waiting = false;
      follow.leave();
    } catch (err) {
      quiet();
      if (!(err instanceof ApiError)) throw err;
      if (err.type === '/api/problems/unsent-changes') {
        if (!waiting) askAboutUnsent(err);
        else draw();
        return;
      }
      waiting = false;
      finishFields = err.fields.filter((f) => table.seats[playerOf(f.pointer)]);
      const other = err.fields.filter((f) => !table.seats[playerOf(f.pointer)]);
      finishLines = [
        err.fields.length ? t('ui.table.cannotFinish') : capitalize(err.message),
        ...other.map((f) => capitalize(f.detail)),
        ...(err.fields.length ? [] : await shortBoards())];
      draw();
      finishBanner.scrollIntoView({ block: 'nearest' });
    } finally {
      finishing = false;
      finishBtn.disabled = false;
    }
  }

  /**
   * shortBoards names the seats whose boards are not complete yet, as far as
   * the game's form can tell from one board (an Insectarium display without
   * its 9 cards), with how far each is: the server's refusal says what the
   * game needs, this says whose.
   * @returns {Promise<string[]>}
   */
  async function shortBoards() {
    const form = await loadForm(spec);
    const short = table.seats.filter((s) => form.short?.(s.board, spec));
    if (short.length === 0) return [];
    return [t('ui.table.shortBoards', { boards: list(short.map((s) => t('ui.table.shortBoard', { name: s.name, progress: form.progress?.(s.board, spec) ?? '' }))) })];
  }

  /**
   * askAboutUnsent tells the host which phones hold changes the server
   * has not got, and lets them wait or finish without those changes.
   * @param {ApiError} err
   */
  function askAboutUnsent(err) {
    /** @type {{seat: number, name: string, sync: SeatSync}[]} */
    const seats = Array.isArray(err.data?.seats) ? err.data.seats : [];
    const names = seats.map((x) => x.name);
    const s = openSheet({
      host: root,
      title: t('ui.table.waitForTitle', { names: list(names) }),
      body: h('div', { dataset: { testid: 'unsent-sheet' } },
        h('ul', { class: 'problem-list' }, seats.map((x) => h('li', {}, h('strong', {}, `${x.name}: `), syncWords(x.sync)))),
        h('p', {}, t('ui.table.finishNowExplained'))),
      actions: [
        h('button', { type: 'button', class: 'btn btn-danger', dataset: { testid: 'finish-anyway' }, on: { click: () => { s.close(); finish(true); } } },
          t('ui.table.finishWithout')),
        h('button', {
          type: 'button', class: 'btn btn-primary', dataset: { testid: 'finish-wait' },
          on: { click: () => { s.close(); waiting = true; draw(); live.refresh(); } },
        }, t('ui.table.waitForThem')),
      ],
    });
  }

  /** confirmForce asks once more before finishing without unsent changes. */
  function confirmForce() {
    const names = unsentSeats(table).map((x) => x.name);
    const s = openSheet({
      host: root,
      title: t('ui.table.forceTitle'),
      body: h('p', {}, names.length
        ? plural('ui.table.unsentChanges', names.length, { names: list(names) })
        : t('ui.table.allSaved')),
      actions: [
        h('button', { type: 'button', class: 'btn', on: { click: () => s.close() } }, t('ui.table.keepWaiting')),
        h('button', { type: 'button', class: 'btn btn-danger', dataset: { testid: 'finish-anyway-confirm' }, on: { click: () => { s.close(); waiting = false; finish(true); } } },
          t('ui.table.finishNow')),
      ],
    });
  }

  return () => {
    live.close();
    clearInterval(watchUnsent);
    keepShowing(false);
    unreserve();
  };
}

/**
 * reserveBar keeps room below a screen's content for its fixed action bar,
 * however tall the bar grows (its text may wrap), so nothing hides under it.
 * @param {HTMLElement} screen
 * @param {HTMLElement} bar
 * @returns {() => void} stops following the bar
 */
function reserveBar(screen, bar) {
  const set = () => screen.style.setProperty('--bar-h', `${bar.offsetHeight}px`);
  const ro = new ResizeObserver(set);
  ro.observe(bar);
  set();
  return () => ro.disconnect();
}

/**
 * @typedef {{state: 'saved' | 'unsent' | 'silent', unsent: number, unsentSince: string | null, lastSeenAt: string | null}} SeatSync
 */

/**
 * entered says whether a board holds anything at all: a number other than
 * 0, a word or a choice. A seat never saved has no board.
 * @param {any} v
 * @returns {boolean}
 */
function entered(v) {
  if (Array.isArray(v)) return v.some(entered);
  if (v && typeof v === 'object') return Object.values(v).some(entered);
  return v !== null && v !== undefined && v !== 0 && v !== '' && v !== false;
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
 * unsentSeats lists the seats whose phones hold changes the server has not got.
 * @param {Table} tb
 */
function unsentSeats(tb) {
  return tb.seats.filter((s) => {
    const st = /** @type {any} */ (s).sync?.state;
    return st === 'unsent' || st === 'silent';
  });
}

/**
 * syncWords says a seat's phone's state in words.
 * @param {SeatSync | undefined} sync
 */
function syncWords(sync) {
  if (!sync || sync.state === 'saved') return t('ui.table.saved');
  const seen = sync.lastSeenAt ? t('ui.table.lastSeen', { age: age(Date.parse(sync.lastSeenAt)) }) : t('ui.table.notSeen');
  if (sync.state === 'silent') return t('ui.table.silent', { seen });
  return sync.unsentSince ? t('ui.table.unsentFor', { age: age(Date.parse(sync.unsentSince)) }) : t('ui.table.unsent');
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

/**
 * joinPanel shows how to join: a big QR code of the join link, the code in
 * large type, and the link to copy or share.
 * @param {string} code
 * @param {string} joinUrl
 * @param {boolean} folded the panel starts folded (a player has joined); a tap opens it
 * @param {HTMLElement} sheetHost where the enlarged code opens
 */
function joinPanel(code, joinUrl, folded, sheetHost) {
  const copied = h('span', { class: 'copied', role: 'status' });
  const urlId = `join-url-${code}`;
  const urlInput = /** @type {HTMLInputElement} */ (h('input', {
    id: urlId, type: 'text', readonly: true, value: joinUrl, class: 'join-url', dataset: { testid: 'join-url' },
    on: { focus: () => urlInput.select() },
  }));
  const canShare = typeof navigator.share === 'function';
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(joinUrl);
    } catch {
      urlInput.select();
      document.execCommand?.('copy');
    }
    copied.textContent = t('ui.table.linkCopied');
    setTimeout(() => { copied.textContent = ''; }, 2500);
  };
  const share = async () => {
    try {
      await navigator.share({ title: t('ui.table.shareTitle'), text: t('ui.table.shareText', { code }), url: joinUrl });
    } catch {
      /* closed the share sheet */
    }
  };
  const enlarge = () => {
    const s = openSheet({
      host: sheetHost,
      title: t('ui.table.scanToJoin', { code }),
      body: h('div', { class: 'qr-big-body' },
        h('img', { class: 'qr qr-big', src: tablePath(code, '/qr.svg'), width: 600, height: 600, alt: t('ui.table.qrAlt', { url: joinUrl }) }),
        h('p', { class: 'join-code' }, code)),
      actions: [h('button', { type: 'button', class: 'btn btn-primary sheet-done', on: { click: () => s.close() } }, t('ui.common.done'))],
    });
  };
  return h('details', { class: 'panel join-panel', open: !folded, dataset: { testid: 'invite' } },
    h('summary', {}, h('span', {}, t('ui.table.invite')), h('span', { class: 'join-code-small' }, code)),
    h('div', { class: 'join-body' },
      h('button', { type: 'button', class: 'qr-btn', 'aria-label': t('ui.table.qrBigger'), on: { click: enlarge } },
        h('img', {
          class: 'qr', src: tablePath(code, '/qr.svg'), width: 220, height: 220, dataset: { testid: 'qr' },
          alt: t('ui.table.qrAlt', { url: joinUrl }),
        })),
      h('p', { class: 'hint' }, t('ui.table.scanHint')),
      plainJoinNote(joinUrl),
      h('p', { class: 'join-code', 'aria-label': t('ui.table.codeLabel', { code: code.split('').join(' ') }), dataset: { testid: 'join-code' } }, code),
      h('div', { class: 'join-link' },
        h('label', { class: 'sr-only', for: urlId }, t('ui.table.joinLink')),
        urlInput,
        canShare ? h('button', { type: 'button', class: 'btn', on: { click: share } }, t('ui.table.share')) : null,
        h('button', { type: 'button', class: 'btn', on: { click: copy } }, t('ui.table.copy'))),
      copied));
}

/**
 * plainJoinNote says what the phones that join by a plain http link to
 * another machine will lack: browsers give such an address no service
 * worker, no installing and no Web Share. The README's "HTTPS" section
 * says how to serve https; a link to it would not open offline, so the
 * note names it.
 * @param {string} joinUrl
 */
function plainJoinNote(joinUrl) {
  /** @type {URL} */ let url;
  try {
    url = new URL(joinUrl);
  } catch {
    return null;
  }
  const name = url.hostname.replace(/^\[|\]$/g, '');
  const loopback = name === 'localhost' || name.endsWith('.localhost') || name === '::1' || /^127\./.test(name);
  if (url.protocol !== 'http:' || loopback) return null;
  return h('p', { class: 'notice plain-join-note', dataset: { testid: 'plain-http-join' } }, t('ui.table.plainHttp'));
}

/**
 * joinView lets a newcomer take a seat the host named, or join as a new one.
 * @param {TableContext} ctx
 */
function joinView({ root, spec, code, table: first }) {
  let table = first;
  const follow = follower(code, () => table);
  const live = watchTable(code, (tb) => {
    if (!follow.takes(tb)) return;
    table = tb;
    draw();
  });
  const list = h('ul', { class: 'seat-pick', 'aria-label': t('ui.table.seats') });
  const problem = h('div', { class: 'banner', role: 'alert', hidden: true });
  /** @type {string} */ let name = '';
  const nameField = text({ label: t('ui.table.yourName'), pointer: '/name', value: '', maxlength: 40, autocomplete: 'nickname', onChange: (v) => { name = v; } });
  const joinBtn = /** @type {HTMLButtonElement} */ (h('button', { type: 'submit', class: 'btn btn-primary', dataset: { testid: 'join-new' } }, t('ui.table.joinNew')));
  const newPanel = h('form', { class: 'panel join-new', novalidate: true, on: { submit: joinNew } },
    h('h2', {}, t('ui.table.notOnList')), nameField, joinBtn);

  replace(root,
    topbar('/', t('ui.table.games'), t('ui.table.joinTitle', { code }), spec.name),
    live.banner,
    h('p', { class: 'lead intro' }, t('ui.table.whoAreYou', { game: spec.name })),
    problem,
    list,
    newPanel);
  draw();

  function draw() {
    replace(list, table.seats.map((s, i) => h('li', {},
      s.claimed
        ? h('div', { class: 'seat-taken' }, h('span', { class: 'seat-name' }, s.name), h('span', { class: 'claim claimed' }, t('ui.table.onAPhone')))
        : h('button', { type: 'button', class: 'btn btn-big claim-btn', dataset: { seat: i }, on: { click: () => claim(i) } }, t('ui.table.iAm', { name: s.name })))));
    if (table.seats.length === 0) replace(list, h('li', { class: 'muted' }, t('ui.table.noNames')));
    newPanel.hidden = table.seats.length >= spec.maxPlayers;
  }

  /** @param {number} i */
  async function claim(i) {
    problem.hidden = true;
    list.querySelectorAll('button').forEach((b) => { /** @type {HTMLButtonElement} */ (b).disabled = true; });
    const req = claimSeat(code, i);
    const quiet = waitNote(() => show(t('ui.table.waitSeat')));
    try {
      const r = await req;
      quiet();
      saveTableAuth(code, { seat: i, seatToken: r.seatToken });
      follow.leave();
    } catch (err) {
      quiet();
      if (!(err instanceof ApiError)) throw err;
      show(err.status === 409 ? t('ui.table.seatTaken', { name: table.seats[i]?.name ?? t('ui.table.thatSeat') }) : err.message);
      draw();
      live.refresh();
    }
  }

  /** @param {Event} e */
  async function joinNew(e) {
    e.preventDefault();
    clearProblems(newPanel);
    problem.hidden = true;
    if (!name.trim()) {
      markProblems(newPanel, [{ pointer: '/name', detail: t('ui.table.enterName') }], 'error');
      return;
    }
    joinBtn.disabled = true;
    const req = joinTable(code, name.trim());
    const quiet = waitNote(() => show(t('ui.table.waitJoin')));
    try {
      const r = await req;
      quiet();
      saveTableAuth(code, { seat: r.seat, seatToken: r.seatToken });
      follow.leave();
    } catch (err) {
      quiet();
      if (!(err instanceof ApiError)) throw err;
      const lost = markProblems(newPanel, err.fields, 'error');
      if (!err.fields.length || lost.length) show(lost.length ? lost.map((f) => f.detail).join(' ') : err.message);
    } finally {
      joinBtn.disabled = false;
    }
  }

  /** @param {string} msg */
  function show(msg) {
    problem.textContent = capitalize(msg);
    problem.hidden = false;
  }

  return () => live.close();
}

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
function seatView({ root, spec, code, table: first }, form, seat, token, host) {
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
    h('header', { class: 'topbar' },
      host
        ? h('a', { class: 'back', href: `/t/${code}` }, h('span', { 'aria-hidden': 'true' }, '‹'), ` ${t('ui.table.table')}`)
        : h('a', { class: 'back', href: '/' }, h('span', { 'aria-hidden': 'true' }, '‹'), ` ${t('ui.table.games')}`),
      heading,
      h('span', { class: 'topbar-game' }, t('ui.table.tableCode', { code }))),
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
  // The seat's own phone tells the server what it holds, so the host sees
  // unsent changes: now, whenever that changes, and every few seconds.
  let hadPending = pendingBoard(code, seat) !== null;
  const report = () => { if (!host && !closed) reportSync(code, seat, token).catch(() => { /* the table is gone: the screen says so */ }); };
  const unwatch = host ? () => {} : subscribeOutbox(() => {
    const has = pendingBoard(code, seat) !== null;
    if (has !== hadPending) {
      hadPending = has;
      report();
    }
  });
  const reporter = host ? undefined : setInterval(() => { if (document.visibilityState === 'visible') report(); }, reportEvery);
  report();

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
    // Before any board holds anything, everyone would be 1st.
    const ranked = table.seats.some((s, i) => entered(i === seat ? boardRequest(form, board) : s.board));
    replace(chips, table.seats.map((s, i) => {
      const r = st?.results[i];
      return h('li', { class: ['chip-standing', i === seat && 'me', r?.winner && st?.complete && 'lead'] },
        h('span', { class: 'cs-rank' }, r && ranked ? ordinal(r.rank) : '–'),
        h('span', { class: 'cs-name' }, s.name),
        h('strong', { class: 'cs-total', dataset: { testid: `standing-${i}` } }, r ? String(r.total) : '–'));
    }));
    const others = table.errors.filter((e) => !concerns(e, seat));
    const mine = table.errors.filter((e) => concerns(e, seat));
    showSheetTotal(formSlot, st?.results[seat]?.total, !local && mine.length > 0);
    standingState.textContent = local
      ? (local.complete ? t('ui.table.finalWithYours') : t('ui.table.withYours'))
      : table.standings
        ? (!live.live() ? t('ui.table.lastSeenStandings') : table.standings.complete ? t('ui.table.finalHostCan') : t('ui.table.standingsLive'))
        : mine.length ? t('ui.table.waitThisBoard') : others.length ? t('ui.table.waitOtherBoard') : '';
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
    unwatch();
    clearInterval(reporter);
    keepShowing(false);
    window.removeEventListener('pagehide', onHide);
  };
}

/**
 * whoIs names the seat a pointer is about, as a prefix for a message.
 * @param {Table} tb
 * @param {string} pointer
 */
function whoIs(tb, pointer) {
  const i = playerOf(pointer);
  return i >= 0 && tb.seats[i] ? h('strong', {}, `${tb.seats[i].name}: `) : null;
}

/** @param {string} s */
function capitalize(s) {
  return s ? s.charAt(0).toUpperCase() + s.slice(1) : s;
}
