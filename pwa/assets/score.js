// score.js: the scoring screen of one game. Players are tabs; each tab
// holds the player's name and their board form (one module per game,
// ./<game>.js). Every change is saved to localStorage and, after a short
// pause, sent to POST /api/v1/games/{id}/score: the totals update live and
// the server's errors and warnings are shown at the fields they name.

import { h, replace, debounce } from './dom.js';
import { ApiError, getGame, scoreGame } from './api.js';
import { loadEntry, saveEntry } from './store.js';
import { clearProblems, markProblems, playerOf } from './problems.js';
import { segmented, text, toggle } from './widgets.js';
import { renderResults } from './results.js';
import { openSheet } from './sheet.js';
import { boardField, boardRequest, loadForm, unitOf } from './forms.js';
import { keepInHistory } from './logplay.js';

/** @typedef {import('./api.js').Spec} Spec */
/** @typedef {import('./api.js').Result} Result */
/** @typedef {import('./api.js').FieldError} FieldError */
/** @typedef {import('./store.js').Entry} Entry */
/** @typedef {import('./forms.js').FormContext} FormContext */
/** @typedef {import('./forms.js').BoardForm} BoardForm */

/** How long typing must pause before the boards are rescored. */
const rescoreDelay = 250;

/**
 * scoreScreen draws the board entry ("edit") or results view of a game.
 * @param {HTMLElement} root
 * @param {string} game
 * @param {'edit' | 'results'} view
 * @returns {Promise<() => void>} cleanup
 */
export async function scoreScreen(root, game, view) {
  const spec = await getGame(game);
  const form = await loadForm(spec.id);
  const entry = loadEntry(spec.id) ?? newEntry(spec, form);
  fitEntry(entry, spec, form);
  if (view === 'results') return resultsView(root, spec, form, entry);
  return editView(root, spec, form, entry);
}

/**
 * newEntry starts a game with the fewest players it takes.
 * @param {Spec} spec
 * @param {BoardForm} form
 * @returns {Entry}
 */
function newEntry(spec, form) {
  const n = Math.max(1, spec.minPlayers);
  return {
    players: Array.from({ length: n }, (_, i) => ({ name: `Player ${i + 1}`, board: form.emptyBoard(spec) })),
    variants: {},
    active: 0,
  };
}

/**
 * fitEntry repairs a saved entry against the current spec.
 * @param {Entry} entry
 * @param {Spec} spec
 * @param {BoardForm} form
 */
function fitEntry(entry, spec, form) {
  entry.players = entry.players.slice(0, spec.maxPlayers);
  if (entry.players.length === 0) entry.players = newEntry(spec, form).players;
  for (const p of entry.players) {
    if (typeof p.name !== 'string') p.name = '';
    if (!p.board || typeof p.board !== 'object') p.board = form.emptyBoard(spec);
  }
  for (const k of Object.keys(entry.variants)) if (!spec.variants.some((v) => v.key === k)) delete entry.variants[k];
  entry.active = Math.min(Math.max(0, entry.active), entry.players.length - 1);
}

/**
 * requestOf is the score request for an entry.
 * @param {Entry} entry
 * @param {BoardForm} form
 * @returns {import('./api.js').ScoreRequest}
 */
export function requestOf(entry, form) {
  return {
    players: entry.players.map((p) => ({ name: p.name, board: boardRequest(form, p.board) })),
    variants: { ...entry.variants },
  };
}

/**
 * editView is the board entry: tabs of players, each with its form.
 * @param {HTMLElement} root
 * @param {Spec} spec
 * @param {BoardForm} form
 * @param {Entry} entry
 */
