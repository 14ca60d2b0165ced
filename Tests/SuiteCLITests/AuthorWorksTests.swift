import Foundation
import SuiteTestSupport
import Testing

/// `quotes works`: the works an author's quotes cite, and Open Library's list through a loopback
/// server answering as Open Library does (Fixtures/openlibrary/).
@Suite struct AuthorWorksTests {
    static let answer = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Fixtures/openlibrary/search-twain.json").standardizedFileURL

    func seeded() throws -> Suite {
        let suite = try Suite()
        for (text, citation) in [("Always do right.", "Notes"), ("Let us so live that when we come to die even the undertaker will be sorry.", "Pudd'nhead Wilson"),
                                 ("Few things are harder to put up with than a good example.", "Pudd'nhead Wilson"),
                                 ("The man who does not read has no advantage over the man who cannot read.", nil)] {
            var arguments = ["quotes", "add", text, "--source", "Mark Twain"]
            if let citation { arguments += ["--citation", citation] }
            let added = try suite.run(arguments)
            #expect(added.status == 0, "\(added.stderr)")
        }
        return suite
    }

    @Test func worksListsTheCitedWorksMostQuotedFirst() throws {
        let suite = try seeded()
        let works = try suite.run("quotes", "works", "mark  twain")
        #expect(works.status == 0, "\(works.stderr)")
        // With the starter collection's two Twain quotes (one from Pudd'nhead Wilson, one citing
        // no work), there from the store's first command.
        #expect(works.stdout == "   3  Pudd'nhead Wilson\n   1  Notes\n   2  (no work named)\n")
        let json = try JSONDecoder().decode([JSONValue].self, from: Data(try suite.run("quotes", "works", "Mark Twain", "--json").stdout.utf8))
        #expect(json.first?["title"]?.string == "Pudd'nhead Wilson")
        expectFailure(try suite.run("quotes", "works", "Nobody"), status: 1, "no quotes from source 'Nobody'")
    }

    @Test func onlineAsksOpenLibraryAndMarksTheBooksQuotedHere() async throws {
        let server = try await TestServer()
        defer { Task { await server.stop() } }
        await server.script.set("/search.json", [.init(status: 200, body: try String(contentsOf: Self.answer, encoding: .utf8),
                                                       headers: ["Content-Type": "application/json"])])
        var suite = try seeded()
        suite.environment["SUITE_OPENLIBRARY_URL"] = server.baseURL.absoluteString
        let online = try await suite.runAsync(["quotes", "works", "Mark Twain", "--online", "--limit", "5"])
        #expect(online.status == 0, "\(online.stderr)")
        #expect(online.stdout == """
            Adventures of Huckleberry Finn (1884), 1210 editions
            The Adventures of Tom Sawyer (1876), 1050 editions
            The Innocents Abroad (1869), 260 editions
            Pudd'nhead Wilson, 240 editions — 3 quotes here

            """)
        // What was asked: by author, only the fields used, most editions first, named.
        let request = try #require(await server.script.requests.first)
        #expect(request.query["author"] == "Mark Twain")
        #expect(request.query["fields"] == "key,title,first_publish_year,edition_count")
        #expect(request.query["sort"] == "editions")
        #expect(request.query["limit"] == "5")
        #expect(request.headers.first { $0.key.lowercased() == "user-agent" }?.value.hasPrefix("suite-quotes/") == true)
        let json = try JSONDecoder().decode([JSONValue].self, from: Data(try await suite.runAsync(["quotes", "works", "Mark Twain", "--online", "--json"]).stdout.utf8))
        #expect(json.first?["url"]?.string == server.baseURL.absoluteString + "/works/OL53908W")

        // Throttled: exit 75; down: 69; an answer that is not Open Library's, or a title with a
        // control character: 69, and nothing of it printed.
        for (answer, status, words) in [(TestServer.Answer(status: 429, body: "slow down"), Int32(75), "asks to slow down"),
                                        (TestServer.Answer(status: 503, body: "down"), 69, "HTTP 503"),
                                        (TestServer.Answer(status: 200, body: "<html>maintenance</html>"), 69, "not its search JSON"),
                                        (TestServer.Answer(status: 200, body: "{\"docs\": [{\"title\": \"Evil\\u001b[2J\"}]}"), 69, "not text")] {
            await server.script.set("/search.json", [answer])
            let result = try await suite.runAsync(["quotes", "works", "Mark Twain", "--online"])
            #expect(result.status == status, "\(answer.body): \(result.stderr)")
            #expect(result.stderr.contains(words), "\(result.stderr)")
            #expect(result.stdout.isEmpty)
        }
        // No server at all.
        suite.environment["SUITE_OPENLIBRARY_URL"] = "http://127.0.0.1:9"
        let refused = try await suite.runAsync(["quotes", "works", "Mark Twain", "--online", "--timeout", "5"])
        #expect(refused.status == 69, "\(refused.stderr)")
    }
}
