// worker.js: the rules engine's own thread. engine.js starts this module
// as a dedicated worker; here, and never on the page's main thread, Go's
// runtime (wasm_exec.js) compiles and runs engine.wasm, so starting the
// engine (about a second of CPU on a phone) never blocks a tap or a paint.
//
// Messages from the page: {id, op, args}, where op is "start", "games",
// "spec", "score" or "language" and args are strings. They are answered in
// the order they came: a question asked after "language" is answered in
// that language. Each is answered once with
// {id, text} (the program's {status, body} as JSON text; "start" answers
// {id, text: ''} once the engine runs) or {id, error} (a message). When the
// program stops, the worker says {stopped: message} and answers nothing
// more. A message is {key, args}: a ui.engine. key of the catalogs and its
// placeholders, which engine.js writes in the app's language (the worker
// has no catalog of the app's). The worker's CSP, sent with this file,
// needs 'wasm-unsafe-eval'.

/**
 * The functions cmd/insectscore-engine registers; each returns the JSON text
 * of {status, body}.
 * @typedef {object} RawEngine
 * @property {() => string} games
 * @property {(id: string) => string} spec
 * @property {(id: string, body: string | undefined) => string} score
 * @property {(catalog: string) => string} language the catalog's JSON text; '' is English
 */

/**
 * A message for the page: a catalog key and its placeholders.
 * @typedef {{key: string, args?: Object<string, string>}} Message
 */

/** EngineError is a failure the worker names by a catalog key. */
class EngineError extends Error {
  /**
   * @param {string} key
   * @param {Object<string, string>} [args]
   */
  constructor(key, args) {
    super(key);
    this.key = key;
    this.args = args;
  }
}

/**
 * message names a failure for the page: one of the worker's own, or one the
 * browser threw (its words go in as they are).
 * @param {any} err
 * @returns {Message}
 */
function message(err) {
  if (err instanceof EngineError) return { key: err.key, args: err.args };
  return { key: 'ui.engine.failed', args: { why: reason(err) } };
}

/**
 * reason is what the browser said of a failure.
 * @param {any} err
 */
function reason(err) {
  return err instanceof Error ? err.message : String(err);
}

/** The languages the engine speaks, as the server does; English is the rules' own. */
const LANGUAGES = ['en', 'de', 'es'];

/** @type {Promise<RawEngine> | null} */
let running = null;

/** @type {Promise<unknown>} the answer in progress: the next one waits for it */
let queue = Promise.resolve();

self.addEventListener('message', (event) => {
  const { id, op, args } = event.data ?? {};
  queue = queue.then(() => answer(id, op, Array.isArray(args) ? args : [])).then(
    (text) => self.postMessage({ id, text }),
    (err) => self.postMessage({ id, error: message(err) }));
});

/**
 * answer runs one request of the page.
 * @param {number} id
 * @param {string} op
 * @param {any[]} args
 * @returns {Promise<string>}
 */
async function answer(id, op, args) {
  if (op === 'start') {
    running ??= start();
    await running;
    return '';
  }
  if (!running) throw new EngineError('ui.engine.notStarted');
  const raw = await running;
  const str = (/** @type {any} */ v) => (typeof v === 'string' ? v : undefined);
  switch (op) {
    case 'games':
      return raw.games();
    case 'spec':
      return raw.spec(String(args[0] ?? ''));
    case 'score':
      return raw.score(String(args[0] ?? ''), str(args[1]));
    case 'language':
      return raw.language(await catalog(String(args[0] ?? '')));
    default:
      throw new EngineError('ui.engine.noSuchCall', { op: `${op} (#${id})` });
  }
}

/**
 * catalog fetches the catalog of lang (assets/i18n/<lang>.json, beside
 * this build's engine) as text; English needs none.
 * @param {string} lang
 * @returns {Promise<string>}
 */
async function catalog(lang) {
  if (!LANGUAGES.includes(lang)) throw new EngineError('ui.engine.noSuchLanguage', { languages: LANGUAGES.join(', '), lang });
  if (lang === 'en') return '';
  let res;
  try {
    res = await fetch(new URL(`../i18n/${lang}.json`, import.meta.url));
  } catch (err) {
    throw new EngineError('ui.engine.loadingMessages', { lang, why: reason(err) });
  }
  if (!res.ok) throw new EngineError('ui.engine.loadingMessages', { lang, why: `${res.status} ${res.statusText}`.trim() });
  return res.text();
}

/**
 * start fetches, compiles and runs engine.wasm, and returns what it
 * registers. The program registers its functions before it first blocks,
 * which is when run hands control back; it never exits unless it failed.
 * @returns {Promise<RawEngine>}
 */
async function start() {
  await import('./wasm_exec.js'); // defines globalThis.Go
  // @ts-ignore: Go is wasm_exec.js's global.
  const go = new globalThis.Go();
  const { instance } = await instantiate(new URL('./engine.wasm', import.meta.url), go.importObject);
  const exited = go.run(instance);
  /** @type {RawEngine | undefined} */
  // @ts-ignore: set by the program.
  const raw = globalThis.insectscoreEngine;
  if (!raw) throw new EngineError('ui.engine.didNotStart');
  /** @type {(err: any) => void} */
  const stopped = (err) => self.postMessage({
    stopped: err instanceof Error ? { key: 'ui.engine.stoppedBecause', args: { why: err.message } } : { key: 'ui.engine.stopped' },
  });
  exited.then(stopped, stopped);
  return raw;
}

/**
 * Compiles and instantiates a WebAssembly module from url, streaming when
 * the server labels it application/wasm (instantiateStreaming refuses any
 * other type), from a buffer otherwise.
 * @param {URL} url
 * @param {WebAssembly.Imports} imports
 * @returns {Promise<WebAssembly.WebAssemblyInstantiatedSource>}
 */
async function instantiate(url, imports) {
  let res;
  try {
    res = await fetch(url);
  } catch (err) {
    throw new EngineError('ui.engine.loading', { why: reason(err) });
  }
  if (!res.ok) throw new EngineError('ui.engine.loading', { why: `${res.status} ${res.statusText}`.trim() });
  const type = (res.headers.get('Content-Type') || '').split(';')[0].trim();
  if (typeof WebAssembly.instantiateStreaming === 'function' && type === 'application/wasm') {
    return WebAssembly.instantiateStreaming(res, imports);
  }
  return WebAssembly.instantiate(await res.arrayBuffer(), imports);
}
