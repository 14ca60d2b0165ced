import Foundation
import GRDB
import SuiteStorage

/// The formats quotes can be imported from.
public enum QuoteImportFormat: String, Sendable, CaseIterable, Codable {
    /// fortune files: `%`-separated, the file name is the category, `-- Author` the source.
    case fortune
    /// JSON: an array of `{content|text, author, tags}` (Quotable), or Suite's own export.
    case json
    /// CSV: `text,author,category` (a header row is optional).
    case csv
}

extension QuoteImportFormat {
    /// The format a file's name or first bytes show, or nil when they could be more than one
    /// (then the caller must say): `.json`/`.csv` names; JSON by its first character; fortune by
    /// a `%` separator line; CSV by a header row (`text,author,category` or its synonyms).
    ///
    /// - Parameters:
    ///   - name: the file's name (its extension counts).
    ///   - head: its first bytes (64 KiB are plenty).
    public static func detect(name: String, head: Data) -> QuoteImportFormat? {
        let lower = name.lowercased()
        if lower.hasSuffix(".json") { return .json }
        if lower.hasSuffix(".csv") { return .csv }
        let text = String(decoding: head.prefix(headLength), as: UTF8.self)
        let start = text.unicodeScalars.first { !$0.properties.isWhitespace && $0 != "\u{FEFF}" }
        if start == "[" || start == "{" { return .json }
        // "\r\n" is one Character: split on it too, so that a CRLF file shows its lines.
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
        if lines.dropLast().contains(where: { $0 == "%" || $0 == "%\r" }) { return .fortune }
        if let first = lines.first {
            var reader = QuoteCSV.Reader(LineStream(data: Data(first.utf8)), path: name)
            if let header = try? reader.next()?.fields, QuoteCSV.isHeader(header) { return .csv }
        }
        return nil
    }
}

extension QuoteImportFormat {
    /// How many first bytes of a file ``detect(_:)`` reads.
    static let headLength = 65_536

    /// The one format of the files and folders at `urls`, as an import would read them: a folder
    /// holds fortune files; a file's format is told from its name and its first 64 KiB by
    /// ``detect(name:head:)``. Nothing is imported and no store is needed.
    ///
    /// - Parameter urls: the files and folders to import.
    /// - Returns: their format.
    /// - Throws: ``QuoteError/unknownImportFormat(_:)``: ``QuoteError/ImportFormatProblem/unrecognised(_:)``
    ///   for a file whose name and first bytes do not show its format (the first such file),
    ///   ``QuoteError/ImportFormatProblem/notRegularFile(_:)`` for a pipe, FIFO or device (its bytes
    ///   cannot be looked at and then imported), ``QuoteError/ImportFormatProblem/unreadable(_:)``
    ///   for a file that cannot be opened, and ``QuoteError/ImportFormatProblem/mixed(_:)`` when
    ///   they are not all in one format (or `urls` is empty);
    ///   ``QuoteError/malformedImport(file:line:reason:)`` for a path where nothing is.
    public static func detect(_ urls: [URL]) throws(QuoteError) -> QuoteImportFormat {
        var found: Set<QuoteImportFormat> = []
        for url in urls {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder) else {
                throw .malformedImport(file: url.path, line: nil, reason: "no such file")
            }
            if isFolder.boolValue {
                found.insert(.fortune)
                continue
            }
            var info = stat()
            guard stat(url.path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { throw .unknownImportFormat(.notRegularFile(url)) }
            guard let handle = FileHandle(forReadingAtPath: url.path) else { throw .unknownImportFormat(.unreadable(url)) }
            let head = (try? handle.read(upToCount: headLength)) ?? Data()
            try? handle.close()
            guard let format = detect(name: url.lastPathComponent, head: head) else { throw .unknownImportFormat(.unrecognised(url)) }
            found.insert(format)
        }
        guard found.count == 1, let format = found.first else {
            throw .unknownImportFormat(.mixed(found.sorted { $0.rawValue < $1.rawValue }))
        }
        return format
    }
}

