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

// Web Push: a quote or a reminder, sent by whichever process delivered it (suite quotes tick,
// suite bundle remind, the web app), arrives as {title, body, url, tag}; a tap opens its page.
self.addEventListener("push", (event) => {
  let message = { title: "Suite", body: "", url: "/", tag: "suite" };
  try { message = Object.assign(message, event.data ? event.data.json() : {}); } catch (error) { message.body = event.data ? event.data.text() : ""; }
  event.waitUntil(self.registration.showNotification(message.title, {
    body: message.body, tag: message.tag, icon: "/icons/icon-192.png", badge: "/icons/icon-192.png", data: { url: message.url },
  }));
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const path = (event.notification.data && event.notification.data.url) || "/";
  const target = new URL(path.startsWith("/") && !path.startsWith("//") ? path : "/", self.location.origin).href;
  event.waitUntil(self.clients.matchAll({ type: "window", includeUncontrolled: true }).then((windows) => {
    const open = windows.find((client) => client.url === target);
    return open ? open.focus() : self.clients.openWindow(target);
  }));
});
