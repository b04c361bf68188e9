// logplay.js: a play entered after the fact, and a recorded play edited.
// The same board forms as the quick-score screen (forms.js), a tab per
// player with the group's players offered as names, when it finished and
// how long it took. Totals and rule problems update live from the score
// endpoint; saving sends the play to the history (POST, or PUT to edit),
// and what the server refuses is shown at the field it names.
//
//   /plays/new[?game=…]   log a past play (a draft survives a reload)
//   /plays/{id}/edit      edit a recorded play

import { h, replace, debounce, uid } from './dom.js';
import { ApiError, editPlay, getGame, getPlay, groupPlayers, listGames, logPlay, scoreGame } from './api.js';
import { currentGroup } from './groupstore.js';
import { navigate } from './router.js';
import { clearProblems, markProblems, playerOf } from './problems.js';
import { field, segmented, toggle } from './widgets.js';
import { boardField, boardRequest, loadForm, unitOf } from './forms.js';
import { groupTrouble, shortName, topbar } from './historyui.js';

/** @typedef {import('./api.js').Spec} Spec */
/** @typedef {import('./api.js').Result} Result */
/** @typedef {import('./api.js').FieldError} FieldError */
/** @typedef {import('./api.js').Play} Play */
/** @typedef {import('./forms.js').BoardForm} BoardForm */
/**
 * @typedef {{
 *   game: string, players: {name: string, board: any}[], variants: Object<string, number>,
 *   finished: string, minutes: string, active: number,
 * }} Draft
 * finished is a datetime-local value ("2026-03-14T20:30", local time);
 * minutes the length of the play as typed ("" when not known).
 */
/** @typedef {{finished: string, minutes: string, finishedAt: string, startedAt: string | null}} Original */

const draftKey = 'insectscore.logplay';
/** How long typing must pause before the boards are rescored. */
const rescoreDelay = 300;

/**
 * localInput writes a moment as a datetime-local value, in local time.
 * @param {Date} d
 */