/// A quote read from a file, before it is stored.
struct ImportedQuote: Sendable, Hashable {
    var text: String
    var source: String?
    var kind: SourceKind
    var citation: String?
    var categories: [String]
    var personal: Bool
    var addedAt: Date?
    var line: Int
}

extension ImportedQuote {
    /// Checks every field with the same rules as ``QuoteStore/add(_:source:kind:categories:citation:)``,
    /// naming the file, the record (a line, or a JSON item) and the field when one is refused.
    mutating func validate(path: String, byItem: Bool) throws(QuoteError) {
        func check(_ value: String, _ kind: TextField, _ field: FieldName) throws(QuoteError) -> String {
            switch TextRule.check(value, kind) {
            case .success(let checked): return checked
            case .failure(let problem):
                let reason = InvalidText(field: field, problem: problem).description
                if byItem { throw .malformedImport(file: path, line: nil, reason: "item \(line): \(reason)") }
                throw .malformedImport(file: path, line: line, reason: reason)
            }
        }
        let name = TextField.line(limit: QuoteStore.maximumNameLength)
        text = try check(text, .text(limit: QuoteStore.maximumTextLength), .quoteText)
        if let value = source { source = try check(value, name, .quoteSource) }
        if let value = citation { citation = try check(value, name, .quoteCitation) }
        var checked: [String] = []
        for category in categories { checked.append(try check(category, name, .quoteCategory)) }
        categories = checked
    }
}

/// Lookups kept during one import so that each source and category is found once.
/// Ids of the sources and categories an import has met, so that most quotes need no lookup.
/// Bounded: when one holds `limit` names it starts again (the store still has them), so memory
/// does not grow with a file of millions of authors.
struct ImportCache {
    static let limit = 20_000
    private(set) var sources: [String: Int64] = [:]
    private(set) var categories: [String: Int64] = [:]

    mutating func remember(source key: String, id: Int64?) {
        if sources.count >= Self.limit { sources.removeAll(keepingCapacity: true) }
        sources[key] = id
    }

    mutating func remember(category key: String, id: Int64?) {
        if categories.count >= Self.limit { categories.removeAll(keepingCapacity: true) }
        categories[key] = id
    }
}

extension QuoteStore {
    /// Imports files (a folder of fortune files too) in one transaction: all of them or, when
    /// any is malformed, none.
    ///
    /// - Parameters:
    ///   - urls: files or folders.
    ///   - format: their format.
    ///   - progress: called now and then with the number of quotes stored so far.
    /// - Returns: how many quotes were read, imported, and skipped as duplicates or empty.
    /// - Throws: ``QuoteError/malformedImport(file:line:reason:)`` naming the file and line.
    @discardableResult
    public func importFiles(_ urls: [URL], format: QuoteImportFormat, progress: (@Sendable (Int) -> Void)? = nil) throws(QuoteError) -> QuoteImportSummary {
        let files = try Self.expand(urls, format: format)
        if format == .json {
            // Read element by element into the one transaction: memory stays flat at any size.
            return try importJSON(files.map { url in
                (path: url.path, open: { () throws(QuoteError) -> JSONArrayStream in
                    do { return try JSONArrayStream(path: url.path, arrayKeys: QuoteJSON.arrayKeys) } catch let problem as JSONArrayStream.Problem {
                        throw QuoteJSON.describe(problem, path: url.path)
                    } catch {
                        throw .malformedImport(file: url.path, line: nil, reason: "cannot be read")
                    }
                })
            }, progress: progress)
        }
        if format == .csv {
            // Read record by record into the one transaction: memory stays flat at any size.
            return try importCSV(files.map { url in
                (path: url.path, open: { () throws(QuoteError) -> LineStream in
                    do { return try LineStream(path: url.path) } catch {
                        throw .malformedImport(file: url.path, line: nil, reason: "cannot be read")
                    }
                })
            }, progress: progress)
        }
        // Fortune files: each file is read and stored in turn, in the one transaction, so memory
        // holds one file at a time however many a folder has.
        let moment = stamp
        return try store.bulkWrite { db in
            var cache = ImportCache()
            var read = 0, imported = 0, skipped = 0
            for url in files {
                let data: Data
                switch FileContents.read(path: url.path) {
                case .data(let bytes): data = bytes
                case .tooLarge(let limit): throw QuoteError.malformedImport(file: url.path, line: nil, reason: "larger than \(limit >> 20) MiB")
                case .unreadable: throw QuoteError.malformedImport(file: url.path, line: nil, reason: "cannot be read")
                }
                let result = try Self.parse(data, name: url.lastPathComponent, path: url.path, format: format)
                skipped += result.skipped
                for quote in result.quotes {
                    read += 1
                    if try Self.insert(quote, db: db, stamp: moment, cache: &cache) != nil { imported += 1 }
                    if read % 50_000 == 0 { progress?(read) }
                }
            }
            return QuoteImportSummary(read: read + skipped, imported: imported, duplicates: read - imported, skipped: skipped)
        }
    }

