import CSuiteCurl
import Dispatch
import Foundation
import WorkplaceCore

/// libcurl as WorkplaceCore's `HTTPClient`, loaded only when a command fetches.
///
/// `suite` does not link `FoundationNetworking`: on Linux it brings libcurl and some thirty
/// libraries that every process would load and initialise at start-up (about 9 ms, more than
/// half of a `suite quotes random`). Fetching is rare, so the library is opened on first use.
struct CurlHTTPClient: HTTPClient {
    /// Answers larger than this are refused rather than held in memory.
    var maxBody = 128 << 20

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard let scheme = request.url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw HTTPClientError.failed("not an http or https URL: \(request.url.absoluteString)")
        }
        // curl_easy_perform blocks: run it on a GCD thread, not on the cooperative pool.
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try perform(request) })
            }
        }
    }

    private func perform(_ request: HTTPRequest) throws -> HTTPResponse {
        let headerLines = request.headers.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
            // libcurl adds "Expect: 100-continue" to large POSTs; the providers want a plain POST.
            + (request.body == nil ? [] : ["Expect:"])
        var result = suite_http_result()
        let timeout = Int(request.boundedTimeout * 1000)
        let outcome = withCStrings(headerLines) { lines in
            (request.body ?? Data()).withUnsafeBytes { body in
                suite_http_perform(request.url.absoluteString, request.method, lines, Int32(headerLines.count),
                                   request.body == nil ? nil : (body.baseAddress ?? UnsafeRawPointer(bitPattern: 1)), body.count,
                                   timeout, maxBody, request.followsRedirects ? 1 : 0, &result)
            }
        }
        defer { suite_http_result_free(&result) }
        let reason = withUnsafeBytes(of: result.error) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        switch outcome {
        case SUITE_HTTP_OK: break
        case SUITE_HTTP_TIMED_OUT: throw HTTPClientError.timedOut
        default: throw HTTPClientError.failed(reason)
        }
        let body = result.body.map { Data(bytes: $0, count: result.body_length) } ?? Data()
        let block = result.headers.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: result.headers_length), as: UTF8.self) } ?? ""
        return HTTPResponse(status: result.status, headers: Self.headers(block), body: body)
    }

    /// "Name: value" lines after the status line; a repeated name keeps the last value.
    static func headers(_ block: String) -> [String: String] {
        var fields: [String: String] = [:]
        for line in block.split(whereSeparator: { $0 == "\r\n" || $0 == "\n" || $0 == "\r" }).dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            fields[name] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return fields
    }
}

/// Calls `body` with the strings as an array of C strings that live for the call.
private func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
    let copies = strings.map { strdup($0) }
    defer { copies.forEach { free($0) } }
    let pointers = copies.map { UnsafePointer($0) } + [nil]
    return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
}
