// results.js: the ranked results of a scored table — standings, the
// winner, how a tie was settled, the solo rating, the breakdown by
// category, and the warnings the server raised. Every number of the
// breakdown opens "why this score": that player's board with the cards or
// tiles that made the line highlighted, and the list of them. Which
// positions made a line comes from the rules engine (each line's
// `sources`), so no screen re-implements a rule.

import { h } from '../ui/dom.js';
import { language, list, number, ordinal, plural, t } from '../ui/i18n.js';
import { enumOf, labelOf } from '../ui/widgets.js';
import { openSheet } from '../ui/sheet.js';
import { boardField, loadForm, unitOf } from './forms.js';
import { breakdownRows, capitalize } from './breakdown.js';

/** @typedef {import('../sync/http.js').Spec} Spec */
/** @typedef {import('../sync/http.js').Result} Result */

/**
 * renderResults draws a scored table.
 * @param {Spec} spec
 * @param {Result} res
 * @param {{players: any[]}} entry who played (an Entry, or a live table's seats)
 * @param {{actions?: HTMLElement[], share?: {when: Date | string}}} [opts]
 *   actions: the links under the results, instead of the quick-score ones
 *   (edit the boards, another game); share: offer the result card, dated when
 * @returns {HTMLElement}
 */
export function renderResults(spec, res, entry, opts = {}) {
  const share = opts.share ? shareControl(spec, res, opts.share.when) : null;
  const order = res.results.map((r, i) => ({ r, i })).sort((a, b) => a.r.rank - b.r.rank || a.i - b.i);
  const tie = res.tiebreak || tieSentence(spec, res);
  const warnings = res.results.flatMap((r) => r.warnings.map((w) => ({ who: r.name, detail: w.detail })));
  return h('div', { class: 'results' },
    res.complete ? null : h('p', { class: 'notice' }, provisional(spec, entry)),
    h('ol', { class: 'standings', 'aria-label': t('ui.results.standings') }, order.map(({ r, i }) => h('li', {
      class: ['standing', r.winner && 'winner'], dataset: { player: i },
    },
    h('span', { class: 'rank', 'aria-label': t('ui.results.rank', { rank: r.rank }) }, ordinal(r.rank)),
    h('span', { class: 'who' },
      h('span', { class: 'who-name' }, r.name),
      r.winner && res.results.length > 1 ? h('span', { class: 'tag' }, res.winners.length > 1 ? t('ui.results.sharedWin') : t('ui.results.winner')) : null,
      /** @type {any} */ (r).entered === 'totals' ? h('span', { class: 'tag tag-quiet', dataset: { testid: `entered-${i}` } }, t('ui.results.totalsEntered')) : null),
    h('span', { class: 'score' },
      h('strong', { class: 'total', dataset: { testid: `total-${i}` } }, String(r.total)),
      h('span', { class: 'unit' }, unitOf(spec, r.total)))))),
    tie ? h('p', { class: 'tiebreak', dataset: { testid: 'tiebreak' } }, tie) : null,
    res.soloRating ? soloPanel(spec, res.soloRating) : null,
    breakdownTable(spec, res, entry),
    warnings.length ? h('section', { class: 'panel warnings' },
      h('h2', {}, t('ui.results.worthACheck')),
      h('ul', {}, warnings.map((w) => h('li', {}, res.results.length > 1 ? h('strong', {}, t('ui.results.who', { who: w.who })) : null, w.detail)))) : null,
    h('div', { class: 'results-actions' }, share?.button, opts.actions ?? [
      h('a', { class: 'btn', href: `/score/${spec.id}` }, t('ui.score.editBoards')),
      h('a', { class: 'btn btn-quiet', href: '/' }, t('ui.score.anotherGame'))]),
    share?.status);
}

/**
 * shareControl is the Share button of finished results, and the line that
 * says what became of the card. The card's module loads once the results
 * are on screen (never with the home screen), and draws the card only
 * when the button is pressed.
 * @param {Spec} spec
 * @param {Result} res
 * @param {Date | string} when
 */