    /// Imports one file's bytes (standard input, say); `name` is used for errors and, for
    /// fortune files, as the category.
    @discardableResult
    public func importData(_ data: Data, name: String, format: QuoteImportFormat, progress: (@Sendable (Int) -> Void)? = nil) throws(QuoteError) -> QuoteImportSummary {
        if format == .json {
            return try importJSON([(path: name, open: { () throws(QuoteError) -> JSONArrayStream in JSONArrayStream(data: data, arrayKeys: QuoteJSON.arrayKeys) })],
                                  progress: progress)
        }
        if format == .csv {
            return try importCSV([(path: name, open: { () throws(QuoteError) -> LineStream in LineStream(data: data) })], progress: progress)
        }
        let result = try Self.parse(data, name: name, path: name, format: format)
        return try store(result.quotes, skipped: result.skipped, progress: progress)
    }

    /// Imports CSV files read record by record, all in one transaction (all or nothing): each
    /// record is checked as it is read, and a problem anywhere (the end of a file included)
    /// rolls back everything before it.
    private func importCSV(_ files: [(path: String, open: () throws(QuoteError) -> LineStream)],
                           progress: (@Sendable (Int) -> Void)?) throws(QuoteError) -> QuoteImportSummary {
        let moment = stamp
        return try store.bulkWrite { db in
            var cache = ImportCache()
            var read = 0, imported = 0, skipped = 0
            for file in files {
                var reader = QuoteCSV.Reader(try file.open(), path: file.path)
                var columns = QuoteCSV.Columns(text: 0, author: 1, category: 2)
                var first = true
                while let (line, fields) = try reader.next() {
                    defer { first = false }
                    if first, let named = QuoteCSV.headerColumns(fields) { columns = named; continue }
                    guard var quote = try QuoteCSV.quote(fields, line: line, columns: columns, path: file.path) else {
                        if !(fields.count == 1 && fields[0].isEmpty) { skipped += 1; read += 1 }
                        continue
                    }
                    try quote.validate(path: file.path, byItem: false)
                    read += 1
                    if try Self.insert(quote, db: db, stamp: moment, cache: &cache) != nil { imported += 1 }
                    if read % 50_000 == 0 { progress?(read) }
                }
            }
            return QuoteImportSummary(read: read, imported: imported, duplicates: read - skipped - imported, skipped: skipped)
        }
    }

    /// Imports JSON files read element by element, all in one transaction (all or nothing).
    private func importJSON(_ files: [(path: String, open: () throws(QuoteError) -> JSONArrayStream)],
                            progress: (@Sendable (Int) -> Void)?) throws(QuoteError) -> QuoteImportSummary {
        let moment = stamp
        return try store.bulkWrite { db in
            var cache = ImportCache()
            var read = 0
            var imported = 0
            for file in files {
                var stream = try file.open()
                try QuoteJSON.read(&stream, path: file.path) { (quote: ImportedQuote) throws in
                    read += 1
                    if try Self.insert(quote, db: db, stamp: moment, cache: &cache) != nil { imported += 1 }
                    if read % 50_000 == 0 { progress?(read) }
                }
            }
            return QuoteImportSummary(read: read, imported: imported, duplicates: read - imported, skipped: 0)
        }
    }

