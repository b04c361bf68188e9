// boardset.js: what the quick-score screen (score.js) and "log a past play"
// (logplay.js) share: the boards of a game being entered. A tab per player
// holds their name, their board form (forms.js) and a remove button; the
// house rules sit above, and a bar below shows the shown player's live
// total. Every change is rescored at once by the rules engine in the
// browser once it is loaded, and until then by POST
// /api/v1/games/{id}/score after a short pause (only the newest answer
// counts); errors and warnings are shown at the fields they name. The screens add what differs:
// where the boards are kept, and what the bar's button does. A name field
// starts empty ("Player 2" is its placeholder, and how a blank name is
// scored) and offers the group's players as one-tap chips.

import { h, replace, debounce, uid } from '../ui/dom.js';
import { plural, t } from '../ui/i18n.js';
import { ApiError } from '../sync/http.js';
import { scoreGame } from '../sync/games.js';
import { engineReady } from '../engine/engine.js';
import { clearProblems, concerns, markProblems, playerOf } from '../ui/problems.js';
import { field, segmented, toggle } from '../ui/widgets.js';
import { boardField, boardRequest, unitOf } from './forms.js';
import { nameChips } from '../ui/names.js';
import { showSheetTotal } from './totals.js';

/** @typedef {import('../sync/http.js').Spec} Spec */
/** @typedef {import('../sync/http.js').Result} Result */
/** @typedef {import('../sync/http.js').FieldError} FieldError */
/** @typedef {import('../sync/http.js').PlayerEntry} PlayerEntry */
/** @typedef {import('./forms.js').BoardForm} BoardForm */
/** @typedef {{players: PlayerEntry[], variants: Object<string, number>, active: number}} Boards */

/** How long typing must pause before the boards are rescored. */
const rescoreDelay = 250;

/**
 * @typedef {Object} BoardSetOptions
 * @property {Spec} spec
 * @property {BoardForm} form
 * @property {Boards} state the players, the house rules and the tab shown; changed in place
 * @property {HTMLElement} root the screen: the forms' dialogs open here, and problems are marked here
 * @property {HTMLElement} action the bar's button, beside the live total
 * @property {() => void} persist keeps the state; called after every change
 * @property {(i: number) => string} newName the name player i starts with when added
 * @property {boolean} liveNames true: renaming rescores, so a repeated name is
 *   flagged at once; false: it does not (the names are checked when the play
 *   is saved). Either way a blank name is scored as "Player N".
 * @property {(result: Result | null, i: number) => string} note the bar's note on
 *   player i when no entry needs a look
 * @property {Promise<string[]> | string[]} [names] names the name fields offer
 *   (the group's players, most recent first), as chips and as suggestions
 * @property {string} [namePlaceholder] the empty name field's hint; "Player N" without
 * @property {(who: string, remove: () => void) => void} [confirmRemove] asks before
 *   a player and their board go; without it they go at once
 */

/**
 * @typedef {Object} BoardSet
 * @property {HTMLElement[]} body the banner, the house rules, the tabs and the panels, in order
 * @property {HTMLElement} bar the action bar: live total, then the action
 * @property {() => void} changed call after a change the screen made: keeps and rescores
 * @property {(err: ApiError) => void} refuse shows why a save was refused, at the fields
 * @property {() => void} restart redraws everything after the state was replaced
 * @property {() => void} cancelRescore drops a rescore still waiting for typing to pause
 * @property {() => void} stop the screen's cleanup
 */

/**
 * playerName is how player i is called: their name, or "Player N" while
 * the field is blank.
 * @param {{name: string}} p
 * @param {number} i
 */
export function playerName(p, i) {
  return p?.name.trim() || t('ui.score.playerN', { n: i + 1 });
}

/**
 * scoreRequest is the score request for a set of boards; a blank name is
 * sent as "Player N".
 * @param {Boards} state
 * @param {BoardForm} form
 * @returns {import('../sync/http.js').ScoreRequest}
 */
export function scoreRequest(state, form) {
  return {
    players: state.players.map((p, i) => ({ name: playerName(p, i), board: boardRequest(form, p.board) })),
    variants: { ...state.variants },
  };
}

/**
 * boardSet draws the players' tabs, boards, house rules and live total,
 * and keeps them scored.
 * @param {BoardSetOptions} o
 * @returns {BoardSet}
 */
