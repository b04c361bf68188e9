// store.js: entries survive a reload. One localStorage record per game
// holds the players, their boards and the variants being entered.

/** @typedef {import('./api.js').PlayerEntry} PlayerEntry */
/** @typedef {{players: PlayerEntry[], variants: Object<string, number>, active: number}} Entry */

const prefix = 'insectscore:score:';

/**
 * loadEntry returns the saved entry for a game, or null.
 * @param {string} game
 * @returns {Entry | null}
 */
export function loadEntry(game) {
  try {
    const raw = localStorage.getItem(prefix + game);
    if (!raw) return null;
    const e = JSON.parse(raw);
    if (!e || !Array.isArray(e.players)) return null;
    return { players: e.players, variants: e.variants || {}, active: Number(e.active) || 0 };
  } catch {
    return null;
  }
}

/**
 * saveEntry stores a game's entry; a full or disabled storage is ignored,
 * the entry then lives until the tab closes.
 * @param {string} game
 * @param {Entry} entry
 */
export function saveEntry(game, entry) {
  try {
    localStorage.setItem(prefix + game, JSON.stringify(entry));
  } catch {
    /* private mode or quota: keep going in memory */
  }
}

/**
 * hasEntry says whether a game has saved entries.
 * @param {string} game
 */
export function hasEntry(game) {
  try {
    return localStorage.getItem(prefix + game) !== null;
  } catch {
    return false;
  }
}
