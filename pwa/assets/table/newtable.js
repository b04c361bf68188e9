// newtable.js: starting a table (/tables/new): the game, the names of the
// players at hand and the house rules (?game=, ?player= and ?rule=key:value
// fill them in: a rematch).

import { h, replace } from '../ui/dom.js';
import { ApiError } from '../sync/http.js';
import { createTable } from '../sync/tables.js';
import { getGame, listGames } from '../sync/games.js';
import { currentGroup, saveTableAuth } from '../sync/kept.js';
import { navigate } from '../router.js';
import { clearProblems, markProblems } from '../ui/problems.js';
import { segmented, text, toggle } from '../ui/widgets.js';
import { foldName, nameChips } from '../ui/names.js';
import { knownPlayers } from '../sync/history.js';
import { t } from '../ui/i18n.js';
import { topbar, waitNote } from './shared.js';

/** @typedef {import('../sync/http.js').Spec} Spec */
/** @typedef {import('../sync/http.js').FieldError} FieldError */

/**
 * newTableScreen starts a table: the game, the names of the players at
 * hand (the others join by the code) and the house rules.
 * @param {HTMLElement} root
 */
export async function newTableScreen(root) {
  const games = await listGames();
  const asked = fromAddress(new URLSearchParams(location.search));
  let game = games.find((g) => g.id === asked.game)?.id ?? '';
  const names = asked.names;
  /** the house rules; a rematch's until the game is changed */
  let variants = asked.variants;
  /** @type {Spec | null} */ let spec = null;
  /** The line of names whose player starts a table played move by move. */
  let first = 0;
  // The group's players, most recent first: a tap fills the first empty
  // name (a new line when every line has one); a tap on a name taken
  // takes it back.
  const chips = nameChips({
    names: knownPlayers(currentGroup()), label: t('ui.table.groupPlayers'),
    current: () => names,
    pick: (n) => {
      const free = names.findIndex((x) => !x.trim());
      if (free >= 0) names[free] = n;
      else if (names.length < (spec?.maxPlayers ?? 4)) names.push(n);
      else return;
      drawNames();
    },
    unpick: (n) => {
      const at = names.findIndex((x) => foldName(x) === foldName(n));
      if (at < 0) return;
      names[at] = '';
      drawNames();
    },
  });

  const banner = h('div', { class: 'banner', role: 'alert', hidden: true });
  const namesEl = h('div', { class: 'names' });
  const variantsEl = h('div', { class: 'new-variants' });
  const firstEl = h('div', { class: 'new-first' });
  const addBtn = h('button', { type: 'button', class: 'btn btn-quiet add-name', on: { click: addName } }, t('ui.table.addPlayer'));
  const createBtn = /** @type {HTMLButtonElement} */ (h('button', { type: 'submit', class: 'btn btn-primary', dataset: { testid: 'create-table' } }, t('ui.table.create')));

  replace(root,
    topbar('/', t('ui.table.games'), t('ui.table.startTitle')),
    h('p', { class: 'lead intro' }, t('ui.table.intro')),
    h('form', { class: 'new-table', novalidate: true, on: { submit: create } },
      h('section', { class: 'panel' },
        segmented({ label: t('ui.table.game'), pointer: '/game', class: 'stack', options: games.map((g) => ({ id: g.id, label: g.name })), value: game,
          onChange: (v) => { if (v !== game) variants = {}; game = v; loadSpec(); } })),
      h('section', { class: 'panel' },
        h('div', { class: 'field', dataset: { pointer: '/players' } },
          h('h2', {}, t('ui.table.players')),
          h('p', { class: 'hint' }, t('ui.table.namePlayers')),
          h('div', { class: 'msgs' })),
        chips.el, namesEl, addBtn),
      firstEl,
      variantsEl,
      banner,
      h('div', { class: 'actionbar' },
        h('p', { class: 'live-state' }, t('ui.table.qrNext')),
        createBtn)));
  drawNames();
  if (game) await loadSpec();

  /** loadSpec fetches the chosen game's player counts and house rules. */
  async function loadSpec() {
    const id = game;
    const s = await getGame(id);
    if (id !== game) return;
    spec = s;
    // Redraw the names only when some must go: someone may be typing one.
    if (names.length > spec.maxPlayers) {
      names.length = spec.maxPlayers;
      drawNames();
    }
    // House rules the game does not have (a rematch's, from the address) go.
    for (const [k, v] of Object.entries(variants)) {
      if (!spec.variants.some((x) => x.key === k && x.values.includes(v))) delete variants[k];
    }
    addBtn.hidden = names.length >= spec.maxPlayers;
    drawVariants();
    drawFirst();
  }

  function drawNames() {
    replace(namesEl, names.map((n, i) => text({
      label: i === 0 ? t('ui.table.playerYou', { n: 1 }) : t('ui.table.player', { n: i + 1 }), pointer: `/players/${i}`, value: n, maxlength: 40,
      autocomplete: i === 0 ? 'nickname' : 'off', placeholder: i === 0 ? t('ui.table.yourName') : t('ui.table.nameOrEmpty'),
      onChange: (v) => { names[i] = v; chips.refresh(); drawFirst(); },
    })));
    addBtn.hidden = names.length >= (spec?.maxPlayers ?? 4);
    chips.refresh();
    drawFirst();
  }

  /**
   * drawFirst asks who starts a table played move by move (Insektenhotel:
   * "the player who was the last to stay in a hotel"). The choices
   * are the names entered; without one, the first seat starts.
   */
  function drawFirst() {
    const named = names.map((n, i) => ({ id: String(i), label: n.trim() })).filter((o) => o.label);
    if (!spec?.tracked || named.length < 2) {
      replace(firstEl);
      return;
    }
    if (!named.some((o) => o.id === String(first))) first = Number(named[0].id);
    // Typing a name redraws this; keep the focus where it is.
    const focused = firstEl.contains(document.activeElement);
    replace(firstEl, h('section', { class: 'panel' },
      segmented({ label: t('ui.table.whoStarts'), pointer: '/first', class: 'stack', options: named,
        value: String(first), onChange: (v) => { first = Number(v); } })));
    if (focused) /** @type {HTMLElement | null} */ (firstEl.querySelector('input:checked'))?.focus();
  }

  function addName() {
    names.push('');
    drawNames();
    /** @type {HTMLInputElement | null} */ (namesEl.querySelector(`[data-pointer="/players/${names.length - 1}"] input`))?.focus();
  }

  function drawVariants() {
    if (!spec || spec.variants.length === 0) replace(variantsEl);
    else replace(variantsEl, houseRules(spec, variants));
  }

  /** @param {Event} e */
  async function create(e) {
    e.preventDefault();
    clearProblems(root);
    banner.hidden = true;
    if (!game) {
      markProblems(root, [{ pointer: '/game', detail: t('ui.table.chooseGame') }], 'error');
      return;
    }
    // Empty lines are players who will join by the code; the server's
    // pointers count the names sent, so keep where each came from.
    const sent = names.map((n, i) => ({ n: n.trim(), i })).filter((x) => x.n);
    createBtn.disabled = true;
    /** @type {{game: string, players: string[], variants: Object<string, number>, first?: number}} */
    const body = { game, players: sent.map((x) => x.n), variants };
    const at = sent.findIndex((x) => x.i === first);
    if (spec?.tracked && at > 0) body.first = at;
    const req = createTable(body);
    const quiet = waitNote(() => {
      replace(banner, h('p', {}, t('ui.table.waitCreate')));
      banner.hidden = false;
    });
    try {
      const tb = await req;
      quiet();
      saveTableAuth(tb.code, { hostToken: tb.hostToken, joinUrl: tb.joinUrl });
      if (location.pathname.startsWith('/tables/new')) navigate(`/t/${tb.code}`);
    } catch (err) {
      quiet();
      if (!(err instanceof ApiError)) throw err;
      const fields = atLines(err.fields, sent);
      const lost = markProblems(root, fields, 'error');
      const lines = fields.length ? lost.map((f) => f.detail) : [err.message];
      replace(banner, lines.map((l) => h('p', {}, l)));
      banner.hidden = lines.length === 0;
    } finally {
      createBtn.disabled = false;
    }
  }
}

