// games.js: the games' endpoints (the list, a game's spec, scoring), which
// the rules engine in the browser answers once it is loaded.

import { request, toApiError, unreachable } from './http.js';
import { cached } from './read.js';
import { language } from '../ui/i18n.js';

/** @type {typeof import('../engine/engine.js') | null} the engine's loader, once fetched */
let engineModule = null;

/**
 * loadEngine loads the rules engine (engine/engine.js) once. Its loader is
 * fetched here, when first needed: after the first paint (app.js warms
 * it), or offline when the server cannot score. The home screen's first
 * load never carries it.
 */
export async function loadEngine() {
  if (!engineModule) {
    const m = await import('../engine/engine.js');
    engineModule ??= m;
    engineLanguage();
  }
  return engineModule.loadEngine();
}

/** engineLanguage has the engine answer in the app's language. */
function engineLanguage() {
  /** @type {any} */ (engineModule)?.setEngineLanguage?.(language());
}

// A switch of language: the engine speaks the new one (read.js reads the
// answers read in the old one again).
window.addEventListener('insectscore:language', engineLanguage);

/**
 * @typedef {{status: number, body: any}} EngineAnswer
 * @typedef {{games: () => Promise<EngineAnswer>, spec: (id: string) => Promise<EngineAnswer>, score: (id: string, req: any) => Promise<EngineAnswer>}} Engine
 */

/**
 * answerOf turns the engine's answer into the server's: the body, or the
 * ApiError the server would have sent.
 * @param {EngineAnswer} a
 */
function answerOf(a) {
  if (a.status >= 200 && a.status < 300) return a.body;
  throw toApiError(a.status, a.body);
}

/**
 * rules asks the rules engine when it is loaded (in its worker), else the
 * server, and the server too when the engine stopped mid-call; when the
 * server cannot be reached it waits for the engine (the service worker
 * keeps it, so it loads offline).
 * @template T
 * @param {(e: Engine) => Promise<EngineAnswer>} local
 * @param {() => Promise<T>} remote
 * @returns {Promise<T>}
 */
async function rules(local, remote) {
  const ready = /** @type {Engine | null} */ (engineModule?.engineReady() ?? null);
  if (ready) {
    /** @type {EngineAnswer | null} */ let a = null;
    try {
      a = await local(ready);
    } catch { /* the engine stopped: the server answers */ }
    if (a) return answerOf(a);
  }
  try {
    return await remote();
  } catch (err) {
    if (!unreachable(err)) throw err;
    /** @type {EngineAnswer} */ let a;
    try {
      a = await local(/** @type {Engine} */ (await loadEngine()));
    } catch {
      throw err;
    }
    return answerOf(a);
  }
}

/**
 * listGames returns the games that can be scored.
 * @returns {Promise<GameInfo[]>}
 */
export function listGames() {
  return rules((e) => e.games(), () => cached('/api/v1/games'));
}

/**
 * getGame returns a game's spec: player counts and the vocabulary of its boards.
 * @param {string} id
 * @returns {Promise<Spec>}
 */
export function getGame(id) {
  return rules((e) => e.spec(id), () => cached(`/api/v1/games/${encodeURIComponent(id)}`));
}

/**
 * scoreGame scores a set of boards without storing anything: in the
 * browser when the engine is loaded, on the server until then.
 * @param {string} id
 * @param {ScoreRequest} req
 * @param {AbortSignal} [signal]
 * @returns {Promise<Result>}
 */
export function scoreGame(id, req, signal) {
  return rules((e) => e.score(id, req), () => request('POST', `/api/v1/games/${encodeURIComponent(id)}/score`, req, signal));
}
