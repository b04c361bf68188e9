// results.js: the ranked results of a scored table — standings, the
// winner, how a tie was settled, the solo rating, the breakdown by
// category, and the warnings the server raised.

import { h } from '../ui/dom.js';
import { enumOf, labelOf } from '../ui/widgets.js';
import { unitOf } from './forms.js';

/** @typedef {import('../sync/api.js').Spec} Spec */
/** @typedef {import('../sync/api.js').Result} Result */

/**
 * renderResults draws a scored table.
 * @param {Spec} spec
 * @param {Result} res
 * @param {{players: any[]}} entry who played (an Entry, or a live table's seats)
 * @param {{actions?: HTMLElement[]}} [opts] actions: the links under the
 *   results, instead of the quick-score ones (edit the boards, another game)
 * @returns {HTMLElement}
 */
export function renderResults(spec, res, entry, opts = {}) {
  const order = res.results.map((r, i) => ({ r, i })).sort((a, b) => a.r.rank - b.r.rank || a.i - b.i);
  const tie = res.tiebreak || tieSentence(spec, res);
  const warnings = res.results.flatMap((r) => r.warnings.map((w) => ({ who: r.name, detail: w.detail })));
  return h('div', { class: 'results' },
    res.complete ? null : h('p', { class: 'notice' }, provisional(spec, entry)),
    h('ol', { class: 'standings', 'aria-label': 'Standings' }, order.map(({ r, i }) => h('li', {
      class: ['standing', r.winner && 'winner'], dataset: { player: i },
    },
    h('span', { class: 'rank', 'aria-label': `rank ${r.rank}` }, ordinal(r.rank)),
    h('span', { class: 'who' },
      h('span', { class: 'who-name' }, r.name),
      r.winner && res.results.length > 1 ? h('span', { class: 'tag' }, res.winners.length > 1 ? 'Shared win' : 'Winner') : null),
    h('span', { class: 'score' },
      h('strong', { class: 'total', dataset: { testid: `total-${i}` } }, String(r.total)),
      h('span', { class: 'unit' }, unitOf(spec, r.total)))))),
    tie ? h('p', { class: 'tiebreak', dataset: { testid: 'tiebreak' } }, tie) : null,
    res.soloRating ? soloPanel(spec, res.soloRating) : null,
    breakdownTable(spec, res),
    warnings.length ? h('section', { class: 'panel warnings' },
      h('h2', {}, 'Worth a check'),
      h('ul', {}, warnings.map((w) => h('li', {}, res.results.length > 1 ? h('strong', {}, `${w.who}: `) : null, w.detail)))) : null,
    h('div', { class: 'results-actions' }, opts.actions ?? [
      h('a', { class: 'btn', href: `/score/${spec.id}` }, 'Edit the boards'),
      h('a', { class: 'btn btn-quiet', href: '/' }, 'Another game')]));
}

/**
 * soloPanel shows the rating of a solo game from the rulebook's chart.
 * @param {Spec} spec
 * @param {string} rating
 */
function soloPanel(spec, rating) {
  const label = labelOf(enumOf(spec, 'soloRating', 'soloRatings', 'rating'), rating);
  return h('section', { class: ['panel', 'solo', `solo-${rating}`], dataset: { testid: 'solo-rating' } },
    h('h2', {}, 'Solo rating'),
    h('p', { class: 'solo-label' }, label));
}

/**
 * breakdownTable lists each category's points per player, then the
 * tiebreak values.
 * @param {Spec} spec
 * @param {Result} res
 */
function breakdownTable(spec, res) {
  /** @type {{key: string, label: string}[]} */
  const cats = spec.breakdown.map((b) => ({ key: b.id, label: b.label }));
  for (const r of res.results) for (const l of r.breakdown) if (!cats.some((c) => c.key === l.key)) cats.push(l);
  /** @type {{key: string, label: string}[]} */
  const tbs = spec.tiebreaks.map((b) => ({ key: b.id, label: b.label }));
  for (const r of res.results) for (const t of r.tiebreaks) if (!tbs.some((c) => c.key === t.key)) tbs.push(t);
  if (res.results.length < 2) tbs.length = 0; // nobody to tie with
  if (cats.length <= 1 && tbs.length === 0) return null;
  /** @param {string} key @param {number} i */
  const pts = (key, i) => res.results[i].breakdown.find((l) => l.key === key)?.points ?? 0;
  /** @param {string} key @param {number} i */
  const tbv = (key, i) => res.results[i].tiebreaks.find((t) => t.key === key)?.value;
  return h('section', { class: 'panel breakdown' },
    h('h2', {}, 'Breakdown'),
    h('div', { class: 'table-scroll' },
      h('table', {},
        h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, h('span', { class: 'sr-only' }, 'Category')),
          res.results.map((r) => h('th', { scope: 'col', class: r.winner ? 'winner' : '' }, r.name)))),
        h('tbody', {},
          cats.map((c) => h('tr', {}, h('th', { scope: 'row' }, c.label),
            res.results.map((_, i) => h('td', {}, String(pts(c.key, i)))))),
          h('tr', { class: 'total-row' }, h('th', { scope: 'row' }, 'Total'),
            res.results.map((r) => h('td', { class: r.winner ? 'winner' : '' }, String(r.total)))),
          tbs.map((t) => h('tr', { class: 'tb-row' }, h('th', { scope: 'row' }, h('span', { class: 'tb-note' }, 'Tiebreak'), ' ', capitalize(t.label)),
            res.results.map((_, i) => h('td', {}, String(tbv(t.key, i) ?? '–')))))))));
}

/**
 * provisional explains why the standings are not final yet.
 * @param {Spec} spec
 * @param {{players: any[]}} entry
 */
function provisional(spec, entry) {
  if (entry.players.length < spec.minPlayers) {
    return `Provisional: ${spec.name} needs at least ${spec.minPlayers} players.`;
  }
  return 'Provisional: not every board has reached the end of the game yet, so there is no winner.';
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
    const tb = winners[0].tiebreaks.find((t) => level.some((o) => o !== winners[0] && o.tiebreaks.find((x) => x.key === t.key)?.value !== t.value));
    return tb
      ? `${winners[0].name} wins the tie on ${top} ${unit} with more ${tb.label.toLowerCase()} (${tb.value}).`
      : `${winners[0].name} wins the tie on ${top} ${unit}.`;
  }
  return `${joinNames(level.map((r) => r.name))} are level on ${top} ${unit}${winners.length > 1 ? ' and share the victory' : ''}.`;
}

/** @param {string[]} names */
function joinNames(names) {
  return names.length <= 1 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}

/** @param {string} s */
function capitalize(s) {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/**
 * ordinal writes a rank: 1st, 2nd, 3rd, 4th.
 * @param {number} n
 */
export function ordinal(n) {
  const s = n % 100 >= 11 && n % 100 <= 13 ? 'th' : ({ 1: 'st', 2: 'nd', 3: 'rd' }[n % 10] ?? 'th');
  return `${n}${s}`;
}
