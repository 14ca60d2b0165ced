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

    /// A menu entry of an app's pages (the layout's `menu` rows).
    struct MenuItem: TemplateValues {
        var label: String
        var href: String
        var current = false
    }

    /// An app of the tab bar as the layout shows it (its `apps` rows).
    struct AppTab: TemplateValues {
        let id: String
        let href: String
        let label: String
        let current: Bool
    }

    /// The layout's values: the page's own rendered template (`body`) inside the apps' menu.
    struct Layout: WebViewModel {
        static let template = "layout"
        let title: String
        let app: String
        let body: String
        let menu: [MenuItem]
        let apps: [AppTab]
        let home: Bool
        let appLabel: String
        let styleURL: String
        let scriptURL: String
        let themeColor = WebInstall.themeColor
        /// The form token, for the page script's requests (`<meta name="csrf-token">`).
        let csrf: String
    }

    /// The refusal page's values.
    struct Refusal: WebViewModel {
        static let template = "refusal"
        let title: String
        let message: String
        let styleURL: String
    }

    /// An `<option>` of a select: its value, what it says, and whether it is the chosen one.
    struct Option: TemplateValues {
        let value: String
        let label: String
        let selected: Bool
    }

    /// A choice whose value is what it says (an `<option>` or a checkbox).
    struct Choice: TemplateValues {
        let value: String
        let selected: Bool
    }

    /// The four apps of the tab bar: their path and label.
    static let apps: [(id: String, label: String)] = [("bmm", "Business model"), ("places", "Places"), ("quotes", "Quotes"), ("bundle", "Bundles")]

    /// `view` rendered with its template.
    static func render(_ view: some WebViewModel) -> String {
        library.render(view, withTemplate: type(of: view).template) ?? ""
    }

    /// A whole page: `content` rendered with its template, inside the layout.
    static func page(
        _ content: some WebViewModel, title: String, app: String, menu: [MenuItem] = [], secrets: WebSecrets,
        status: HTTPResponse.Status = .ok, formToken: Bool = true
    ) -> Response {
        // A page served to anyone (the offline page, kept by the service worker) carries none.
        let csrf = formToken ? WebRequest.formToken ?? secrets.formToken : ""
        let body = library.render(WithFormToken(content: content, csrf: csrf), withTemplate: type(of: content).template) ?? ""
        let layout = Layout(
            title: title, app: app, body: body, menu: menu,
            apps: apps.map { id, label in AppTab(id: id, href: "/\(id)", label: label, current: id == app) },
            home: app.isEmpty, appLabel: "Pages of " + (apps.first { $0.id == app }?.label ?? "Suite"),
            styleURL: WebAssets.styleURL, scriptURL: WebAssets.scriptURL, csrf: csrf)
        return html(render(layout), status: status)
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
        html(library.render(Refusal(title: "Refused", message: message, styleURL: WebAssets.styleURL), withTemplate: Refusal.template) ?? message, status: status)
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

/// The values a page's template shows: one stored property for each name the template reads
/// (computed properties are not seen; see ``TemplateValues``). A nil Optional is no value:
/// `{{#name}}` is false, and `{{name}}` is looked up in the values around it, as with a missing
/// key. The rows of a list, and what a partial shows, are `TemplateValues` structs of their own.
protocol WebViewModel: TemplateValues {
    /// The template (a name of ``WebTemplates/all``) that shows these values.
    static var template: String { get }
}

/// What a page's template is rendered with: the page's view model, and the form token that every
/// form of the page carries (`{{csrf}}`, found from anywhere in the template).
struct WithFormToken<Content: WebViewModel>: MustacheParent {
    let content: Content
    let csrf: String

    func child(named name: String) -> Any? {
        name == "csrf" ? csrf : content.child(named: name)
    }
}
