// logplay.js: a play entered after the fact, and a recorded play edited.
// The same tabs, boards and live totals as the quick-score screen
// (boardset.js), with the group's players offered as names, when it
// finished and how long it took. Saving sends the play to the history
// (POST, or PUT to edit), and what the server refuses is shown at the
// field it names. A quick score's results keep their game in one tap
// (keepInHistory), without this form.
//
//   /plays/new[?game=…]   log a past play (a draft survives a reload)
//   /plays/{id}/edit      edit a recorded play

import { h, replace, uid } from '../ui/dom.js';
import { t } from '../ui/i18n.js';
import { ApiError } from '../sync/http.js';
import { currentGroup, loadEntry, markKept, saveEntry, unmarkKept } from '../sync/kept.js';
import { editPlay, getPlay, logPlay } from '../sync/history.js';
import { getGame, listGames } from '../sync/games.js';
import { pending, register, subscribeOutbox } from '../sync/outbox.js';
import { openSheet } from '../ui/sheet.js';
import { clearProblems, markProblems } from '../ui/problems.js';
import { foldName } from '../ui/names.js';
import { getLocal as get, putLocal as put, removeLocal as remove } from '../sync/local.js';
import { navigate } from '../router.js';
import { field, segmented } from '../ui/widgets.js';
import { boardRequest, loadForm } from '../games/forms.js';
import { boardSet } from '../games/boardset.js';
import { inGroup, shortName, topbar } from './historyui.js';
import { knownPlayers } from '../sync/history.js';
import { notesFields, notesOf, notesRequest } from './playnotes.js';
import { playerName } from '../games/boardset.js';

/** @typedef {import('../sync/http.js').Spec} Spec */
/** @typedef {import('../games/forms.js').BoardForm} BoardForm */
/**
 * @typedef {{
 *   game: string, players: {name: string, board: any}[], variants: Object<string, number>,
 *   finished: string, minutes: string, active: number, from?: string,
 * } & import('./playnotes.js').NotesState} Draft
 * finished is a datetime-local value ("2026-03-14T20:30", local time);
 * minutes the length of the play as typed ("" when not known); from the
 * game whose quick score this play keeps, if it came from one; notes,
 * location and startPlayer what playnotes.js edits.
 */
/** @typedef {{finished: string, minutes: string, finishedAt: string, startedAt: string | null}} Original */

const draftKey = 'insectscore.logplay';

/**
 * localInput writes a moment as a datetime-local value, in local time.
 * @param {Date} d
 */
