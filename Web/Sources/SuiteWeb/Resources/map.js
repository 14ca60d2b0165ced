"use strict";
// Draws once the page is read (after live.js has read it as the server sent it: its handler
// comes first), and again when a live update replaced the map's part of the page.
document.addEventListener("DOMContentLoaded", draw);
document.addEventListener("suite:replaced", draw);
function draw() {
  var holder = document.querySelector(".places .map[data-tiles]:not([data-shown])");
  if (!holder || !window.L || !L.markerClusterGroup) return;
  var center = L.latLng(Number(holder.dataset.lat), Number(holder.dataset.lon));
  var radius = Number(holder.dataset.radius);
  if (!isFinite(center.lat) || !isFinite(center.lng) || !(radius > 0)) return;
  var text = function (value) {
    var span = document.createElement("span");
    span.textContent = value;
    return span.innerHTML;
  };
  var box = document.createElement("div");
  box.className = "streets";
  holder.replaceChildren(box);
  holder.setAttribute("role", "region");
  holder.setAttribute("aria-label", "Map of the places listed, with streets");
  holder.dataset.shown = "streets";
  var map = L.map(box, { zoomSnap: 0.5 });
  L.tileLayer(holder.dataset.tiles, {
    maxZoom: 19,
    attribution: '<a href="https://www.openstreetmap.org/copyright">' + text(holder.dataset.attribution) + "</a>"
  }).addTo(map);
  // The search radius, and you at the middle: a black-and-white target as on the SVG map.
  L.circle(center, { radius: radius, interactive: false, color: "#6b6455", weight: 2, dashArray: "6 4", fill: false }).addTo(map);
  L.circleMarker(center, { radius: 12, stroke: false, fillColor: "#111", fillOpacity: 0.15, interactive: false }).addTo(map);
  L.circleMarker(center, { radius: 6, color: "#111", weight: 2.5, fillColor: "#fff", fillOpacity: 1, interactive: false }).addTo(map);
  // For tests and the curious: where the map is.
  var follow = function () {
    var middle = map.getCenter();
    holder.dataset.center = middle.lat.toFixed(6) + "," + middle.lng.toFixed(6);
    holder.dataset.zoom = String(map.getZoom());
  };
  map.on("moveend zoomend", follow);
  map.fitBounds(center.toBounds(2 * radius), { animate: false });
  follow();
  // A cluster shows how many pins it holds, ringed by their colours in proportion.
  var clusters = L.markerClusterGroup({
    showCoverageOnHover: false, maxClusterRadius: 40,
    iconCreateFunction: function (cluster) {
      var pins = cluster.getAllChildMarkers(), counts = {}, stops = [], at = 0;
      pins.forEach(function (pin) { counts[pin.options.hex] = (counts[pin.options.hex] || 0) + 1; });
      Object.keys(counts).sort().forEach(function (hex) {
        var to = at + counts[hex] * 100 / pins.length;
        stops.push(hex + " " + at + "% " + to + "%");
        at = to;
      });
      var ring = document.createElement("span");
      ring.className = "ring";
      ring.style.background = stops.length > 1 ? "conic-gradient(" + stops.join(", ") + ")" : stops[0].split(" ")[0];
      var count = document.createElement("span");
      count.className = "count";
      count.textContent = String(pins.length);
      var hidden = document.createElement("span");
      hidden.className = "visually-hidden";
      hidden.textContent = " places here; zoom in to see them";
      count.appendChild(hidden);
      ring.appendChild(count);
      ring.dataset.colors = Object.keys(counts).join(" ");
      return L.divIcon({ html: ring, className: "map-cluster", iconSize: [40, 40] });
    }
  });
  // A pin per row of the list, in its colour, a link to the place.
  document.querySelectorAll(".places .list li[data-id]").forEach(function (row) {
    var link = row.querySelector("a[href]");
    var lat = Number(row.dataset.lat), lon = Number(row.dataset.lon);
    if (!link || !isFinite(lat) || !isFinite(lon)) return;
    var pin = document.createElement("a");
    pin.href = link.getAttribute("href");
    pin.className = "pin-link";
    pin.dataset.id = row.dataset.id;
    pin.dataset.color = row.dataset.color;
    pin.style.setProperty("--pin", row.dataset.hex);
    pin.title = link.textContent;
    pin.setAttribute("aria-label", link.textContent + " (" + row.dataset.state + ")");
    clusters.addLayer(L.marker([lat, lon], {
      icon: L.divIcon({ html: pin, className: "map-pin", iconSize: [28, 30], iconAnchor: [14, 28] }),
      keyboard: false, hex: row.dataset.hex
    }));
  });
  map.addLayer(clusters);
  var legend = document.createElement("p");
  legend.className = "legend";
  [["#d62828", "not rated yet"], ["#1d6fd8", "rated by you"]].forEach(function (entry) {
    var mark = document.createElement("span");
    mark.className = "pin";
    mark.setAttribute("aria-hidden", "true");
    mark.style.background = entry[0];
    legend.appendChild(mark);
    legend.appendChild(document.createTextNode(entry[1] + " "));
  });
  var you = document.createElement("span");
  you.className = "you";
  you.setAttribute("aria-hidden", "true");
  legend.appendChild(you);
  legend.appendChild(document.createTextNode("you are here; the circle is the search radius"));
  holder.appendChild(legend);
}
