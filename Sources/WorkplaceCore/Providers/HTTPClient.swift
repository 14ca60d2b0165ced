import Foundation
// The HTTP values and client protocol live in SuiteHTTP (QuoteCore uses them too); they stay
// visible to everyone who imports WorkplaceCore.
@_exported import SuiteHTTP

/// Retries for rate limits and server errors, shared by the providers.
struct RetryPolicy: Sendable {
    /// How many times a request is retried after a 429 or 5xx.
    var maxRetries: Int
    /// The first backoff; doubled each time.
    var initialBackoff: TimeInterval
    /// The longest wait, even when `Retry-After` asks for more.
    var maxWait: TimeInterval

    /// Sends a request, retrying 429 and 5xx answers with backoff (honouring `Retry-After`).
    /// Returns the final answer, whatever its status; throws when no answer came. Every attempt,
    /// retries included, first waits for its slot from `pacer` when there is one. A cancelled
    /// task sends nothing more: it stops waiting at once and throws ``cancelled(_:)``.
    func send(_ request: HTTPRequest, with client: any HTTPClient, provider: String,
              pacer: RequestPacer? = nil) async throws(WorkplaceError) -> HTTPResponse {
        var attempt = 0
        while true {
            if let pacer {
                do { try await pacer.waitForSlot() } catch { throw Self.cancelled(provider) }
            }
            // Also when a wait ended just as the task was cancelled, or there was nothing to wait for.
            guard !Task.isCancelled else { throw Self.cancelled(provider) }
            let answer: HTTPResponse
            do {
                answer = try await Self.send(request, with: client, pacer: pacer)
            } catch {
                if Task.isCancelled { throw Self.cancelled(provider) }
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
            do { try await Task.sleep(nanoseconds: UInt64(wait * 1_000_000_000)) } catch { throw Self.cancelled(provider) }
        }
    }

    /// What a provider throws when its task is cancelled: the fetch stopped without an answer.
    static func cancelled(_ provider: String) -> WorkplaceError { .providerUnavailable(provider: provider, detail: "cancelled") }
}

/// Spaces a provider's requests: each one starts at least `interval` after the one before it
/// started, however many callers send at once (Nominatim allows one request a second).
///
/// A caller first takes a slot, reading and moving the next free one under the lock, so that
/// concurrent callers line up one interval apart, and waits for it before the request's timeout
/// runs. Then, just before the request goes to the client, ``start()`` checks the time since the
/// last request actually started and notes this one: a request held up after its slot (a busy
/// machine) cannot bring the next one closer than `interval`. A caller cancelled while it waits
/// leaves its slot unused, which makes a longer gap, never a shorter one.
final class RequestPacer: @unchecked Sendable { // the state is only touched under `lock`
    /// The shortest time between the starts of two requests.
    let interval: Duration
    private let lock = NSLock()
    private var nextSlot: ContinuousClock.Instant?
    private var lastStart: ContinuousClock.Instant?

    init(interval: Duration) { self.interval = interval }

    private func locked<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }

    /// Takes the next free slot: now, or later when an earlier slot or start is too close.
    func takeSlot() -> ContinuousClock.Instant {
        locked {
            let now = ContinuousClock.now
            let slot = max(now, nextSlot ?? now, lastStart.map { $0 + interval } ?? now)
            nextSlot = slot + interval
            return slot
        }
    }

    /// Takes a slot and waits for it; throws as soon as the task is cancelled.
    func waitForSlot() async throws(CancellationError) {
        let slot = takeSlot()
        do { try await Task.sleep(until: slot, clock: .continuous) } catch { throw CancellationError() }
    }

    /// Notes that a request starts now and returns nil; or, when the last one started less than
    /// `interval` ago, returns how long to wait before asking again.
    func claimStart() -> Duration? {
        locked {
            let now = ContinuousClock.now
            if let lastStart, now < lastStart + interval { return lastStart + interval - now }
            lastStart = now
            return nil
        }
    }

    /// Waits until a request may start and notes that it does: for just before it is sent.
    func start() async throws(CancellationError) {
        while let wait = claimStart() {
            do { try await Task.sleep(for: wait) } catch { throw CancellationError() }
        }
    }
}

extension RetryPolicy {
    /// Sends with a deadline of the request's `timeout` for the whole answer, whatever the client
    /// does with it (URLSession on Linux applies it only between bytes). With a `pacer`, the
    /// request starts only when ``RequestPacer/start()`` lets it, right before the client has it.
    static func send(_ request: HTTPRequest, with client: any HTTPClient, pacer: RequestPacer? = nil) async throws -> HTTPResponse {
        let timeout = request.boundedTimeout
        return try await withThrowingTaskGroup(of: HTTPResponse.self) { group in
            group.addTask {
                try await pacer?.start()
                return try await client.send(request)
            }
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

/// Something that finds the place at an address: its name, coordinates, kind, opening hours and
/// contact details, as far as the service knows them (``NominatimGeocoder``, ``YelpProvider``).
public protocol AddressLookup: Sendable {
    /// The best match for `address` (and `name`, when given, which the record keeps).
    func lookUp(address: String, name: String?) async throws(WorkplaceError) -> PlaceRecord
}

extension NominatimGeocoder: AddressLookup {}
extension YelpProvider: AddressLookup {}