/**
 * fromAddress reads what the address asks a new table to start with (a
 * rematch): ?game=, ?player= (up to 8; two lines at least, empty ones to
 * fill in) and ?rule=key:value.
 * @param {URLSearchParams} q
 * @returns {{game: string | null, names: string[], variants: Object<string, number>}}
 */
function fromAddress(q) {
  const names = q.getAll('player').map((n) => n.trim()).slice(0, 8);
  while (names.length < 2) names.push('');
  /** @type {Object<string, number>} */
  const variants = {};
  for (const r of q.getAll('rule')) {
    const [k, v] = r.split(':');
    if (k && v !== undefined && Number.isFinite(Number(v))) variants[k] = Number(v);
  }
  return { game: q.get('game'), names, variants };
}

/**
 * houseRules is the panel of a game's house rules: a switch for a rule
 * that is on or off, a choice of numbers for the others. A change is set
 * in variants (a rule at its default is left out).
 * @param {Spec} spec
 * @param {Object<string, number>} variants
 */
function houseRules(spec, variants) {
  return h('section', { class: 'panel variants-new' },
    h('h2', {}, t('ui.table.houseRules')),
    spec.variants.map((v) => {
      const pointer = `/variants/${v.key}`;
      const value = variants[v.key] ?? v.default;
      /** @param {number} x */
      const set = (x) => { if (x === v.default) delete variants[v.key]; else variants[v.key] = x; };
      if (v.values.length === 2 && v.values.includes(0) && v.values.includes(1)) {
        return toggle({ label: v.label, pointer, checked: value === 1, onChange: (on) => set(on ? 1 : 0) });
      }
      return segmented({ label: v.label, pointer, value, class: 'numbers', options: v.values.map((x) => ({ id: String(x), label: String(x) })),
        onChange: (x) => set(Number(x)) });
    }));
}

/**
 * atLines moves the server's pointers at the names sent (/players/N counts
 * the names sent) to the lines they came from (empty lines are not sent).
 * @param {FieldError[]} fields
 * @param {{n: string, i: number}[]} sent each name sent and its line
 * @returns {FieldError[]}
 */
function atLines(fields, sent) {
  return fields.map((f) => {
    const m = /^\/players\/(\d+)(.*)$/.exec(f.pointer);
    return m && sent[Number(m[1])] ? { ...f, pointer: `/players/${sent[Number(m[1])].i}${m[2]}` } : f;
  });
}