    private func store(_ quotes: [ImportedQuote], skipped: Int, progress: (@Sendable (Int) -> Void)?) throws(QuoteError) -> QuoteImportSummary {
        let moment = stamp
        return try store.bulkWrite { db in
            var cache = ImportCache()
            var imported = 0
            for (index, quote) in quotes.enumerated() {
                if try Self.insert(quote, db: db, stamp: moment, cache: &cache) != nil { imported += 1 }
                if index % 50_000 == 49_999 { progress?(index + 1) }
            }
            return QuoteImportSummary(read: quotes.count + skipped, imported: imported, duplicates: quotes.count - imported, skipped: skipped)
        }
    }

    /// Stores one quote; nil when it is a duplicate.
    static func insert(_ quote: ImportedQuote, db: Database, stamp: Int64, cache: inout ImportCache) throws -> Int64? {
        var sourceID: Int64?
        if let source = quote.source {
            let key = nameKey(source)
            if let id = cache.sources[key] {
                sourceID = id
            } else {
                try db.cachedStatement(sql: "INSERT OR IGNORE INTO source (name, key, kind) VALUES (?, ?, ?)")
                    .execute(arguments: [source, key, quote.kind.rawValue])
                let id = try Int64.fetchOne(db.cachedStatement(sql: "SELECT id FROM source WHERE key = ?"), arguments: [key])
                cache.remember(source: key, id: id)
                sourceID = id
            }
        }
        try db.cachedStatement(sql: """
            INSERT OR IGNORE INTO quote (text, source_id, citation, personal, added_ms, dedupe, sync_key)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, \(QuoteStore.quoteKeySQL))
            """).execute(arguments: [quote.text, sourceID, quote.citation, quote.personal,
                                     quote.addedAt.map { Millis($0).value } ?? stamp, dedupeKey(text: quote.text, source: quote.source)])
        guard db.changesCount > 0 else { return nil }
        let id = db.lastInsertedRowID
        for category in quote.categories {
            let key = nameKey(category)
            var categoryID = cache.categories[key]
            if categoryID == nil {
                try db.cachedStatement(sql: "INSERT OR IGNORE INTO category (name, key) VALUES (?, ?)").execute(arguments: [category, key])
                categoryID = try Int64.fetchOne(db.cachedStatement(sql: "SELECT id FROM category WHERE key = ?"), arguments: [key])
                cache.remember(category: key, id: categoryID)
            }
            try db.cachedStatement(sql: "INSERT OR IGNORE INTO quote_category (category_id, quote_id, sync_key) VALUES (?1, ?2, \(QuoteStore.quoteCategoryKeySQL))")
                .execute(arguments: [categoryID, id])
        }
        return id
    }

    // MARK: - Files

    /// Files to read: folders are listed (fortune text files only: no `.dat`, `.u8` or hidden files).
    static func expand(_ urls: [URL], format: QuoteImportFormat) throws(QuoteError) -> [URL] {
        var files: [URL] = []
        for url in urls {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
                throw .malformedImport(file: url.path, line: nil, reason: "no such file")
            }
            if isDirectory.boolValue {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
                for name in names.sorted() where !name.hasPrefix(".") && !name.hasSuffix(".dat") && !name.hasSuffix(".u8") {
                    let file = url.appendingPathComponent(name)
                    var isFolder: ObjCBool = false
                    if FileManager.default.fileExists(atPath: file.path, isDirectory: &isFolder), !isFolder.boolValue { files.append(file) }
                }
            } else {
                files.append(url)
            }
        }
        return files
    }

    static func parse(_ data: Data, name: String, path: String, format: QuoteImportFormat) throws(QuoteError) -> (quotes: [ImportedQuote], skipped: Int) {
        var result: (quotes: [ImportedQuote], skipped: Int)
        switch format {
        case .fortune: result = try FortuneParser.parse(data, category: name, path: path)
        case .json: result = (try QuoteJSON.parse(data, path: path), 0)
        case .csv: result = try QuoteCSV.parse(data, path: path)
        }
        for index in result.quotes.indices {
            try result.quotes[index].validate(path: path, byItem: format == .json)
        }
        return result
    }
}

