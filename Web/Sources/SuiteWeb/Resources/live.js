"use strict";
// Pages work without this script. With it: a section's unsaved words survive a reload,
// a page follows changes made elsewhere (the CLI, another tab, a sync), and the service worker
// keeps the app shell and an offline page (the app installed on a home screen).
if ("serviceWorker" in navigator) navigator.serviceWorker.register("/sw.js").catch(function () {});
document.addEventListener("DOMContentLoaded", function () {
  // The offline page (kept by the service worker) stands in for whichever page was asked for:
  // that page's app is marked in the tab bar, and "Try again" asks for that page again.
  if (document.querySelector("[data-offline]")) {
    var asked = "/" + location.pathname.split("/")[1];
    document.querySelectorAll("header a[aria-current]").forEach(function (a) { a.removeAttribute("aria-current"); });
    document.querySelectorAll("nav.apps a").forEach(function (a) {
      if (a.getAttribute("href") === asked) a.setAttribute("aria-current", "page");
    });
    if (asked === "/") document.querySelector(".brand").setAttribute("aria-current", "page");
    document.getElementById("again").href = location.href;
  }
  // A bundle's icon shows as typed, unless no font here draws it (an emoji without an
  // emoji font): then its badge shows the title's initial, never an empty box.
  var pen = null, blank = "", box = "";
  function markIcons(root) {
    var badges = root.querySelectorAll(".bicon[data-initial]");
    if (!badges.length) return;
    var family = getComputedStyle(badges[0]).fontFamily;
    var ink = function (text) {
      pen.clearRect(0, 0, 40, 40);
      pen.font = "28px " + family;
      pen.textBaseline = "top";
      pen.fillText(text, 4, 4);
      return pen.getImageData(0, 0, 40, 40).data.join();
    };
    if (!pen) {
      var canvas = document.createElement("canvas");
      canvas.width = canvas.height = 40;
      pen = canvas.getContext("2d", { willReadFrequently: true });
      blank = ink(""); box = ink("􏿽");
    }
    badges.forEach(function (badge) {
      var drawn = Array.from(badge.textContent).filter(function (c) {
        var p = c.codePointAt(0);
        return p > 0x7f && p !== 0x200d && (p < 0xfe00 || p > 0xfe0f) && (p < 0x1f3fb || p > 0x1f3ff);
      });
      if (ink(badge.textContent) === blank || drawn.some(function (c) { return ink(c) === box; })) badge.dataset.missing = "";
    });
  }
  markIcons(document);
  var main = document.getElementById("main");
  // What the server sent for each part of the page (before any script changed it).
  var served = main ? Array.from(main.children, function (part) { return part.outerHTML; }) : [];
  var dirty = false, leaving = false;
  document.addEventListener("input", function () { dirty = true; });
  // A form on its way to the server: its own change must not reload the page under it.
  document.addEventListener("submit", function () { leaving = true; });
  // A page left (its stream closed: see below) looks for no changes until it comes back.
  var events = null;
  window.addEventListener("pagehide", function () {
    leaving = true;
    if (events) { events.close(); document.body.dataset.live = "closed"; }
    events = null;
  });
  var area = document.querySelector("textarea[name=text]");
  if (area && window.sessionStorage) {
    var key = "draft:" + location.pathname;
    var saved = sessionStorage.getItem(key);
    if (saved !== null && saved !== area.value && !document.querySelector("[role=alert]")) {
      var note = document.createElement("p");
      note.className = "note";
      note.textContent = "You had unsaved changes here. ";
      var restore = document.createElement("button");
      restore.type = "button";
      restore.textContent = "Bring them back";
      restore.addEventListener("click", function () { area.value = saved; note.remove(); dirty = true; });
      note.appendChild(restore);
      area.form.insertBefore(note, area.form.firstChild);
    }
    area.addEventListener("input", function () { sessionStorage.setItem(key, area.value); });
    area.form.addEventListener("submit", function () { sessionStorage.removeItem(key); });
  }
  if (!window.EventSource) return;
  var app = document.body.dataset.app;
  var heard = 0, looks = 0;
  // A page left for another is kept by the browser to come back to (the back/forward cache),
  // and its stream would stay open with it: a browser holds six connections to one site, so
  // after six pages the next one waited for a minute. The stream is closed when the page is
  // left, and opened again, with a look for what changed meanwhile, when the page comes back.
  function follow() {
    events = new EventSource("/events");
    // For tests and the curious: whether the page follows changes now, and how many it heard of.
    events.onopen = function () { document.body.dataset.live = "connected"; };
    events.onerror = function () { document.body.dataset.live = "reconnecting"; };
    events.onmessage = function (message) {
      document.body.dataset.heard = String(++heard);
      if (!leaving && (!app || message.data === app)) refresh();
    };
  }
  window.addEventListener("pageshow", function (event) {
    if (!event.persisted || events) return;
    leaving = false;
    follow();
    refresh();
  });
  follow();
  // The page as it is now, fetched once; only the parts that differ are replaced (a change made
  // just before the page was drawn is announced just after: nothing differs).
  // Only the newest look counts (`looks`): an older one answered late would put older parts back.
  function refresh() {
    var look = ++looks;
    fetch(location.href, { credentials: "same-origin" }).then(function (answer) {
      return answer.ok ? answer.text() : null;
    }).then(function (html) {
      if (html === null || leaving || look !== looks) return;
      var page = new DOMParser().parseFromString(html, "text/html");
      var fresh = page.getElementById("main");
      if (!fresh) return;
      var parts = Array.from(fresh.children, function (part) { return part.outerHTML; });
      if (parts.join("") === served.join("")) return;
      if (dirty || document.querySelector("[role=alert]")) { offerReload(); return; }
      replace(fresh, parts, page.title);
    }).catch(function () {});
  }
  function replace(fresh, parts, title) {
    var shown = Array.from(main.children), incoming = Array.from(fresh.children), changed = [];
    if (shown.length !== incoming.length) {
      main.replaceChildren.apply(main, incoming.map(function (part) { return document.adoptNode(part); }));
      changed = Array.from(main.children);
    } else {
      incoming.forEach(function (part, index) {
        if (parts[index] === served[index]) return;
        var adopted = document.adoptNode(part);
        main.replaceChild(adopted, shown[index]);
        changed.push(adopted);
      });
    }
    served = parts;
    if (title) document.title = title;
    document.body.dataset.replaced = String(Number(document.body.dataset.replaced || 0) + 1);
    changed.forEach(markIcons);
    // For the page's other scripts (the map): these parts are new.
    document.dispatchEvent(new CustomEvent("suite:replaced", { detail: changed }));
  }
  function offerReload() {
    if (document.getElementById("changed-elsewhere")) return;
    var banner = document.createElement("p");
    banner.id = "changed-elsewhere";
    banner.className = "note";
    banner.setAttribute("role", "status");
    banner.textContent = "This changed elsewhere. ";
    var link = document.createElement("a");
    link.href = location.pathname + location.search;
    link.textContent = "Reload (unsaved input here is lost)";
    banner.appendChild(link);
    main.insertBefore(banner, main.firstChild);
  }
});

