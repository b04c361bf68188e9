// card.js: the result card, a PNG to share. It shows the game (its name
// as printed on the box), the date, the standings, the winner (or the
// shared win) and each player's breakdown: the rows the results screen
// shows (breakdownRows), drawn on a canvas from the results already on
// screen, so it needs no server and works offline. It is drawn in the
// app's light colours whatever the phone's scheme, as a picture is seen
// on other screens, and at two or three pixels per CSS pixel (1080 px
// wide on most phones), so it stays crisp when zoomed.
//
// It is shared through the Web Share API where the browser can share
// files, and downloaded otherwise. The results screen loads this module
// when it shows results (never with the home screen).

import { breakdownRows } from './breakdown.js';
import { date as formatDate, list, ordinal, t } from '../ui/i18n.js';
import { unitOf } from './forms.js';
import { enumOf, labelOf } from '../ui/widgets.js';
import { color, fit, font, panel, roundRect, rule, wrap } from './canvas.js';

/** @typedef {import('../sync/http.js').Spec} Spec */
/** @typedef {import('../sync/http.js').Result} Result */

// Every word the card and its messages say, in one place, in the app's
// language (read when the card is drawn, so a switch applies).
const text = {
  get winner() { return t('ui.results.winner'); },
  get sharedWin() { return t('ui.results.sharedWin'); },
  get breakdown() { return t('ui.results.breakdown'); },
  get tiebreak() { return t('ui.results.tiebreak'); },
  get soloRating() { return t('ui.results.solo'); },
  get footer() { return t('ui.card.footer'); },
  /** @param {string} game */
  title: (game) => t('ui.card.title', { game }),
  /** @param {string[]} names */
  names: (names) => list(names),
  /** @param {string} who @param {boolean} shared */
  wins: (who, shared) => (shared ? t('ui.card.shareWin', { who }) : t('ui.card.wins', { who })),
  /** @param {string} game @param {string} day */
  file: (game, day) => `insectscore-${game}-${day}.png`,
  /** @param {string} file */
  downloaded: (file) => t('ui.card.downloaded', { file }),
  /** @param {string} why @param {string} file */
  shareFailed: (why, file) => t('ui.card.shareFailed', { why, file }),
  /** @param {string} why */
  drawFailed: (why) => t('ui.card.drawFailed', { why }),
};

/** WIDTH is the card's width in CSS pixels; PAD its margin. */
const WIDTH = 540;
const PAD = 24;
const GAP = 12;

/**
 * shareCard draws the result card and shares it, or downloads it where the
 * browser cannot share files (or sharing fails). It returns what to tell
 * the player: nothing once shared, or when they closed the share sheet.
 * @param {Spec} spec
 * @param {Result} res
 * @param {Date | string} when the day of the game
 * @returns {Promise<string>}
 */
export async function shareCard(spec, res, when) {
  const date = new Date(when);
  const name = text.file(spec.id, isoDay(date));
  /** @type {Blob} */
  let blob;
  try {
    blob = await png(drawCard(spec, res, date, scaleFor(window.devicePixelRatio)));
  } catch (err) {
    return text.drawFailed(describe(err));
  }
  const file = new File([blob], name, { type: 'image/png' });
  if (typeof navigator.share === 'function' && typeof navigator.canShare === 'function' && navigator.canShare({ files: [file] })) {
    try {
      await navigator.share({ files: [file], title: text.title(spec.name), text: summary(spec, res, date) });
      return '';
    } catch (err) {
      if (/** @type {Error} */ (err)?.name === 'AbortError') return '';
      download(blob, name);
      return text.shareFailed(describe(err), name);
    }
  }
  download(blob, name);
  return text.downloaded(name);
}

/**
 * scaleFor is how many pixels the card has per CSS pixel: the screen's,
 * at least 2 (a card is seen on other screens) and at most 3.
 * @param {number} dpr
 */
export function scaleFor(dpr) {
  return Math.min(3, Math.max(2, Math.ceil(dpr || 1)));
}

/**
 * download saves the card through a link to it. The link's address is
 * given back a while later, once the download has surely read it.
 * @param {Blob} blob
 * @param {string} name
 */
function download(blob, name) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.hidden = true;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 30000);
}

/**
 * png encodes a canvas.
 * @param {HTMLCanvasElement} canvas
 * @returns {Promise<Blob>}
 */
function png(canvas) {
  return new Promise((resolve, reject) => {
    canvas.toBlob((b) => (b ? resolve(b) : reject(new Error(t('ui.card.noPicture', { width: String(canvas.width), height: String(canvas.height) })))), 'image/png');
  });
}

/**
 * summary is the card in one sentence, for the message it is shared with.
 * @param {Spec} spec
 * @param {Result} res
 * @param {Date} date
 */