function editView(root, spec, form, entry) {
  /** @type {Result | null} */ let result = null;
  /** @type {FieldError[]} */ let errors = [];
  let offline = false;
  let seq = 0;
  /** @type {AbortController | null} */ let inflight = null;

  const banner = h('div', { class: 'banner', role: 'alert', hidden: true });
  const tablist = h('div', { class: 'tabs', role: 'tablist', 'aria-label': 'Players' });
  const panels = h('div', { class: 'panels' });
  const liveName = h('span', { class: 'live-name' });
  const liveTotal = h('strong', { class: 'live-total', dataset: { testid: 'live-total' } }, '–');
  const liveUnit = h('span', { class: 'live-unit' }, 'points');
  const liveState = h('span', { class: 'live-state' });

  const save = () => saveEntry(spec.id, entry);
  const rescoreSoon = debounce(rescore, rescoreDelay);
  const changed = () => { save(); rescoreSoon(); };

  replace(root,
    h('header', { class: 'topbar' },
      h('a', { class: 'back', href: '/' }, h('span', { 'aria-hidden': 'true' }, '‹'), ' Games'),
      h('h1', {}, spec.name),
      h('button', { type: 'button', class: 'btn btn-quiet', on: { click: confirmNewGame } }, 'New game')),
    banner,
    spec.variants.length ? variantsPanel() : null,
    h('div', { class: 'tabbar field', dataset: { pointer: '/players' } },
      h('div', { class: 'tabbar-row' }, tablist,
        h('button', { type: 'button', class: 'add-player', 'aria-label': 'Add a player', on: { click: addPlayer } }, '+')),
      h('div', { class: 'msgs' })),
    panels,
    h('div', { class: 'actionbar' },
      h('div', { class: 'live', 'aria-live': 'polite', 'aria-atomic': 'true' }, liveName, ' ', liveTotal, ' ', liveUnit,
        h('br'), liveState),
      h('a', { class: 'btn btn-primary', href: `/score/${spec.id}/results`, dataset: { testid: 'see-results' } }, 'See results')));

  drawPlayers();
  rescore();

  /** variantsPanel has one control per house rule the game offers. */
  function variantsPanel() {
    return h('details', { class: 'panel variants', open: Object.keys(entry.variants).length > 0 },
      h('summary', {}, 'House rules'),
      spec.variants.map((v) => {
        const pointer = `/variants/${v.key}`;
        const value = entry.variants[v.key] ?? v.default;
        /** @param {number} x */
        const set = (x) => {
          if (x === v.default) delete entry.variants[v.key]; else entry.variants[v.key] = x;
          changed();
        };
        if (v.values.length === 2 && v.values.includes(0) && v.values.includes(1)) {
          return toggle({ label: v.label, pointer, checked: value === 1, onChange: (on) => set(on ? 1 : 0) });
        }
        return segmented({ label: v.label, pointer, value, class: 'numbers', options: v.values.map((x) => ({ id: String(x), label: signed(x) })),
          onChange: (x) => set(Number(x)) });
      }));
  }

  /** drawPlayers redraws the tabs and every player's panel. */
  function drawPlayers() {
    replace(tablist, entry.players.map((p, i) => h('button', {
      type: 'button', role: 'tab', id: `tab-${i}`, class: 'tab', 'aria-controls': `panel-${i}`,
      'aria-selected': String(i === entry.active), tabindex: i === entry.active ? 0 : -1,
      dataset: { player: i },
      on: { click: () => selectPlayer(i), keydown: tabKeys },
    }, h('span', { class: 'tab-name' }, p.name || `Player ${i + 1}`), h('span', { class: 'tab-total' }, '–'))));
    /** @type {HTMLButtonElement} */ (root.querySelector('.add-player')).hidden = entry.players.length >= spec.maxPlayers;
    replace(panels, entry.players.map((p, i) => playerPanel(i)));
    showResult();
    showProblems();
  }

  /**
   * playerPanel holds one player's name, board and remove button.
   * @param {number} i
   */
  function playerPanel(i) {
    const p = entry.players[i];
    const base = `/players/${i}/board`;
    const canRemove = entry.players.length > Math.max(1, spec.minPlayers);
    return h('section', {
      class: 'panel player field', role: 'tabpanel', id: `panel-${i}`, 'aria-labelledby': `tab-${i}`,
      hidden: i !== entry.active, dataset: { pointer: `/players/${i}` },
    },
    h('div', { class: 'msgs' }),
    text({
      label: 'Name', pointer: `/players/${i}/name`, value: p.name, maxlength: 40, autocomplete: 'off',
      onChange: (v) => {
        p.name = v;
        const tabName = tablist.querySelector(`#tab-${i} .tab-name`);
        if (tabName) tabName.textContent = v || `Player ${i + 1}`;
        liveName.textContent = v;
        changed();
      },
    }),
    boardField(form, { spec, board: p.board, base, host: root, changed, refreshErrors: showProblems }),
    canRemove ? h('button', { type: 'button', class: 'btn btn-danger-quiet remove-player', on: { click: () => removePlayer(i) } },
      `Remove ${p.name || `player ${i + 1}`}`) : null);
  }

  /** @param {number} i */
  function selectPlayer(i) {
    entry.active = i;
    save();
    tablist.querySelectorAll('[role=tab]').forEach((t, k) => {
      t.setAttribute('aria-selected', String(k === i));
      t.setAttribute('tabindex', k === i ? '0' : '-1');
    });
    panels.querySelectorAll('[role=tabpanel]').forEach((p, k) => { /** @type {HTMLElement} */ (p).hidden = k !== i; });
    showResult();
  }

  /** tabKeys moves between tabs with the arrow keys, as ARIA tabs do. @param {KeyboardEvent} e */
  function tabKeys(e) {
    const n = entry.players.length;
    const d = { ArrowRight: 1, ArrowLeft: -1, Home: -entry.active, End: n - 1 - entry.active }[e.key];
    if (d === undefined) return;
    e.preventDefault();
    const i = (entry.active + d + n) % n;
    selectPlayer(i);
    /** @type {HTMLElement} */ (tablist.querySelector(`#tab-${i}`)).focus();
  }

  function addPlayer() {
    if (entry.players.length >= spec.maxPlayers) return;
    entry.players.push({ name: `Player ${entry.players.length + 1}`, board: form.emptyBoard(spec) });
    entry.active = entry.players.length - 1;
    result = null;
    errors = [];
    drawPlayers();
    changed();
    /** @type {HTMLInputElement | null} */ (panels.querySelector(`#panel-${entry.active} input`))?.focus();
  }

  /** @param {number} i */
  function removePlayer(i) {
    const p = entry.players[i];
    confirmSheet(`Remove ${p.name || `player ${i + 1}`}?`, 'Their board is deleted too.', 'Remove', () => {
      entry.players.splice(i, 1);
      entry.active = Math.min(entry.active, entry.players.length - 1);
      result = null;
      errors = [];
      drawPlayers();
      changed();
    });
  }

  function confirmNewGame() {
    confirmSheet('Start a new game?', 'Every board is cleared; the players stay.', 'Clear the boards', () => {
      for (const p of entry.players) p.board = form.emptyBoard(spec);
      entry.variants = {};
      entry.active = 0;
      result = null;
      errors = [];
      root.querySelector('.variants')?.replaceWith(...(spec.variants.length ? [variantsPanel()] : []));
      drawPlayers();
      changed();
    });
  }

  /**
   * confirmSheet asks before something that cannot be undone.
   * @param {string} title
   * @param {string} body
   * @param {string} yes
   * @param {() => void} action
   */
  function confirmSheet(title, body, yes, action) {
    const s = openSheet({
      host: root, title, body: h('p', {}, body),
      actions: [
        h('button', { type: 'button', class: 'btn', on: { click: () => s.close() } }, 'Cancel'),
        h('button', { type: 'button', class: 'btn btn-danger', on: { click: () => { s.close(); action(); } } }, yes),
      ],
    });
  }

  /** rescore asks the server for the totals; only the newest answer counts. */
  async function rescore() {
    const mine = ++seq;
    inflight?.abort();
    inflight = new AbortController();
    root.classList.add('scoring');
    try {
      const res = await scoreGame(spec.id, requestOf(entry, form), inflight.signal);
      if (mine !== seq) return;
      result = res;
      errors = [];
      offline = false;
    } catch (err) {
      if (mine !== seq || (err instanceof DOMException && err.name === 'AbortError')) return;
      if (!(err instanceof ApiError)) throw err;
      offline = err.status === 0;
      errors = offline ? [] : err.fields.length ? err.fields : [{ pointer: '', detail: err.detail || err.message }];
      if (offline) bannerText([err.message]);
    }
    root.classList.remove('scoring');
    showResult();
    showProblems();
  }

  /** showResult writes the totals into the tabs and the action bar. */
  function showResult() {
    const stale = errors.length > 0 || offline;
    entry.players.forEach((_, i) => {
      const t = tablist.querySelector(`#tab-${i} .tab-total`);
      const r = result?.results[i];
      if (t) t.textContent = r ? String(r.total) : '–';
      tablist.querySelector(`#tab-${i}`)?.classList.toggle('stale', stale);
    });
    const i = entry.active;
    const r = result?.results[i];
    liveName.textContent = entry.players[i]?.name || `Player ${i + 1}`;
    liveTotal.textContent = r ? String(r.total) : '–';
    liveTotal.classList.toggle('stale', stale);
    liveUnit.textContent = unitOf(spec, r?.total ?? 0);
    const prog = form.progress?.(entry.players[i]?.board, spec) ?? '';
    liveState.textContent = errors.length
      ? `${errors.length} ${errors.length === 1 ? 'entry needs' : 'entries need'} a look`
      : [prog, result?.complete ? 'final' : ''].filter(Boolean).join(' · ');
    liveState.classList.toggle('is-error', errors.length > 0);
  }

  /** showProblems marks errors (and warnings) at their fields and tabs. */
  function showProblems() {
    clearProblems(root);
    const warnings = errors.length ? [] : (result?.results ?? []).flatMap((r) => r.warnings);
    const lost = markProblems(root, errors, 'error');
    markProblems(root, warnings, 'warning');
    tablist.querySelectorAll('[role=tab]').forEach((t, i) => {
      t.classList.toggle('has-error', errors.some((e) => playerOf(e.pointer) === i));
      t.classList.toggle('has-warning', warnings.some((e) => playerOf(e.pointer) === i));
    });
    if (!offline) bannerText(lost.map((e) => e.detail));
  }

  /** @param {string[]} lines */
  function bannerText(lines) {
    banner.hidden = lines.length === 0;
    replace(banner, lines.map((l) => h('p', {}, l)));
  }

  return () => { rescoreSoon.cancel(); inflight?.abort(); };
}