/// fortune files.
enum FortuneParser {
    static func parse(_ data: Data, category: String, path: String) throws(QuoteError) -> (quotes: [ImportedQuote], skipped: Int) {
        if let nul = data.firstIndex(of: 0) {
            let line = data[data.startIndex..<nul].reduce(1) { $1 == 10 ? $0 + 1 : $0 }
            throw .malformedImport(file: path, line: line, reason: "a NUL byte: this is not a text file")
        }
        // UTF-8 when it is, Latin-1 otherwise (older fortune files).
        let text = String(validating: data, as: UTF8.self) ?? String(decoding: data.map { UInt16($0) }, as: UTF16.self)
        var quotes: [ImportedQuote] = []
        var skipped = 0
        var chunk: [String] = []
        var chunkStart = 1
        var lineNumber = 0
        func finish() throws(QuoteError) {
            defer { chunk = [] }
            var lines = chunk.map { line in
                let plain = repairingDoubleEncoding(removeOverstrike(line))
                let text = plain.utf8.contains(13) ? String(String.UnicodeScalarView(plain.unicodeScalars.filter { $0 != "\r" })) : plain
                return FortuneEscape.unescape(text)
            }
            while let last = lines.last, isBlank(last) { lines.removeLast() }
            while let first = lines.first, isBlank(first) { lines.removeFirst() }
            if lines.isEmpty { return }
            var source: String?
            var citation: String?
            if let last = lines.last, let attribution = attribution(of: last) {
                lines.removeLast()
                (source, citation) = split(attribution)
            }
            let body = lines.map(trimmingTrailingSpace).joined(separator: "\n").trimmingCharacters(in: .newlines)
            guard !body.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { skipped += 1; return }
            // Every field is checked by the one text rule afterwards (ImportedQuote.validate):
            // a control character other than the overstrike backspaces and the bell refuses the file.
            quotes.append(ImportedQuote(text: body, source: source, kind: .person, citation: citation, categories: [category],
                                        personal: false, addedAt: nil, line: chunkStart))
        }
        // Lines are split on the byte 10, so a CRLF file splits too ("\r\n" is one Character).
        for line in text.utf8.split(separator: 10, omittingEmptySubsequences: false) {
            lineNumber += 1
            if line.elementsEqual("%".utf8) || line.elementsEqual("%\r".utf8) {
                try finish()
                chunkStart = lineNumber + 1
            } else {
                chunk.append(String(Substring(line)))
            }
        }
        try finish()
        return (quotes, skipped)
    }

    /// `<spaces>-- Author` (or an em dash) → "Author".
    static func attribution(of line: String) -> String? {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        for prefix in ["-- ", "--", "— ", "—"] where trimmed.hasPrefix(prefix) && trimmed.count > prefix.count + 1 {
            guard line.first?.isWhitespace == true || trimmed.hasPrefix("-- ") || trimmed.hasPrefix("— ") else { continue }
            let name = String(trimmed.dropFirst(prefix.count)).trimmingCharacters(in: .whitespaces)
            return name.isEmpty ? nil : name
        }
        return nil
    }

    /// `Mark Twain, "The Disappearance of Literature"` → ("Mark Twain", "The Disappearance of Literature").
    static func split(_ attribution: String) -> (String?, String?) {
        if let range = attribution.range(of: ", \"") {
            let name = String(attribution[..<range.lowerBound]).trimmingCharacters(in: .whitespaces)
            var work = String(attribution[range.upperBound...]).trimmingCharacters(in: .whitespaces)
            if let close = work.lastIndex(of: "\"") { work = String(work[..<close]) }
            return (name.isEmpty ? nil : name, work.isEmpty ? nil : work)
        }
        return (attribution.count > 200 ? String(attribution.prefix(200)) : attribution, nil)
    }

    /// Tab or a space separator (`CharacterSet.whitespaces`).
    static func isBlank(_ line: String) -> Bool {
        line.unicodeScalars.allSatisfy { $0 == " " || $0 == "\t" || ($0.value > 0x7F && $0.properties.generalCategory == .spaceSeparator) }
    }

