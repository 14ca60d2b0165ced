import Foundation
import GRDB
import SuiteHTTP
import SuiteStorage

/// A work an author's quotes in the store cite, with how many quotes cite it.
public struct CitedWork: Codable, Sendable, Hashable {
    /// The work's title as the quotes cite it; nil for the author's quotes that cite none.
    public var title: String?
    /// How many of the author's quotes cite it.
    public var quotes: Int
}

/// A book (an Open Library "work": all editions of one book) by an author.
public struct BookWork: Codable, Sendable, Hashable {
    /// The title.
    public var title: String
    /// The year of its first publication, when known.
    public var firstPublished: Int?
    /// How many editions Open Library lists.
    public var editions: Int?
    /// Its page on Open Library.
    public var url: URL?
    /// How many quotes in the store cite it (matched by title, ignoring case).
    public var quotes: Int

    public init(title: String, firstPublished: Int? = nil, editions: Int? = nil, url: URL? = nil, quotes: Int = 0) {
        self.title = title; self.firstPublished = firstPublished; self.editions = editions; self.url = url; self.quotes = quotes
    }
}

extension QuoteStore {
    /// The works cited by the quotes of `author` (a source, matched as sources are: case and runs
    /// of spaces do not matter), most quoted first; quotes that cite no work are counted under a
    /// nil title, last.
    ///
    /// - Throws: ``QuoteError/noQuotes(_:)`` with ``QuoteError/NoQuotesReason/unknownSource(_:)``
    ///   when no quote has that source.
    public func works(by author: String) throws(QuoteError) -> [CitedWork] {
        try read { db in
            guard let source = try Int64.fetchOne(db, sql: "SELECT id FROM source WHERE key = ?", arguments: [Self.nameKey(author)]) else {
                throw QuoteError.noQuotes(.unknownSource(author))
            }
            return try Row.fetchAll(db, sql: """
                SELECT citation, count(*) AS n FROM quote WHERE source_id = ? GROUP BY citation
                ORDER BY citation IS NULL, n DESC, citation COLLATE NOCASE
                """, arguments: [source]).map { CitedWork(title: $0["citation"], quotes: $0["n"]) }
        }
    }

    /// ``works(by:)`` with Open Library's list of the author's books: each book with the number of
    /// quotes here that cite it, most editions first (see ``OpenLibrary``).
    public func books(by author: String, from library: OpenLibrary, limit: Int = 20) async throws(QuoteError) -> [BookWork] {
        let author = try Self.validated(name: author, .quoteSource)
        var books = try await library.works(by: author, limit: limit)
        let cited = (try? await run { try $0.works(by: author) }) ?? []
        var counts: [String: Int] = [:]
        for work in cited { if let title = work.title { counts[Self.nameKey(title), default: 0] += work.quotes } }
        for index in books.indices { books[index].quotes = counts[Self.nameKey(books[index].title)] ?? 0 }
        return books
    }
}

/// Open Library's public search API (https://openlibrary.org/search.json): the books ("works")
/// of an author. No key is needed; Open Library asks every program to name itself in the
/// `User-Agent`. See `Fixtures/openlibrary/README.md` for what is sent and read.
public struct OpenLibrary: Sendable {
    /// Open Library itself.
    public static let defaultBaseURL = URL(string: "https://openlibrary.org")!
    /// The most books one request asks for.
    public static let limits = 1...100

    let baseURL: URL
    let timeout: TimeInterval
    let client: any HTTPClient
    let userAgent: String

    /// - Parameters:
    ///   - baseURL: where the API is (a test server's address in tests).
    ///   - timeout: the longest wait for an answer, in seconds.
    ///   - client: the HTTP stack.
    ///   - userAgent: how the program names itself, with a way to reach its makers.
    public init(baseURL: URL = OpenLibrary.defaultBaseURL, timeout: TimeInterval = 20, client: any HTTPClient, userAgent: String) {
        self.baseURL = baseURL; self.timeout = timeout; self.client = client; self.userAgent = userAgent
    }

    /// The author's books, most editions first (Open Library's `sort=editions`).
    ///
    /// - Throws: ``QuoteError/serviceUnavailable(service:reason:)`` when no answer or an unusable
    ///   one came, ``QuoteError/serviceRateLimited(service:)`` for HTTP 429,
    ///   ``QuoteError/invalidText(_:)`` for an empty author name.
    public func works(by author: String, limit: Int = 20) async throws(QuoteError) -> [BookWork] {
        let author = try QuoteStore.validated(name: author, .quoteSource)
        let limit = min(max(limit, Self.limits.lowerBound), Self.limits.upperBound)
        var components = URLComponents(url: baseURL.appendingPathComponent("search.json"), resolvingAgainstBaseURL: false)
        components?.queryItems = [
            URLQueryItem(name: "author", value: author),
            URLQueryItem(name: "fields", value: "key,title,first_publish_year,edition_count"),
            URLQueryItem(name: "sort", value: "editions"),
            URLQueryItem(name: "limit", value: String(limit)),
        ]
        guard let url = components?.url else { throw .serviceUnavailable(service: "Open Library", reason: "cannot make a request URL from \(baseURL)") }
        let response: HTTPResponse
        do {
            response = try await client.send(HTTPRequest(url: url, headers: ["User-Agent": userAgent, "Accept": "application/json"], timeout: timeout))
        } catch {
            throw .serviceUnavailable(service: "Open Library", reason: "\(error)")
        }
        switch response.status {
        case 200: break
        case 429: throw .serviceRateLimited(service: "Open Library")
        default: throw .serviceUnavailable(service: "Open Library", reason: "HTTP \(response.status)")
        }
        return try Self.parse(response.body, base: baseURL)
    }

    /// The `docs` of a search answer as books. Titles are checked as one-line text (control
    /// characters and line breaks refuse the answer); a document without a title is left out.
    static func parse(_ body: Data, base: URL) throws(QuoteError) -> [BookWork] {
        struct Answer: Decodable {
            struct Doc: Decodable {
                var key: String?
                var title: String?
                var first_publish_year: Int?
                var edition_count: Int?
            }
            var docs: [Doc]
        }
        let answer: Answer
        do {
            answer = try JSONDecoder().decode(Answer.self, from: body)
        } catch {
            throw .serviceUnavailable(service: "Open Library", reason: "an answer that is not its search JSON")
        }
        var books: [BookWork] = []
        for doc in answer.docs {
            guard let raw = doc.title else { continue }
            let title: String
            do {
                title = try QuoteStore.validated(name: raw, .quoteCitation)
            } catch {
                throw .serviceUnavailable(service: "Open Library", reason: "a book title it sent is not text: \(error.description)")
            }
            var page: URL?
            if let key = doc.key, key.hasPrefix("/works/"), key.dropFirst(7).allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) {
                page = URL(string: key, relativeTo: base)?.absoluteURL
            }
            books.append(BookWork(title: title, firstPublished: doc.first_publish_year.flatMap { (-5000...3000).contains($0) ? $0 : nil },
                                  editions: doc.edition_count.flatMap { $0 >= 0 ? $0 : nil }, url: page))
        }
        return books
    }
}
