// charts.js: the player page's charts, drawn as inline SVG with DOM calls
// (no library, nothing parsed from strings: the CSP allows neither). Each
// chart is an image to assistive technology, named by its <title> and
// described in words by its <desc>; each mark has a <title> of its own, so
// a long press or hover tells its value. Colours come from app.css classes.

import { date, number, plural, t } from './i18n.js';

const NS = 'http://www.w3.org/2000/svg';

/** The drawing box: a phone-wide chart, scaled by its viewBox. */
const W = 340;
const H = 190;
const pad = { left: 40, right: 12, top: 14, bottom: 34 };

let chartSeq = 0;

/**
 * svg makes an SVG element with attributes and children.
 * @param {string} tag
 * @param {Object<string, string | number>} [attrs]
 * @param {...(SVGElement | string | null)} children
 * @returns {SVGElement}
 */
function svg(tag, attrs = {}, ...children) {
  const el = /** @type {SVGElement} */ (document.createElementNS(NS, tag));
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  for (const c of children) {
    if (c === null) continue;
    el.appendChild(typeof c === 'string' ? document.createTextNode(c) : c);
  }
  return el;
}

/**
 * frame starts a chart: the <svg> with its title and description wired up
 * for assistive technology.
 * @param {string} title
 * @param {string} desc
 * @param {string} cls
 */
function frame(title, desc, cls) {
  chartSeq += 1;
  const tid = `chart-${chartSeq}-title`;
  const did = `chart-${chartSeq}-desc`;
  return svg('svg', {
    class: `chart ${cls}`, viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-labelledby': `${tid} ${did}`,
    preserveAspectRatio: 'xMidYMid meet',
  }, svg('title', { id: tid }, title), svg('desc', { id: did }, desc));
}

/**
 * niceTicks returns round values that cover [lo, hi], about count of them,
 * at least least apart (so that labels written to a tenth differ).
 * @param {number} lo
 * @param {number} hi
 * @param {number} count
 * @param {number} [least]
 * @returns {number[]}
 */
export function niceTicks(lo, hi, count, least = 0) {
  if (!(hi > lo)) {
    hi = lo + 1;
    lo -= 1;
  }
  const raw = Math.max(least, (hi - lo) / Math.max(1, count));
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag;
  const first = Math.floor(lo / step) * step;
  /** @type {number[]} */
  const out = [];
  for (let v = first; v < hi + step * 0.999; v += step) out.push(Number(v.toFixed(6)));
  return out;
}

/**
 * short writes a rating for an axis or a description: at most one
 * decimal, in the language's way (4.1, 4,1).
 * @param {number} n
 */
function short(n) {
  return number(n, { maximumFractionDigits: 1 });
}

/**
 * tenths writes a rating as the player page's header and the leaderboard
 * do: with one decimal (4.0, 4,1), so the chart's labels match them.
 * @param {number} n
 */
function tenths(n) {
  return number(Math.round(n * 10) / 10, { minimumFractionDigits: 1, maximumFractionDigits: 1 });
}

/**
 * shortDate writes a date as "14 Mar" (with the year when it is not this year).
 * @param {string} iso
 */
export function shortDate(iso) {
  const d = new Date(iso);
  const sameYear = d.getFullYear() === new Date().getFullYear();
  return date(d, sameYear ? { day: 'numeric', month: 'short' } : { day: 'numeric', month: 'short', year: 'numeric' });
}

/** The most points a rating chart draws: the API pages ratings by as many. */
export const MAX_CHART_POINTS = 200;

/**
 * ratingChart draws a player's rating after each rated play, oldest first,
 * as a line with a dot per play, the newest labelled with its value. The
 * rating is the conservative estimate (mu − 3σ), so it climbs as the
 * system grows sure of a player. Of more than MAX_CHART_POINTS points it
 * draws the newest.
 * @param {{finishedAt: string, rating: number, mu: number, sigma: number}[]} all
 * @param {string} who the player's name, for the description
 * @param {number} firstPlay which of the player's rated plays all[0] follows, counted from 1
 * @returns {SVGElement}
 */