    /// The line without trailing white space (the Unicode White_Space property, as a regular
    /// expression's `\s` has it).
    static func trimmingTrailingSpace(_ line: String) -> String {
        func isSpace(_ scalar: Unicode.Scalar) -> Bool {
            switch scalar.value {
            case 0x09...0x0D, 0x20: return true
            case 0..<0x80: return false
            default: return scalar.properties.isWhitespace
            }
        }
        let scalars = line.unicodeScalars
        guard let last = scalars.last, isSpace(last) else { return line }
        var end = scalars.endIndex
        while end > scalars.startIndex, isSpace(scalars[scalars.index(before: end)]) { end = scalars.index(before: end) }
        return String(scalars[..<end])
    }

    /// A line of UTF-8 that was decoded as Latin-1 and encoded again ("â\u{88}\u{97}" for "∗",
    /// in Debian's `computers`) given back as it was written: only when the line holds C1
    /// control characters (which no text means) and every character is one byte that, taken
    /// together, is valid UTF-8. Anything else is left as it is (and the text rule judges it).
    /// Repeated while it applies, a few times at most (Debian's `law` was encoded three times).
    static func repairingDoubleEncoding(_ line: String) -> String {
        var line = line
        for _ in 0..<4 {
            let scalars = line.unicodeScalars
            guard scalars.contains(where: { (0x80...0x9F).contains($0.value) }), scalars.allSatisfy({ $0.value <= 0xFF }),
                  let repaired = String(validating: scalars.map { UInt8($0.value) }, as: UTF8.self) else { break }
            line = repaired
        }
        return line
    }

    /// Drops the terminal effects old fortune files hold: the backspace sequences for bold and
    /// underline (`_\bx`, `x\bx`) and the bell (`^G`, in Debian's `art` and `computers`), which
    /// print nothing.
    static func removeOverstrike(_ line: String) -> String {
        guard line.utf8.contains(where: { $0 == 8 || $0 == 7 }) else { return line }
        var result: [Character] = []
        for character in line where character != "\u{7}" {
            if character == "\u{8}" { if !result.isEmpty { result.removeLast() } } else { result.append(character) }
        }
        return String(result)
    }
}

/// Quotable-style and Suite JSON.
enum QuoteJSON {
    /// The members of an object document that hold the quotes: Suite's file, a Quotable API page.
    static let arrayKeys: Set<String> = ["quotes", "results"]

    /// Every quote of a document in memory (the streaming reader over its bytes).
    static func parse(_ data: Data, path: String) throws(QuoteError) -> [ImportedQuote] {
        var stream = JSONArrayStream(data: data, arrayKeys: arrayKeys)
        var quotes: [ImportedQuote] = []
        do {
            try read(&stream, path: path) { quotes.append($0) }
        } catch let error as QuoteError {
            throw error
        } catch {
            throw .malformedImport(file: path, line: nil, reason: "\(error)")
        }
        return quotes
    }

    /// Reads the quotes of a document one at a time, handing each to `each`.
    static func read(_ stream: inout JSONArrayStream, path: String, _ each: (ImportedQuote) throws -> Void) throws {
        var index = 0
        while true {
            let element: Data?
            do {
                element = try stream.next()
            } catch {
                throw describe(error, path: path)
            }
            guard let element else { break }
            let item: Any
            do {
                item = try JSONSerialization.jsonObject(with: element, options: .fragmentsAllowed)
            } catch {
                let detail = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? "item \(index + 1) is not valid JSON"
                throw QuoteError.malformedImport(file: path, line: nil, reason: "invalid JSON: \(detail)")
            }
            var imported = try quote(item, index: index, path: path)
            try imported.validate(path: path, byItem: true)
            try each(imported)
            index += 1
        }
        if stream.arrayKey == "quotes", let raw = stream.members["schema"],
           let schema = (try? JSONSerialization.jsonObject(with: raw, options: .fragmentsAllowed)) as? String, schema != QuoteExport.schema {
            throw QuoteError.malformedImport(file: path, line: nil, reason: "schema is '\(schema)', expected '\(QuoteExport.schema)'")
        }
    }

