import Foundation
import SuiteTestSupport
import Testing
@testable import WorkplaceCore

/// The requests a ``RecordingHTTPClient`` was asked to send, with the instant each one started.
actor RequestLog {
    private(set) var requests: [(request: HTTPRequest, started: ContinuousClock.Instant)] = []

    func record(_ request: HTTPRequest, started: ContinuousClock.Instant) { requests.append((request, started)) }

    var count: Int { requests.count }
    var starts: [ContinuousClock.Instant] { requests.map(\.started) }
    /// The `q` parameter of each request, in the order they were sent.
    var queries: [String] {
        requests.map { URLComponents(url: $0.request.url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "q" }?.value ?? "" }
    }
}

/// An HTTP client that notes when each request starts, then answers it, after `delay` (a sleep
/// that ends early when the task is cancelled, as a real transfer does).
struct RecordingHTTPClient: HTTPClient {
    let log = RequestLog()
    var delay: Duration = .zero
    let answer: @Sendable (HTTPRequest) -> HTTPResponse

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        await log.record(request, started: .now)
        if delay > .zero { try await Task.sleep(for: delay) }
        return answer(request)
    }
}

let nominatimAnswer = "[{\"place_id\": 1, \"lat\": \"52.5219\", \"lon\": \"13.4132\", \"display_name\": \"Alexanderplatz, Mitte, Berlin\"}]"
let unusedURL = URL(string: "http://127.0.0.1:9")! // programmer error: a literal URL; the recording client never connects

func makeGeocoder(_ client: RecordingHTTPClient) -> NominatimGeocoder {
    NominatimGeocoder(baseURL: unusedURL, userAgent: "suite-tests/1", timeout: 30, client: client)
}

/// Nominatim allows one request a second, from all callers together.
@Suite struct NominatimPacingTests {
    @Test func concurrentGeocodesStartAtLeastASecondApart() async throws {
        let client = RecordingHTTPClient { _ in HTTPResponse(status: 200, body: Data(nominatimAnswer.utf8)) }
        let geocoder = makeGeocoder(client)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 1...3 { group.addTask { _ = try await geocoder.geocode("Street \(index)") } }
            try await group.waitForAll()
        }
        let starts = await client.log.starts.sorted()
        #expect(starts.count == 3)
        for (earlier, later) in zip(starts, starts.dropFirst()) {
            #expect(later - earlier >= .milliseconds(900), "requests started \(later - earlier) apart")
        }
    }

    @Test func aCallerCancelledWhileWaitingSendsNothingAndTheOthersStaySpaced() async throws {
        let client = RecordingHTTPClient { _ in HTTPResponse(status: 200, body: Data(nominatimAnswer.utf8)) }
        let geocoder = makeGeocoder(client)
        let first = Task { try await geocoder.geocode("First") }
        #expect(await eventually { await client.log.count == 1 })
        // Both wait for a slot behind the first; one of them is cancelled while it waits.
        let cancelled = Task { try await geocoder.geocode("Cancelled") }
        let third = Task { try await geocoder.geocode("Third") }
        try await Task.sleep(for: .milliseconds(200))
        let cancelledAt = ContinuousClock.now
        cancelled.cancel()
        let result = await cancelled.result
        _ = try await first.value
        _ = try await third.value
        let requests = await client.log.requests
        let queries = await client.log.queries
        // Only a test held up past the caller's slot (by other tests on a busy machine) sees its
        // request sent before the cancel.
        let sentBeforeCancel = zip(queries, requests).contains { $0.0 == "Cancelled" && $0.1.started < cancelledAt }
        if !sentBeforeCancel {
            #expect(queries == ["First", "Third"])
            #expect(throws: WorkplaceError.providerUnavailable(provider: "OpenStreetMap (Nominatim)", detail: "cancelled")) { try result.get() }
        }
        let starts = requests.map(\.started).sorted()
        for (earlier, later) in zip(starts, starts.dropFirst()) {
            #expect(later - earlier >= .milliseconds(900), "requests started \(later - earlier) apart")
        }
    }
}

/// A cancelled fetch stops: no more retries, no more waiting.
@Suite struct ProviderCancellationTests {
    /// The providers, each fetching once from `client` with retries left to make.
    enum Fetcher: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case overpass, yelp, nominatim

        var testDescription: String { rawValue }

        func fetch(with client: RecordingHTTPClient) async throws {
            switch self {
            case .overpass: // five retries, the first after 20 s
                let provider = OverpassProvider(baseURL: unusedURL, userAgent: "t", timeout: 30, maxRetries: 5, initialBackoff: 20, client: client)
                _ = try await provider.places(near: berlin, radius: 500, progress: nil)
            case .yelp:
                let provider = YelpProvider(apiKey: "secret-key", baseURL: unusedURL, hoursLimit: 0, timeout: 30, maxRetries: 5, initialBackoff: 20, client: client)
                _ = try await provider.places(near: berlin, radius: 500, progress: nil)
            case .nominatim: // two retries, the first after 1 s (not settable)
                _ = try await makeGeocoder(client).geocode("Alexanderplatz, Berlin")
            }
        }

        var providerName: String {
            switch self {
            case .overpass: "OpenStreetMap (Overpass)"
            case .yelp: "Yelp"
            case .nominatim: "OpenStreetMap (Nominatim)"
            }
        }
    }

    /// Nominatim's retries are tested with a 1 s backoff that a busy machine can outlast, so only
    /// the providers whose backoff the test can set long are here; Nominatim's own wait is in
    /// ``NominatimPacingTests``.
    @Test(arguments: [Fetcher.overpass, .yelp], [503, 429])
    func aFetchCancelledWhileBackingOffSendsNoMoreRequests(fetcher: Fetcher, status: Int) async throws {
        let client = RecordingHTTPClient { _ in HTTPResponse(status: status, body: Data("{}".utf8)) }
        let fetch = Task { try await fetcher.fetch(with: client) }
        #expect(await eventually { await client.log.count == 1 })
        try await Task.sleep(for: .milliseconds(100)) // now in the 20 s backoff before the first retry
        let cancelledAt = ContinuousClock.now
        fetch.cancel()
        let result = await fetch.result
        let sentWhenItEnded = await client.log.count
        #expect(ContinuousClock.now - cancelledAt < .seconds(15), "the fetch ended \(ContinuousClock.now - cancelledAt) after cancel()")
        #expect(throws: WorkplaceError.providerUnavailable(provider: fetcher.providerName, detail: "cancelled")) { try result.get() }
        try await Task.sleep(for: .milliseconds(500))
        #expect(sentWhenItEnded == 1)
        #expect(await client.log.count == 1)
    }

    @Test(arguments: Fetcher.allCases)
    func aFetchCancelledDuringARequestSaysCancelled(fetcher: Fetcher) async throws {
        let client = RecordingHTTPClient(delay: .seconds(20)) { _ in HTTPResponse(status: 503, body: Data("{}".utf8)) }
        let fetch = Task { try await fetcher.fetch(with: client) }
        #expect(await eventually { await client.log.count == 1 })
        let cancelledAt = ContinuousClock.now
        fetch.cancel()
        let result = await fetch.result
        #expect(ContinuousClock.now - cancelledAt < .seconds(15), "the fetch ended \(ContinuousClock.now - cancelledAt) after cancel()")
        #expect(throws: WorkplaceError.providerUnavailable(provider: fetcher.providerName, detail: "cancelled")) { try result.get() }
        #expect(await client.log.count == 1)
    }
}
