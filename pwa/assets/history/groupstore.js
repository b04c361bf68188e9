// groupstore.js: the group this browser keeps its history in, and the
// groups it knows. A group's id is its invite (knowing it is being in the
// group), so the ids kept here are what makes this phone a member. With
// nothing kept, the phone is in the server's default group.

/** @typedef {{id: string, name: string}} KnownGroup */

/** DEFAULT_GROUP is the group of a self-hosted server with no setup. */
export const DEFAULT_GROUP = 'default';

const currentKey = 'insectscore.group';
const knownKey = 'insectscore.groups';

/** @type {Map<string, string>} what this page keeps when storage is unavailable */
const memory = new Map();

/** @param {string} key */
function load(key) {
  try {
    return localStorage.getItem(key) ?? memory.get(key) ?? null;
  } catch {
    return memory.get(key) ?? null;
  }
}

/** @param {string} key @param {string} value */
function keep(key, value) {
  memory.set(key, value);
  try {
    localStorage.setItem(key, value);
  } catch {
    /* private mode or quota: kept until the tab closes */
  }
}

/**
 * groupId tidies an id as typed or read from a link: ids are lower case
 * letters and digits.
 * @param {string} id
 */
export function groupId(id) {
  return String(id || '').trim().toLowerCase();
}

/**
 * currentGroup is the id of the group new plays, tables and the history
 * screens use.
 * @returns {string}
 */
export function currentGroup() {
  const id = groupId(load(currentKey) ?? '');
  return /^[a-z0-9]+$/.test(id) ? id : DEFAULT_GROUP;
}

/**
 * setCurrentGroup switches to a group (and remembers it).
 * @param {KnownGroup} g
 */
export function setCurrentGroup(g) {
  rememberGroup(g);
  keep(currentKey, groupId(g.id));
}

/**
 * knownGroups lists the groups this browser has been in, the default
 * group first; a name may be "" until the server has been asked.
 * @returns {KnownGroup[]}
 */
export function knownGroups() {
  /** @type {KnownGroup[]} */
  let list = [];
  try {
    const raw = JSON.parse(load(knownKey) || '[]');
    if (Array.isArray(raw)) {
      list = raw.filter((g) => g && typeof g.id === 'string' && /^[a-z0-9]+$/.test(g.id))
        .map((g) => ({ id: g.id, name: typeof g.name === 'string' ? g.name : '' }));
    }
  } catch {
    /* a broken record: start over */
  }
  if (!list.some((g) => g.id === DEFAULT_GROUP)) list.unshift({ id: DEFAULT_GROUP, name: '' });
  const cur = currentGroup();
  if (!list.some((g) => g.id === cur)) list.push({ id: cur, name: '' });
  return list;
}

/**
 * rememberGroup adds a group to the known ones, or updates its name.
 * @param {KnownGroup} g
 */
export function rememberGroup(g) {
  const id = groupId(g.id);
  const list = knownGroups();
  const at = list.findIndex((x) => x.id === id);
  if (at >= 0) list[at] = { id, name: g.name || list[at].name };
  else list.push({ id, name: g.name || '' });
  keep(knownKey, JSON.stringify(list));
}

/**
 * forgetGroup drops a group from this browser; the default group stays.
 * Leaving the current group switches back to the default one.
 * @param {string} id
 */
export function forgetGroup(id) {
  const gid = groupId(id);
  if (gid === DEFAULT_GROUP) return;
  keep(knownKey, JSON.stringify(knownGroups().filter((g) => g.id !== gid)));
  if (currentGroup() === gid) keep(currentKey, DEFAULT_GROUP);
}

/**
 * groupName is the kept name of a group, or "" when not known yet.
 * @param {string} id
 */
export function groupName(id) {
  return knownGroups().find((g) => g.id === groupId(id))?.name ?? '';
}
