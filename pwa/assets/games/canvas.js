// canvas.js: the result card's pen: the app's light colours and font on
// a canvas, panels, rules, and text fitted or wrapped to a width.

// The app's light colours (app.css :root).
export const color = {
  bg: '#f4f2ea',
  surface: '#ffffff',
  surface2: '#ece8dc',
  text: '#1b2420',
  muted: '#5b6862',
  line: '#ddd7c8',
  primary: '#1f5a3d',
  primaryTint: '#e3efe7',
  onPrimary: '#ffffff',
  accent: '#f2b33d',
  accentTint: '#fdf1d6',
  onAccent: '#3a2700',
  warn: '#7a5200',
};

/** The app's font stack (app.css body). */
const FAMILY = 'system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif';

/**
 * panel draws a white panel, as .panel.
 * @param {CanvasRenderingContext2D} c
 * @param {number} x @param {number} y @param {number} w @param {number} h
 */
export function panel(c, x, y, w, h) {
  roundRect(c, x, y, w, h, 14);
  c.fillStyle = color.surface;
  c.fill();
  c.lineWidth = 1;
  c.strokeStyle = color.line;
  c.stroke();
}

/**
 * rule draws a line across the breakdown.
 * @param {CanvasRenderingContext2D} c
 * @param {number} x0 @param {number} x1 @param {number} y @param {number} width
 */
export function rule(c, x0, x1, y, width) {
  c.fillStyle = color.line;
  c.fillRect(x0, y - width, x1 - x0, width);
}

/**
 * roundRect starts a path of a rectangle with round corners (the
 * canvas's own roundRect is not in every browser the app runs in).
 * @param {CanvasRenderingContext2D} c
 * @param {number} x @param {number} y @param {number} w @param {number} h @param {number} r
 */
export function roundRect(c, x, y, w, h, r) {
  c.beginPath();
  c.moveTo(x + r, y);
  c.arcTo(x + w, y, x + w, y + h, r);
  c.arcTo(x + w, y + h, x, y + h, r);
  c.arcTo(x, y + h, x, y, r);
  c.arcTo(x, y, x + w, y, r);
  c.closePath();
}

/**
 * font is a canvas font in the app's font stack.
 * @param {number} weight
 * @param {number} size in CSS pixels
 */
export function font(weight, size) {
  return `${weight} ${size}px ${FAMILY}`;
}

/**
 * fit shortens a text with an ellipsis until it fits a width, in the
 * context's font.
 * @param {CanvasRenderingContext2D} c
 * @param {string} s
 * @param {number} max
 */
export function fit(c, s, max) {
  if (c.measureText(s).width <= max) return s;
  const chars = Array.from(s);
  while (chars.length > 1 && c.measureText(`${chars.join('')}…`).width > max) chars.pop();
  return `${chars.join('').trimEnd()}…`;
}

/**
 * wrap breaks a text into lines that fit a width, at most max of them
 * (the last shortened with an ellipsis), in the context's font.
 * @param {CanvasRenderingContext2D} c
 * @param {string} s
 * @param {number} width
 * @param {number} max
 */
export function wrap(c, s, width, max) {
  /** @type {string[]} */
  const lines = [];
  let line = '';
  for (const word of s.split(/\s+/).filter(Boolean)) {
    const longer = line ? `${line} ${word}` : word;
    if (!line || c.measureText(longer).width <= width) line = longer;
    else {
      lines.push(line);
      line = word;
    }
  }
  if (line) lines.push(line);
  if (lines.length > max) lines.splice(max - 1, lines.length, lines.slice(max - 1).join(' '));
  return lines.map((l) => fit(c, l, width));
}
