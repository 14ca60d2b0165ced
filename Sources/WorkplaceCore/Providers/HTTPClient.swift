import Foundation

/// An HTTP request as the providers build it: plain values, so a client can be written on any
/// HTTP stack (`URLSession` in `WorkplaceURLSession`, libcurl in the `suite` tool, a fake in tests).
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
/// `WorkplaceURLSession`) in an app, a scripted one in tests.
public protocol HTTPClient: Sendable {
    /// Sends `request` and returns the answer, whatever its status; throws when no answer came
    /// (connection refused, timeout).
    func send(_ request: HTTPRequest) async throws -> HTTPResponse
}

/// Retries for rate limits and server errors, shared by the providers.
struct RetryPolicy: Sendable {
    /// How many times a request is retried after a 429 or 5xx.
    var maxRetries: Int
    /// The first backoff; doubled each time.
    var initialBackoff: TimeInterval
    /// The longest wait, even when `Retry-After` asks for more.
    var maxWait: TimeInterval

    /// Sends a request, retrying 429 and 5xx answers with backoff (honouring `Retry-After`).
    /// Returns the final answer, whatever its status; throws when no answer came.
    func send(_ request: HTTPRequest, with client: any HTTPClient, provider: String) async throws(WorkplaceError) -> HTTPResponse {
        var attempt = 0
        while true {
            let answer: HTTPResponse
            do {
                answer = try await Self.send(request, with: client)
            } catch {
                let reason = error as? HTTPClientError == .timedOut ? "no answer within \(Int(request.boundedTimeout.rounded(.up))) s"
                    : (error as? HTTPClientError)?.description ?? "\(error.localizedDescription)"
                throw .providerUnavailable(provider: provider, detail: reason)
            }
            let status = answer.status
            guard (status == 429 || (500...599).contains(status)), attempt < maxRetries else { return answer }
            let retryAfter = answer.header("Retry-After").flatMap { TimeInterval($0.trimmingCharacters(in: .whitespaces)) }
            // A Retry-After of "nan", "inf" or "1e300" must not reach the conversion to nanoseconds.
            let asked = retryAfter.flatMap { $0.isFinite ? $0 : nil } ?? initialBackoff * pow(2, Double(attempt))
            let wait = asked.isFinite ? min(max(0, asked), maxWait) : maxWait
            attempt += 1
            try? await Task.sleep(nanoseconds: UInt64(wait * 1_000_000_000))
        }
    }
}

extension RetryPolicy {
    /// Sends with a deadline of the request's `timeout` for the whole answer, whatever the client
    /// does with it (URLSession on Linux applies it only between bytes).
    static func send(_ request: HTTPRequest, with client: any HTTPClient) async throws -> HTTPResponse {
        let timeout = request.boundedTimeout
        return try await withThrowingTaskGroup(of: HTTPResponse.self) { group in
            group.addTask { try await client.send(request) }
            group.addTask {
                try await Task.sleep(nanoseconds: UInt64(timeout * 1_000_000_000))
                throw HTTPClientError.timedOut
            }
            defer { group.cancelAll() }
            guard let first = try await group.next() else { throw HTTPClientError.timedOut }
            return first
        }
    }
}

/// Where a provider fetch is: for progress on a terminal.
public typealias FetchProgress = @Sendable (String) -> Void

/// Something that finds places around a point.
public protocol PlaceProvider: Sendable {
    /// The provider's name, for messages.
    var name: String { get }
    /// Places within `radius` metres of `center`.
    func places(near center: Coordinate, radius: Double, progress: FetchProgress?) async throws(WorkplaceError) -> [PlaceRecord]
}

/// Something that turns an address into coordinates.
public protocol Geocoder: Sendable {
    /// The best match for `address`, with a display name.
    func geocode(_ address: String) async throws(WorkplaceError) -> (coordinate: Coordinate, displayName: String)
}