export function localInput(d) {
  const p = (/** @type {number} */ n) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}`;
}

/** How long a save may take before the play is left to the outbox. */
const patience = 2500;

/** @returns {Draft | null} */
function loadDraft() {
  try {
    let d = get(draftKey);
    if (d === undefined) {
      // An older version kept the draft in localStorage: take it over.
      d = JSON.parse(localStorage.getItem(draftKey) || 'null');
      if (d) put(draftKey, d);
      localStorage.removeItem(draftKey);
    }
    if (!d || typeof d.game !== 'string' || !Array.isArray(d.players)) return null;
    return {
      game: d.game, players: d.players.filter((p) => p && typeof p === 'object').map((p) => ({ name: String(p.name ?? ''), board: p.board })),
      variants: d.variants && typeof d.variants === 'object' ? d.variants : {}, finished: String(d.finished ?? ''),
      minutes: String(d.minutes ?? ''), active: Number(d.active) || 0,
      from: typeof d.from === 'string' ? d.from : undefined,
      notes: String(d.notes ?? ''), location: String(d.location ?? ''), startPlayer: String(d.startPlayer ?? ''),
    };
  } catch {
    return null;
  }
}

/**
 * saveDraft keeps the play being logged on the device, as it is typed.
 * @param {Draft | null} d
 */
function saveDraft(d) {
  if (d) put(draftKey, structuredClone(d));
  else remove(draftKey);
}

// A play handed to the outbox that the server then refuses goes back into
// the draft, so nothing typed is lost (unless another draft was begun),
// and a quick score it kept can be kept again. A quick score kept in one
// tap (meta.quick) that still holds the play needs no draft: its results
// offer to keep it again. Once the server has it, the quick score it kept
// leads to it.
register('logPlay', {
  delivered(op, play) {
    if (op.meta?.from && play?.id) markKept(op.meta.from, op.meta.kept, play.id);
  },
  refused(op) {
    const back = op.meta?.from ? unmarkKept(op.meta.from, op.meta.kept) : false;
    if (back && op.meta?.quick) return;
    const req = op.body;
    if (loadDraft() || !req || typeof req.game !== 'string') return;
    saveDraft({
      game: req.game, variants: { ...(req.variants ?? {}) }, players: req.players ?? [],
      finished: req.finishedAt ? localInput(new Date(req.finishedAt)) : localInput(new Date()),
      minutes: req.startedAt && req.finishedAt ? String(Math.round((Date.parse(req.finishedAt) - Date.parse(req.startedAt)) / 60000)) : '',
      active: 0, from: op.meta?.from, ...notesOf(req),
    });
  },
});

/**
 * sendPlay saves a play and opens it. When the server has not answered
 * within a moment, the play stays in the outbox, which logs it (once) when
 * the server is back, and the history opens with a note saying so.
 * @param {Promise<import('../sync/history.js').Play>} sent
 * @param {(play: import('../sync/history.js').Play) => void} done
 */
async function afterSave(sent, done) {
  /** @type {any} */
  const answer = await Promise.race([sent, new Promise((r) => { setTimeout(() => r(null), patience); })]);
  if (answer) {
    done(answer);
    return;
  }
  sent.catch(() => { /* the outbox shows a refusal */ });
  navigate('/history', { replace: true, notice: t('ui.log.keptOnPhone') });
}

/**
 * keepInHistory is the quick score's way into the group's history, in one
 * tap: the play is logged as the results show it (the players as named,
 * which the server matches to the group's players by name; their boards;
 * the house rules; finished now) through the outbox, so it stays on the
 * phone until the server has it and is logged once however often it is
 * sent. A player left without a name is asked for one first, and only
 * that. The results are then drawn again: they say the game is kept and
 * lead to the play, where its date, notes and boards can be changed.
 * @param {Spec} spec
 * @param {BoardForm} form
 * @param {import('../sync/kept.js').Entry} entry the quick score as kept on the phone
 * @param {HTMLElement} host where the sheet asking for names opens
 * @returns {HTMLElement}
 */
export function keepInHistory(spec, form, entry, host) {
  if (entry.kept) return keptControl(spec, entry);
  let asking = false;
  const btn = /** @type {HTMLButtonElement} */ (h('button', {
    type: 'button', class: 'btn', dataset: { testid: 'keep-play' },
    on: {
      click: () => {
        if (btn.disabled || entry.kept || asking) return;
        const unnamed = entry.players.flatMap((p, i) => (p.name.trim() ? [] : [i]));
        if (!unnamed.length) {
          keep();
          return;
        }
        asking = true;
        askNames(host, entry, unnamed, keep, () => { asking = false; });
      },
    },
  }, t('ui.log.keep')));
  return btn;

  async function keep() {
    if (entry.kept) return;
    btn.disabled = true;
    btn.setAttribute('aria-busy', 'true');
    // Marked at once, on the phone: a second tap, or a reload while the
    // play waits for the server, does not log it again.
    const kept = new Date().toISOString();
    entry.kept = kept;
    saveEntry(spec.id, entry);
    const sent = logPlay(currentGroup(), {
      game: spec.id, variants: { ...entry.variants }, finishedAt: kept,
      players: entry.players.map((p) => ({ name: p.name.trim(), board: boardRequest(form, p.board) })),
    }, { from: spec.id, kept, quick: '1' });
    // A refusal is the outbox's to say; the results then offer to keep
    // the game again.
    const answered = await Promise.race([sent.then(() => true, () => true), new Promise((r) => { setTimeout(() => r(false), patience); })]);
    if (!btn.isConnected) return;
    const still = loadEntry(spec.id)?.kept === kept;
    navigate(location.pathname, { replace: true, notice: !still ? '' : answered ? t('ui.log.keptNow') : t('ui.log.keptOnPhone') });
  }
}

/**
 * keptControl stands where "Keep in history" was once the game is kept: it
 * opens the play, or, while the play waits for the server, is disabled and
 * turns into the way to the play as soon as the server has it.
 * @param {Spec} spec
 * @param {import('../sync/kept.js').Entry} entry
 * @returns {HTMLElement}
 */
function keptControl(spec, entry) {
  const link = (/** @type {string} */ play) => h('a', { class: 'btn', href: `/plays/${play}`, dataset: { testid: 'kept-play' } }, t('ui.score.keptLink'));
  if (entry.keptPlay) return link(entry.keptPlay);
  const el = h('button', { type: 'button', class: 'btn', disabled: true, dataset: { testid: 'kept-play' } }, t('ui.score.kept'));
  const mine = (/** @type {import('../sync/outbox.js').Op} */ op) => op.kind === 'logPlay' && op.meta?.from === spec.id && op.meta?.kept === entry.kept;
  let shown = false;
  const stop = subscribeOutbox(() => {
    if (el.isConnected) shown = true;
    else if (shown) {
      stop();
      return;
    }
    if (pending(mine).length) return;
    // The outbox is done with it: its handlers have marked the entry by
    // the time this runs.
    setTimeout(() => {
      const now = loadEntry(spec.id);
      if (!el.isConnected) return;
      if (now?.kept === entry.kept && now.keptPlay) el.replaceWith(link(now.keptPlay));
      else if (!now?.kept) navigate(location.pathname, { replace: true });
      else return;
      stop();
    }, 0);
  });
  return el;
}

/**
 * askNames asks for the names of the players a quick score left unnamed
 * (a play in history is counted by name), offering the group's players,
 * and goes on once each has a name of their own.
 * @param {HTMLElement} host
 * @param {import('../sync/kept.js').Entry} entry
 * @param {number[]} unnamed the players without a name
 * @param {() => void} done
 * @param {() => void} closed the sheet is gone, whether or not it went on
 */
function askNames(host, entry, unnamed, done, closed) {
  const listId = uid('names');
  const datalist = h('datalist', { id: listId });
  knownPlayers(currentGroup()).then((names) => replace(datalist, names.map((n) => h('option', { value: n }))), () => { /* names are typed */ });
  const inputs = unnamed.map((i) => /** @type {HTMLInputElement} */ (h('input', {
    id: uid('name'), type: 'text', list: listId, maxlength: 40, autocomplete: 'off', spellcheck: 'false', dataset: { testid: `keep-name-${i}` },
  })));
  const formId = uid('keep-names');
  const body = h('form', { id: formId, novalidate: true, on: { submit } },
    h('p', {}, t('ui.log.nameThem')),
    datalist,
    unnamed.map((i, k) => field({ label: t('ui.score.playerN', { n: i + 1 }), pointer: `/players/${i}/name`, control: inputs[k], id: inputs[k].id })));
  const s = openSheet({
    host, title: t('ui.log.whoPlayed'), body, onClose: closed,
    actions: [
      h('button', { type: 'button', class: 'btn', on: { click: () => s.close() } }, t('ui.common.cancel')),
      h('button', { type: 'submit', form: formId, class: 'btn btn-primary', dataset: { testid: 'keep-named' } }, t('ui.log.keep')),
    ],
  });

  /** @param {Event} e */
  function submit(e) {
    e.preventDefault();
    clearProblems(body);
    const names = entry.players.map((p) => p.name.trim());
    unnamed.forEach((i, k) => { names[i] = inputs[k].value.trim(); });
    // A name typed twice is marked the second time; one a named player
    // has already, at once.
    const clash = (/** @type {number} */ i) => names.some((n, j) => j !== i && n && foldName(n) === foldName(names[i]) && (j < i || !unnamed.includes(j)));
    const wrong = unnamed.flatMap((i, k) => {
      if (!names[i]) return [{ k, pointer: `/players/${i}/name`, detail: t('ui.log.nameNeeded') }];
      return clash(i) ? [{ k, pointer: `/players/${i}/name`, detail: t('ui.log.nameTwice', { name: names[i] }) }] : [];
    });
    if (wrong.length) {
      markProblems(body, wrong, 'error');
      inputs[wrong[0].k].focus();
      return;
    }
    unnamed.forEach((i) => { entry.players[i].name = names[i]; });
    s.close();
    done();
  }
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
  // The group's players are offered as names, most recent first; without
  // the server (and no copy of the list) the names are typed, and the play
  // is logged later.
  const names = await inGroup(root, knownPlayers(currentGroup()));
  if (!names) return undefined;

  replace(root,
    topbar('/history', t('ui.home.history'), t('ui.lb.logPlay')),
    segmented({
      label: t('ui.history.game'), pointer: '/game', value: game, class: 'game-pick',
      options: games.map((g) => ({ id: g.id, label: shortName(g.name) })),
      onChange: (v) => {
        game = v;
        history.replaceState(null, '', `/plays/new?game=${v}`);
        open().catch((err) => replace(editorHost, h('p', { class: 'msg msg-error', role: 'alert' }, String(err?.message ?? err))));
      },
    }),
    editorHost);
  if (game) await open();
  else editorHost.append(h('p', { class: 'muted pick-first' }, t('ui.log.pickGame')));
  return () => stop?.();

  async function open() {
    stop?.();
    const spec = await getGame(game);
    const form = await loadForm(spec);
    const old = loadDraft();
    /** @type {Draft} */
    const state = old && old.game === spec.id ? old : {
      game: spec.id,
      // Switching games keeps who played.
      players: Array.from({ length: Math.max(spec.minPlayers, Math.min(spec.maxPlayers, old?.players.length ?? 0)) },
        (_, i) => ({ name: old?.players[i]?.name ?? '', board: form.emptyBoard(spec) })),
      variants: {}, finished: localInput(new Date()), minutes: old?.minutes ?? '', active: 0,
      // Switching games keeps where, and what was noted.
      notes: old?.notes ?? '', location: old?.location ?? '', startPlayer: old?.startPlayer ?? '',
    };
    fitState(state, spec, form);
    stop = playEditor(editorHost, root, {
      spec, form, state, names, original: null, saveLabel: t('ui.log.save'),
      persist: () => saveDraft(state),
      save: async (req) => {
        // A quick score kept in history is marked so, at once: it is not
        // logged twice, even while the play waits for the server.
        const kept = state.from ? new Date().toISOString() : '';
        if (state.from) markKept(state.from, kept);
        const sent = logPlay(currentGroup(), req, state.from ? { from: state.from, kept } : undefined);
        await afterSave(sent, (play) => navigate(`/plays/${play.id}`, { replace: true }));
        saveDraft(null);
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
  const play = await inGroup(root, getPlay(group, id));
  if (!play) return undefined;
  const spec = await getGame(play.game);
  const form = await loadForm(spec);
  const minutes = play.durationSeconds ? String(Math.round(play.durationSeconds / 60)) : '';
  const finished = localInput(new Date(play.finishedAt));
  /** @type {Draft} */
  const state = {
    game: play.game, variants: { ...play.variants }, finished, minutes, active: 0,
    players: play.results.map((r) => ({ name: r.player, board: r.board ?? form.emptyBoard(spec) })),
    ...notesOf(play),
  };
  fitState(state, spec, form);
  const host = h('div', { class: 'log-editor' });
  replace(root, topbar(`/plays/${id}`, t('ui.log.play'), t('ui.log.editTitle', { game: spec.name })), host);
  return playEditor(host, root, {
    spec, form, state, names: knownPlayers(group), saveLabel: t('ui.log.saveChanges'),
    original: { finished, minutes, finishedAt: play.finishedAt, startedAt: play.startedAt },
    persist: () => {},
    save: async (req) => {
      await afterSave(editPlay(group, id, req), () => navigate(`/plays/${id}`, { replace: true }));
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
  for (const k of /** @type {const} */ (['notes', 'location', 'startPlayer'])) state[k] = typeof state[k] === 'string' ? state[k] : '';
  state.active = Math.min(Math.max(0, state.active), state.players.length - 1);
}

/**
 * requestOf is the body of POST or PUT /api/v1/plays. Times the person did
 * not touch are sent as they were recorded, to the second.
 * @param {Spec} spec
 * @param {BoardForm} form
 * @param {Draft} state
 * @param {Original | null} original
 * @returns {import('../sync/history.js').PlayRequest}
 */
export function requestOf(spec, form, state, original) {
  /** @type {import('../sync/history.js').PlayRequest} */
  const req = {
    game: spec.id,
    variants: { ...state.variants },
    players: state.players.map((p) => ({ name: p.name.trim(), board: boardRequest(form, p.board) })),
    ...notesRequest(state, state.players.length),
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
 *   spec: Spec, form: BoardForm, state: Draft, names: Promise<string[]> | string[], original: Original | null,
 *   saveLabel: string, persist: () => void, save: (req: import('../sync/history.js').PlayRequest) => Promise<void>,
 * }} EditorOptions
 */

/**
 * playEditor draws the players' tabs, their names and boards, the house
 * rules (boardset.js), the time and the save bar into host.
 * @param {HTMLElement} host
 * @param {HTMLElement} root the screen, for the form's dialogs
 * @param {EditorOptions} o
 * @returns {() => void} cleanup
 */
function playEditor(host, root, o) {
  const { spec, form, state } = o;
  const saveBtn = /** @type {HTMLButtonElement} */ (h('button', { type: 'button', class: 'btn btn-primary', dataset: { testid: 'save-play' }, on: { click: save } }, o.saveLabel));
  const boards = boardSet({
    spec, form, state, root, action: saveBtn, liveNames: false,
    names: o.names, namePlaceholder: t('ui.log.whoPlayed'),
    persist: o.persist,
    newName: () => '',
    note: (result) => (result && !result.complete ? t('ui.log.notFinished') : result?.complete ? t('ui.log.ready') : ''),
  });

  const finishedIn = /** @type {HTMLInputElement} */ (h('input', {
    id: uid('when'), type: 'datetime-local', value: state.finished, max: localInput(new Date()), required: true,
    on: { change: () => { state.finished = finishedIn.value; boards.changed(); } },
  }));
  const minutesIn = /** @type {HTMLInputElement} */ (h('input', {
    id: uid('mins'), type: 'number', inputmode: 'numeric', min: 1, max: 1440, step: 1, value: state.minutes, placeholder: t('ui.play.notKnown'), class: 'minutes',
    on: { input: () => { state.minutes = minutesIn.value; boards.changed(); } },
  }));

  replace(host,
    boards.body,
    h('section', { class: 'panel when', 'aria-labelledby': `${finishedIn.id}-h` },
      h('h2', { id: `${finishedIn.id}-h` }, t('ui.log.when')),
      h('div', { class: 'field-pair' },
        field({ label: t('ui.play.finished'), pointer: '/finishedAt', control: finishedIn, id: finishedIn.id }),
        field({ label: t('ui.log.minutes'), pointer: '/startedAt', control: minutesIn, id: minutesIn.id }))),
    h('section', { class: 'panel when', 'aria-labelledby': `${finishedIn.id}-n` },
      h('h2', { id: `${finishedIn.id}-n` }, t('ui.log.whereWho')),
      notesFields(state, () => state.players.map(playerName), () => o.persist())),
    boards.bar);

  async function save() {
    boards.cancelRescore();
    saveBtn.disabled = true;
    try {
      await o.save(requestOf(spec, form, state, o.original));
    } catch (err) {
      saveBtn.disabled = false;
      if (!(err instanceof ApiError)) throw err;
      boards.refuse(err);
    }
  }

  return boards.stop;
}
