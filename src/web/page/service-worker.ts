// The installable page's offline shell: the page's own files (SHELL) are kept in a cache, so an
// installed page opens with no server (it shows itself offline and reconnects when it can).
// Network first: a running server's files are always the ones used, and refresh the cache;
// the cache answers only when the network does not. Nothing else is cached — never /api, /ws or
// anything a row wrote.
const CACHE = 'swb-shell-v1';
const SHELL = ['/', '/app.js', '/app.css', '/manifest.webmanifest', '/icon-192.png', '/icon-512.png'];

interface FetchEventLike {
  request: Request;
  respondWith(response: Promise<Response>): void;
}
interface ExtendableEventLike {
  waitUntil(p: Promise<unknown>): void;
}
const worker = self as unknown as {
  addEventListener(type: 'install' | 'activate', fn: (e: ExtendableEventLike) => void): void;
  addEventListener(type: 'fetch', fn: (e: FetchEventLike) => void): void;
  skipWaiting(): Promise<void>;
  clients: { claim(): Promise<void> };
  location: Location;
};

worker.addEventListener('install', (e) => {
  e.waitUntil(
    caches
      .open(CACHE)
      .then((cache) => cache.addAll(SHELL))
      .catch(() => undefined)
      .then(() => worker.skipWaiting()),
  );
});

worker.addEventListener('activate', (e) => {
  e.waitUntil(
    caches
      .keys()
      .then((keys) => Promise.all(keys.filter((k) => k !== CACHE).map((k) => caches.delete(k))))
      .then(() => worker.clients.claim()),
  );
});

worker.addEventListener('fetch', (e) => {
  const url = new URL(e.request.url);
  if (e.request.method !== 'GET' || url.origin !== worker.location.origin) return;
  // The login page is never the shell: it must reach the server (and must not be cached as '/').
  if (url.pathname === '/login' || url.pathname === '/login.js') return;
  const key = e.request.mode === 'navigate' ? '/' : url.pathname;
  if (!SHELL.includes(key)) return;
  e.respondWith(
    fetch(e.request)
      .then((response) => {
        if (response.ok) {
          const copy = response.clone();
          void caches.open(CACHE).then((cache) => cache.put(key, copy));
        }
        return response;
      })
      .catch(() => caches.match(key).then((cached) => cached ?? Response.error())),
  );
});
