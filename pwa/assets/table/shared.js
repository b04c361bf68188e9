// shared.js: what the table screens share: the top bar, the note for a
// write the server is slow to answer, comparing boards, following a
// table until it is finished, and small helpers about seats, their
// phones and their boards.

import { age, h } from '../ui/dom.js';
import { navigate } from '../router.js';
import { playerOf } from '../ui/problems.js';
import { t } from '../ui/i18n.js';

/** @typedef {import('../sync/http.js').Spec} Spec */
/** @typedef {import('../sync/tables.js').Table} Table */
/** @typedef {import('../sync/http.js').FieldError} FieldError */
/** @typedef {import('../sync/kept.js').TableAuth} TableAuth */

/** How long a write may take before the screen says it waits for the server. */
const patience = 2000;

/**
 * waitNote calls show if the write it is made for has not settled within
 * a moment (the outbox is still trying).
 * @param {() => void} show
 * @returns {() => void} call once settled: stops the note from coming
 */
export function waitNote(show) {
  const timer = setTimeout(show, patience);
  return () => clearTimeout(timer);
}

/**
 * topbar is the header of a table screen.
 * @param {string} href where back leads
 * @param {string} back its label
 * @param {string} title
 * @param {string} [aside] a short note at the right (the game)
 */
export function topbar(href, back, title, aside) {
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
 * @typedef {{root: HTMLElement, spec: Spec, code: string, table: Table, auth: TableAuth}} TableContext
 */

/**
 * resultOf is a seat's line of the live standings, if there are standings.
 * @param {Table} tb
 * @param {number} i
 */
export function resultOf(tb, i) {
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
export function follower(code, shown) {
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
 * reserveBar keeps room below a screen's content for its fixed action bar,
 * however tall the bar grows (its text may wrap), so nothing hides under it.
 * @param {HTMLElement} screen
 * @param {HTMLElement} bar
 * @returns {() => void} stops following the bar
 */
export function reserveBar(screen, bar) {
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
export function entered(v) {
  if (Array.isArray(v)) return v.some(entered);
  if (v && typeof v === 'object') return Object.values(v).some(entered);
  return v !== null && v !== undefined && v !== 0 && v !== '' && v !== false;
}

/**
 * whoIs names the seat a pointer is about, as a prefix for a message.
 * @param {Table} tb
 * @param {string} pointer
 */
export function whoIs(tb, pointer) {
  const i = playerOf(pointer);
  return i >= 0 && tb.seats[i] ? h('strong', {}, `${tb.seats[i].name}: `) : null;
}

/** @param {string} s */
export function capitalize(s) {
  return s ? s.charAt(0).toUpperCase() + s.slice(1) : s;
}

/**
 * unsentSeats lists the seats whose phones hold changes the server has not got.
 * @param {Table} tb
 */
export function unsentSeats(tb) {
  return tb.seats.filter((s) => {
    const st = /** @type {any} */ (s).sync?.state;
    return st === 'unsent' || st === 'silent';
  });
}

/**
 * syncWords says a seat's phone's state in words.
 * @param {SeatSync | undefined} sync
 */
export function syncWords(sync) {
  if (!sync || sync.state === 'saved') return t('ui.table.saved');
  const seen = sync.lastSeenAt ? t('ui.table.lastSeen', { age: age(Date.parse(sync.lastSeenAt)) }) : t('ui.table.notSeen');
  if (sync.state === 'silent') return t('ui.table.silent', { seen });
  return sync.unsentSince ? t('ui.table.unsentFor', { age: age(Date.parse(sync.unsentSince)) }) : t('ui.table.unsent');
}
