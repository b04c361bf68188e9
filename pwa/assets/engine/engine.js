// The rules engine in the browser: the scoring package compiled to
// WebAssembly (cmd/insectscore-engine, built by `go generate ./...`). It
// answers the three stateless game routes exactly as the server does, status
// and body, so a screen can score with no network:
//
//   GET  /api/v1/games            engine.games()
//   GET  /api/v1/games/{id}       engine.spec(id)
//   POST /api/v1/games/{id}/score engine.score(id, req)
//
// setEngineLanguage(lang) makes it answer as the server does for an
// Accept-Language of lang (en, de or es): labels, sentences and problems
// in that language, ids unchanged.
//
// The engine runs in a dedicated worker (worker.js): its 4 MB (1 MB
// compressed) are compiled and Go's runtime started off the main thread,
// so loading it never blocks the page. Each call is a message to the
// worker and its answer a promise. Call loadEngine when the engine is about
// to be needed, and engineReady to use it only if it is already there.
// The CSP needs worker-src 'self', and 'wasm-unsafe-eval' in script-src.
// The worker names its failures by catalog keys (ui.engine.*): they are
// written here, in the language the app speaks.

import { t } from '../ui/i18n.js';

/**
 * An answer of the engine: the HTTP status and the parsed JSON body the
 * server sends for the same request (a problem+json body for errors).
 * @typedef {{status: number, body: any}} Answer
 */

/**
 * @typedef {object} Engine
 * @property {() => Promise<Answer>} games the game list (GET /api/v1/games)
 * @property {(id: string) => Promise<Answer>} spec a game's spec (GET /api/v1/games/{id})
 * @property {(id: string, req: string | object | undefined) => Promise<Answer>} score
 *   scores a request (POST /api/v1/games/{id}/score): req is the JSON text
 *   of the body, or a value to send as JSON; undefined is no body
 */

/** @type {Engine | null} */
let engine = null;

/** @type {string} the language the engine answers in (setEngineLanguage) */
let language = 'en';

/** @type {((lang: string) => Promise<void>) | null} tells the running engine's worker */
let tellLanguage = null;

/** @type {Promise<Engine> | null} */
let loading = null;

/** @type {(e: Engine) => void} */
let announce = () => {};
/** @type {Promise<Engine>} resolves the first time the engine is ready */
const ready = new Promise((resolve) => { announce = resolve; });

/**
 * Resolves once the engine has loaded, without starting to load it: a
 * screen that scored through the server until then can score again here.
 * @returns {Promise<Engine>}
 */
export function whenEngineReady() {
  return ready;
}

/**
 * Returns the engine when it has loaded, and null before (or after it
 * stopped), without waiting.
 * @returns {Engine | null}
 */
export function engineReady() {
  return engine;
}

/**
 * Makes the engine answer in lang ('en', 'de' or 'es'), as the server
 * does for that Accept-Language: now if it runs, else as soon as it has
 * loaded. Questions asked after this call are answered in lang.
 * @param {string} lang
 * @returns {Promise<void>} resolves once the running engine has switched
 */
export function setEngineLanguage(lang) {
  language = lang;
  return tellLanguage ? tellLanguage(lang) : Promise.resolve();
}

/**
 * Loads the engine once: later calls return the same promise. After a
 * failure (offline on the first load, say) the next call tries again.
 * @returns {Promise<Engine>}
 */
export function loadEngine() {
  if (!loading) {
    loading = start().catch((err) => {
      loading = null;
      throw err;
    });
  }
  return loading;
}

/**
 * Starts the worker and has it load the engine; the engine is ready when
 * the worker says so.
 * @returns {Promise<Engine>}
 */
async function start() {
  const worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module', name: 'insectscore-engine' });
  /** @type {Map<number, {resolve: (text: string) => void, reject: (err: Error) => void}>} */
  const waiting = new Map();
  let next = 0;
  /** @type {Engine | null} */
  let started = null;
  /** stop ends this worker: every call waiting fails, and the next loadEngine starts anew. */
  const stop = (/** @type {string} */ why) => {
    worker.terminate();
    const err = new Error(why);
    for (const w of waiting.values()) w.reject(err);
    waiting.clear();
    if (started && engine === started) {
      engine = null;
      loading = null;
      tellLanguage = null;
    }
  };
  worker.addEventListener('message', (event) => {
    const m = event.data ?? {};
    if (m.stopped) {
      stop(words(m.stopped));
      return;
    }
    const w = waiting.get(m.id);
    if (!w) return;
    waiting.delete(m.id);
    if (m.error) w.reject(new Error(words(m.error)));
    else w.resolve(String(m.text));
  });
  // The worker's script failed to load or threw: nothing will answer.
  worker.addEventListener('error', (event) => {
    event.preventDefault();
    stop(t('ui.engine.workerFailed', { why: event.message || t('ui.engine.couldNotLoad') }));
  });
  worker.addEventListener('messageerror', () => stop(t('ui.engine.unreadable')));

  /**
   * call asks the worker one thing and resolves with its answer's text.
   * @param {string} op
   * @param {(string | undefined)[]} args
   * @returns {Promise<string>}
   */
  const call = (op, args) => new Promise((resolve, reject) => {
    const id = ++next;
    waiting.set(id, { resolve, reject });
    worker.postMessage({ id, op, args });
  });
  try {
    await call('start', []);
  } catch (err) {
    stop(err instanceof Error ? err.message : String(err));
    throw err;
  }
  started = {
    games: () => call('games', []).then(parse),
    spec: (id) => call('spec', [String(id)]).then(parse),
    score: (id, req) => call('score', [String(id), typeof req === 'string' || req === undefined ? req : JSON.stringify(req)]).then(parse),
  };
  // The worker answers in order: a language set while this one is being
  // set follows it, and questions asked after either wait for them.
  tellLanguage = async (lang) => { await call('language', [lang]); };
  if (language !== 'en') {
    // Without its messages (offline before they were cached), the engine
    // still scores, in English.
    await tellLanguage(language).catch(() => {});
  }
  engine = started;
  announce(started);
  return started;
}

/**
 * words writes a message of the worker in the app's language.
 * @param {{key: string, args?: Object<string, string>} | string} m a key and
 *   its placeholders; a string is shown as it is
 * @returns {string}
 */
function words(m) {
  return typeof m === 'string' ? m : t(String(m.key), m.args);
}

/**
 * @param {string} text the program's {status, body} as JSON
 * @returns {Answer}
 */
function parse(text) {
  const { status, body } = JSON.parse(text);
  return { status, body };
}