export function ratingChart(all, who, firstPlay) {
  const points = all.slice(-MAX_CHART_POINTS);
  const n = points.length;
  const first = points[0];
  const last = points[n - 1];
  const from = firstPlay + all.length - n;
  const desc = n === 0 ? t('ui.chart.noRatings', { who })
    : n === 1 ? t('ui.chart.oneRating', { who, n: from, date: shortDate(first.finishedAt), rating: tenths(first.rating) })
      : t('ui.chart.ratings', {
        who, first: from, last: from + n - 1, from: tenths(first.rating), fromDate: shortDate(first.finishedAt),
        to: tenths(last.rating), toDate: shortDate(last.finishedAt), high: tenths(Math.max(...points.map((p) => p.rating))),
      });
  const root = frame(t('ui.player.ratingOverTime'), desc, 'rating-chart');
  if (n === 0) return root;

  const values = points.map((p) => p.rating);
  // Ratings are written to a tenth: the axis steps by a tenth at least.
  const ticks = niceTicks(Math.min(...values), Math.max(...values), 4, 0.1);
  const lo = ticks[0];
  const hi = ticks[ticks.length - 1];
  const plotW = W - pad.left - pad.right;
  const plotH = H - pad.top - pad.bottom;
  /** @param {number} i */
  const x = (i) => pad.left + (n === 1 ? plotW / 2 : (i / (n - 1)) * plotW);
  /** @param {number} v */
  const y = (v) => pad.top + plotH - ((v - lo) / (hi - lo)) * plotH;

  const axes = svg('g', { class: 'chart-axes', 'aria-hidden': 'true' });
  for (const tick of ticks) {
    axes.appendChild(svg('line', { class: tick === 0 ? 'chart-zero' : 'chart-grid', x1: pad.left, x2: W - pad.right, y1: y(tick), y2: y(tick) }));
    axes.appendChild(svg('text', { class: 'chart-label', x: pad.left - 6, y: y(tick), 'text-anchor': 'end', 'dominant-baseline': 'middle' }, short(tick)));
  }
  axes.appendChild(svg('line', { class: 'chart-axis', x1: pad.left, x2: W - pad.right, y1: pad.top + plotH, y2: pad.top + plotH }));
  const labelled = n === 1 ? [0] : n === 2 ? [0, 1] : [0, Math.floor((n - 1) / 2), n - 1];
  for (const i of labelled) {
    const anchor = n === 1 ? 'middle' : i === 0 ? 'start' : i === n - 1 ? 'end' : 'middle';
    axes.appendChild(svg('text', { class: 'chart-label', x: x(i), y: H - 12, 'text-anchor': anchor }, shortDate(points[i].finishedAt)));
  }
  axes.appendChild(svg('text', { class: 'chart-label chart-caption', x: pad.left, y: 9 }, t('ui.widget.rating')));
  root.appendChild(axes);

  if (n > 1) {
    const d = points.map((p, i) => `${i === 0 ? 'M' : 'L'}${x(i).toFixed(1)} ${y(p.rating).toFixed(1)}`).join(' ');
    root.appendChild(svg('path', { class: 'chart-line', d, fill: 'none' }));
  }
  const dots = svg('g', { class: 'chart-dots' });
  points.forEach((p, i) => {
    dots.appendChild(svg('circle', { class: i === n - 1 ? 'chart-dot chart-dot-last' : 'chart-dot', cx: x(i).toFixed(1), cy: y(p.rating).toFixed(1), r: n > 40 ? 2 : 3.5 },
      svg('title', {}, t('ui.widget.ratingOn', { date: shortDate(p.finishedAt), rating: tenths(p.rating) }))));
  });
  root.appendChild(dots);
  // The newest rating in figures, as the header writes it: above its dot,
  // or below when the dot is at the top.
  const top = y(last.rating) < pad.top + 16;
  root.appendChild(svg('text', {
    class: 'chart-value', x: n === 1 ? x(0) : x(n - 1) - 6, y: y(last.rating) + (top ? 18 : -9), 'text-anchor': n === 1 ? 'middle' : 'end', 'aria-hidden': 'true',
  }, tenths(last.rating)));
  return root;
}

/**
 * bins groups a score distribution into at most max bars of equal width,
 * empty ones included, so the shape is honest.
 * @param {{score: number, count: number}[]} scores
 * @param {number} max
 * @returns {{from: number, to: number, count: number}[]}
 */