export function boardSet(o) {
  const { spec, form, state, root } = o;
  /** @type {Result | null} */ let result = null;
  /** @type {FieldError[]} */ let live = [];
  /** @type {FieldError[]} what the last save was refused for, until the next change */
  let refused = [];
  /** @type {string | null} why the server cannot be reached, while it cannot */
  let offline = null;
  let seq = 0;
  /** @type {AbortController | null} */ let inflight = null;

  const listId = o.names ? uid('names') : undefined;
  const datalist = o.names ? h('datalist', { id: listId }) : null;
  Promise.resolve(o.names ?? []).then((names) => {
    if (datalist) replace(datalist, names.map((n) => h('option', { value: n })));
  }, () => { /* no names to offer: they are typed */ });
  /** @type {import('../ui/names.js').NameChips[]} the chips of each player's name field */
  let chipRows = [];
  const banner = h('div', { class: 'banner', role: 'alert', hidden: true });
  const tablist = h('div', { class: 'tabs', role: 'tablist', 'aria-label': t('ui.score.players') });
  // The tile says what it does in words: a bare "+" was not read as "a player".
  const addBtn = /** @type {HTMLButtonElement} */ (h('button', {
    type: 'button', class: 'add-player', dataset: { testid: 'add-player' }, on: { click: addPlayer },
  }, h('span', { class: 'add-plus', 'aria-hidden': 'true' }, '+'), h('span', { class: 'add-label' }, t('ui.score.addPlayer'))));
  const panels = h('div', { class: 'panels' });
  const liveName = h('span', { class: 'live-name' });
  const liveTotal = h('strong', { class: 'live-total', dataset: { testid: 'live-total' } }, '–');
  const liveUnit = h('span', { class: 'live-unit' }, 'points');
  const liveState = h('span', { class: 'live-state' });
  let variants = spec.variants.length ? variantsPanel() : null;

  const rescoreSoon = debounce(rescore, rescoreDelay);
  const changed = () => {
    refused = [];
    o.persist();
    // In the browser a total takes no round trip: no need to wait for typing to pause.
    if (engineReady()) {
      rescoreSoon.cancel();
      rescore();
    } else rescoreSoon();
  };

  const body = /** @type {HTMLElement[]} */ ([
    banner,
    datalist,
    variants,
    h('div', { class: 'tabbar field', dataset: { pointer: '/players' } },
      h('div', { class: 'tabbar-row' }, tablist, addBtn),
      h('div', { class: 'msgs' })),
    panels,
  ].filter((el) => el !== null));
  const bar = h('div', { class: 'actionbar' },
    h('div', { class: 'live', 'aria-live': 'polite', 'aria-atomic': 'true' }, liveName, ' ', liveTotal, ' ', liveUnit, h('br'), liveState),
    o.action);

  drawPlayers();
  rescore();

  /** variantsPanel has one control per house rule the game offers. */
  function variantsPanel() {
    return h('details', { class: 'panel variants', open: Object.keys(state.variants).length > 0 },
      h('summary', {}, t('ui.play.houseRules')),
      spec.variants.map((v) => {
        const pointer = `/variants/${v.key}`;
        const value = state.variants[v.key] ?? v.default;
        /** @param {number} x */
        const set = (x) => {
          if (x === v.default) delete state.variants[v.key]; else state.variants[v.key] = x;
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
    replace(tablist, state.players.map((p, i) => h('button', {
      type: 'button', role: 'tab', id: `tab-${i}`, class: 'tab', 'aria-controls': `panel-${i}`,
      'aria-selected': String(i === state.active), tabindex: i === state.active ? 0 : -1, dataset: { player: i },
      on: { click: () => select(i), keydown: tabKeys },
    }, h('span', { class: 'tab-name' }, playerName(p, i)), h('span', { class: 'tab-total' }, '–'))));
    addBtn.hidden = state.players.length >= spec.maxPlayers;
    chipRows = [];
    replace(panels, state.players.map((_, i) => playerPanel(i)));
    showResult();
    showProblems();
  }

  /**
   * playerPanel holds one player's name, board and remove button.
   * @param {number} i
   */
  function playerPanel(i) {
    const p = state.players[i];
    const nameIn = /** @type {HTMLInputElement} */ (h('input', {
      id: uid('name'), type: 'text', value: p.name, maxlength: 40, autocomplete: 'off', spellcheck: 'false',
      list: listId, placeholder: o.namePlaceholder ?? t('ui.score.playerN', { n: i + 1 }), enterkeyhint: 'next',
      on: { input: () => rename(i, nameIn.value) },
    }));
    const chips = o.names ? nameChips({
      names: o.names, label: t('ui.score.namesFor', { n: i + 1 }),
      current: () => [state.players[i]?.name ?? ''],
      others: () => state.players.filter((_, k) => k !== i).map((x) => x.name),
      pick: (n) => { nameIn.value = n; rename(i, n); },
      unpick: () => { nameIn.value = ''; rename(i, ''); nameIn.focus(); },
    }) : null;
    if (chips) chipRows[i] = chips;
    const nameField = field({ label: t('ui.score.name'), pointer: `/players/${i}/name`, control: nameIn, id: nameIn.id });
    if (chips) nameField.querySelector('.msgs')?.before(chips.el);
    const canRemove = state.players.length > Math.max(1, spec.minPlayers);
    return h('section', {
      class: 'panel player field', role: 'tabpanel', id: `panel-${i}`, 'aria-labelledby': `tab-${i}`,
      hidden: i !== state.active, dataset: { pointer: `/players/${i}` },
    },
    // A heading per board keeps the forms' own headings (floors, h3) in order.
    h('h2', { class: 'sr-only board-heading' }, boardHeading(i)),
    h('div', { class: 'msgs' }),
    nameField,
    boardField(form, { spec, board: p.board, base: `/players/${i}/board`, host: root, changed, refreshErrors: showProblems }),
    canRemove ? h('button', { type: 'button', class: 'btn btn-danger-quiet remove-player', on: { click: () => removePlayer(i) } },
      t('ui.score.removePlayer', { name: playerName(p, i) })) : null);
  }

  /** @param {number} i */
  function boardHeading(i) {
    return t('ui.score.boardOf', { name: playerName(state.players[i], i) });
  }

  /**
   * rename takes a name as typed into the tab and the bar.
   * @param {number} i
   * @param {string} name
   */
  function rename(i, name) {
    state.players[i].name = name;
    const called = playerName(state.players[i], i);
    const tabEl = tablist.querySelector(`#tab-${i} .tab-name`);
    if (tabEl) tabEl.textContent = called;
    if (i === state.active) liveName.textContent = called;
    const panel = panels.querySelector(`#panel-${i}`);
    const remove = panel?.querySelector('.remove-player');
    if (remove) remove.textContent = t('ui.score.removePlayer', { name: called });
    const heading = panel?.querySelector('.board-heading');
    if (heading) heading.textContent = boardHeading(i);
    for (const c of chipRows) c?.refresh();
    if (o.liveNames) {
      changed();
      return;
    }
    refused = refused.filter((e) => !e.pointer.startsWith(`/players/${i}/name`));
    o.persist();
    showResult();
    showProblems();
  }

  /** @param {number} i */
  function select(i) {
    state.active = i;
    o.persist();
    tablist.querySelectorAll('[role=tab]').forEach((tabEl, k) => {
      tabEl.setAttribute('aria-selected', String(k === i));
      tabEl.setAttribute('tabindex', k === i ? '0' : '-1');
    });
    panels.querySelectorAll('[role=tabpanel]').forEach((el, k) => { /** @type {HTMLElement} */ (el).hidden = k !== i; });
    showResult();
  }

  /** tabKeys moves between tabs with the arrow keys, as ARIA tabs do. @param {KeyboardEvent} e */
  function tabKeys(e) {
    const n = state.players.length;
    const d = { ArrowRight: 1, ArrowLeft: -1, Home: -state.active, End: n - 1 - state.active }[e.key];
    if (d === undefined) return;
    e.preventDefault();
    const i = (state.active + d + n) % n;
    select(i);
    /** @type {HTMLElement} */ (tablist.querySelector(`#tab-${i}`)).focus();
  }

  function addPlayer() {
    if (state.players.length >= spec.maxPlayers) return;
    state.players.push({ name: o.newName(state.players.length), board: form.emptyBoard(spec) });
    state.active = state.players.length - 1;
    result = null;
    live = [];
    drawPlayers();
    changed();
    /** @type {HTMLInputElement | null} */ (panels.querySelector(`#panel-${state.active} input`))?.focus();
  }

  /** @param {number} i */
  function removePlayer(i) {
    const remove = () => {
      state.players.splice(i, 1);
      state.active = Math.min(state.active, state.players.length - 1);
      result = null;
      live = [];
      drawPlayers();
      changed();
    };
    if (o.confirmRemove) o.confirmRemove(playerName(state.players[i], i), remove);
    else remove();
  }

  /** rescore asks the server for the totals; only the newest answer counts. */
  async function rescore() {
    const mine = ++seq;
    inflight?.abort();
    inflight = new AbortController();
    root.classList.add('scoring');
    try {
      const res = await scoreGame(spec.id, scoreRequest(state, form), inflight.signal);
      if (mine !== seq) return;
      result = res;
      live = [];
      offline = null;
    } catch (err) {
      if (mine !== seq || (err instanceof DOMException && err.name === 'AbortError')) return;
      if (!(err instanceof ApiError)) throw err;
      offline = err.status === 0 ? err.message : null;
      live = offline ? [] : fieldsOf(err);
    }
    root.classList.remove('scoring');
    showResult();
    showProblems();
  }

  /** showResult writes the totals into the tabs and the bar; totals the server could not check are shown faded. */
  function showResult() {
    // Only the players an error is about are faded: the others' totals still hold.
    const stale = (/** @type {number} */ k) => offline !== null || live.some((e) => [k, -1].includes(playerOf(e.pointer)));
    state.players.forEach((_, i) => {
      const tabEl = tablist.querySelector(`#tab-${i} .tab-total`);
      const r = result?.results[i];
      if (tabEl) tabEl.textContent = r ? String(r.total) : '–';
      tablist.querySelector(`#tab-${i}`)?.classList.toggle('stale', stale(i));
      showSheetTotal(panels.querySelector(`#panel-${i}`), r?.total, stale(i));
    });
    const i = state.active;
    const r = result?.results[i];
    liveName.textContent = playerName(state.players[i], i);
    liveTotal.textContent = r ? String(r.total) : '–';
    liveTotal.classList.toggle('stale', stale(i));
    liveUnit.textContent = unitOf(spec, r?.total ?? 0);
    const errors = [...live, ...refused];
    liveState.textContent = errors.length
      ? plural('ui.score.needLook', errors.length)
      : o.note(result, i);
    liveState.classList.toggle('is-error', errors.length > 0);
  }

  /** showProblems marks errors (and warnings) at their fields and tabs; the rest go in the banner. */
  function showProblems() {
    clearProblems(root);
    const errors = [...live, ...refused];
    const warnings = errors.length ? [] : (result?.results ?? []).flatMap((r) => r.warnings);
    const lost = markProblems(root, errors, 'error');
    markProblems(root, warnings, 'warning');
    tablist.querySelectorAll('[role=tab]').forEach((tabEl, i) => {
      tabEl.classList.toggle('has-error', errors.some((e) => concerns(e, i)));
      tabEl.classList.toggle('has-warning', warnings.some((e) => playerOf(e.pointer) === i));
    });
    const lines = lost.length ? lost.map((e) => capitalize(e.detail)) : offline ? [offline] : [];
    banner.hidden = lines.length === 0;
    replace(banner, lines.map((l) => h('p', {}, l)));
  }

  /**
   * refuse shows why a save was refused, opens the first player it is
   * about and scrolls the first problem into view.
   * @param {ApiError} err
   */
  function refuse(err) {
    refused = fieldsOf(err);
    showResult();
    showProblems();
    const who = refused.map((e) => playerOf(e.pointer)).find((i) => i >= 0);
    if (who !== undefined && who !== state.active) select(who);
    const first = /** @type {HTMLElement | null} */ (root.querySelector('.has-error:not(.tab), .banner:not([hidden])'));
    first?.scrollIntoView({ block: 'center' });
  }

  /** restart redraws the house rules and the players after the screen replaced them (a new game). */
  function restart() {
    result = null;
    live = [];
    if (variants) {
      const fresh = variantsPanel();
      variants.replaceWith(fresh);
      variants = fresh;
    }
    drawPlayers();
    changed();
  }

  return {
    body, bar, changed, refuse, restart,
    cancelRescore: () => rescoreSoon.cancel(),
    stop: () => { rescoreSoon.cancel(); inflight?.abort(); },
  };
}

/**
 * fieldsOf is what an API error is about: its field errors, or one
 * problem without a pointer (which lands in the banner).
 * @param {ApiError} err
 * @returns {FieldError[]}
 */
function fieldsOf(err) {
  return err.fields.length ? err.fields : [{ pointer: '', detail: err.detail || err.message }];
}

/**
 * signed shows a number with its sign: "−1", "0", "+1".
 * @param {number} n
 */
function signed(n) {
  return n > 0 ? `+${n}` : n < 0 ? `−${-n}` : '0';
}

/** @param {string} s */
function capitalize(s) {
  return s ? s.charAt(0).toUpperCase() + s.slice(1) : s;
}
