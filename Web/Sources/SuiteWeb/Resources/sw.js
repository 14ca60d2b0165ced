// Suite's service worker: it keeps the app shell (the style sheet, the page script, the icons)
// and an offline page, so the app opens from the home screen and, when the computer serving it
// cannot be reached, says so instead of failing. Pages themselves are never kept: they hold the
// person's data and always come fresh from the app.
"use strict";
const CACHE = "suite-shell-{{version}}";
const SHELL = ["/offline", "{{styleURL}}", "{{scriptURL}}", "/icons/icon-192.png", "/icons/icon.svg"];

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(SHELL)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(caches.keys()
    .then((names) => Promise.all(names.filter((name) => name !== CACHE).map((name) => caches.delete(name))))
    .then(() => self.clients.claim()));
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  // Other sites (map tiles), forms and the live-update stream go straight to the network.
  if (request.method !== "GET" || url.origin !== self.location.origin || url.pathname === "/events") return;
  if (request.mode === "navigate") {
    event.respondWith(fetch(request).catch(() => caches.match("/offline")));
    return;
  }
  event.respondWith(caches.match(request).then((kept) => kept || fetch(request)));
});
