// history.js: the endpoints of a group's history: groups, plays,
// leaderboards, players.
//
// Every history request names its group (?group=<id>): the group is the
// capability, so each call takes it explicitly; screens pass currentGroup().

import { copyOf, keepCopy } from './local.js';
import { newKey, pending, register, send } from './outbox.js';
import { ApiError, request, unreachable } from './http.js';
import { read } from './read.js';

/** @typedef {{id: string, name: string, createdAt: string, inviteUrl: string}} Group */
/** @typedef {{id: string, name: string}} PlayerRef */
/** @typedef {{player: string, playerId: string, total: number, rank: number, winner: boolean}} PlayResult */
/**
 * @typedef {{notes: string, location: string, startPlayer: number | null, links: {bgStats: string}}} PlayNotes
 * startPlayer is an index into results; links.bgStats hands the play to BG Stats.
 */
/** @typedef {{id: string, game: string, finishedAt: string, results: PlayResult[]} & PlayNotes} PlaySummary */
/**
 * @typedef {PlayResult & {nameAsEntered: string, breakdown: {key: string, label: string, points: number}[], board: any}} PlayPlayer
 * @typedef {{
 *   id: string, game: string, finishedAt: string, startedAt: string | null, durationSeconds: number | null,
 *   variants: Object<string, number>, tableCode?: string, results: PlayPlayer[], standings: Result | null,
 * } & PlayNotes} Play
 */
/**
 * @typedef {{game: string, variants?: Object<string, number>, startedAt?: string, finishedAt?: string,
 *   players: PlayerEntry[], notes?: string, location?: string, startPlayer?: number | null}} PlayRequest
 */
/**
 * @typedef {{plays: number, wins: number, winRate: number, avgScore: number | null, bestScore: number | null,
 *   rating: number | null, provisional: boolean, ratedPlays: number}} GameRecord
 * @typedef {GameRecord & {player: string, playerId: string}} LeaderboardEntry
 * @typedef {{playId: string, finishedAt: string, mu: number, sigma: number, rating: number}} RatingPoint
 * @typedef {{opponentId: string, opponent: string, plays: number, wins: number, losses: number, ties: number}} HeadToHead
 * @typedef {GameRecord & {game: string, lastPlayedAt: string, ratingHistory: RatingPoint[], ratingHistoryNext: string | null,
 *   scores: {score: number, count: number}[], headToHead: HeadToHead[]}} PlayerGame
 * @typedef {{player: PlayerRef, games: PlayerGame[], recent: PlaySummary[]}} PlayerStats
 */

/**
 * groupPath is the API path of a group, or of something below it.
 * @param {string} id
 * @param {string} [rest] "/qr.svg", "/export", …
 */
export function groupPath(id, rest = '') {
  return `/api/v1/groups/${encodeURIComponent(id)}${rest}`;
}

/**
 * inGroup adds ?group= (and any other query values given) to an API path.
 * @param {string} path
 * @param {string} group
 * @param {Object<string, string | number | undefined>} [query]
 */
export function inGroup(path, group, query = {}) {
  const q = new URLSearchParams({ group });
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '') q.set(k, String(v));
  return `${path}?${q}`;
}

/**
 * createGroup makes a new group; its id is its invite.
 * @param {string} name
 * @returns {Promise<Group>}
 */
export function createGroup(name) {
  return send({
    kind: 'createGroup', lane: 'groups', method: 'POST', path: '/api/v1/groups', body: { name },
    key: newKey(), labelKey: 'ui.op.group', labelArgs: { name },
  });
}

/**
 * getGroup reads a group: what an invite link shows before joining.
 * @param {string} id
 * @returns {Promise<Group>}
 */
export function getGroup(id) {
  return read(groupPath(id));
}

/**
 * groupPlayers lists a group's players by name.
 * @param {string} id
 * @returns {Promise<{players: PlayerRef[]}>}
 */
export function groupPlayers(id) {
  return read(groupPath(id, '/players'));
}

/**
 * importGroup sends a group export file as it is; the answer is the group.
 * @param {string} json the file's text
 * @returns {Promise<Group>}
 */
export function importGroup(json) {
  return send({
    kind: 'import', lane: 'groups', method: 'POST', path: '/api/v1/groups/import', body: json, raw: true,
    key: newKey(), labelKey: 'ui.op.importedGroup',
  });
}

/**
 * listPlays reads a page of a group's plays, newest first.
 * @param {string} group
 * @param {{game?: string, player?: string, location?: string, limit?: number, cursor?: string}} [filter]
 * @param {AbortSignal} [signal]
 * @returns {Promise<{plays: PlaySummary[], next: string | null}>}
 */
export function listPlays(group, filter = {}, signal) {
  return read(inGroup('/api/v1/plays', group, filter), signal);
}

/**
 * getPlay reads a play with every board and breakdown.
 * @param {string} group
 * @param {string} id
 * @returns {Promise<Play>}
 */
export function getPlay(group, id) {
  return read(inGroup(`/api/v1/plays/${encodeURIComponent(id)}`, group));
}

/**
 * logPlay records a play that had no table.
 * @param {string} group
 * @param {PlayRequest} req
 * @param {Object<string, string>} [meta] what the kind's handlers need (the quick score it keeps)
 * @returns {Promise<Play>}
 */
