// join.js: the seat picker a newcomer sees at /t/CODE: take a seat the
// host named, or join as a new one.

import { h, replace } from '../ui/dom.js';
import { ApiError } from '../sync/http.js';
import { claimSeat, joinTable } from '../sync/tables.js';
import { saveTableAuth } from '../sync/kept.js';
import { clearProblems, markProblems } from '../ui/problems.js';
import { text } from '../ui/widgets.js';
import { watchTable } from './live.js';
import { t } from '../ui/i18n.js';
import { capitalize, follower, topbar, waitNote } from './shared.js';

/** @typedef {import('./shared.js').TableContext} TableContext */

/**
 * joinView lets a newcomer take a seat the host named, or join as a new one.
 * @param {TableContext} ctx
 */
export function joinView({ root, spec, code, table: first }) {
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
