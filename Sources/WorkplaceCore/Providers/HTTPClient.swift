import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sends HTTP requests. The live client uses `URLSession`; tests talk to a real server on
/// loopback through it.
public protocol HTTPClient: Sendable {
    /// Sends `request` and returns the body and response, or throws when no response came
    /// (connection refused, timeout).
    func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse)
}

/// `URLSession` as an ``HTTPClient``.
public struct URLSessionHTTPClient: HTTPClient {
    private let session: URLSession

    /// Creates a client with its own ephemeral session.
    public init() {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        session = URLSession(configuration: configuration)
    }

    public func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        let (data, response) = try await session.data(for: request)
        guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
        return (data, http)
    }
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
    func send(_ request: URLRequest, with client: any HTTPClient, provider: String) async throws(WorkplaceError) -> (Data, HTTPURLResponse) {
        var attempt = 0
        while true {
            let answer: (Data, HTTPURLResponse)
            do {
                answer = try await Self.send(request, with: client)
            } catch {
                let reason = (error as? URLError)?.code == .timedOut ? "no answer within \(Int(request.timeoutInterval)) s" : "\(error.localizedDescription)"
                throw .providerUnavailable(provider: provider, detail: reason)
            }
            let status = answer.1.statusCode
            guard (status == 429 || (500...599).contains(status)), attempt < maxRetries else { return answer }
            let retryAfter = answer.1.value(forHTTPHeaderField: "Retry-After").flatMap { TimeInterval($0.trimmingCharacters(in: .whitespaces)) }
            let wait = min(retryAfter ?? initialBackoff * pow(2, Double(attempt)), maxWait)
            attempt += 1
            try? await Task.sleep(nanoseconds: UInt64(max(0, wait) * 1_000_000_000))
        }
    }
}

extension RetryPolicy {
    /// Sends with a deadline of the request's `timeoutInterval` for the whole answer (URLSession
    /// on Linux applies it only between bytes).
    static func send(_ request: URLRequest, with client: any HTTPClient) async throws -> (Data, HTTPURLResponse) {
        let timeout = request.timeoutInterval
        return try await withThrowingTaskGroup(of: (Data, HTTPURLResponse).self) { group in
            group.addTask { try await client.send(request) }
            group.addTask {
                try await Task.sleep(nanoseconds: UInt64(max(timeout, 0.001) * 1_000_000_000))
                throw URLError(.timedOut)
            }
            defer { group.cancelAll() }
            guard let first = try await group.next() else { throw URLError(.unknown) }
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
