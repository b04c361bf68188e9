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
import {
  ApiError, DEFAULT_GROUP, createGroup, currentGroup, forgetGroup, getGroup, groupId, groupPath, importGroup, knownGroups,
  rememberGroup, setCurrentGroup,
} from '../sync/api.js';
import { openSheet } from '../ui/sheet.js';
import { topbar } from './historyui.js';
import { nameOfGroup, navigate } from './history.js';

/** @typedef {import('../sync/api.js').Group} Group */

/**
 * groupsScreen lists the groups kept on this phone, the current one
 * marked, and offers to create a group or join one by its invite link.
 * @param {HTMLElement} root
 */
export function groupsScreen(root) {
  const cur = currentGroup();
  const groups = knownGroups();
  const list = h('ul', { class: 'group-list', dataset: { testid: 'group-list' } }, groups.map((g) => {
    const name = h('span', { class: 'group-list-name' }, g.name || (g.id === DEFAULT_GROUP ? 'Our table' : '…'));
    if (!g.name) nameOfGroup(g.id).then((n) => { name.textContent = n || `${g.id.slice(0, 8)}… (not on this server)`; });
    const isCur = g.id === cur;
    return h('li', { class: ['group-row', isCur && 'current'], dataset: { group: g.id } },
      h('button', {
        type: 'button', class: 'group-pick', 'aria-pressed': String(isCur),
        on: { click: () => { setCurrentGroup({ id: g.id, name: g.name }); navigate('/groups', { replace: true }); } },
      },
      h('span', { class: 'radio', 'aria-hidden': 'true' }),
      name,
      isCur ? h('span', { class: 'tag' }, 'Current') : null),
      h('a', { class: 'btn btn-quiet group-open', href: `/groups/${g.id}`, 'aria-label': `Invite and data of ${g.name || 'this group'}` }, 'Invite ›'));
  }));

  const nameIn = /** @type {HTMLInputElement} */ (h('input', { id: 'new-group-name', type: 'text', maxlength: 60, autocomplete: 'off', placeholder: 'Thursday board games' }));
  const nameMsgs = h('div', { class: 'msgs', 'aria-live': 'polite' });
  const nameField = h('div', { class: 'field', dataset: { pointer: '/name' } },
    h('label', { class: 'label', for: 'new-group-name' }, 'Name of the new group'), nameIn, nameMsgs);
  const createBtn = /** @type {HTMLButtonElement} */ (h('button', { type: 'submit', class: 'btn btn-primary', dataset: { testid: 'create-group' } }, 'Create group'));

  const linkIn = /** @type {HTMLInputElement} */ (h('input', { id: 'invite-link', type: 'url', autocomplete: 'off', placeholder: 'https://…/g/…', inputmode: 'url' }));
  const linkMsgs = h('div', { class: 'msgs', 'aria-live': 'polite' });

  replace(root,
    topbar('/', 'Home', 'Groups', null),
    h('p', { class: 'intro muted' }, 'A group keeps its plays, players and leaderboards together. Whoever has its invite link is in it.'),
    list,
    h('form', { class: 'panel new-group', novalidate: true, on: { submit: create } },
      h('h2', {}, 'Create a group'),
      nameField,
      createBtn),
    h('form', { class: 'panel join-group', novalidate: true, on: { submit: join } },
      h('h2', {}, 'Join a group'),
      h('div', { class: 'field' }, h('label', { class: 'label', for: 'invite-link' }, 'Invite link'), linkIn,
        h('p', { class: 'hint' }, 'Or scan the group’s QR code with the camera.'), linkMsgs),
      h('button', { type: 'submit', class: 'btn' }, 'Join')));

  /** @param {Event} e */
  async function create(e) {
    e.preventDefault();
    replace(nameMsgs);
    nameField.classList.remove('has-error');
    const name = nameIn.value.trim();
    if (!name) {
      fieldError(nameField, nameMsgs, 'Give the group a name.');
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
      fieldError(/** @type {HTMLElement} */ (linkIn.parentElement), linkMsgs, 'Paste the whole invite link, ending in /g/ and the group’s code.');
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
  const notice = q.has('created') ? 'Your group is ready and is now the current group. Show the others this code, or send them the link.'
    : q.has('imported') ? 'Imported: this is now the current group, with its history.' : '';

  const fileIn = /** @type {HTMLInputElement} */ (h('input', { id: 'import-file', type: 'file', accept: '.json,application/json', class: 'file-input' }));
  const importMsgs = h('div', { class: 'msgs', 'aria-live': 'polite' });
  fileIn.addEventListener('change', () => importFile());

  replace(root,
    topbar('/groups', 'Groups', g.name, null),
    notice ? h('p', { class: 'notice done-note', role: 'status' }, notice) : null,
    h('div', { class: 'group-current' },
      isCur
        ? h('p', { class: 'tag-line' }, h('span', { class: 'tag' }, 'Current group'), ' New tables and plays are kept here.')
        : h('button', {
          type: 'button', class: 'btn btn-primary btn-wide', dataset: { testid: 'switch-group' },
          on: { click: () => { setCurrentGroup({ id: g.id, name: g.name }); navigate(`/groups/${g.id}`, { replace: true }); } },
        }, 'Make this the current group')),
    invitePanel(root, g),
    h('section', { class: 'panel data-panel', 'aria-labelledby': 'data-title' },
      h('h2', { id: 'data-title' }, 'Your data'),
      h('p', { class: 'muted' }, 'Take the whole history with you, or open the plays in a spreadsheet.'),
      h('div', { class: 'row-actions' },
        h('a', { class: 'btn', href: groupPath(g.id, '/export'), download: `insectscore-${g.id}.json`, dataset: { testid: 'export-json' } }, 'Download JSON'),
        h('a', { class: 'btn', href: groupPath(g.id, '/plays.csv'), download: `insectscore-${g.id}-plays.csv`, dataset: { testid: 'export-csv' } }, 'Plays as CSV')),
      h('div', { class: 'field import-field' },
        h('label', { class: 'label', for: 'import-file' }, 'Import a group from a JSON export'),
        fileIn,
        h('p', { class: 'hint' }, 'The group comes in with all its plays and becomes your current group.'),
        importMsgs)),
    g.id !== DEFAULT_GROUP ? h('section', { class: 'panel' },
      h('h2', {}, 'Leave'),
      h('p', { class: 'muted' }, 'Forget this group on this phone. Its history stays on the server; the invite link brings you back.'),
      h('button', {
        type: 'button', class: 'btn btn-danger-quiet',
        on: { click: () => { forgetGroup(g.id); navigate('/groups', { replace: true }); } },
      }, 'Forget on this phone')) : null);

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
      host: root, title: `Join ${g.name}`,
      body: h('div', { class: 'qr-big-body' },
        h('img', { class: 'qr qr-big', src: qrSrc, width: 600, height: 600, alt: `QR code that opens ${g.inviteUrl}` }),
        h('p', { class: 'muted' }, 'Scan with the phone’s camera.')),
      actions: [h('button', { type: 'button', class: 'btn', on: { click: () => s.close() } }, 'Done')],
    });
  };
  const canShare = typeof navigator.share === 'function';
  return h('section', { class: 'panel invite-panel', 'aria-labelledby': 'invite-title' },
    h('h2', { id: 'invite-title' }, 'Invite'),
    h('p', { class: 'muted' }, 'Whoever opens this link is in the group: they see its history and their plays count here.'),
    h('div', { class: 'join-body' },
      h('button', { type: 'button', class: 'qr-btn', 'aria-label': 'Show the QR code bigger', on: { click: enlarge } },
        h('img', { class: 'qr', src: qrSrc, width: 220, height: 220, alt: `QR code that opens ${g.inviteUrl}`, dataset: { testid: 'group-qr' } })),
      h('label', { class: 'sr-only', for: 'invite-url' }, 'Invite link'),
      h('div', { class: 'join-link' },
        url,
        h('button', {
          type: 'button', class: 'btn', dataset: { testid: 'copy-invite' },
          on: {
            click: async () => {
              try {
                await navigator.clipboard.writeText(g.inviteUrl);
                copied.textContent = 'Link copied.';
              } catch {
                url.focus();
                url.select();
                copied.textContent = 'Select the link and copy it.';
              }
            },
          },
        }, 'Copy')),
      canShare ? h('button', {
        type: 'button', class: 'btn btn-primary btn-wide',
        on: {
          click: () => navigator.share({ title: `Join ${g.name} on insectscore`, text: `Our board game scores: join ${g.name}.`, url: g.inviteUrl })
            .catch(() => { /* closed without sharing */ }),
        },
      }, 'Share the invite') : null,
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
      topbar('/', 'Home', 'Invite not found', null),
      h('div', { class: 'panel empty-state', role: 'alert' },
        h('p', {}, 'This invite does not lead to a group on this server. Ask for the link again, and check it was copied whole.'),
        h('a', { class: 'btn btn-primary', href: '/groups' }, 'Groups')));
    return;
  }
  const was = currentGroup();
  setCurrentGroup({ id: g.id, name: g.name });
  replace(root,
    topbar('/', 'Home', `You joined ${g.name}`, null),
    h('div', { class: 'panel joined', role: 'status' },
      h('p', {}, was === g.id
        ? `${g.name} was already your group on this phone.`
        : `${g.name} is now your current group: the tables you start and the plays you log are kept there, and you see its history.`),
      h('div', { class: 'row-actions' },
        h('a', { class: 'btn btn-primary', href: '/leaderboards' }, 'Leaderboards'),
        h('a', { class: 'btn', href: '/history' }, 'History'),
        h('a', { class: 'btn btn-quiet', href: '/' }, 'Score a game'))));
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
