// The rules engine in the browser: the scoring package compiled to
// WebAssembly (cmd/insectscore-engine, built by `go generate ./...`). It
// answers the three stateless game routes exactly as the server does, status
// and body, so a screen can score with no network:
//
//   GET  /api/v1/games            engine.games()
//   GET  /api/v1/games/{id}       engine.spec(id)
//   POST /api/v1/games/{id}/score engine.score(id, req)
//
// Loading fetches about 4 MB (1 MB compressed) once; call loadEngine when
// the engine is about to be needed, and engineReady to use it only if it is
// already there. The CSP needs 'wasm-unsafe-eval' in script-src to compile it.

/**
 * An answer of the engine: the HTTP status and the parsed JSON body the
 * server sends for the same request (a problem+json body for errors).
 * @typedef {{status: number, body: any}} Answer
 */

/**
 * @typedef {object} Engine
 * @property {() => Answer} games the game list (GET /api/v1/games)
 * @property {(id: string) => Answer} spec a game's spec (GET /api/v1/games/{id})
 * @property {(id: string, req: string | object | undefined) => Answer} score
 *   scores a request (POST /api/v1/games/{id}/score): req is the JSON text
 *   of the body, or a value to send as JSON; undefined is no body
 */

/**
 * The functions cmd/insectscore-engine registers; each returns the JSON text
 * of {status, body}.
 * @typedef {object} RawEngine
 * @property {() => string} games
 * @property {(id: string) => string} spec
 * @property {(id: string, body: string | undefined) => string} score
 */

/** @type {Engine | null} */
let engine = null;

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
 * Fetches, compiles and runs engine.wasm, and wraps what it registers.
 * @returns {Promise<Engine>}
 */
async function start() {
  await import('./wasm_exec.js'); // defines globalThis.Go
  // @ts-ignore: Go is wasm_exec.js's global.
  const go = new globalThis.Go();
  const { instance } = await instantiate(new URL('./engine.wasm', import.meta.url), go.importObject);
  // The program registers its functions before it first blocks, which is
  // when run hands control back; it never exits unless it failed, and then
  // the next loadEngine starts a new one.
  // @ts-ignore: set by the program.
  delete globalThis.insectscoreEngine;
  const exited = go.run(instance);
  /** @type {RawEngine | undefined} */
  // @ts-ignore: set by the program.
  const raw = globalThis.insectscoreEngine;
  if (!raw) {
    throw new Error('the rules engine did not start');
  }
  const started = wrap(raw);
  const stopped = () => {
    if (engine === started) {
      engine = null;
      loading = null;
    }
  };
  exited.then(stopped, stopped);
  engine = started;
  announce(started);
  return started;
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
  const res = await fetch(url);
  if (!res.ok) {
    throw new Error(`loading the rules engine: ${res.status} ${res.statusText}`);
  }
  const type = (res.headers.get('Content-Type') || '').split(';')[0].trim();
  if (typeof WebAssembly.instantiateStreaming === 'function' && type === 'application/wasm') {
    return WebAssembly.instantiateStreaming(res, imports);
  }
  return WebAssembly.instantiate(await res.arrayBuffer(), imports);
}

/**
 * Turns the program's JSON-text functions into an Engine of plain objects.
 * @param {RawEngine} raw
 * @returns {Engine}
 */
function wrap(raw) {
  return {
    games: () => parse(raw.games()),
    spec: (id) => parse(raw.spec(String(id))),
    score: (id, req) => parse(raw.score(String(id), typeof req === 'string' || req === undefined ? req : JSON.stringify(req))),
  };
}

/**
 * @param {string} text the program's {status, body} as JSON
 * @returns {Answer}
 */
function parse(text) {
  const { status, body } = JSON.parse(text);
  return { status, body };
}
