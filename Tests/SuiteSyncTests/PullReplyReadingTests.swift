import Foundation
import SuiteHTTP
import SuiteStorage
import SuiteSync
import SuiteSyncProtocol
import SuiteTestSupport
import Testing

/// A pull's answer is read without the protocol's JSON decoder when it is what the server
/// writes; what is read must be what that decoder reads, and anything else goes to it.
@Suite struct PullReplyReadingTests {
    /// Answers every request with `body`.
    struct FixedAnswer: HTTPClient {
        var body: Data
        func send(_ request: HTTPRequest) async throws -> HTTPResponse { HTTPResponse(status: 200, body: body) }
    }

    func read(_ body: Data) async -> SyncPullReply? {
        let client = SyncServerClient(server: URL(string: "http://127.0.0.1:9")!, token: "t", http: FixedAnswer(body: body))
        return try? await client.pull(log: "bundle", after: 0, limit: 1000)
    }

    @Test func answersTheServerWritesAreReadAsTheDecoderReadsThem() async throws {
        var random = SeededRandom(seed: 36)
        for n in 0..<200 {
            let operations = (0..<random.next(upTo: 30)).map { m in
                SyncEnvelope(id: "op-\(n)-\(m)", slot: String(repeating: "ab/", count: random.next(upTo: 4)),
                             payload: Data((0..<random.next(upTo: 300)).map { _ in UInt8(random.next(upTo: 256)) }))
            }
            let reply = SyncPullReply(
                epoch: "epoch-\(n)", head: Int64(random.next(upTo: 1_000_000)), operations: operations, next: Int64(random.next(upTo: 1_000_000)),
                anchor: random.next(upTo: 3) == 0 ? nil : "anchor/\(n)", serverTime: random.next(upTo: 3) == 0 ? nil : 1_795_833_298_146,
                compacted: random.next(upTo: 2) == 0 ? nil : Int64(n), compactionWanted: [nil, true, false][random.next(upTo: 3)])
            let body = try SyncProtocol.encoder.encode(reply)
            #expect(await read(body) == reply)
        }
    }

    @Test(arguments: [
        #"{"epoch":"e","head":3,"next":3,"operations":[]}"#,
        #"{"anchor":null,"compacted":null,"compactionWanted":null,"epoch":"e","head":3,"next":3,"operations":[],"serverTime":null}"#,
        #"{"epoch":"e","head":3,"next":3,"operations":[{"id":"a","payload":"AAE=","slot":"s"}],"later":1}"#,
        #"{"epoch":"e","head":3,"next":3,"operations":[{"id":"a","payload":"AAE","slot":"s"}]}"#,
        #"{"epoch":"e","head":3,"next":3,"operations":[{"id":"a","payload":"A\/E=","slot":"s","size":3}]}"#,
        #"{"epoch":"e","head":3.0,"next":3,"operations":[]}"#,
        #"{"epoch":"e","next":3,"operations":[]}"#,
        #"{"epoch":"e","head":3,"next":3,"operations":[],"compactionWanted":1}"#,
        #"{ "epoch":"e","head":3,"next":3,"operations":[]}"#,
        #"{"epoch":"e","head":3,"next":3,"operations":[{"id":"a","payload":"AAE=","slot":"s"},]}"#,
        "", "[]", "{}",
    ])
    func oddAnswersAreReadAsTheDecoderReadsThem(json: String) async {
        let body = Data(json.utf8)
        #expect(await read(body) == (try? SyncProtocol.decoder.decode(SyncPullReply.self, from: body)))
    }
}
