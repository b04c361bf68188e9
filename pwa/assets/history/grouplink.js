// grouplink.js: the link to the current group, on the home screen and atop
// every history screen, and the group's name as people read it.

import { h } from '../ui/dom.js';
import { t } from '../ui/i18n.js';
import { DEFAULT_GROUP, currentGroup, groupName, rememberGroup } from '../sync/kept.js';
import { getGroup } from '../sync/history.js';

/** @type {Map<string, Promise<string>>} */
const naming = new Map();

/**
 * nameOfGroup resolves a group's name: kept, or asked of the server once
 * per page. A group the server does not know resolves to "".
 * @param {string} id
 * @returns {Promise<string>}
 */
export function nameOfGroup(id) {
  const kept = groupName(id);
  if (kept) return Promise.resolve(kept);
  let p = naming.get(id);
  if (!p) {
    p = getGroup(id).then((g) => {
      rememberGroup({ id: g.id, name: g.name });
      return g.name;
    }).catch(() => {
      naming.delete(id);
      return '';
    });
    naming.set(id, p);
  }
  return p;
}

/**
 * groupLink is a link to the group switcher that names the current group;
 * the name fills in when the server has told it.
 * @param {string} [cls]
 */
export function groupLink(cls = 'group-link') {
  const id = currentGroup();
  const name = h('span', { class: 'group-name', dataset: { testid: 'current-group' } }, groupTitle(id, groupName(id)) || '…');
  nameOfGroup(id).then((n) => { if (n) name.textContent = groupTitle(id, n); });
  // The visible name starts the link's accessible name (a voice user says
  // what they see); what the link does follows for screen readers.
  return h('a', { class: cls, href: '/groups' },
    h('span', { class: 'group-icon', 'aria-hidden': 'true' }), name, h('span', { class: 'sr-only' }, t('ui.group.linkHint')));
}

/**
 * serverNames are the names the server gives the default group when it
 * creates it: "Our group", and "Our table" before migration 17 (a phone
 * may have kept it). Nobody chooses them, so the app says them in its
 * own language. "Table" is a live game here, not a group.
 */
const serverNames = ['Our group', 'Our table'];

/**
 * groupTitle is a group's name as shown: the default group's, as the
 * server names it, in the app's language.
 * @param {string} id
 * @param {string} name as the server has it
 */
export function groupTitle(id, name) {
  return id === DEFAULT_GROUP && (!name || serverNames.includes(name)) ? t('ui.group.default') : name;
}
