// ShardLab's service worker: after one visit, everything the page can need (the page, both
// wasm modules and their glue, the engine's worker, the lessons, the glossary, the
// translations in static/i18n) is kept in a cache, so the playground, every tab and every
// lesson work offline, in every language. The build
// (scripts/offline.mjs) puts the list of files, their bytes and a version above this line.
/* global FILES, BYTES, VERSION */
const CACHE = `shardlab-${VERSION}`;

// Files already downloaded by the visit come from the browser's HTTP cache, not the network.
async function precache() {
  const cache = await caches.open(CACHE);
  const missing = [];
  for (const file of FILES) {
    if (!(await cache.match(file))) missing.push(file);
  }
  await cache.addAll(missing.map((file) => new Request(file, { cache: 'force-cache' })));
}

async function ready() {
  const cache = await caches.open(CACHE);
  for (const file of FILES) if (!(await cache.match(file))) return false;
  return true;
}

async function tell(client) {
  if (await ready()) client.postMessage({ type: 'shardlab-offline', bytes: BYTES, files: FILES.length });
}

self.addEventListener('install', (event) => {
  event.waitUntil(precache().then(() => self.skipWaiting()));
});

self.addEventListener('activate', (event) => {
  event.waitUntil((async () => {
    for (const key of await caches.keys()) {
      if (key.startsWith('shardlab-') && key !== CACHE) await caches.delete(key);
    }
    await self.clients.claim();
    for (const client of await self.clients.matchAll({ includeUncontrolled: true })) await tell(client);
  })());
});

self.addEventListener('message', (event) => {
  if (event.data === 'shardlab-offline?' && event.source) event.waitUntil(tell(event.source));
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== 'GET' || url.origin !== self.location.origin) return;
  if (request.mode === 'navigate') {
    // The page itself: the network's newest when there is one, else the kept copy (a
    // link's scenario is in the address, which the kept page reads the same way).
    event.respondWith(fetch(request).catch(async () =>
      (await caches.match(new URL('index.html', self.registration.scope).href)) ?? Response.error()));
    return;
  }
  if (request.cache === 'reload') {
    // A retry past the caches: the engine's second part after its copy failed its check
    // (__wasm_split.js), which may be the kept copy. The network's, kept in its place once
    // it passes (the request carries the part's integrity).
    event.respondWith(fetch(request).then(async (response) => {
      if (response.ok) await (await caches.open(CACHE)).put(request, response.clone());
      return response;
    }));
    return;
  }
  event.respondWith(caches.match(request, { ignoreSearch: true }).then((hit) => hit ?? fetch(request)));
});
