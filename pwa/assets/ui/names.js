// names.js: players' names on a form: how the server matches them, and
// the group's players offered as one-tap chips (on every screen that asks
// for names).

import { h, replace } from './dom.js';

/**
 * foldName is a name as the server matches players: case and spacing do
 * not count.
 * @param {string} name
 */
export function foldName(name) {
  return String(name ?? '').toLowerCase().replace(/\s+/g, ' ').trim();
}

/** How many names a row of chips offers; the rest are typed (the field suggests them). */
const maxChips = 8;

/**
 * @typedef {Object} NameChips
 * @property {HTMLElement} el the row of chips, hidden while it offers none
 * @property {() => void} refresh redraws the chips after a name changed
 */

/**
 * nameChips offers the group's players as one-tap buttons, most recent
 * first. A name in use elsewhere on the form is not offered; the name the
 * field holds shows pressed, and a tap on it takes it back.
 * @param {{names: Promise<string[]> | string[], label: string, current: () => string[],
 *   others?: () => string[], pick: (name: string) => void, unpick: (name: string) => void}} o
 *   current: the names this row fills in (pressed); others: names taken elsewhere
 * @returns {NameChips}
 */
export function nameChips(o) {
  /** @type {string[]} */ let names = [];
  const el = h('div', { class: 'name-chips', role: 'group', 'aria-label': o.label, hidden: true });
  const refresh = () => {
    const mine = new Set(o.current().map(foldName));
    const taken = new Set((o.others?.() ?? []).map(foldName));
    const offered = names.filter((n) => !taken.has(foldName(n)) || mine.has(foldName(n))).slice(0, maxChips);
    replace(el, offered.map((n) => {
      const on = mine.has(foldName(n));
      return h('button', {
        type: 'button', class: 'name-chip', 'aria-pressed': String(on), dataset: { name: n },
        on: { click: () => (on ? o.unpick(n) : o.pick(n)) },
      }, n);
    }));
    el.hidden = offered.length === 0;
  };
  Promise.resolve(o.names).then((list) => {
    names = list;
    refresh();
  }, () => { /* no names to offer: they are typed */ });
  return { el, refresh };
}
