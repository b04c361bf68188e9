// hotel.js: the Insektenhotel turn tracker of a live table. Once every
// hotel is set up, the player on turn (or the host, for a phone passed
// around) records each card they turn over, a lure or a pass; the server
// applies the rules and answers with the table, whose `hotel` holds the
// hotels, honey, piles and the log. Everything shown comes from there.

import { h, replace } from '../ui/dom.js';
import { ApiError } from '../sync/http.js';
import { addMove, undoMove } from '../sync/tables.js';
import { enumOf, labelOf, segmented } from '../ui/widgets.js';
import { openSheet } from '../ui/sheet.js';
import { language, plural, t } from '../ui/i18n.js';

/** @typedef {import('../sync/http.js').Spec} Spec */
/** @typedef {import('../sync/tables.js').Table} Table */
/** @typedef {import('../sync/tables.js').HotelState} HotelState */

const floorCount = 3;
const rooms = 2;
/** How many log lines show before "earlier moves". */
const recentLog = 6;

/**
 * hotelSetUp says whether every seat has a hotel colour and three
 * different floor species, with nothing the server objects to: then the
 * first move can be made.
 * @param {Table} tb
 * @param {Spec} spec
 */
export function hotelSetUp(tb, spec) {
  if (tb.seats.length < spec.minPlayers || tb.errors.length > 0) return false;
  return tb.seats.every((s) => {
    const b = s.board;
    if (!b || typeof b.hotel !== 'string' || !b.hotel || !Array.isArray(b.floors) || b.floors.length < floorCount) return false;
    const species = b.floors.slice(0, floorCount).map((/** @type {any} */ f) => f && f.species);
    return species.every(Boolean) && new Set(species).size === floorCount;
  });
}

/**
 * hotelPhase is where an Insektenhotel table stands: hotels being set up,
 * set up with no move yet, or played move by move.
 * @param {Table} tb
 * @param {Spec} spec
 * @returns {'setup' | 'ready' | 'playing'}
 */
export function hotelPhase(tb, spec) {
  if (tb.hotel) return 'playing';
  return hotelSetUp(tb, spec) ? 'ready' : 'setup';
}

/**
 * stateOf is the tracker's state: the server's once a move was made, else
 * the start, read off the seats' hotels (the table's first seat starts,
 * nobody holds a card).
 * @param {Table} tb
 * @returns {HotelState}
 */
function stateOf(tb) {
  if (tb.hotel) return tb.hotel;
  return {
    turn: tb.first ?? 0, round: 1, first: tb.first ?? 0, drawn: 0, deck: null, discard: 0, finished: false, winner: -1, log: [],
    players: tb.seats.map((s) => ({
      name: s.name,
      hotel: s.board?.hotel ?? '',
      floors: (s.board?.floors ?? []).slice(0, floorCount).map((/** @type {any} */ f) => ({ species: f.species, guests: 0 })),
      guests: 0, honey: 0, honeyUsable: 0, pile: 0,
    })),
  };
}

/**
 * lastMover is the seat that made the last move, who may take it back, or -1.
 * @param {HotelState} s
 */
function lastMover(s) {
  if (s.log.length === 0) return -1;
  if (s.finished) return s.winner;
  if (s.drawn > 0) return s.turn;
  return (s.turn - 1 + s.players.length) % s.players.length;
}

/**
 * @typedef {Object} HotelPanel
 * @property {HTMLElement} el
 * @property {(t: Table) => void} update draws the table's state
 */

/**
 * hotelPanel draws the move panel, the hotels and the log.
 * @param {{spec: Spec, code: string, token: string, seat: number, host: boolean,
 *          sheetHost: HTMLElement, onTable: (t: Table) => void}} o
 *   seat: this phone's seat, -1 for the host's screen
 * @returns {HotelPanel}
 */