function shareControl(spec, res, when) {
  const status = h('p', { class: 'share-status', role: 'status', dataset: { testid: 'share-status' } });
  let busy = false;
  const button = h('button', {
    type: 'button', class: 'btn', dataset: { testid: 'share' },
    on: {
      click: async () => {
        if (busy) return;
        busy = true;
        button.setAttribute('aria-busy', 'true');
        status.textContent = '';
        try {
          const card = await loadCard();
          status.textContent = await card.shareCard(spec, res, when);
        } catch (err) {
          status.textContent = t('ui.results.cardFailed', { error: /** @type {Error} */ (err).message });
        } finally {
          busy = false;
          button.removeAttribute('aria-busy');
        }
      },
    },
  }, t('ui.results.share'));
  loadCard().catch(() => { /* tried again when Share is pressed */ });
  return { button, status };
}

/** loadCard loads the result card's module (card.js). */
function loadCard() {
  return import('./card.js');
}

/**
 * soloPanel shows the rating of a solo game from the rulebook's chart.
 * @param {Spec} spec
 * @param {string} rating
 */
function soloPanel(spec, rating) {
  const label = labelOf(enumOf(spec, 'soloRating', 'soloRatings', 'rating'), rating);
  return h('section', { class: ['panel', 'solo', `solo-${rating}`], dataset: { testid: 'solo-rating' } },
    h('h2', {}, t('ui.results.solo')),
    h('p', { class: 'solo-label' }, label));
}

/**
 * breakdownTable lists each category's points per player, then the
 * tiebreak values.
 * @param {Spec} spec
 * @param {Result} res
 * @param {{players: any[]}} entry who played, with their boards
 */
function breakdownTable(spec, res, entry) {
  const rows = breakdownRows(spec, res);
  if (rows.length === 0) return null;
  /**
   * cell is a number of the table; with its sources and the player's
   * board at hand, a button that explains it.
   * @param {number} i
   * @param {{key: string, label: string, points?: number, value?: number, sources?: Source[]} | undefined} l
   * @param {string} text
   */
  const cell = (i, l, text) => {
    const board = entry.players[i]?.board;
    if (!l || !Array.isArray(l.sources) || !board) return h('td', {}, text);
    return h('td', {}, h('button', {
      type: 'button', class: 'why-btn', dataset: { testid: `why-${l.key}-${i}` },
      'aria-label': t('ui.results.whyLabel', { name: res.results[i].name, label: l.label, value: text }),
      on: { click: (/** @type {Event} */ e) => explain(/** @type {HTMLElement} */ (e.currentTarget), spec, res.results[i].name, i, board, l) },
    }, text));
  };
  return h('section', { class: 'panel breakdown' },
    h('h2', {}, t('ui.results.breakdown')),
    h('div', { class: 'table-scroll' },
      h('table', {},
        h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, h('span', { class: 'sr-only' }, t('ui.results.category'))),
          res.results.map((r) => h('th', { scope: 'col', class: r.winner ? 'winner' : '' }, r.name)))),
        h('tbody', {}, rows.map((row) => {
          if (row.kind === 'total') {
            return h('tr', { class: 'total-row' }, h('th', { scope: 'row' }, row.label),
              row.cells.map((c, i) => h('td', { class: res.results[i].winner ? 'winner' : '' }, c.text)));
          }
          const head = row.kind === 'tiebreak' ? [h('span', { class: 'tb-note' }, t('ui.results.tiebreak')), ' ', row.label] : row.label;
          return h('tr', { class: row.kind === 'tiebreak' ? 'tb-row' : null }, h('th', { scope: 'row' }, head),
            row.cells.map((c, i) => cell(i, c.line, c.text)));
        })))),
    res.results.some((r) => r.breakdown.some((l) => Array.isArray(/** @type {any} */ (l).sources)))
      ? h('p', { class: 'hint' }, t('ui.results.tapNumber')) : null);
}

/** @typedef {import('./breakdown.js').Source} Source */

/**
 * explain opens "why this score" for one line of one player: their board,
 * drawn as it was entered and not editable, with the positions that made
 * the line highlighted, and the list of those positions.
 * @param {HTMLElement} from the button tapped; the sheet opens in its screen
 * @param {Spec} spec
 * @param {string} name
 * @param {number} i the player's index
 * @param {any} board
 * @param {{key: string, label: string, points?: number, value?: number, sources?: Source[]}} l
 */
