// breakdown.js: the rows of a result's breakdown, which the results screen
// (results.js) and the result card (card.js) both show.

import { t } from '../ui/i18n.js';

/** @typedef {import('../sync/http.js').Spec} Spec */
/** @typedef {import('../sync/http.js').Result} Result */
/** @typedef {{pointer: string, points?: number, label?: string}} Source */

/**
 * @typedef {{kind: 'points' | 'total' | 'tiebreak', label: string,
 *   cells: {text: string, line?: {key: string, label: string, points?: number, value?: number, sources?: Source[]}}[]}} BreakdownRow
 * a row of the breakdown: its label, and a cell per player (with the
 * engine's line or tiebreak it shows, when there is one)
 */

/**
 * breakdownRows are the rows of the breakdown: each category's points per
 * player, the total, then the tiebreak values (none in a solo game: nobody
 * to tie with). The results screen and the result card show these same
 * rows; there are none when a game has a single category and no tiebreak.
 * @param {Spec} spec
 * @param {Result} res
 * @returns {BreakdownRow[]}
 */
export function breakdownRows(spec, res) {
  /** @type {{key: string, label: string}[]} */
  const cats = spec.breakdown.map((b) => ({ key: b.id, label: b.label }));
  for (const r of res.results) for (const l of r.breakdown) if (!cats.some((c) => c.key === l.key)) cats.push(l);
  /** @type {{key: string, label: string}[]} */
  const tbs = spec.tiebreaks.map((b) => ({ key: b.id, label: b.label }));
  for (const r of res.results) for (const tb of r.tiebreaks) if (!tbs.some((c) => c.key === tb.key)) tbs.push(tb);
  if (res.results.length < 2) tbs.length = 0;
  if (cats.length <= 1 && tbs.length === 0) return [];
  return [
    ...cats.map((c) => ({
      kind: /** @type {const} */ ('points'),
      label: c.label,
      cells: res.results.map((r) => {
        const line = r.breakdown.find((l) => l.key === c.key);
        return { text: String(line?.points ?? 0), line };
      }),
    })),
    { kind: /** @type {const} */ ('total'), label: t('ui.results.total'), cells: res.results.map((r) => ({ text: String(r.total) })) },
    ...tbs.map((tb) => ({
      kind: /** @type {const} */ ('tiebreak'),
      label: capitalize(tb.label),
      cells: res.results.map((r) => {
        const line = r.tiebreaks.find((x) => x.key === tb.key);
        return { text: String(line?.value ?? '–'), line };
      }),
    })),
  ];
}

/**
 * capitalize writes s with a capital first letter.
 * @param {string} s
 */
export function capitalize(s) {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