/**
 * resultsView scores the saved boards and shows the ranked results.
 * @param {HTMLElement} root
 * @param {Spec} spec
 * @param {BoardForm} form
 * @param {Entry} entry
 */
async function resultsView(root, spec, form, entry) {
  const body = h('div', { class: 'results-body', 'aria-busy': 'true' }, h('p', { class: 'muted' }, 'Adding up…'));
  replace(root,
    h('header', { class: 'topbar' },
      h('a', { class: 'back', href: `/score/${spec.id}` }, h('span', { 'aria-hidden': 'true' }, '‹'), ' Boards'),
      h('h1', {}, 'Results'),
      h('span', { class: 'topbar-game' }, spec.name)),
    body);
  const ctrl = new AbortController();
  try {
    const res = await scoreGame(spec.id, requestOf(entry, form), ctrl.signal);
    replace(body, renderResults(spec, res, entry, res.complete ? {
      actions: [
        h('a', { class: 'btn', href: `/score/${spec.id}` }, 'Edit the boards'),
        keepInHistory(spec, entry),
        h('a', { class: 'btn btn-quiet', href: '/' }, 'Another game')],
    } : {}));
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    replace(body, h('div', { class: 'panel', role: 'alert' },
      h('h2', {}, err.status === 0 ? 'Offline' : 'Some entries need fixing'),
      err.fields.length
        ? h('ul', { class: 'problem-list' }, err.fields.map((f) => h('li', {}, h('strong', {}, whoIs(entry, f.pointer)), f.detail)))
        : h('p', {}, err.message),
      h('a', { class: 'btn btn-primary', href: `/score/${spec.id}` }, 'Back to the boards')));
  }
  body.removeAttribute('aria-busy');
  return () => ctrl.abort();
}

/**
 * signed shows a number with its sign: "−1", "0", "+1".
 * @param {number} n
 */
function signed(n) {
  return n > 0 ? `+${n}` : n < 0 ? `−${-n}` : '0';
}

/**
 * whoIs names the player a pointer is about, as a prefix for a message.
 * @param {Entry} entry
 * @param {string} pointer
 */
function whoIs(entry, pointer) {
  const i = playerOf(pointer);
  return i >= 0 ? `${entry.players[i]?.name || `Player ${i + 1}`}: ` : '';
}
