import Foundation
import Hummingbird
import HTTPTypes
import NIOCore
import SuiteSyncProtocol
import SuiteEnvironment
import SuiteMarkup

/// A shared list for anyone with its link: `/s/ID` as an HTML page without script (every text
/// escaped, a policy that allows no script), `/s/ID.json` as JSON.
package enum SharedListPage {
    /// The answer to `GET /s/{id}`.
    package static func response(id segment: String, service: SyncService) async throws -> Response {
        let wantsJSON = segment.hasSuffix(".json")
        let id = wantsJSON ? String(segment.dropLast(5)) : segment
        guard let list = try await service.sharedList(id: id) else {
            return reply(.notFound, type: wantsJSON ? "application/json; charset=utf-8" : "text/html; charset=utf-8",
                         body: wantsJSON ? Data(#"{"error":"no such list (it may have been unpublished)"}"#.utf8)
                                         : Data(page(title: "Not found", body: "<p>No such list. It may have been unpublished.</p>").utf8))
        }
        if wantsJSON {
            return reply(.ok, type: "application/json; charset=utf-8", body: try SyncProtocol.encoder.encode(list))
        }
        return reply(.ok, type: "text/html; charset=utf-8", body: Data(html(list).utf8))
    }

    /// The list as an HTML page.
    package static func html(_ list: SharedList) -> String {
        var body = "<h1>\(Markup.escape(list.title))</h1>\n<p class=\"meta\">\(list.quotes.count) quote\(list.quotes.count == 1 ? "" : "s"), shared <time datetime=\"\(Markup.escape(ISO8601DateFormatter().string(from: list.createdAt)))\">\(Markup.escape(PeopleTime.universal(list.createdAt)))</time></p>\n"
        for quote in list.quotes {
            body += "<blockquote><p>\(Markup.escape(quote.text).replacingOccurrences(of: "\n", with: "<br>"))</p>"
            let attribution = [quote.source, quote.citation].compactMap { $0 }.filter { !$0.isEmpty }.map(Markup.escape).joined(separator: ", ")
            if !attribution.isEmpty { body += "<footer>— \(attribution)</footer>" }
            body += "</blockquote>\n"
        }
        return page(title: list.title, body: body)
    }

    private static func page(title: String, body: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="referrer" content="no-referrer"><title>\(Markup.escape(title))</title>
        <style>body{font-family:system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;line-height:1.5}blockquote{margin:1.2rem 0;padding-left:1rem;border-left:3px solid #999}footer{color:#555}.meta{color:#555}</style>
        </head><body>
        \(body)</body></html>

        """
    }

    private static func reply(_ status: HTTPResponse.Status, type: String, body: Data) -> Response {
        var headers: HTTPFields = [:]
        headers[.contentType] = type
        headers[.contentSecurityPolicy] = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
        headers[.xContentTypeOptions] = "nosniff"
        headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }
}