export function bins(scores, max) {
  if (scores.length === 0) return [];
  const lo = Math.min(...scores.map((s) => s.score));
  const hi = Math.max(...scores.map((s) => s.score));
  const width = Math.max(1, Math.ceil((hi - lo + 1) / max));
  const start = width === 1 ? lo : Math.floor(lo / width) * width;
  /** @type {{from: number, to: number, count: number}[]} */
  const out = [];
  for (let from = start; from <= hi; from += width) out.push({ from, to: from + width - 1, count: 0 });
  for (const s of scores) out[Math.floor((s.score - start) / width)].count += s.count;
  return out;
}

/**
 * scoreHistogram draws how often a player scored each total (or range of
 * totals), as bars.
 * @param {{score: number, count: number}[]} scores
 * @param {string} who
 * @param {string} unit what the totals count, in words ("points", "Punkte")
 * @returns {SVGElement}
 */
export function scoreHistogram(scores, who, unit) {
  const bars = bins(scores, 12);
  const plays = scores.reduce((s, x) => s + x.count, 0);
  const top = bars.reduce((a, b) => (b.count > a.count ? b : a), bars[0] ?? { from: 0, to: 0, count: 0 });
  /** @param {{from: number, to: number}} b */
  const range = (b) => (b.from === b.to ? String(b.from) : `${b.from}–${b.to}`);
  const desc = plays === 0 ? t('ui.chart.noScores', { who })
    : plural('ui.chart.scores', plays, {
      who, from: bars[0].from, to: Math.max(...scores.map((s) => s.score)), unit, range: range(top), times: plural('ui.chart.times', top.count),
    });
  const root = frame(t('ui.player.scores'), desc, 'score-histogram');
  if (bars.length === 0) return root;

  const ticks = niceTicks(0, Math.max(...bars.map((b) => b.count)), 3).filter((v) => Number.isInteger(v));
  const hi = ticks[ticks.length - 1];
  const plotW = W - pad.left - pad.right;
  const plotH = H - pad.top - pad.bottom;
  // Few bars stay bar-shaped: at most 56 wide, centred.
  const slot = Math.min(56, plotW / bars.length);
  const left = pad.left + (plotW - slot * bars.length) / 2;
  const gap = Math.min(6, slot * 0.2);
  /** @param {number} v */
  const y = (v) => pad.top + plotH - (v / hi) * plotH;

  const axes = svg('g', { class: 'chart-axes', 'aria-hidden': 'true' });
  for (const tick of ticks) {
    axes.appendChild(svg('line', { class: 'chart-grid', x1: pad.left, x2: W - pad.right, y1: y(tick), y2: y(tick) }));
    axes.appendChild(svg('text', { class: 'chart-label', x: pad.left - 6, y: y(tick), 'text-anchor': 'end', 'dominant-baseline': 'middle' }, String(tick)));
  }
  axes.appendChild(svg('text', { class: 'chart-label chart-caption', x: pad.left, y: 9 }, t('ui.chart.plays')));
  // Label every bar when they fit, else every other one.
  const every = slot >= 24 ? 1 : slot >= 12 ? 2 : 3;
  bars.forEach((b, i) => {
    if (i % every !== 0) return;
    axes.appendChild(svg('text', { class: 'chart-label', x: left + slot * i + slot / 2, y: H - 18, 'text-anchor': 'middle' }, String(b.from)));
  });
  axes.appendChild(svg('text', { class: 'chart-label chart-caption', x: W - pad.right, y: H - 3, 'text-anchor': 'end' }, unit));
  root.appendChild(axes);

  const g = svg('g', { class: 'chart-bars' });
  bars.forEach((b, i) => {
    const h = b.count === 0 ? 0 : Math.max(2, (b.count / hi) * plotH);
    g.appendChild(svg('rect', {
      class: 'chart-bar', x: (left + slot * i + gap / 2).toFixed(1), y: (pad.top + plotH - h).toFixed(1),
      width: Math.max(1, slot - gap).toFixed(1), height: h.toFixed(1), rx: 2,
      'data-score': range(b), 'data-count': b.count,
    }, svg('title', {}, plural('ui.widget.bar', b.count, { range: range(b), unit }))));
  });
  g.appendChild(svg('line', { class: 'chart-axis', x1: pad.left, x2: W - pad.right, y1: pad.top + plotH, y2: pad.top + plotH }));
  root.appendChild(g);
  return root;
}
