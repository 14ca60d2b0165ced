import Foundation
import HTTPTypes
import Hummingbird
import Mustache

/// Pages: a template per page (swift-mustache; `{{value}}` is HTML-escaped, and the raw form is
/// used only for HTML this app rendered from its own templates), inside one layout with the apps'
/// menu.
package enum WebPage {
    /// The templates, by name (see `WebTemplates`).
    static let library: MustacheLibrary = {
        var library = MustacheLibrary()
        for (name, text) in WebTemplates.all {
            do {
                library.register(try MustacheTemplate(string: text), named: name)
            } catch {
                preconditionFailure("template \(name) does not parse: \(error)")   // programmer error: the templates are constants
            }
        }
        return library
    }()

    /// A menu entry of an app's pages.
    struct MenuItem {
        var label: String
        var href: String
        var current = false
    }

    /// The four apps of the tab bar: their path and label.
    static let apps: [(id: String, label: String)] = [("bmm", "Business model"), ("places", "Places"), ("quotes", "Quotes"), ("bundle", "Bundles")]

    /// A whole page: `template` rendered with `values`, inside the layout.
    static func page(
        _ template: String, title: String, app: String, menu: [MenuItem] = [], values: [String: Any], secrets: WebSecrets,
        status: HTTPResponse.Status = .ok
    ) -> Response {
        var values = values
        values["csrf"] = secrets.formToken
        let body = library.render(values, withTemplate: template) ?? ""
        let layout: [String: Any] = [
            "title": title, "app": app, "body": body, "csrf": secrets.formToken,
            "menu": menu.map { ["label": $0.label, "href": $0.href, "current": $0.current] },
            "apps": apps.map { id, label in
                ["id": id, "href": "/\(id)", "label": label, "current": id == app]
            },
            "home": app.isEmpty, "appLabel": "Pages of " + (apps.first { $0.id == app }?.label ?? "Suite"),
            "styleURL": WebAssets.styleURL, "scriptURL": WebAssets.scriptURL,
        ]
        return html(library.render(layout, withTemplate: "layout") ?? "", status: status)
    }

    static func html(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        headers[HTTPField.Name("Content-Security-Policy")!] = contentSecurityPolicy()
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    /// What a page may load: scripts, styles and images from this app only, and on the places
    /// map the tiles, from the tile server's origin alone.
    ///
    /// - Parameter tileOrigin: `scheme://host[:port]` of the tile server (``TileSource/origin``),
    ///   or nil on pages without the map.
    /// - Returns: the `Content-Security-Policy` header's value.
    static func contentSecurityPolicy(tileOrigin: String? = nil) -> String {
        "default-src 'self'; img-src 'self' data:\(tileOrigin.map { " " + $0 } ?? ""); style-src 'self' 'unsafe-inline'; frame-ancestors 'none'; form-action 'self'"
    }

    /// A short page saying why a request was refused.
    static func refusal(_ status: HTTPResponse.Status, _ message: String) -> Response {
        html(library.render(["title": "Refused", "message": message, "styleURL": WebAssets.styleURL], withTemplate: "refusal") ?? message, status: status)
    }

    /// After a POST: back to a page with GET.
    static func redirect(_ location: String) -> Response {
        Response.redirect(to: location, type: .normal)
    }

    /// A file to download.
    static func download(_ data: Data, name: String, type: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = type
        let safe = String(name.unicodeScalars.filter { $0.isASCII && ($0.properties.isAlphabetic || "0123456789-_. ".unicodeScalars.contains($0)) }.map(Character.init))
        headers[.contentDisposition] = "attachment; filename=\"\(safe.isEmpty ? "download" : safe)\""
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
