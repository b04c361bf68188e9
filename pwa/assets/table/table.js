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
//
// The screens are in their own modules: newtable.js (/tables/new),
// host.js, seat.js and join.js (/t/CODE as the host, a seat or a newcomer
// sees it), with invite.js and shared.js beside them.

import { h, replace } from '../ui/dom.js';
import { getTable } from '../sync/tables.js';
import { getGame } from '../sync/games.js';
import { loadTableAuth, saveTableAuth } from '../sync/kept.js';
import { register } from '../sync/outbox.js';
import { navigate } from '../router.js';
import { loadForm } from '../games/forms.js';
import { renderResults } from '../games/results.js';
import { rematchButton } from '../games/score.js';
import { hotelPanel } from './hotel.js';
import { t } from '../ui/i18n.js';
import { topbar } from './shared.js';
import { hostView } from './host.js';
import { seatView } from './seat.js';
import { joinView } from './join.js';
import { newTableScreen } from './newtable.js';

/** @typedef {import('./shared.js').TableContext} TableContext */

// /tables/new opens this module too (app.js), so whichever table screen is
// open, the tokens a join, a claim or a new table brings are kept when the
// server answers, even if that is after a reload.
export { newTableScreen };
register('join', { delivered: (op, r) => saveTableAuth(op.meta.code, { seat: r.seat, seatToken: r.seatToken }) });
register('claim', { delivered: (op, r) => saveTableAuth(op.meta.code, { seat: op.meta.seat, seatToken: r.seatToken }) });
register('createTable', { delivered: (_op, tb) => saveTableAuth(tb.code, { hostToken: tb.hostToken, joinUrl: tb.joinUrl }) });

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
