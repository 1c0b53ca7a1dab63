// The browser's network signals for the page's retries (web/src/platform/network.rs).

/** Resolves after `ms` milliseconds, or as soon as the browser says it is online again. */
export function networkBack(ms) {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      removeEventListener('online', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    addEventListener('online', done);
  });
}

/**
 * Registers the service worker at `url` (sw.js, which keeps the site for offline use) and
 * calls `onReady(bytes)` once everything is kept. Does nothing where service workers are
 * not available (an http: address other than localhost, some embeds).
 */
export function registerOffline(url, onReady) {
  if (!('serviceWorker' in navigator) || !window.isSecureContext) return;
  navigator.serviceWorker.addEventListener('message', (event) => {
    if (event.data && event.data.type === 'shardlab-offline') onReady(event.data.bytes);
  });
  navigator.serviceWorker.register(url)
    .then(() => navigator.serviceWorker.ready)
    .then((registration) => registration.active && registration.active.postMessage('shardlab-offline?'))
    .catch(() => {});
}
