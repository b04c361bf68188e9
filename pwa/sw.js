// sw.js: the service worker. It keeps the app shell (index.html and this
// build's assets) so the app opens offline; the server rewrites every
// /assets/ path below to this build's versioned one, and __VERSION__ to
// the build, so a new build installs a new cache and drops the old one.
// The rules engine (ENGINE, a few MB) is not part of the install: the app
// asks for it once it has loaded ("cache-engine"), so it never delays the
// first paint, and then scores offline from this cache. /api/ is never
// cached here: the app keeps its own copies of what it read (IndexedDB).
// SHELL holds every screen's modules: the home screen's first load fetches
// only its own, and the install caches the rest in the background, so any
// screen opens offline. It keeps every language's catalog, so the
// language can be switched offline. The server writes each game's form
// (its Info's form) on the line the list keeps for them.

const CACHE = 'insectscore-__VERSION__';
const SHELL = [
  '/',
  '/manifest.webmanifest',
  '/assets/app.css',
  '/assets/app.js',
  '/assets/engine/engine.js',
  '/assets/engine/worker.js',
  '/assets/games/boardset.js',
  '/assets/games/breakdown.js',
  '/assets/games/canvas.js',
  '/assets/games/card.js',
  '/assets/games/forms.js',
  // __FORMS__
  '/assets/games/insectariumwalk.js',
  '/assets/games/results.js',
  '/assets/games/score.js',
  '/assets/games/totals.js',
  '/assets/history/grouplink.js',
  '/assets/history/groups.js',
  '/assets/history/history.js',
  '/assets/history/historyui.js',
  '/assets/history/leaderboard.js',
  '/assets/history/logplay.js',
  '/assets/history/player.js',
  '/assets/history/playnotes.js',
  '/assets/history/plays.js',
  '/assets/i18n/de.json',
  '/assets/i18n/en.json',
  '/assets/i18n/es.json',
  '/assets/router.js',
  '/assets/sync/games.js',
  '/assets/sync/history.js',
  '/assets/sync/http.js',
  '/assets/sync/idb-keyval.js',
  '/assets/sync/kept.js',
  '/assets/sync/local.js',
  '/assets/sync/outbox.js',
  '/assets/sync/read.js',
  '/assets/sync/tables.js',
  '/assets/table/finish.js',
  '/assets/table/host.js',
  '/assets/table/hotel.js',
  '/assets/table/invite.js',
  '/assets/table/join.js',
  '/assets/table/live.js',
  '/assets/table/newtable.js',
  '/assets/table/seat.js',
  '/assets/table/shared.js',
  '/assets/table/table.js',
  '/assets/ui/charts.js',
  '/assets/ui/dom.js',
  '/assets/ui/i18n.js',
  '/assets/ui/names.js',
  '/assets/ui/problems.js',
  '/assets/ui/sheet.js',
  '/assets/ui/widgets.js',
  '/assets/icon-192.png',
  '/assets/icon-512.png',
  '/assets/icon-maskable-512.png',
  '/assets/icon.svg',
  '/assets/sync/idb-keyval-LICENCE.txt',
];

const ENGINE = [
  '/assets/engine/wasm_exec.js',
  '/assets/engine/engine.wasm',
];

self.addEventListener('install', (event) => {
  event.waitUntil(caches.open(CACHE).then((c) => c.addAll(SHELL)).then(() => self.skipWaiting()));
});

self.addEventListener('activate', (event) => {
  event.waitUntil(caches.keys()
    .then((keys) => Promise.all(keys.filter((k) => k.startsWith('insectscore-') && k !== CACHE).map((k) => caches.delete(k))))
    .then(() => self.clients.claim()));
});

self.addEventListener('fetch', (event) => {
  const req = event.request;
  if (req.method !== 'GET') return;
  const url = new URL(req.url);
  if (url.origin !== self.location.origin || url.pathname.startsWith('/api/') || url.pathname === '/healthz') return;
  if (req.mode === 'navigate') {
    event.respondWith(networkFirst(req));
    return;
  }
  event.respondWith(caches.match(req).then((hit) => hit || fetch(req)));
});

// The app asks for the engine once it has loaded; the answer comes when
// it is in the cache (or could not be fetched: the app then loads it from
// the network itself).
self.addEventListener('message', (event) => {
  if (event.data !== 'cache-engine') return;
  const reply = () => event.ports[0]?.postMessage('ready');
  event.waitUntil(cacheEngine().then(reply, reply));
});

/** cacheEngine puts the engine's files that are missing into this build's cache. */
async function cacheEngine() {
  const cache = await caches.open(CACHE);
  const missing = [];
  for (const url of ENGINE) if (!(await cache.match(url))) missing.push(url);
  if (missing.length) await cache.addAll(missing);
}

/**
 * networkFirst loads a page from the server, and the cached shell when
 * offline: every route of the app is the same index.html.
 * @param {Request} req
 */
async function networkFirst(req) {
  try {
    return await fetch(req);
  } catch (err) {
    const shell = await caches.match('/');
    if (shell) return shell;
    throw err;
  }
}