    static func describe(_ problem: JSONArrayStream.Problem, path: String) -> QuoteError {
        switch problem {
        case .invalidJSON(let detail): return .malformedImport(file: path, line: nil, reason: "invalid JSON: \(detail)")
        case .noArray: return .malformedImport(file: path, line: nil, reason: "expected an array of quotes")
        case .notUTF8: return .malformedImport(file: path, line: nil, reason: "not valid UTF-8")
        case .unreadable(let reason): return .malformedImport(file: path, line: nil, reason: reason.isEmpty ? "cannot be read" : "cannot be read: \(reason)")
        }
    }

    /// One element as a quote.
    static func quote(_ item: Any, index: Int, path: String) throws(QuoteError) -> ImportedQuote {
        func fail(_ reason: String) -> QuoteError { .malformedImport(file: path, line: nil, reason: "item \(index + 1): \(reason)") }
        guard let fields = item as? [String: Any] else { throw fail("not an object") }
        guard let text = (fields["content"] ?? fields["text"]) as? String else { throw fail("no 'content' or 'text' string") }
        let checked: String
        do { checked = try QuoteStore.validated(text: text, .quoteText) } catch { throw fail(error.description) }
        let author = (fields["author"] ?? fields["source"]).flatMap { $0 as? String }.map { $0.trimmingCharacters(in: .whitespaces) }
        if let raw = fields["author"] ?? fields["source"], !(raw is String), !(raw is NSNull) { throw fail("'author' is not a string") }
        var categories: [String] = []
        for key in ["tags", "categories"] {
            guard let value = fields[key] else { continue }
            guard let list = value as? [Any], list.allSatisfy({ $0 is String }) else { throw fail("'\(key)' is not a list of strings") }
            categories += list.compactMap { $0 as? String }
        }
        if let single = fields["category"] as? String { categories.append(single) }
        var kind = SourceKind.person
        if let raw = fields["kind"] as? String {
            guard let value = SourceKind(rawValue: raw) else { throw fail("unknown kind '\(raw)'") }
            kind = value
        }
        var added: Date?
        if let raw = (fields["addedAt"] ?? fields["dateAdded"]) as? String {
            // A time (RFC 3339) or a day (Quotable's dateAdded); an impossible one is refused.
            added = ISOTime.date(raw) ?? (raw.count == 10 ? ISOTime.date(raw + "T00:00:00Z") : nil)
            if added == nil { throw fail("'\(raw.prefix(40))' is not a date") }
        }
        return ImportedQuote(
            text: checked, source: author.flatMap { $0.isEmpty ? nil : $0 }, kind: kind, citation: fields["citation"] as? String,
            categories: categories.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty },
            personal: fields["personal"] as? Bool ?? false, addedAt: added, line: index + 1)
    }
}

/// `text,author,category` CSV (RFC 4180 quoting).
enum QuoteCSV {
    static func parse(_ data: Data, path: String) throws(QuoteError) -> (quotes: [ImportedQuote], skipped: Int) {
        var reader = Reader(LineStream(data: data), path: path)
        var quotes: [ImportedQuote] = []
        var skipped = 0
        // Without a header the columns are text, author, category; a header may name them in any order.
        var columns = Columns(text: 0, author: 1, category: 2)
        var first = true
        while let (line, fields) = try reader.next() {
            defer { first = false }
            if first, let named = headerColumns(fields) { columns = named; continue }
            if let quote = try quote(fields, line: line, columns: columns, path: path) {
                quotes.append(quote)
            } else if !(fields.count == 1 && fields[0].isEmpty) {
                skipped += 1
            }
        }
        return (quotes, skipped)
    }

    /// The quote a record holds; nil for an empty line or an empty text (skipped).
    static func quote(_ fields: [String], line: Int, columns: Columns, path: String) throws(QuoteError) -> ImportedQuote? {
        if fields.count == 1 && fields[0].isEmpty { return nil }
        guard (1...3).contains(fields.count) else {
            throw .malformedImport(file: path, line: line, reason: "\(fields.count) fields; expected text,author,category")
        }
        func field(_ column: Int?) -> String { column.flatMap { fields.indices.contains($0) ? fields[$0] : nil } ?? "" }
        let body = field(columns.text)
        if body.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { return nil }
        let checked: String
        do { checked = try QuoteStore.validated(text: body, .quoteText) } catch {
            throw .malformedImport(file: path, line: line, reason: error.description)
        }
        let author = field(columns.author).trimmingCharacters(in: .whitespaces)
        let categories = field(columns.category).split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return ImportedQuote(text: checked, source: author.isEmpty ? nil : author, kind: .person, citation: nil,
                             categories: categories, personal: false, addedAt: nil, line: line)
    }