function summary(spec, res, date) {
  const order = ranked(res);
  const standings = order.map((r) => `${ordinal(r.rank)} ${r.name} ${r.total}`).join(', ');
  const winners = res.results.filter((r) => r.winner).map((r) => r.name);
  const won = res.results.length > 1 && winners.length ? ` ${text.wins(text.names(winners), winners.length > 1)}` : '';
  return `${spec.name}, ${longDay(date)}: ${standings}.${won}`;
}

/**
 * ranked is the players in the order of the standings.
 * @param {Result} res
 */
function ranked(res) {
  return res.results.map((r, i) => ({ r, i })).sort((a, b) => a.r.rank - b.r.rank || a.i - b.i).map(({ r }) => r);
}

/**
 * @typedef {{h: number, draw: (ctx: CanvasRenderingContext2D, y: number) => void}} Block
 * a band of the card: its height, and how to draw it at a given top
 */

/**
 * drawCard draws the card on a new canvas: it lays the bands out once to
 * know the height, then draws them.
 * @param {Spec} spec
 * @param {Result} res
 * @param {Date} date
 * @param {number} scale pixels per CSS pixel
 * @returns {HTMLCanvasElement}
 */
export function drawCard(spec, res, date, scale) {
  const canvas = document.createElement('canvas');
  const measure = /** @type {CanvasRenderingContext2D} */ (canvas.getContext('2d'));
  /** @type {(Block | null)[]} */
  const bands = [
    header(measure, spec.name, longDay(date)),
    winnerBand(measure, spec, res),
    ...ranked(res).map((r) => standing(measure, spec, res, r)),
    res.tiebreak ? note(measure, res.tiebreak) : null,
    res.soloRating ? solo(measure, spec, res.soloRating) : null,
    breakdown(measure, res, breakdownRows(spec, res)),
    footer(),
  ];
  const blocks = /** @type {Block[]} */ (bands.filter(Boolean));
  const height = blocks.reduce((sum, b, i) => sum + b.h + (i > 0 && i < blocks.length - 1 ? GAP : 0), 0) + GAP;
  canvas.width = WIDTH * scale;
  canvas.height = Math.ceil(height) * scale;
  const ctx = /** @type {CanvasRenderingContext2D} */ (canvas.getContext('2d'));
  ctx.scale(scale, scale);
  ctx.fillStyle = color.bg;
  ctx.fillRect(0, 0, WIDTH, height);
  ctx.textBaseline = 'middle';
  let y = 0;
  blocks.forEach((b, i) => {
    ctx.save();
    b.draw(ctx, y);
    ctx.restore();
    y += b.h + (i > 0 && i < blocks.length - 1 ? GAP : 0);
  });
  return canvas;
}

/**
 * header is the green band on top: the game's name and the day.
 * @param {CanvasRenderingContext2D} ctx
 * @param {string} game
 * @param {string} day
 * @returns {Block}
 */
function header(ctx, game, day) {
  ctx.font = font(800, 27);
  const lines = wrap(ctx, game, WIDTH - 2 * PAD, 3);
  const lh = 33;
  const h = 24 + lines.length * lh + 4 + 22 + 24;
  return {
    h: h + GAP,
    draw(c, y) {
      c.fillStyle = color.primary;
      c.fillRect(0, y, WIDTH, h);
      c.fillStyle = color.accent;
      c.fillRect(0, y + h - 5, WIDTH, 5);
      c.fillStyle = color.onPrimary;
      c.font = font(800, 27);
      lines.forEach((l, i) => c.fillText(l, PAD, y + 24 + lh * (i + 0.5)));
      c.globalAlpha = 0.85;
      c.font = font(500, 16);
      c.fillText(fit(c, day, WIDTH - 2 * PAD), PAD, y + 24 + lines.length * lh + 4 + 11);
    },
  };
}

/**
 * winnerBand names the winner, or those who share the win, and their
 * total; a solo game has none.
 * @param {CanvasRenderingContext2D} ctx
 * @param {Spec} spec
 * @param {Result} res
 * @returns {Block | null}
 */
