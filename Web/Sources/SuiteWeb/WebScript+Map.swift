extension WebScript {
    /// The places map with streets (`/map.js`, `Resources/map.js`): Debian's Leaflet over the configured tile server in
    /// place of the SVG picture, which stays when JavaScript or Leaflet is missing. Everything it
    /// shows comes from the page: the map's centre, radius and tile template from the map's `data-`
    /// attributes, the pins from the list's rows (HTML-escaped by the templates, read back as text,
    /// never parsed as HTML).
    static let map = WebTemplates.text(PackageResources.map_js)
}
