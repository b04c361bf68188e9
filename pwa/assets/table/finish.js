// finish.js: Finish on the host's screen. It asks first (naming the seats
// with nothing entered); the server refuses while a seat's phone holds
// changes it has not sent, and the host chooses to wait (the finish then
// follows by itself) or to finish without them; a refusal for the rules
// (the game is not over) is shown with whose boards are short.

import { h, replace } from '../ui/dom.js';
import { ApiError } from '../sync/http.js';
import { finishTable } from '../sync/tables.js';
import { playerOf } from '../ui/problems.js';
import { loadForm } from '../games/forms.js';
import { openSheet } from '../ui/sheet.js';
import { list, plural, t } from '../ui/i18n.js';
import { capitalize, entered, syncWords, unsentSeats, waitNote } from './shared.js';

/** @typedef {import('../sync/http.js').Spec} Spec */
/** @typedef {import('../sync/tables.js').Table} Table */
/** @typedef {import('../sync/http.js').FieldError} FieldError */
/** @typedef {import('./shared.js').SeatSync} SeatSync */

/**
 * @typedef {Object} Finisher
 * @property {HTMLButtonElement} button Finish game
 * @property {HTMLElement} banner why the table could not finish, or which phones it waits for
 * @property {(seat: number) => FieldError[]} refusedAt the refusal's problems with a seat's board
 * @property {(tb: Table) => void} took a newer table is about to be shown: an old refusal goes (unless waiting)
 * @property {() => void} drawBanner draws the banner (the screen's draw calls it)
 * @property {() => void} settled the newer table is shown: a wait that is over finishes
 */

/**
 * finisher is the host screen's Finish. The screen redraws through draw
 * (which calls drawBanner), and reads the table it shows through table.
 * @param {{root: HTMLElement, spec: Spec, code: string, hostToken: string, table: () => Table,
 *   draw: () => void, leave: () => void, refresh: () => void, slow: () => void}} o
 *   leave: the table is finished; refresh: read the table now; slow: say the finish waits for the server
 * @returns {Finisher}
 */
export function finisher({ root, spec, code, hostToken, table, draw, leave, refresh, slow }) {
  /** @type {FieldError[]} */ let fields = [];
  /** @type {string[]} */ let lines = [];
  /** waiting: the host chose to wait for phones with unsent changes; the finish follows by itself */
  let waiting = false;
  let finishing = false;
  const button = /** @type {HTMLButtonElement} */ (h('button', {
    type: 'button', class: 'btn btn-primary', dataset: { testid: 'finish' }, on: { click: confirmFinish },
  }, t('ui.table.finishGame')));
  const banner = h('div', { class: 'banner', role: 'alert', hidden: true, dataset: { testid: 'finish-problem' } });

  /** waitingNote says which phones the finish waits for, with a way out. */
  function waitingNote() {
    const names = unsentSeats(table()).map((s) => s.name);
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
   * confirmFinish asks before the game is recorded, naming the seats with
   * nothing entered (a seat at 0 points because nobody entered its board
   * would go into the history as played). Cancelling records nothing.
   */
  function confirmFinish() {
    const names = table().seats.filter((s) => !entered(s.board)).map((s) => s.name);
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
    button.disabled = true;
    const req = finishTable(code, hostToken, force);
    const quiet = waitNote(slow);
    try {
      await req;
      quiet();
      waiting = false;
      leave();
    } catch (err) {
      quiet();
      if (!(err instanceof ApiError)) throw err;
      if (err.type === '/api/problems/unsent-changes') {
        if (!waiting) askAboutUnsent(err);
        else draw();
        return;
      }
      waiting = false;
      fields = err.fields.filter((f) => table().seats[playerOf(f.pointer)]);
      const other = err.fields.filter((f) => !table().seats[playerOf(f.pointer)]);
      lines = [
        err.fields.length ? t('ui.table.cannotFinish') : capitalize(err.message),
        ...other.map((f) => capitalize(f.detail)),
        ...(err.fields.length ? [] : await shortBoards())];
      draw();
      banner.scrollIntoView({ block: 'nearest' });
    } finally {
      finishing = false;
      button.disabled = false;
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
    const short = table().seats.filter((s) => form.short?.(s.board, spec));
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
          on: { click: () => { s.close(); waiting = true; draw(); refresh(); } },
        }, t('ui.table.waitForThem')),
      ],
    });
  }

  /** confirmForce asks once more before finishing without unsent changes. */
  function confirmForce() {
    const names = unsentSeats(table()).map((x) => x.name);
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

  return {
    button,
    banner,
    refusedAt: (seat) => fields.filter((e) => playerOf(e.pointer) === seat),
    took(tb) {
      if (tb.version !== table().version && !waiting) {
        fields = [];
        lines = [];
      }
    },
    drawBanner() {
      replace(banner, waiting ? waitingNote() : lines.map((l) => h('p', {}, l)));
      banner.hidden = !waiting && lines.length === 0;
    },
    settled() {
      if (waiting && !finishing && unsentSeats(table()).length === 0) finish(false);
    },
  };
}
