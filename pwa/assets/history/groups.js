// groups.js: the groups this phone is in. A group's id is its invite: the
// link /g/{id} (or its QR code) joins it. Here one switches between the
// groups kept on this phone, creates a group and shows its invite, joins
// one by its link, and takes a group's history out (JSON, CSV) or brings
// one in (import).
//
//   /groups          switch, create, join by link
//   /groups/{id}     one group: invite (QR, link, share), export, import
//   /g/{id}          an invite link: join the group and switch to it

import { h, replace } from '../ui/dom.js';
import { t } from '../ui/i18n.js';
import { ApiError } from '../sync/http.js';
import { DEFAULT_GROUP, currentGroup, forgetGroup, groupId, knownGroups, rememberGroup, setCurrentGroup } from '../sync/kept.js';
import { createGroup, getGroup, groupPath, importGroup } from '../sync/history.js';
import { openSheet } from '../ui/sheet.js';
import { topbar } from './historyui.js';
import { groupTitle, nameOfGroup } from './grouplink.js';
import { navigate } from '../router.js';

/** @typedef {import('../sync/history.js').Group} Group */

/**
 * groupsScreen lists the groups kept on this phone, the current one
 * marked, and offers to create a group or join one by its invite link.
 * @param {HTMLElement} root
 */
export function groupsScreen(root) {
  const cur = currentGroup();
  const groups = knownGroups();
  const list = h('ul', { class: 'group-list', dataset: { testid: 'group-list' } }, groups.map((g) => {
    const name = h('span', { class: 'group-list-name' }, groupTitle(g.id, g.name) || '…');
    if (!g.name) nameOfGroup(g.id).then((n) => { name.textContent = groupTitle(g.id, n) || t('ui.groups.notHere', { id: g.id.slice(0, 8) }); });
    const isCur = g.id === cur;
    return h('li', { class: ['group-row', isCur && 'current'], dataset: { group: g.id } },
      h('button', {
        type: 'button', class: 'group-pick', 'aria-pressed': String(isCur),
        on: { click: () => { setCurrentGroup({ id: g.id, name: g.name }); navigate('/groups', { replace: true }); } },
      },
      h('span', { class: 'radio', 'aria-hidden': 'true' }),
      name,
      isCur ? h('span', { class: 'tag' }, t('ui.groups.current')) : null),
      h('a', { class: 'btn btn-quiet group-open', href: `/groups/${g.id}`, 'aria-label': t('ui.groups.openLabel', { name: groupTitle(g.id, g.name) || t('ui.groups.thisGroup') }) }, t('ui.groups.open')));
  }));

  const nameIn = /** @type {HTMLInputElement} */ (h('input', { id: 'new-group-name', type: 'text', maxlength: 60, autocomplete: 'off', placeholder: t('ui.groups.namePlaceholder') }));
  const nameMsgs = h('div', { class: 'msgs', 'aria-live': 'polite' });
  const nameField = h('div', { class: 'field', dataset: { pointer: '/name' } },
    h('label', { class: 'label', for: 'new-group-name' }, t('ui.groups.newName')), nameIn, nameMsgs);
  const createBtn = /** @type {HTMLButtonElement} */ (h('button', { type: 'submit', class: 'btn btn-primary', dataset: { testid: 'create-group' } }, t('ui.groups.create')));

  const linkIn = /** @type {HTMLInputElement} */ (h('input', { id: 'invite-link', type: 'url', autocomplete: 'off', placeholder: 'https://…/g/…', inputmode: 'url' }));
  const linkMsgs = h('div', { class: 'msgs', 'aria-live': 'polite' });

  replace(root,
    topbar('/', t('ui.nav.home'), t('ui.group.groups'), null),
    h('p', { class: 'intro muted' }, t('ui.groups.intro')),
    list,
    h('form', { class: 'panel new-group', novalidate: true, on: { submit: create } },
      h('h2', {}, t('ui.groups.createTitle')),
      nameField,
      createBtn),
    h('form', { class: 'panel join-group', novalidate: true, on: { submit: join } },
      h('h2', {}, t('ui.groups.joinTitle')),
      h('div', { class: 'field' }, h('label', { class: 'label', for: 'invite-link' }, t('ui.groups.inviteLink')), linkIn,
        h('p', { class: 'hint' }, t('ui.groups.orScan')), linkMsgs),
      h('button', { type: 'submit', class: 'btn' }, t('ui.home.join'))));

  /** @param {Event} e */
  async function create(e) {
    e.preventDefault();
    replace(nameMsgs);
    nameField.classList.remove('has-error');
    const name = nameIn.value.trim();
    if (!name) {
      fieldError(nameField, nameMsgs, t('ui.groups.needName'));
      nameIn.focus();
      return;
    }
    createBtn.disabled = true;
    try {
      const g = await createGroup(name);
      setCurrentGroup({ id: g.id, name: g.name });
      navigate(`/groups/${g.id}?created=1`);
    } catch (err) {
      createBtn.disabled = false;
      fieldError(nameField, nameMsgs, messageOf(err));
    }
  }

  /** @param {Event} e */
  function join(e) {
    e.preventDefault();
    replace(linkMsgs);
    const raw = linkIn.value.trim();
    const m = /\/g\/([A-Za-z0-9]+)\/?$/.exec(raw) ?? /^([A-Za-z0-9]+)$/.exec(raw);
    if (!m) {
      fieldError(/** @type {HTMLElement} */ (linkIn.parentElement), linkMsgs, t('ui.groups.badLink'));
      return;
    }
    navigate(`/g/${groupId(m[1])}`);
  }
}