async function explain(from, spec, name, i, board, l) {
  const form = await loadForm(spec);
  const base = `/players/${i}/board`;
  const sources = l.sources ?? [];
  const host = /** @type {HTMLElement} */ (from.closest('.screen') ?? document.body);
  const view = h('div', { class: 'why-board why-on', dataset: { testid: 'why-board' } },
    boardField(form, { spec, board: structuredClone(board), base, host, changed: () => {}, refreshErrors: () => {} }));
  view.inert = true;
  const wanted = sources.map((s) => base + s.pointer);
  view.querySelectorAll('[data-pointer]').forEach((el) => {
    const p = /** @type {HTMLElement} */ (el).dataset.pointer ?? '';
    if (wanted.some((w) => p === w)) el.classList.add('why-hit');
  });
  const amount = l.points !== undefined ? `${number(l.points)} ${unitOf(spec, l.points)}` : String(l.value ?? '');
  const s = openSheet({
    host,
    title: `${name}: ${capitalize(l.label)} ${amount}`,
    // Focusable, so the sheet scrolls by keyboard too (the board in it is inert).
    body: h('div', { class: 'why', tabindex: 0, role: 'group', 'aria-label': t('ui.results.whatMade', { label: l.label }) },
      sources.length
        ? h('ul', { class: 'why-list', dataset: { testid: 'why-list' } }, sources.map((src) => h('li', {},
          h('span', {}, src.label || describe(spec, board, src.pointer)),
          src.points !== undefined ? h('strong', {}, signed(src.points)) : null)))
        : h('p', { class: 'muted' }, t('ui.results.nothingCounts')),
      view),
    actions: [h('button', { type: 'button', class: 'btn btn-primary sheet-done', on: { click: () => s.close() } }, t('ui.common.done'))],
  });
}

/**
 * describe names a board position in words when the engine gave no label:
 * a card or tile by its name or kind (in the spec's words: "Verde,
 * Escarabajo"), else where it is.
 * @param {Spec} spec
 * @param {any} board
 * @param {string} pointer
 */
function describe(spec, board, pointer) {
  const segs = pointer.split('/').slice(1);
  /** @type {any} */
  let v = board;
  for (const s of segs) v = v == null ? undefined : v[s];
  if (v && typeof v === 'object') {
    if (typeof v.name === 'string' && v.name) return v.name;
    const kind = ['color', 'insect', 'continent', 'species'].filter((k) => typeof v[k] === 'string' && v[k])
      .map((k) => labelOf(spec.enums?.[k] ?? [], v[k]));
    if (kind.length) return capitalize(kind.join(', '));
  }
  if (segs[0] === 'grid' && segs.length === 3) return t('ui.results.cell', { row: Number(segs[1]) + 1, col: Number(segs[2]) + 1 });
  if (segs[0] === 'tiles') return t('ui.results.tile', { n: Number(segs[1]) + 1 });
  if (segs[0] === 'floors') return t('ui.results.floor', { n: Number(segs[1]) + 1 });
  if (segs[0] === 'totals') return t('ui.results.asTotal');
  return capitalize((segs[segs.length - 1] ?? '').replace(/([A-Z])/g, ' $1').toLowerCase());
}

/**
 * signed shows points with their sign: "+3", "−1".
 * @param {number} n
 */
function signed(n) {
  return n > 0 ? `+${n}` : n < 0 ? `−${-n}` : '0';
}

/**
 * provisional explains why the standings are not final yet.
 * @param {Spec} spec
 * @param {{players: any[]}} entry
 */
function provisional(spec, entry) {
  if (entry.players.length < spec.minPlayers) {
    return plural('ui.results.provisionalPlayers', spec.minPlayers, { game: spec.name });
  }
  return t('ui.results.provisional');
}

/**
 * tieSentence explains a tie for first when the server did not. It only
 * runs for results from an older server; the server's sentence wins.
 * @param {Spec} spec
 * @param {Result} res
 */
export function tieSentence(spec, res) {
  if (res.results.length < 2) return '';
  const top = Math.max(...res.results.map((r) => r.total));
  const level = res.results.filter((r) => r.total === top);
  if (level.length < 2) return '';
  const unit = unitOf(spec, top);
  const winners = level.filter((r) => r.winner);
  if (winners.length === 1) {
    const tb = winners[0].tiebreaks.find((b) => level.some((o) => o !== winners[0] && o.tiebreaks.find((x) => x.key === b.key)?.value !== b.value));
    return tb
      ? t('ui.results.winsTieBy', { name: winners[0].name, top, unit, tiebreak: language() === 'de' ? tb.label : tb.label.toLowerCase(), value: tb.value })
      : t('ui.results.winsTie', { name: winners[0].name, top, unit });
  }
  const names = list(level.map((r) => r.name));
  return winners.length > 1 ? t('ui.results.levelShare', { names, top, unit }) : t('ui.results.level', { names, top, unit });
}