// Notifications on this browser (the settings page's button): the Push API's subscription,
// sent to the app with the page's form token (`X-CSRF-Token`, from <meta name="csrf-token">).
document.addEventListener("DOMContentLoaded", function () {
  var button = document.getElementById("push-subscribe");
  if (!button) return;
  var status = document.getElementById("push-status");
  if (!("serviceWorker" in navigator) || !("PushManager" in window) || !window.isSecureContext) {
    status.textContent = "This browser cannot get notifications from here: it needs https (or this computer's own address).";
    return;
  }
  button.hidden = false;
  button.addEventListener("click", function () {
    status.textContent = "Asking the browser…";
    var token = document.querySelector('meta[name="csrf-token"]').content;
    Notification.requestPermission().then(function (permission) {
      if (permission !== "granted") throw new Error("notifications are not allowed for this site");
      return Promise.all([navigator.serviceWorker.ready, fetch("/push/key", { credentials: "same-origin" }).then(function (r) { return r.text(); })]);
    }).then(function (both) {
      return both[0].pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: decode(both[1].trim()) });
    }).then(function (subscription) {
      return fetch("/push/subscribe", { method: "POST", credentials: "same-origin",
        headers: { "Content-Type": "application/json", "X-CSRF-Token": token }, body: JSON.stringify(subscription) });
    }).then(function (answer) {
      if (!answer.ok) return answer.text().then(function (text) { throw new Error(text); });
      location.reload();
    }).catch(function (error) { status.textContent = "Notifications could not be turned on: " + error.message; });
  });
  function decode(text) {
    var base64 = text.replace(/-/g, "+").replace(/_/g, "/");
    while (base64.length % 4) base64 += "=";
    var raw = atob(base64), bytes = new Uint8Array(raw.length);
    for (var i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
    return bytes;
  }
});