export function logPlay(group, req, meta = {}) {
  return send({
    kind: 'logPlay', lane: `group:${group}`, method: 'POST', path: inGroup('/api/v1/plays', group), body: req,
    key: newKey(), labelKey: 'ui.op.loggedPlay', meta: { ...meta, group },
  });
}

/**
 * editPlay replaces a play; the leaderboards follow.
 * @param {string} group
 * @param {string} id
 * @param {PlayRequest} req
 * @returns {Promise<Play>}
 */
export function editPlay(group, id, req) {
  return send({
    kind: 'editPlay', lane: `group:${group}`, method: 'PUT', path: inGroup(`/api/v1/plays/${encodeURIComponent(id)}`, group), body: req,
    key: newKey(), labelKey: 'ui.op.changePlay', meta: { group, id },
  });
}

/**
 * deletePlay removes a play from the group's history. With hold, the
 * delete waits that long (ms) in the outbox before it is sent, even when
 * the outbox is nudged: until then withdraw(op) takes it back.
 * @param {string} group
 * @param {string} id
 * @param {{hold?: number, op?: string}} [opts] op: the outbox id to give the write
 */
export function deletePlay(group, id, opts = {}) {
  return send({
    kind: 'deletePlay', lane: `group:${group}`, method: 'DELETE', path: inGroup(`/api/v1/plays/${encodeURIComponent(id)}`, group),
    key: newKey(), labelKey: 'ui.op.deletePlay', meta: { group, id }, id: opts.op, hold: opts.hold,
  });
}

/**
 * deletingPlays lists the plays of a group whose delete waits in the
 * outbox: lists leave them out at once.
 * @param {string} group
 * @returns {Set<string>}
 */
export function deletingPlays(group) {
  return new Set(pending((op) => op.kind === 'deletePlay' && op.meta?.group === group).map((op) => String(op.meta.id)));
}

/**
 * getLeaderboard reads a game's leaderboard in a group.
 * @param {string} group
 * @param {string} game
 * @returns {Promise<{game: string, entries: LeaderboardEntry[], updating: boolean}>}
 */
export function getLeaderboard(group, game) {
  return read(inGroup(`/api/v1/leaderboards/${encodeURIComponent(game)}`, group));
}

/**
 * getPlayer reads a player's page: their record per game and recent plays.
 * @param {string} group
 * @param {string} id
 * @returns {Promise<PlayerStats>}
 */
export function getPlayer(group, id) {
  return read(inGroup(`/api/v1/players/${encodeURIComponent(id)}`, group));
}

/**
 * playerRatings reads a page of a player's ratings in a game, oldest
 * first: those before cursor (ratingHistoryNext of the player's page, or
 * the next of an earlier page).
 * @param {string} group
 * @param {string} id
 * @param {string} game
 * @param {string} cursor
 * @returns {Promise<{game: string, points: RatingPoint[], next: string | null}>}
 */
export function playerRatings(group, id, game, cursor) {
  return read(inGroup(`/api/v1/players/${encodeURIComponent(id)}/ratings`, group, { game, cursor }));
}

/**
 * renamePlayer renames a player. A name another player has is a 409 whose
 * problem carries mergeInto (see ApiError.mergeInto).
 * @param {string} group
 * @param {string} id
 * @param {string} name
 * @returns {Promise<PlayerRef>}
 */
export function renamePlayer(group, id, name) {
  return send({
    kind: 'rename', lane: `group:${group}`, method: 'PATCH', path: inGroup(`/api/v1/players/${encodeURIComponent(id)}`, group), body: { name },
    key: newKey(), labelKey: 'ui.op.renamePlayer', labelArgs: { name }, meta: { group, id },
  });
}

/**
 * mergePlayer merges a player into another: their plays move, and the
 * answer is the page of the player merged into.
 * @param {string} group
 * @param {string} id
 * @param {string} into
 * @returns {Promise<PlayerStats>}
 */
export function mergePlayer(group, id, into) {
  return send({
    kind: 'merge', lane: `group:${group}`, method: 'POST', path: inGroup(`/api/v1/players/${encodeURIComponent(id)}/merge`, group), body: { into },
    key: newKey(), labelKey: 'ui.op.mergePlayers', meta: { group, id },
  });
}

/**
 * knownPlayers lists the names of a group's players, whoever played last
 * first (then by name). Without the server it is the last copy this phone
 * saw, and with none, no names: the form works the same, names are typed.
 * A copy is used quietly here: the screen itself does not come from it.
 * A group the server does not know is an error (404).
 * @param {string} group
 * @returns {Promise<string[]>}
 */
export async function knownPlayers(group) {
  const path = groupPath(group, '/players');
  /** @type {{players: {name: string, lastPlayedAt?: string | null}[]} | null} */
  let list = null;
  try {
    list = await request('GET', path);
    keepCopy(path, list);
  } catch (err) {
    if (!unreachable(err)) throw err;
    list = copyOf(path)?.data ?? null;
  }
  const players = Array.isArray(list?.players) ? [...list.players] : [];
  players.sort((a, b) => String(b.lastPlayedAt ?? '').localeCompare(String(a.lastPlayedAt ?? '')));
  return players.map((p) => p.name);
}

// Screens that wait for these writes show the server's refusal at the
// fields it names, or say what to do instead.
for (const kind of ['createGroup', 'import', 'rename', 'merge']) {
  register(kind, { explained: (err) => err instanceof ApiError && err.status >= 400 && err.status < 500 });
}
