import Foundation

/// An HTTP request as the providers build it: plain values, so a client can be written on any
/// HTTP stack (`URLSession` in `WorkplaceURLSession`, libcurl in the `suite` tool, a fake in tests).
/// Shared by the cores that ask web services (WorkplaceCore's places, QuoteCore's books).
public struct HTTPRequest: Sendable, Equatable {
    /// The absolute `http` or `https` URL.
    public var url: URL
    /// `GET`, `POST`, …
    public var method: String
    /// Header fields to send, by name.
    public var headers: [String: String]
    /// The body, for `POST`.
    public var body: Data?
    /// The longest wait for the whole answer, in seconds.
    public var timeout: TimeInterval
    /// Whether a redirect is followed (the providers' requests) or answered as it is (a push
    /// to a browser's endpoint, which must go where the browser said and nowhere else).
    public var followsRedirects = true

    /// Creates a request.
    public init(url: URL, method: String = "GET", headers: [String: String] = [:], body: Data? = nil, timeout: TimeInterval) {
        self.url = url; self.method = method; self.headers = headers; self.body = body; self.timeout = timeout
    }

    /// ``timeout`` as clients should apply it: between a millisecond and a day, 15 s for NaN.
    /// Converting it to whole milliseconds or nanoseconds can never trap.
    public var boundedTimeout: TimeInterval {
        timeout.isNaN ? 15 : min(max(timeout, 0.001), 86_400)
    }
}

/// An HTTP answer: status, header fields and body.
public struct HTTPResponse: Sendable, Equatable {
    /// The status code, e.g. 200.
    public var status: Int
    /// Header fields, by lower-cased name.
    public var headers: [String: String]
    /// The body.
    public var body: Data

    /// Creates an answer; header names are lower-cased.
    public init(status: Int, headers: [String: String] = [:], body: Data = Data()) {
        self.status = status
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { _, last in last })
        self.body = body
    }

    /// A header field by name, in any case.
    public func header(_ name: String) -> String? { headers[name.lowercased()] }
}

/// Why a client got no answer at all.
public enum HTTPClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Nothing came within the request's timeout.
    case timedOut
    /// The transfer failed (no connection, TLS, DNS, …); the text says how.
    case failed(String)

    public var description: String {
        switch self {
        case .timedOut: "timed out"
        case .failed(let reason): reason
        }
    }
}

/// Sends HTTP requests. Pass one to each provider: `URLSessionHTTPClient` (product
/// `WorkplaceURLSession`) or one of your own in an app, a scripted one in tests.
public protocol HTTPClient: Sendable {
    /// Sends `request` and returns the answer, whatever its status; throws when no answer came
    /// (connection refused, timeout).
    func send(_ request: HTTPRequest) async throws -> HTTPResponse
}
