// sw.js: the service worker. It keeps the app shell (index.html and this
// build's assets) so the app opens offline; the server rewrites every
// /assets/ path below to this build's versioned one, and __VERSION__ to
// the build, so a new build installs a new cache and drops the old one.
// Scores come from /api/, which is never cached: totals are always live.

const CACHE = 'insectscore-__VERSION__';
const SHELL = [
  '/',
  '/manifest.webmanifest',
  '/assets/app.css',
  '/assets/app.js',
  '/assets/api.js',
  '/assets/dom.js',
  '/assets/router.js',
  '/assets/store.js',
  '/assets/score.js',
  '/assets/results.js',
  '/assets/widgets.js',
  '/assets/problems.js',
  '/assets/sheet.js',
  '/assets/forms.js',
  '/assets/boardset.js',
  '/assets/live.js',
  '/assets/table.js',
  '/assets/hotel.js',
  '/assets/groupstore.js',
  '/assets/historyui.js',
  '/assets/history.js',
  '/assets/charts.js',
  '/assets/leaderboard.js',
  '/assets/player.js',
  '/assets/groups.js',
  '/assets/logplay.js',
  '/assets/insectarium.js',
  '/assets/insecta.js',
  '/assets/insektenhotel.js',
  '/assets/icon.svg',
  '/assets/icon-192.png',
  '/assets/icon-512.png',
  '/assets/icon-maskable-512.png',
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