export function hotelPanel(o) {
  const species = enumOf(o.spec, 'species');
  const hotels = enumOf(o.spec, 'hotel');
  const moveEl = h('section', { class: 'panel move-panel', 'aria-labelledby': 'move-title' });
  const hotelsEl = h('section', { class: 'hotels', 'aria-label': t('ui.hotel.hotels') });
  const logEl = h('section', { class: 'panel log-panel' });
  const problem = h('div', { class: 'banner', role: 'alert', hidden: true, dataset: { testid: 'move-error' } });
  const el = h('div', { class: 'hotel-tracker' }, moveEl, hotelsEl, logEl);
  let busy = false;
  /** @type {HotelState} */ let state = { turn: 0, round: 1, drawn: 0, deck: null, discard: 0, finished: false, winner: -1, log: [], players: [] };

  /** @param {string} id */
  const speciesName = (id) => labelOf(species, id);

  /** @param {Table} tb */
  function update(tb) {
    const next = stateOf(tb);
    // A refusal is about the move it answered: once the game moved on, it goes.
    if (next.log.length !== state.log.length || next.turn !== state.turn) problem.hidden = true;
    state = next;
    drawMoves();
    drawHotels();
    drawLog();
  }

  function drawMoves() {
    const s = state;
    const onTurn = s.players[s.turn];
    const mine = o.seat === s.turn;
    const canAct = !s.finished && (o.host || mine);
    /** @type {any[]} */
    const body = [];
    if (s.finished) {
      const w = s.players[s.winner];
      body.push(h('h2', { id: 'move-title' }, t('ui.hotel.wins', { name: w?.name ?? t('ui.hotel.someone') })),
        h('p', { class: 'lead-line', dataset: { testid: 'hotel-winner' } },
          t('ui.hotel.full', { hotel: inText(labelOf(hotels, w?.hotel)) }),
          o.host ? ` ${t('ui.hotel.finishToRecord')}` : ''));
    } else {
      body.push(h('h2', { id: 'move-title', dataset: { testid: 'turn' } },
        mine ? t('ui.hotel.yourTurn') : t('ui.hotel.theirTurn', { name: onTurn?.name ?? '?' })),
      h('p', { class: 'turn-meta' },
        t('ui.hotel.round', { n: s.round }),
        ` · ${s.drawn === 0 ? t('ui.hotel.nothingDrawn') : plural('ui.hotel.drawn', s.drawn)}`,
        ` · ${s.deck === null ? t('ui.hotel.deckFull') : t('ui.hotel.deck', { n: s.deck })}`,
        s.discard ? ` · ${t('ui.hotel.discard', { n: s.discard })}` : ''));
    }
    if (canAct) body.push(actions(s));
    else if (!s.finished) body.push(h('p', { class: 'muted' }, t('ui.hotel.waitingFor', { name: onTurn?.name ?? t('ui.hotel.nextPlayer') })));
    body.push(problem);
    const who = lastMover(s);
    if (who >= 0 && (o.host || who === o.seat)) {
      body.push(h('div', { class: 'undo-row' },
        h('button', { type: 'button', class: 'btn btn-quiet', dataset: { testid: 'undo' }, on: { click: undo } },
          t('ui.hotel.undo'))));
    }
    replace(moveEl, body);
  }

  /**
   * actions are the buttons of the player on turn.
   * @param {HotelState} s
   */
  function actions(s) {
    const p = s.players[s.turn];
    const canLure = s.drawn === 0 && p.honeyUsable >= 2;
    /** @type {{id: string, label: string, kind: string}[]} */
    const cards = [
      ...species.map((x) => ({ id: x.id, label: x.label, kind: 'tourist' })),
      { id: 'honey', label: t('ui.hotel.honeyCard'), kind: 'honey' },
      { id: 'cockroach', label: t('ui.hotel.cockroach'), kind: 'cockroach' },
      { id: 'spider', label: t('ui.hotel.spider'), kind: 'spider' },
    ];
    return h('div', { class: 'move-actions' },
      h('div', { class: 'field', role: 'group', 'aria-labelledby': 'draw-label' },
        h('p', { class: 'label', id: 'draw-label' }, o.seat === s.turn ? t('ui.hotel.drawYou') : t('ui.hotel.drawThem', { name: p.name })),
        h('div', { class: 'card-grid' }, cards.map((c) => h('button', {
          type: 'button', class: ['draw-btn', `draw-${c.kind}`, `sp-${c.id}`], dataset: { card: c.id },
          disabled: busy, on: { click: () => draw(c.id) },
        }, c.label)))),
      h('div', { class: 'move-row' },
        h('button', {
          type: 'button', class: 'btn', dataset: { testid: 'lure' }, disabled: busy || !canLure, on: { click: lure },
          'aria-describedby': 'lure-hint',
        }, t('ui.hotel.lure')),
        h('button', {
          type: 'button', class: 'btn', dataset: { testid: 'pass' }, disabled: busy || s.drawn === 0, on: { click: pass },
          'aria-describedby': 'pass-hint',
        }, t('ui.hotel.pass'))),
      h('p', { class: 'hint', id: 'lure-hint' }, canLure
        ? t('ui.hotel.lureHint', { n: p.honeyUsable })
        : s.drawn > 0 ? t('ui.hotel.lureFirst')
          : t('ui.hotel.lureNeeds', { n: p.honeyUsable })),
      h('p', { class: 'hint', id: 'pass-hint' }, s.drawn === 0 ? t('ui.hotel.passAfter') : t('ui.hotel.passNow')));
  }

  /**
   * send posts a move (or undoes one) and shows the table it gives.
   * @param {() => Promise<Table>} call
   */
  async function send(call) {
    if (busy) return;
    busy = true;
    problem.hidden = true;
    moveEl.setAttribute('aria-busy', 'true');
    moveEl.querySelectorAll('button').forEach((b) => { /** @type {HTMLButtonElement} */ (b).disabled = true; });
    // A move is kept in the outbox until the server has it; the next move
    // waits for it, since whose turn it is depends on the answer.
    const waitNote = setTimeout(() => {
      replace(problem, h('p', {}, t('ui.hotel.waitServer')));
      problem.hidden = false;
    }, 2000);
    try {
      const tb = await call();
      clearTimeout(waitNote);
      problem.hidden = true;
      busy = false;
      o.onTable(tb);
    } catch (err) {
      clearTimeout(waitNote);
      busy = false;
      drawMoves();
      if (!(err instanceof ApiError)) throw err;
      const lines = err.fields.length ? err.fields.map((f) => f.detail) : [err.message];
      replace(problem, lines.map((l) => h('p', {}, capitalize(l))));
      problem.hidden = false;
    } finally {
      busy = false;
      moveEl.removeAttribute('aria-busy');
    }
  }

  /** @param {string} card */
  function draw(card) {
    if (card !== 'spider') {
      send(() => addMove(o.code, o.token, { type: 'draw', card }));
      return;
    }
    const singles = [];
    state.players.forEach((p, i) => {
      if (i === state.turn) return;
      for (const f of p.floors) if (f.guests === 1) singles.push({ player: i, species: f.species, label: t('ui.hotel.theirGuest', { name: p.name, species: inText(speciesName(f.species)) }) });
    });
    if (singles.length === 0) {
      send(() => addMove(o.code, o.token, { type: 'draw', card: 'spider' }));
      return;
    }
    const s = openSheet({
      host: o.sheetHost,
      title: t('ui.hotel.spiderTitle'),
      body: h('div', { class: 'editor' },
        h('p', { class: 'hint' }, t('ui.hotel.spiderHint')),
        h('div', { class: 'pick-list' }, singles.map((x) => h('button', {
          type: 'button', class: 'btn', dataset: { evict: `${x.player}:${x.species}` },
          on: { click: () => { s.close(); send(() => addMove(o.code, o.token, { type: 'draw', card: 'spider', evict: { player: x.player, species: x.species } })); } },
        }, x.label)))),
      actions: [h('button', { type: 'button', class: 'btn', on: { click: () => s.close() } }, t('ui.common.cancel'))],
    });
  }

  function lure() {
    const me = state.players[state.turn];
    const targets = state.players.map((p, i) => ({ id: String(i), label: t('ui.hotel.faceDownOf', { name: p.name, n: p.pile }) })).filter((x) => Number(x.id) !== state.turn);
    const wanted = me.floors.filter((f) => f.guests < rooms).map((f) => ({ id: f.species, label: speciesName(f.species) }));
    /** @type {{target?: number, species?: string}} */
    const pick = {};
    const go = /** @type {HTMLButtonElement} */ (h('button', {
      type: 'button', class: 'btn btn-primary', disabled: true, dataset: { testid: 'lure-go' },
      on: {
        click: () => {
          s.close();
          send(() => addMove(o.code, o.token, { type: 'lure', target: pick.target, species: pick.species }));
        },
      },
    }, t('ui.hotel.lureGo')));
    const ready = () => { go.disabled = pick.target === undefined || !pick.species; };
    const s = openSheet({
      host: o.sheetHost,
      title: t('ui.hotel.lureTitle'),
      body: h('div', { class: 'editor' },
        h('p', { class: 'hint' }, t('ui.hotel.lureExplained')),
        segmented({ label: t('ui.hotel.fromWhose'), options: targets, value: undefined, class: 'stack',
          onChange: (v) => { pick.target = Number(v); ready(); } }),
        segmented({ label: t('ui.hotel.whichSpecies'), options: wanted, value: undefined,
          onChange: (v) => { pick.species = v; ready(); } })),
      actions: [h('button', { type: 'button', class: 'btn', on: { click: () => s.close() } }, t('ui.common.cancel')), go],
    });
  }

  function pass() {
    send(() => addMove(o.code, o.token, { type: 'pass' }));
  }

  function undo() {
    send(() => undoMove(o.code, o.token));
  }

  function drawHotels() {
    const s = state;
    replace(hotelsEl, s.players.map((p, i) => h('article', {
      class: ['hotel-card', i === s.turn && !s.finished && 'on-turn', i === s.winner && 'winner', i === o.seat && 'mine'],
      dataset: { seat: i }, 'aria-label': t('ui.hotel.cardLabel', { name: p.name, hotel: labelOf(hotels, p.hotel), n: p.guests, max: floorCount * rooms }),
    },
    h('header', { class: 'hotel-head' },
      h('span', { class: ['dot', `swatch-${p.hotel}`], 'aria-hidden': 'true' }),
      h('strong', { class: 'hotel-name' }, p.name),
      i === s.turn && !s.finished ? h('span', { class: 'tag' }, t('ui.hotel.onTurn')) : null,
      i === s.winner ? h('span', { class: 'tag' }, t('ui.hotel.winner')) : null,
      h('span', { class: 'hotel-guests', dataset: { testid: `guests-${i}` } }, `${p.guests}/${floorCount * rooms}`)),
    h('ul', { class: 'hotel-floors' }, p.floors.map((f) => h('li', { class: 'hfloor' },
      h('span', { class: 'hfloor-name' }, speciesName(f.species)),
      h('span', { class: 'rooms', role: 'img', 'aria-label': t('ui.hotel.roomsTaken', { n: f.guests, max: rooms }) },
        Array.from({ length: rooms }, (_, k) => h('span', { class: ['room', k < f.guests && 'taken'] }, k < f.guests ? '●' : '')))))),
    h('p', { class: 'hotel-meta' },
      h('span', {}, t('ui.hotel.honey', { n: p.honey }), p.honey !== p.honeyUsable ? ` ${t('ui.hotel.usable', { n: p.honeyUsable })}` : ''),
      h('span', {}, t('ui.hotel.faceDown', { n: p.pile }))))));
  }

  function drawLog() {
    const lines = [...state.log].reverse();
    const item = (/** @type {string} */ l) => h('li', {}, l);
    replace(logEl,
      h('h2', {}, t('ui.hotel.log')),
      lines.length === 0
        ? h('p', { class: 'muted' }, t('ui.hotel.noMove', { name: state.players[0]?.name ?? t('ui.hotel.firstPlayer') }))
        : h('ol', { class: 'log', reversed: true, start: lines.length, dataset: { testid: 'log' } }, lines.slice(0, recentLog).map(item)),
      lines.length > recentLog
        ? h('details', { class: 'log-more' }, h('summary', {}, t('ui.hotel.earlier', { n: lines.length - recentLog })),
          h('ol', { class: 'log', reversed: true, start: lines.length - recentLog }, lines.slice(recentLog).map(item)))
        : null);
  }

  return { el, update };
}

/**
 * inText writes a game word as it stands inside a sentence: lower case,
 * except in German, whose nouns keep their capital ("Rot", "Ameise").
 * @param {string} word
 */
function inText(word) {
  return language() === 'de' ? word : word.toLowerCase();
}

/** @param {string} s */
function capitalize(s) {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
