import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import SuiteServer
import SuiteSyncProtocol
import Testing

/// The community routes over HTTP: settings, publishing, counts, the feed, shared lists and
/// their public page.
@Suite("Community over HTTP")
struct CommunityHTTPTests {
    @Test func publishCountAndShareOverHTTP() async throws {
        try await HTTPAPITests.withApp { client, storage in
            let alice = try await HTTPAPITests.signup(client)
            let bob = try await HTTPAPITests.signup(client)
            let quote = CommunityQuote(text: "Both of us like this.", source: "Someone")
            for session in [alice, bob] {
                let settings = try await client.execute(uri: "/v1/community/settings", method: .put, headers: HTTPAPITests.bearer(session.token),
                                                        body: try HTTPAPITests.json(CommunitySettings(favourites: true)))
                #expect(settings.status == .ok)
                let put = try await client.execute(uri: "/v1/community/favourites", method: .put, headers: HTTPAPITests.bearer(session.token),
                                                   body: try HTTPAPITests.json(CommunityFavouritesUpload(quotes: [quote])))
                #expect(put.status == .noContent)
            }
            let topResponse = try await client.execute(uri: "/v1/community/quotes/top?limit=5", method: .get, headers: HTTPAPITests.bearer(alice.token))
            let top = try HTTPAPITests.decode([CommunityQuoteCount].self, topResponse)
            #expect(top.map(\.count) == [2] && top.first?.text == quote.text)
            let feedResponse = try await client.execute(uri: "/v1/community/quotes?after=0", method: .get, headers: HTTPAPITests.bearer(bob.token))
            let feed = try HTTPAPITests.decode(CommunityFeed<CommunityQuoteCount>.self, feedResponse)
            #expect(feed.items.map(\.count) == [2] && !feed.reset)
            // Nothing names who favourited: the answers as sent carry no account or device.
            var identities = [alice.deviceID, bob.deviceID]
            for device in [alice.deviceID, bob.deviceID] {
                let row = try #require(try await storage.dumpRows(of: "devices").first { $0.contains(device) })
                identities += try await storage.dumpRows(of: "accounts").compactMap { account in
                    account.split(separator: "\"").map(String.init).first { $0.count == 36 && row.contains($0) && account.contains($0) }
                }
            }
            #expect(identities.count == 4)
            for response in [topResponse, feedResponse] {
                let body = String(buffer: response.body)
                #expect(identities.allSatisfy { !body.contains($0) }, "\(body)")
            }

            let off = try await client.execute(uri: "/v1/community/ratings", method: .put, headers: HTTPAPITests.bearer(alice.token),
                                               body: try HTTPAPITests.json(CommunityRatingsUpload(ratings: [])))
            #expect(off.status == .conflict)
            let noToken = try await client.execute(uri: "/v1/community/quotes/top", method: .get)
            #expect(noToken.status == .unauthorized)
            let badLimit = try await client.execute(uri: "/v1/community/quotes/top?limit=x", method: .get, headers: HTTPAPITests.bearer(alice.token))
            #expect(badLimit.status == .badRequest)

            let hostile = "<script>alert('x')</script> & \"friends\""
            let created = try await client.execute(uri: "/v1/shared", method: .post, headers: HTTPAPITests.bearer(alice.token),
                                                   body: try HTTPAPITests.json(SharedListRequest(title: "Mine </title><script>", quotes: [
                                                       SharedQuote(text: hostile, source: "<b>me</b>", citation: nil),
                                                   ])))
            #expect(created.status == .created)
            let info = try HTTPAPITests.decode(SharedListInfo.self, created)
            let page = try await client.execute(uri: info.path, method: .get)
            #expect(page.status == .ok)
            let html = String(buffer: page.body)
            #expect(!html.lowercased().contains("<script"))
            #expect(html.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;friends&quot;"))
            #expect(page.headers[.contentSecurityPolicy]?.hasPrefix("default-src 'none'") == true)
            let json = try await client.execute(uri: info.path + ".json", method: .get)
            #expect(try HTTPAPITests.decode(SharedList.self, json).quotes.first?.text == hostile)

            let delete = try await client.execute(uri: "/v1/shared/\(info.id)", method: .delete, headers: HTTPAPITests.bearer(alice.token))
            #expect(delete.status == .noContent)
            #expect(try await client.execute(uri: info.path, method: .get).status == .notFound)
            #expect(try await client.execute(uri: "/s/../../etc/passwd", method: .get).status == .notFound)
        }
    }
}