export function localInput(d) {
  const p = (/** @type {number} */ n) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}`;
}

/** @returns {Draft | null} */
function loadDraft() {
  try {
    const d = JSON.parse(localStorage.getItem(draftKey) || 'null');
    if (!d || typeof d.game !== 'string' || !Array.isArray(d.players)) return null;
    return {
      game: d.game, players: d.players.filter((p) => p && typeof p === 'object').map((p) => ({ name: String(p.name ?? ''), board: p.board })),
      variants: d.variants && typeof d.variants === 'object' ? d.variants : {}, finished: String(d.finished ?? ''),
      minutes: String(d.minutes ?? ''), active: Number(d.active) || 0,
    };
  } catch {
    return null;
  }
}

/** @param {Draft | null} d */
function saveDraft(d) {
  try {
    if (d) localStorage.setItem(draftKey, JSON.stringify(d));
    else localStorage.removeItem(draftKey);
  } catch {
    /* private mode or quota: the draft lives until the tab closes */
  }
}

/**
 * keepInHistory is the quick-score results' way into the group's history:
 * it opens "Log a past play" with the boards filled in, so the names (the
 * group's players) and the date are checked before the play is saved.
 * @param {Spec} spec
 * @param {{players: {name: string, board: any}[], variants: Object<string, number>}} entry
 */
export function keepInHistory(spec, entry) {
  return h('button', {
    type: 'button', class: 'btn', dataset: { testid: 'keep-play' },
    on: {
      click: () => {
        saveDraft({
          game: spec.id, variants: { ...entry.variants }, finished: localInput(new Date()), minutes: '', active: 0,
          // "Player 2" is the quick-score's placeholder, not somebody's name.
          players: entry.players.map((p) => ({ name: /^Player \d+$/.test(p.name.trim()) ? '' : p.name, board: structuredClone(p.board) })),
        });
        navigate(`/plays/new?game=${spec.id}`);
      },
    },
  }, 'Keep in history');
}

/**
 * logPlayScreen logs a play that had no table: pick the game, then enter
 * the boards, names and date.
 * @param {HTMLElement} root
 */
export async function logPlayScreen(root) {
  const games = await listGames();
  const draft = loadDraft();
  const asked = new URLSearchParams(location.search).get('game') ?? '';
  let game = games.some((g) => g.id === asked) ? asked : draft?.game ?? '';
  const editorHost = h('div', { class: 'log-editor' });
  /** @type {(() => void) | undefined} */ let stop;
  /** @type {string[]} */ let names = [];
  try {
    names = (await groupPlayers(currentGroup())).players.map((p) => p.name);
  } catch (err) {
    if (groupTrouble(root, err)) return undefined;
    throw err;
  }

  replace(root,
    topbar('/history', 'History', 'Log a past play'),
    segmented({
      label: 'Game', pointer: '/game', value: game, class: 'game-pick',
      options: games.map((g) => ({ id: g.id, label: shortName(g.name) })),
      onChange: (v) => {
        game = v;
        history.replaceState(null, '', `/plays/new?game=${v}`);
        open().catch((err) => replace(editorHost, h('p', { class: 'msg msg-error', role: 'alert' }, String(err?.message ?? err))));
      },
    }),
    editorHost);
  if (game) await open();
  else editorHost.append(h('p', { class: 'muted pick-first' }, 'Choose the game you played.'));
  return () => stop?.();

  async function open() {
    stop?.();
    const spec = await getGame(game);
    const form = await loadForm(spec.id);
    const old = loadDraft();
    /** @type {Draft} */
    const state = old && old.game === spec.id ? old : {
      game: spec.id,
      // Switching games keeps who played.
      players: Array.from({ length: Math.max(spec.minPlayers, Math.min(spec.maxPlayers, old?.players.length ?? 0)) },
        (_, i) => ({ name: old?.players[i]?.name ?? '', board: form.emptyBoard(spec) })),
      variants: {}, finished: localInput(new Date()), minutes: old?.minutes ?? '', active: 0,
    };
    fitState(state, spec, form);
    stop = playEditor(editorHost, root, {
      spec, form, state, names, original: null, saveLabel: 'Save play',
      persist: () => saveDraft(state),
      save: async (req) => {
        const play = await logPlay(currentGroup(), req);
        saveDraft(null);
        navigate(`/plays/${play.id}`, { replace: true });
      },
    });
  }
}

/**
 * editPlayScreen edits the boards, names and time of a recorded play.
 * @param {HTMLElement} root
 * @param {string} id
 */
export async function editPlayScreen(root, id) {
  const group = currentGroup();
  /** @type {Play} */ let play;
  try {
    play = await getPlay(group, id);
  } catch (err) {
    if (groupTrouble(root, err)) return undefined;
    throw err;
  }
  const [spec, { players }] = await Promise.all([getGame(play.game), groupPlayers(group)]);
  const form = await loadForm(spec.id);
  const minutes = play.durationSeconds ? String(Math.round(play.durationSeconds / 60)) : '';
  const finished = localInput(new Date(play.finishedAt));
  /** @type {Draft} */
  const state = {
    game: play.game, variants: { ...play.variants }, finished, minutes, active: 0,
    players: play.results.map((r) => ({ name: r.player, board: r.board ?? form.emptyBoard(spec) })),
  };
  fitState(state, spec, form);
  const host = h('div', { class: 'log-editor' });
  replace(root, topbar(`/plays/${id}`, 'Play', `Edit ${spec.name}`), host);
  return playEditor(host, root, {
    spec, form, state, names: players.map((p) => p.name), saveLabel: 'Save changes',
    original: { finished, minutes, finishedAt: play.finishedAt, startedAt: play.startedAt },
    persist: () => {},
    save: async (req) => {
      await editPlay(group, id, req);
      navigate(`/plays/${id}`, { replace: true });
    },
  });
}

/**
 * fitState repairs a draft against the game's spec.
 * @param {Draft} state
 * @param {Spec} spec
 * @param {BoardForm} form
 */
function fitState(state, spec, form) {
  state.players = state.players.slice(0, spec.maxPlayers);
  while (state.players.length < Math.max(1, spec.minPlayers)) state.players.push({ name: '', board: form.emptyBoard(spec) });
  for (const p of state.players) if (!p.board || typeof p.board !== 'object') p.board = form.emptyBoard(spec);
  for (const k of Object.keys(state.variants)) if (!spec.variants.some((v) => v.key === k)) delete state.variants[k];
  if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d$/.test(state.finished)) state.finished = localInput(new Date());
  state.active = Math.min(Math.max(0, state.active), state.players.length - 1);
}

/**
 * requestOf is the body of POST or PUT /api/v1/plays. Times the person did
 * not touch are sent as they were recorded, to the second.
 * @param {Spec} spec
 * @param {BoardForm} form
 * @param {Draft} state
 * @param {Original | null} original
 * @returns {import('./api.js').PlayRequest}
 */
export function requestOf(spec, form, state, original) {
  /** @type {import('./api.js').PlayRequest} */
  const req = {
    game: spec.id,
    variants: { ...state.variants },
    players: state.players.map((p) => ({ name: p.name.trim(), board: boardRequest(form, p.board) })),
  };
  const sameFinish = original && state.finished === original.finished;
  const finish = sameFinish ? new Date(original.finishedAt) : state.finished ? new Date(state.finished) : null;
  if (finish && !Number.isNaN(finish.getTime())) req.finishedAt = sameFinish ? original.finishedAt : finish.toISOString();
  const mins = Number(state.minutes);
  if (state.minutes.trim() !== '' && Number.isFinite(mins) && mins > 0) {
    if (sameFinish && original.startedAt && state.minutes === original.minutes) req.startedAt = original.startedAt;
    else req.startedAt = new Date((finish ?? new Date()).getTime() - Math.round(mins) * 60000).toISOString();
  }
  return req;
}

/**
 * @typedef {{
 *   spec: Spec, form: BoardForm, state: Draft, names: string[], original: Original | null,
 *   saveLabel: string, persist: () => void, save: (req: import('./api.js').PlayRequest) => Promise<void>,
 * }} EditorOptions
 */

/**
 * playEditor draws the players' tabs, their names and boards, the time,
 * the house rules and the save bar into host.
 * @param {HTMLElement} host
 * @param {HTMLElement} root the screen, for the form's dialogs
 * @param {EditorOptions} o
 * @returns {() => void} cleanup
 */
function playEditor(host, root, o) {
  const { spec, form, state } = o;
  /** @type {Result | null} */ let result = null;
  /** @type {FieldError[]} */ let live = [];
  /** @type {FieldError[]} */ let refused = [];
  let seq = 0;
  /** @type {AbortController | null} */ let inflight = null;

  const listId = uid('names');
  const banner = h('div', { class: 'banner', role: 'alert', hidden: true });
  const tablist = h('div', { class: 'tabs', role: 'tablist', 'aria-label': 'Players' });
  const addBtn = /** @type {HTMLButtonElement} */ (h('button', { type: 'button', class: 'add-player', 'aria-label': 'Add a player', on: { click: addPlayer } }, '+'));
  const panels = h('div', { class: 'panels' });
  const liveName = h('span', { class: 'live-name' });
  const liveTotal = h('strong', { class: 'live-total', dataset: { testid: 'live-total' } }, '–');
  const liveUnit = h('span', { class: 'live-unit' }, 'points');
  const liveState = h('span', { class: 'live-state' });
  const saveBtn = /** @type {HTMLButtonElement} */ (h('button', { type: 'button', class: 'btn btn-primary', dataset: { testid: 'save-play' }, on: { click: save } }, o.saveLabel));

  const rescoreSoon = debounce(rescore, rescoreDelay);
  const changed = () => { refused = []; o.persist(); rescoreSoon(); };

  const finishedIn = /** @type {HTMLInputElement} */ (h('input', {
    id: uid('when'), type: 'datetime-local', value: state.finished, max: localInput(new Date()), required: true,
    on: { change: () => { state.finished = finishedIn.value; changed(); } },
  }));
  const minutesIn = /** @type {HTMLInputElement} */ (h('input', {
    id: uid('mins'), type: 'number', inputmode: 'numeric', min: 1, max: 1440, step: 1, value: state.minutes, placeholder: 'not known', class: 'minutes',
    on: { input: () => { state.minutes = minutesIn.value; changed(); } },
  }));

  replace(host,
    banner,
    h('datalist', { id: listId }, o.names.map((n) => h('option', { value: n }))),
    spec.variants.length ? variantsPanel() : null,
    h('div', { class: 'tabbar field', dataset: { pointer: '/players' } },
      h('div', { class: 'tabbar-row' }, tablist, addBtn),
      h('div', { class: 'msgs' })),
    panels,
    h('section', { class: 'panel when', 'aria-labelledby': `${finishedIn.id}-h` },
      h('h2', { id: `${finishedIn.id}-h` }, 'When'),
      h('div', { class: 'field-pair' },
        field({ label: 'Finished', pointer: '/finishedAt', control: finishedIn, id: finishedIn.id }),
        field({ label: 'Length (minutes)', pointer: '/startedAt', control: minutesIn, id: minutesIn.id }))),
    h('div', { class: 'actionbar' },
      h('div', { class: 'live', 'aria-live': 'polite', 'aria-atomic': 'true' }, liveName, ' ', liveTotal, ' ', liveUnit, h('br'), liveState),
      saveBtn));

  drawPlayers();
  rescore();

  /** variantsPanel has one control per house rule the game offers. */
  function variantsPanel() {
    return h('details', { class: 'panel variants', open: Object.keys(state.variants).length > 0 },
      h('summary', {}, 'House rules'),
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
        return segmented({ label: v.label, pointer, value, class: 'numbers', options: v.values.map((x) => ({ id: String(x), label: String(x) })),
          onChange: (x) => set(Number(x)) });
      }));
  }

  /** drawPlayers redraws the tabs and every player's panel. */
  function drawPlayers() {
    replace(tablist, state.players.map((p, i) => h('button', {
      type: 'button', role: 'tab', id: `tab-${i}`, class: 'tab', 'aria-controls': `panel-${i}`,
      'aria-selected': String(i === state.active), tabindex: i === state.active ? 0 : -1, dataset: { player: i },
      on: { click: () => select(i), keydown: tabKeys },
    }, h('span', { class: 'tab-name' }, p.name || `Player ${i + 1}`), h('span', { class: 'tab-total' }, '–'))));
    addBtn.hidden = state.players.length >= spec.maxPlayers;
    replace(panels, state.players.map((_, i) => playerPanel(i)));
    showResult();
    showProblems();
  }

  /** @param {number} i */
  function playerPanel(i) {
    const p = state.players[i];
    const nameIn = /** @type {HTMLInputElement} */ (h('input', {
      id: uid('name'), type: 'text', value: p.name, maxlength: 40, autocomplete: 'off', spellcheck: 'false',
      list: listId, placeholder: 'Who played', enterkeyhint: 'next',
      on: {
        input: () => {
          p.name = nameIn.value;
          const t = tablist.querySelector(`#tab-${i} .tab-name`);
          if (t) t.textContent = p.name || `Player ${i + 1}`;
          if (i === state.active) liveName.textContent = p.name || `Player ${i + 1}`;
          refused = refused.filter((e) => !e.pointer.startsWith(`/players/${i}/name`));
          o.persist();
          showResult();
          showProblems();
        },
      },
    }));
    const canRemove = state.players.length > Math.max(1, spec.minPlayers);
    return h('section', {
      class: 'panel player field', role: 'tabpanel', id: `panel-${i}`, 'aria-labelledby': `tab-${i}`,
      hidden: i !== state.active, dataset: { pointer: `/players/${i}` },
    },
    h('div', { class: 'msgs' }),
    field({ label: 'Name', pointer: `/players/${i}/name`, control: nameIn, id: nameIn.id }),
    boardField(form, { spec, board: p.board, base: `/players/${i}/board`, host: root, changed, refreshErrors: showProblems }),
    canRemove ? h('button', { type: 'button', class: 'btn btn-danger-quiet remove-player', on: { click: () => removePlayer(i) } },
      `Remove ${p.name || `player ${i + 1}`}`) : null);
  }

  /** @param {number} i */
  function select(i) {
    state.active = i;
    o.persist();
    tablist.querySelectorAll('[role=tab]').forEach((t, k) => {
      t.setAttribute('aria-selected', String(k === i));
      t.setAttribute('tabindex', k === i ? '0' : '-1');
    });
    panels.querySelectorAll('[role=tabpanel]').forEach((el, k) => { /** @type {HTMLElement} */ (el).hidden = k !== i; });
    showResult();
  }

  /** @param {KeyboardEvent} e */
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
    state.players.push({ name: '', board: form.emptyBoard(spec) });
    state.active = state.players.length - 1;
    result = null;
    live = [];
    drawPlayers();
    changed();
    /** @type {HTMLInputElement | null} */ (panels.querySelector(`#panel-${state.active} input`))?.focus();
  }

  /** @param {number} i */
  function removePlayer(i) {
    state.players.splice(i, 1);
    state.active = Math.min(state.active, state.players.length - 1);
    result = null;
    live = [];
    drawPlayers();
    changed();
  }

  /** rescore asks the score endpoint for totals and rule problems; only the newest answer counts. */
  async function rescore() {
    const mine = ++seq;
    inflight?.abort();
    inflight = new AbortController();
    const req = {
      players: state.players.map((p, i) => ({ name: p.name.trim() || `Player ${i + 1}`, board: boardRequest(form, p.board) })),
      variants: { ...state.variants },
    };
    try {
      const res = await scoreGame(spec.id, req, inflight.signal);
      if (mine !== seq) return;
      result = res;
      live = [];
    } catch (err) {
      if (mine !== seq || (err instanceof DOMException && err.name === 'AbortError')) return;
      if (!(err instanceof ApiError)) throw err;
      result = null;
      live = err.status === 0 ? [] : err.fields.length ? err.fields : [{ pointer: '', detail: err.detail || err.message }];
    }
    showResult();
    showProblems();
  }

  /** showResult writes the totals into the tabs and the save bar. */
  function showResult() {
    state.players.forEach((_, i) => {
      const t = tablist.querySelector(`#tab-${i} .tab-total`);
      if (t) t.textContent = result?.results[i] ? String(result.results[i].total) : '–';
    });
    const i = state.active;
    const r = result?.results[i];
    liveName.textContent = state.players[i]?.name || `Player ${i + 1}`;
    liveTotal.textContent = r ? String(r.total) : '–';
    liveUnit.textContent = unitOf(spec, r?.total ?? 0);
    const errors = [...live, ...refused];
    liveState.textContent = errors.length
      ? `${errors.length} ${errors.length === 1 ? 'entry needs' : 'entries need'} a look`
      : result && !result.complete ? 'not finished yet' : result?.complete ? 'ready to save' : '';
    liveState.classList.toggle('is-error', errors.length > 0);
  }

  /** showProblems marks errors and warnings at their fields and tabs. */
  function showProblems() {
    clearProblems(root);
    const errors = [...live, ...refused];
    const warnings = errors.length ? [] : (result?.results ?? []).flatMap((r) => r.warnings);
    const lost = markProblems(root, errors, 'error');
    markProblems(root, warnings, 'warning');
    tablist.querySelectorAll('[role=tab]').forEach((t, i) => {
      t.classList.toggle('has-error', errors.some((e) => playerOf(e.pointer) === i));
      t.classList.toggle('has-warning', warnings.some((e) => playerOf(e.pointer) === i));
    });
    banner.hidden = lost.length === 0;
    replace(banner, lost.map((e) => h('p', {}, e.detail.charAt(0).toUpperCase() + e.detail.slice(1))));
  }

  async function save() {
    rescoreSoon.cancel();
    saveBtn.disabled = true;
    try {
      await o.save(requestOf(spec, form, state, o.original));
    } catch (err) {
      saveBtn.disabled = false;
      if (!(err instanceof ApiError)) throw err;
      refused = err.fields.length ? err.fields : [{ pointer: '', detail: err.detail || err.message }];
      showResult();
      showProblems();
      // Show the first player with a problem, and scroll it into view.
      const who = refused.map((e) => playerOf(e.pointer)).find((i) => i >= 0);
      if (who !== undefined && who !== state.active) select(who);
      const first = /** @type {HTMLElement | null} */ (root.querySelector('.has-error:not(.tab), .banner:not([hidden])'));
      first?.scrollIntoView({ block: 'center' });
    }
  }

  return () => { rescoreSoon.cancel(); inflight?.abort(); };
}