/**
 * groupScreen is one group's page: make it current, invite others (QR
 * code, link, share), take its history out or bring one in.
 * @param {HTMLElement} root
 * @param {string} rawId
 */
export async function groupScreen(root, rawId) {
  const id = groupId(rawId);
  const g = await getGroup(id);
  rememberGroup({ id: g.id, name: g.name });
  const isCur = currentGroup() === g.id;
  const q = new URLSearchParams(location.search);
  const notice = q.has('created') ? t('ui.groups.created')
    : q.has('imported') ? t('ui.groups.imported') : '';

  const fileIn = /** @type {HTMLInputElement} */ (h('input', { id: 'import-file', type: 'file', accept: '.json,application/json', class: 'file-input' }));
  const importMsgs = h('div', { class: 'msgs', 'aria-live': 'polite' });
  fileIn.addEventListener('change', () => importFile());

  replace(root,
    topbar('/groups', t('ui.group.groups'), groupTitle(g.id, g.name), null),
    notice ? h('p', { class: 'notice done-note', role: 'status' }, notice) : null,
    h('div', { class: 'group-current' },
      isCur
        ? h('p', { class: 'tag-line' }, h('span', { class: 'tag' }, t('ui.groups.currentGroup')), ' ', t('ui.groups.keptHere'))
        : h('button', {
          type: 'button', class: 'btn btn-primary btn-wide', dataset: { testid: 'switch-group' },
          on: { click: () => { setCurrentGroup({ id: g.id, name: g.name }); navigate(`/groups/${g.id}`, { replace: true }); } },
        }, t('ui.groups.makeCurrent'))),
    invitePanel(root, g),
    h('section', { class: 'panel data-panel', 'aria-labelledby': 'data-title' },
      h('h2', { id: 'data-title' }, t('ui.groups.data')),
      h('p', { class: 'muted' }, t('ui.groups.dataText')),
      h('div', { class: 'row-actions' },
        h('a', { class: 'btn', href: groupPath(g.id, '/export'), download: `insectscore-${g.id}.json`, dataset: { testid: 'export-json' } }, t('ui.groups.exportJSON')),
        h('a', { class: 'btn', href: groupPath(g.id, '/plays.csv'), download: `insectscore-${g.id}-plays.csv`, dataset: { testid: 'export-csv' } }, t('ui.groups.exportCSV'))),
      h('div', { class: 'field import-field' },
        h('label', { class: 'label', for: 'import-file' }, t('ui.groups.import')),
        fileIn,
        h('p', { class: 'hint' }, t('ui.groups.importHint')),
        importMsgs)),
    g.id !== DEFAULT_GROUP ? h('section', { class: 'panel' },
      h('h2', {}, t('ui.groups.leave')),
      h('p', { class: 'muted' }, t('ui.groups.leaveText')),
      h('button', {
        type: 'button', class: 'btn btn-danger-quiet',
        on: { click: () => { forgetGroup(g.id); navigate('/groups', { replace: true }); } },
      }, t('ui.groups.forget'))) : null);

  async function importFile() {
    replace(importMsgs);
    const file = fileIn.files?.[0];
    if (!file) return;
    fileIn.disabled = true;
    try {
      const text = await file.text();
      const imported = await importGroup(text);
      setCurrentGroup({ id: imported.id, name: imported.name });
      navigate(`/groups/${imported.id}?imported=1`);
    } catch (err) {
      fileIn.disabled = false;
      fileIn.value = '';
      fieldError(/** @type {HTMLElement} */ (fileIn.parentElement), importMsgs, messageOf(err));
    }
  }
}

/**
 * invitePanel shows a group's invite: the QR code (tap for bigger), the
 * link to copy, and the system's share sheet where there is one.
 * @param {HTMLElement} root
 * @param {Group} g
 */