    /// Reads CSV record by record from lines (RFC 4180: a quoted field may hold commas, doubled
    /// quotes and line breaks), so a file of any size is read in little memory. A byte-order mark
    /// at the start (spreadsheets write one) is not part of the first field.
    struct Reader {
        private var lines: LineStream
        private let path: String
        private var atStart = true

        init(_ lines: LineStream, path: String) {
            self.lines = lines
            self.path = path
        }

        /// The next record with the line it starts on; nil at the end.
        mutating func next() throws(QuoteError) -> (line: Int, fields: [String])? {
            var fields: [String] = []
            var field = ""
            var inQuotes = false
            var quoteLine = 0
            var recordLine: Int?
            while true {
                let next: (text: String, number: Int)?
                do { next = try lines.next() } catch {
                    throw .malformedImport(file: path, line: error.described.line, reason: error.described.reason)
                }
                guard let (text, number) = next else {
                    if inQuotes { throw .malformedImport(file: path, line: quoteLine, reason: "a quoted field is never closed") }
                    return nil
                }
                if recordLine == nil { recordLine = number }
                var scalars = text.unicodeScalars[...]
                if atStart {
                    atStart = false
                    if scalars.first == "\u{FEFF}" { scalars = scalars.dropFirst() }
                }
                var index = scalars.startIndex
                while index < scalars.endIndex {
                    let scalar = scalars[index]
                    if inQuotes {
                        if scalar == "\"" {
                            let after = scalars.index(after: index)
                            if after < scalars.endIndex, scalars[after] == "\"" { field.unicodeScalars.append("\""); index = after } else { inQuotes = false }
                        } else {
                            field.unicodeScalars.append(scalar)
                        }
                    } else {
                        switch scalar {
                        case "\"":
                            guard field.isEmpty else { throw .malformedImport(file: path, line: number, reason: "a quote character inside an unquoted field") }
                            inQuotes = true
                            quoteLine = number
                        case ",":
                            fields.append(field)
                            field = ""
                        case "\r":
                            break
                        default:
                            field.unicodeScalars.append(scalar)
                        }
                    }
                    index = scalars.index(after: index)
                }
                if inQuotes {
                    // The line break belongs to the quoted field.
                    field.unicodeScalars.append("\n")
                    continue
                }
                fields.append(field)
                return (recordLine ?? number, fields)
            }
        }
    }

    /// Column names a header row may use (text,author,category and the usual synonyms).
    static let headerNames: [Set<String>] = [
        ["text", "quote", "content", "body"],
        ["author", "source", "by", "attribution"],
        ["category", "categories", "tags", "tag", "topic"],
    ]

    /// Where the text, author and category are in a row.
    struct Columns: Equatable {
        var text: Int
        var author: Int?
        var category: Int?
    }

    /// The columns a first row names, when it names them instead of holding a quote: every field
    /// is a column name (a byte-order mark and case do not matter), each column at most once, the
    /// text among them.
    static func headerColumns(_ fields: [String]) -> Columns? {
        var found: [Int?] = [nil, nil, nil]
        for (position, field) in fields.enumerated() {
            let name = field.replacingOccurrences(of: "\u{FEFF}", with: "").trimmingCharacters(in: .whitespaces).lowercased()
            guard let kind = headerNames.firstIndex(where: { $0.contains(name) }), found[kind] == nil else { return nil }
            found[kind] = position
        }
        guard let text = found[0] else { return nil }
        return Columns(text: text, author: found[1], category: found[2])
    }

    /// Whether a first row names the columns instead of holding a quote.
    static func isHeader(_ fields: [String]) -> Bool { headerColumns(fields) != nil }
}