function winnerBand(ctx, spec, res) {
  const winners = res.results.filter((r) => r.winner);
  if (res.results.length < 2 || winners.length === 0) return null;
  const shared = winners.length > 1;
  const total = winners[0].total;
  const x = PAD;
  const w = WIDTH - 2 * PAD;
  const scoreW = 110;
  ctx.font = font(800, 22);
  const lines = wrap(ctx, text.names(winners.map((r) => r.name)), w - 32 - scoreW, 3);
  const lh = 28;
  const h = 16 + 18 + lines.length * lh + 14;
  return {
    h,
    draw(c, y) {
      roundRect(c, x, y, w, h, 16);
      c.fillStyle = color.accentTint;
      c.fill();
      c.lineWidth = 2;
      c.strokeStyle = color.accent;
      c.stroke();
      c.fillStyle = color.warn;
      c.font = font(800, 13);
      c.fillText((shared ? text.sharedWin : text.winner).toUpperCase(), x + 16, y + 16 + 8);
      c.fillStyle = color.text;
      c.font = font(800, 22);
      lines.forEach((l, i) => c.fillText(l, x + 16, y + 16 + 18 + lh * (i + 0.5)));
      c.textAlign = 'right';
      c.font = font(800, 30);
      c.fillText(String(total), x + w - 16, y + h / 2 - 6);
      c.fillStyle = color.muted;
      c.font = font(500, 13);
      c.fillText(unitOf(spec, total), x + w - 16, y + h / 2 + 17);
    },
  };
}

/**
 * standing is one player's line of the standings: rank, name, total.
 * @param {CanvasRenderingContext2D} ctx
 * @param {Spec} spec
 * @param {Result} res
 * @param {Result['results'][number]} r
 * @returns {Block}
 */
function standing(ctx, spec, res, r) {
  const x = PAD;
  const w = WIDTH - 2 * PAD;
  const h = 66;
  const tag = r.winner && res.results.length > 1 ? (res.winners.length > 1 ? text.sharedWin : text.winner) : '';
  const nameX = x + 14 + 46 + 14;
  ctx.font = font(700, 19);
  const name = fit(ctx, r.name, x + w - 100 - nameX);
  return {
    h,
    draw(c, y) {
      roundRect(c, x, y, w, h, 16);
      c.fillStyle = r.winner ? color.accentTint : color.surface;
      c.fill();
      c.lineWidth = r.winner ? 2 : 1;
      c.strokeStyle = r.winner ? color.accent : color.line;
      c.stroke();
      const mid = y + h / 2;
      c.beginPath();
      c.arc(x + 14 + 23, mid, 23, 0, 2 * Math.PI);
      c.fillStyle = r.winner ? color.accent : color.surface2;
      c.fill();
      c.fillStyle = r.winner ? color.onAccent : color.text;
      c.font = font(800, 15);
      c.textAlign = 'center';
      c.fillText(ordinal(r.rank), x + 14 + 23, mid);
      c.textAlign = 'left';
      c.fillStyle = color.text;
      c.font = font(700, 19);
      c.fillText(name, nameX, tag ? mid - 10 : mid);
      if (tag) {
        c.font = font(700, 11);
        const tw = c.measureText(tag).width + 16;
        roundRect(c, nameX, mid + 5, tw, 18, 9);
        c.fillStyle = color.primary;
        c.fill();
        c.fillStyle = color.onPrimary;
        c.fillText(tag, nameX + 8, mid + 14);
      }
      c.textAlign = 'right';
      c.fillStyle = color.text;
      c.font = font(800, 30);
      c.fillText(String(r.total), x + w - 16, mid - 7);
      c.fillStyle = color.muted;
      c.font = font(500, 12);
      c.fillText(unitOf(spec, r.total), x + w - 16, mid + 16);
    },
  };
}

/**
 * note is how a tie was settled, in the tiebreak's colours.
 * @param {CanvasRenderingContext2D} ctx
 * @param {string} sentence
 * @returns {Block}
 */
function note(ctx, sentence) {
  const x = PAD;
  const w = WIDTH - 2 * PAD;
  ctx.font = font(500, 15);
  const lines = wrap(ctx, sentence, w - 28, 6);
  const lh = 21;
  const h = 12 + lines.length * lh + 12;
  return {
    h,
    draw(c, y) {
      roundRect(c, x, y, w, h, 12);
      c.fillStyle = color.primaryTint;
      c.fill();
      c.fillStyle = color.text;
      c.font = font(500, 15);
      lines.forEach((l, i) => c.fillText(l, x + 14, y + 12 + lh * (i + 0.5)));
    },
  };
}

/**
 * solo is the rating of a solo game from the rulebook's chart.
 * @param {CanvasRenderingContext2D} ctx
 * @param {Spec} spec
 * @param {string} rating
 * @returns {Block}
 */
function solo(ctx, spec, rating) {
  const x = PAD;
  const w = WIDTH - 2 * PAD;
  const label = labelOf(enumOf(spec, 'soloRating', 'soloRatings', 'rating'), rating);
  ctx.font = font(800, 20);
  const lines = wrap(ctx, label, w - 32, 2);
  const h = 16 + 20 + 6 + lines.length * 26 + 14;
  return {
    h,
    draw(c, y) {
      panel(c, x, y, w, h);
      c.fillStyle = color.text;
      c.font = font(700, 16);
      c.fillText(text.soloRating, x + 16, y + 16 + 10);
      c.fillStyle = color.primary;
      c.font = font(800, 20);
      lines.forEach((l, i) => c.fillText(l, x + 16, y + 16 + 26 + 26 * (i + 0.5)));
    },
  };
}