function invitePanel(root, g) {
  const copied = h('span', { class: 'copied', role: 'status' });
  const url = /** @type {HTMLInputElement} */ (h('input', {
    id: 'invite-url', type: 'text', readonly: true, value: g.inviteUrl, class: 'join-url', dataset: { testid: 'invite-url' },
    on: { focus: () => url.select() },
  }));
  const qrSrc = groupPath(g.id, '/qr.svg');
  const enlarge = () => {
    const s = openSheet({
      host: root, title: t('ui.groups.joinName', { name: groupTitle(g.id, g.name) }),
      body: h('div', { class: 'qr-big-body' },
        h('img', { class: 'qr qr-big', src: qrSrc, width: 600, height: 600, alt: t('ui.groups.qrAlt', { url: g.inviteUrl }) }),
        h('p', { class: 'muted' }, t('ui.groups.scan'))),
      actions: [h('button', { type: 'button', class: 'btn', on: { click: () => s.close() } }, t('ui.common.done'))],
    });
  };
  const canShare = typeof navigator.share === 'function';
  return h('section', { class: 'panel invite-panel', 'aria-labelledby': 'invite-title' },
    h('h2', { id: 'invite-title' }, t('ui.groups.invite')),
    h('p', { class: 'muted' }, t('ui.groups.inviteText')),
    h('div', { class: 'join-body' },
      h('button', { type: 'button', class: 'qr-btn', 'aria-label': t('ui.groups.qrBigger'), on: { click: enlarge } },
        h('img', { class: 'qr', src: qrSrc, width: 220, height: 220, alt: t('ui.groups.qrAlt', { url: g.inviteUrl }), dataset: { testid: 'group-qr' } })),
      h('label', { class: 'sr-only', for: 'invite-url' }, t('ui.groups.inviteLink')),
      h('div', { class: 'join-link' },
        url,
        h('button', {
          type: 'button', class: 'btn', dataset: { testid: 'copy-invite' },
          on: {
            click: async () => {
              try {
                await navigator.clipboard.writeText(g.inviteUrl);
                copied.textContent = t('ui.groups.copied');
              } catch {
                url.focus();
                url.select();
                copied.textContent = t('ui.groups.copyByHand');
              }
            },
          },
        }, t('ui.groups.copy'))),
      canShare ? h('button', {
        type: 'button', class: 'btn btn-primary btn-wide',
        on: {
          click: () => navigator.share({ title: t('ui.groups.shareTitle', { name: groupTitle(g.id, g.name) }), text: t('ui.groups.shareText', { name: groupTitle(g.id, g.name) }), url: g.inviteUrl })
            .catch(() => { /* closed without sharing */ }),
        },
      }, t('ui.groups.share')) : null,
      copied));
}

/**
 * joinGroupScreen is where an invite link lands: it joins the group,
 * switches to it and says so.
 * @param {HTMLElement} root
 * @param {string} rawId
 */
export async function joinGroupScreen(root, rawId) {
  const id = groupId(rawId);
  /** @type {Group} */ let g;
  try {
    g = await getGroup(id);
  } catch (err) {
    if (!(err instanceof ApiError) || err.status !== 404) throw err;
    replace(root,
      topbar('/', t('ui.nav.home'), t('ui.groups.inviteNotFound'), null),
      h('div', { class: 'panel empty-state', role: 'alert' },
        h('p', {}, t('ui.groups.inviteNotHere')),
        h('a', { class: 'btn btn-primary', href: '/groups' }, t('ui.group.groups'))));
    return;
  }
  const was = currentGroup();
  setCurrentGroup({ id: g.id, name: g.name });
  replace(root,
    topbar('/', t('ui.nav.home'), t('ui.groups.joined', { name: groupTitle(g.id, g.name) }), null),
    h('div', { class: 'panel joined', role: 'status' },
      h('p', {}, was === g.id
        ? t('ui.groups.already', { name: groupTitle(g.id, g.name) })
        : t('ui.groups.nowCurrent', { name: groupTitle(g.id, g.name) })),
      h('div', { class: 'row-actions' },
        h('a', { class: 'btn btn-primary', href: '/leaderboards' }, t('ui.home.leaderboards')),
        h('a', { class: 'btn', href: '/history' }, t('ui.home.history')),
        h('a', { class: 'btn btn-quiet', href: '/' }, t('ui.home.title')))));
}

/**
 * fieldError writes a message under a field and marks it.
 * @param {HTMLElement} field
 * @param {HTMLElement} msgs
 * @param {string} text
 */
function fieldError(field, msgs, text) {
  field.classList.add('has-error');
  replace(msgs, h('p', { class: 'msg msg-error' }, text.charAt(0).toUpperCase() + text.slice(1)));
}

/**
 * messageOf is an error in plain words: the field's message when the
 * server named one.
 * @param {any} err
 */
function messageOf(err) {
  if (err instanceof ApiError && err.fields.length) return err.fields.map((f) => f.detail).join('; ');
  return String(err?.message ?? err);
}