/**
 * breakdown is the table of each category's points per player, the
 * totals and the tiebreaks, as on the results screen.
 * @param {CanvasRenderingContext2D} ctx
 * @param {Result} res
 * @param {import('./breakdown.js').BreakdownRow[]} rows
 * @returns {Block | null}
 */
function breakdown(ctx, res, rows) {
  if (rows.length === 0) return null;
  const x = PAD;
  const w = WIDTH - 2 * PAD;
  const inner = w - 32;
  const n = res.results.length;
  const colW = Math.min(96, Math.max(56, (inner * 0.56) / n));
  const labelW = inner - n * colW - 8;
  const headH = 34;
  const titleH = 16 + 22 + 8;
  const laid = rows.map((row) => {
    const small = row.kind === 'tiebreak';
    ctx.font = small ? font(500, 13) : font(row.kind === 'total' ? 800 : 500, 15);
    const lines = wrap(ctx, row.label, labelW, 2);
    const lh = small ? 17 : 19;
    const top = small ? 14 : 0;
    return { row, lines, lh, top, h: Math.max(small ? 44 : 38, top + lines.length * lh + 16) };
  });
  ctx.font = font(700, 13);
  const names = res.results.map((r) => fit(ctx, r.name, colW - 8));
  const h = titleH + headH + laid.reduce((s, l) => s + l.h, 0) + 10;
  /** @param {number} i the player's column: its right edge */
  const colRight = (i) => x + 16 + labelW + 8 + colW * (i + 1);
  return {
    h,
    draw(c, y) {
      panel(c, x, y, w, h);
      c.fillStyle = color.text;
      c.font = font(700, 18);
      c.fillText(text.breakdown, x + 16, y + 16 + 11);
      let top = y + titleH;
      c.font = font(700, 13);
      c.textAlign = 'right';
      names.forEach((s, i) => {
        c.fillStyle = res.results[i].winner ? color.primary : color.text;
        c.fillText(s, colRight(i), top + headH / 2);
      });
      rule(c, x + 16, x + w - 16, top + headH, 1);
      top += headH;
      for (const { row, lines, lh, top: pad, h: rh } of laid) {
        const small = row.kind === 'tiebreak';
        const bold = row.kind === 'total';
        c.textAlign = 'left';
        c.fillStyle = small ? color.muted : color.text;
        if (small) {
          c.font = font(700, 10);
          c.fillText(text.tiebreak.toUpperCase(), x + 16, top + 8 + 6);
        }
        c.font = small ? font(500, 13) : font(bold ? 800 : 500, 15);
        const textTop = top + pad + (rh - pad - lines.length * lh) / 2;
        lines.forEach((l, i) => c.fillText(l, x + 16, textTop + lh * (i + 0.5)));
        c.textAlign = 'right';
        row.cells.forEach((cell, i) => {
          c.fillStyle = small ? color.muted : bold && res.results[i].winner ? color.primary : color.text;
          c.fillText(cell.text, colRight(i), top + pad + (rh - pad) / 2);
        });
        if (!small) rule(c, x + 16, x + w - 16, top + rh, bold ? 2 : 1);
        top += rh;
      }
    },
  };
}

/**
 * footer says where the card comes from.
 * @returns {Block}
 */
function footer() {
  return {
    h: 40,
    draw(c, y) {
      c.fillStyle = color.muted;
      c.font = font(600, 13);
      c.textAlign = 'center';
      c.fillText(text.footer, WIDTH / 2, y + 22);
    },
  };
}

/**
 * longDay writes the day of the game: "Tuesday 1 December 2026".
 * @param {Date} date
 */
function longDay(date) {
  return formatDate(date, { weekday: 'long', day: 'numeric', month: 'long', year: 'numeric' });
}

/**
 * isoDay is the day in the file's name: 2026-12-01 (local time).
 * @param {Date} date
 */
function isoDay(date) {
  const pad = (/** @type {number} */ n) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/**
 * describe says what went wrong, in a few words: a DOMException's name
 * (NotAllowedError) says something, a plain Error's does not.
 * @param {unknown} err
 */
function describe(err) {
  if (err instanceof Error && err.name === 'Error') return err.message;
  if (err instanceof Error) return err.message ? `${err.name}: ${err.message}` : err.name;
  return String(err);
}
