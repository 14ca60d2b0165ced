import BundleCore
import Foundation
import MotivationCore
import PropertyBased
import QuoteCore
import Testing
@testable import WorkplaceCore

/// Every output format, written from hostile text that went through the stores' own rules, is read
/// by a parser nobody on the project wrote and must show exactly the records and text that were
/// stored; where Suite reads the format back, the store it imports into is identical.
@Suite(.enabled(if: Readers.enabled, "needs Python with icalendar and markdown-it-py (.ci/run installs them)"))
struct OutputFormatTests {
    static let utc = TimeZone(identifier: "UTC") ?? .current

    // MARK: - Markdown

    /// Block tokens only our own structure makes: no fence, code block, HTML, list, rule or table.
    static let allowedBlocks: Set<String> = ["heading_open", "heading_close", "paragraph_open", "paragraph_close", "inline",
                                             "blockquote_open", "blockquote_close"]
    /// Inline tokens: text and breaks, plus the emphasis our own notices use.
    static let allowedInlines: Set<String> = ["text", "softbreak", "hardbreak", "em_open", "em_close", "strong_open", "strong_close"]

    @Test func businessModelMarkdownKeepsItsStructureAndTheText() async throws {
        await propertyCheck(count: 40, input: Hostile.text, Hostile.texts) { name, texts in
            let url = temporaryStore(BusinessModelStore.fileName)
            defer { removeStore(url) }
            let store = try BusinessModelStore(url: url)
            let created = try (try? store.create(name: name)) ?? store.create(name: "Acme")
            for (section, text) in zip(SectionCatalogue.guidedOrder, texts + texts) {
                _ = try? store.save(text: text, section: section, in: created.id)
            }
            let model = try store.current()
            for (document, title) in [(ModelRenderer.markdown(model), model.name), (ModelRenderer.canvas(model), model.name + " — Business Model Canvas")] {
                let seen = try Readers.read("markdown", Data(document.utf8))
                let headings = try #require(seen["headings"] as? [[Any]])
                #expect(headings.first?.first as? Int == 1 && headings.first?.last as? String == title, "\(headings.first ?? [])")
                #expect(headings.filter { $0.first as? Int == 1 }.count == 1, "a user text made a level-1 heading")
                #expect(headings.allSatisfy { ($0.first as? Int).map { $0 <= 2 } ?? false }, "a user text made a deeper heading")
                let blocks = Set(try #require(seen["blocks"] as? [String]))
                #expect(blocks.isSubset(of: Self.allowedBlocks), "unexpected blocks \(blocks.subtracting(Self.allowedBlocks))")
                let inlines = Set(try #require(seen["inlineKinds"] as? [String]))
                #expect(inlines.isSubset(of: Self.allowedInlines), "unexpected inline tokens \(inlines.subtracting(Self.allowedInlines))")
                let shown = squeezed((seen["texts"] as? [String] ?? []).joined())
                for section in SectionCatalogue.guidedOrder where model.isAnswered(section) && document == ModelRenderer.markdown(model) {
                    #expect(shown.contains(squeezed(model.text(of: section))), "\(section.title): \(model.text(of: section).debugDescription)")
                }
            }
            // Only our own ## headings: one per section.
            let headings = try #require(try Readers.read("markdown", Data(ModelRenderer.markdown(model).utf8))["headings"] as? [[Any]])
            #expect(headings.dropFirst().compactMap { $0.last as? String } == SectionCatalogue.guidedOrder.map(\.title))
        }
    }

    @Test func sharedQuotesMarkdownShowsEveryQuoteAsLiteralText() async throws {
        await propertyCheck(count: 40, input: Hostile.texts, Hostile.text) { texts, source in
            let url = temporaryStore(QuoteStore.fileName)
            defer { removeStore(url) }
            let store = try QuoteStore(url: url)
            var quotes: [Quote] = []
            for text in texts {
                if let quote = (try? store.add(text, source: source)) ?? (try? store.add(text)) { quotes.append(quote) }
            }
            let document = QuoteExport.markdown(quotes, title: "My favourite quotes")
            let seen = try Readers.read("markdown", Data(document.utf8))
            let headings = try #require(seen["headings"] as? [[Any]])
            #expect(headings.count == 1 && headings.first?.last as? String == "My favourite quotes", "\(headings)")
            let blocks = Set(try #require(seen["blocks"] as? [String]))
            #expect(blocks.isSubset(of: Self.allowedBlocks), "unexpected blocks \(blocks.subtracting(Self.allowedBlocks))")
            let inlines = Set(try #require(seen["inlineKinds"] as? [String]))
            #expect(inlines.isSubset(of: ["text", "softbreak", "hardbreak"]), "unexpected inline tokens \(inlines)")
            let shown = squeezed((seen["texts"] as? [String] ?? []).joined())
            for quote in quotes {
                #expect(shown.contains(squeezed(quote.text)), "\(quote.text.debugDescription)")
                if let source = quote.source?.name { #expect(shown.contains(squeezed(source))) }
            }
        }
    }

    // MARK: - iCalendar and todo.txt

    /// Todos with hostile text, notes and event phrases (those the store accepts).
    static func todoStore(_ texts: [String], events: [String]) throws -> (BundleStore, URL, [Todo]) {
        let url = temporaryStore(BundleStore.fileName)
        let store = try BundleStore(url: url)
        for (index, text) in texts.enumerated() {
            let event = events.isEmpty ? nil : events[index % events.count]
            let notes = texts[(index + 1) % texts.count]
            _ = (try? store.addTodo(text, event: event, preposition: event == nil ? .none : .before, notes: notes, allowNewEvent: true))
                ?? (try? store.addTodo(text, event: nil, preposition: .none, notes: notes))
                ?? (try? store.addTodo(text, event: nil, preposition: .none))
        }
        return (store, url, try store.todos(includeFinished: true))
    }

    /// What a todo is, without its local id and times.
    static func essence(_ todos: [Todo]) -> [String] {
        todos.map { "\($0.uuid)|\($0.text)|\($0.notes)|\($0.eventName ?? "-")|\($0.preposition.rawValue)|\($0.status.rawValue)" }.sorted()
    }

    @Test func iCalendarIsReadBackByPythonsIcalendarFromBytesAndText() async throws {
        await propertyCheck(count: 40, input: Hostile.texts, Hostile.texts) { texts, events in
            let (store, url, todos) = try Self.todoStore(texts, events: events)
            defer { removeStore(url) }
            let data = try store.export(.ics, timeZone: Self.utc)
            let seen = try Readers.read("ics", data)
            for mode in ["bytes", "text"] {
                let items = try #require(seen[mode] as? [[String: String]])
                #expect(items.count == todos.count, "\(mode): \(items.count) VTODOs for \(todos.count) todos")
                for todo in todos {
                    let item = items.first { $0["UID"] == todo.uuid.uuidString.lowercased() }
                    #expect(item?["SUMMARY"] == todo.text, "\(mode): \(todo.text.debugDescription)")
                    #expect((item?["DESCRIPTION"] ?? "") == todo.notes, "\(mode): \(todo.notes.debugDescription)")
                    #expect(item?["X-BUNDLE-EVENT"] == todo.eventName, "\(mode)")
                }
            }
            let copyURL = temporaryStore(BundleStore.fileName)
            defer { removeStore(copyURL) }
            let copy = try BundleStore(url: copyURL)
            try copy.importData(data, format: .ics, timeZone: Self.utc)
            #expect(Self.essence(try copy.todos(includeFinished: true)) == Self.essence(todos))
        }
    }

    @Test func todoTxtKeepsOneTodoALineAndImportsBackIdentically() async throws {
        await propertyCheck(count: 60, input: Hostile.texts, Hostile.texts) { texts, events in
            let (store, url, todos) = try Self.todoStore(texts, events: events)
            defer { removeStore(url) }
            let data = try store.export(.todotxt, timeZone: Self.utc)
            let text = String(decoding: data, as: UTF8.self)
            // Any reader's idea of a line: every Unicode line break counts.
            #expect(text.split(whereSeparator: \.isNewline).count == todos.count, "\(text.debugDescription)")
            let copyURL = temporaryStore(BundleStore.fileName)
            defer { removeStore(copyURL) }
            let copy = try BundleStore(url: copyURL)
            try copy.importData(data, format: .todotxt, timeZone: Self.utc)
            #expect(Self.essence(try copy.todos(includeFinished: true)) == Self.essence(todos), "\(text.debugDescription)")
        }
    }

    // MARK: - CSV and SVG

    static let coordinates: [(Double, Double)] = [(-33.8688, 151.2093), (40.7128, -74.006), (-22.9068, -43.1729), (51.5, -0.1276)]

    @Test func placesCSVIsReadByPythonsCSVWithNumbersIntact() async throws {
        await propertyCheck(count: 40, input: Hostile.texts) { texts in
            let url = temporaryStore(PlaceStore.fileName)
            defer { removeStore(url) }
            let store = try PlaceStore(url: url)
            for (index, text) in texts.enumerated() {
                let (lat, lon) = Self.coordinates[index % Self.coordinates.count]
                let record = PlaceRecord(name: text, type: .coffeeShop, coordinate: try Coordinate(latitude: lat, longitude: lon), address: text, origin: .user)
                guard let place = try? store.add(record) else { continue }
                _ = try? store.rate(place.id, RatingChange(values: [.wifi: 4], notes: texts[(index + 1) % texts.count]))
            }
            let places = try store.allPlaces()
            let rows = try #require(try Readers.read("csv", Data(PlaceFiles.csv(places).utf8))["rows"] as? [[String]])
            #expect(rows.count == places.count + 1)
            for (place, row) in zip(places, rows.dropFirst()) {
                #expect(row.count == 21)
                guard row.count == 21 else { continue }
                #expect(Double(row[3]) == place.coordinate.latitude && Double(row[4]) == place.coordinate.longitude, "\(row[3]),\(row[4])")
                #expect(row[1] == Self.guarded(place.name), "\(row[1].debugDescription) for \(place.name.debugDescription)")
                #expect(row[5] == Self.guarded(place.address ?? ""))
                #expect(row[20] == Self.guarded(place.rating?.notes ?? ""))
                #expect(row[15] == (place.rating?.values[.wifi]).map(String.init) ?? "")
            }
        }
    }

    /// What a spreadsheet-safe text cell holds: the text, with `'` first when it would be a formula.
    static func guarded(_ text: String) -> String {
        let first = text.unicodeScalars.first { $0 != " " }
        return first.map { "=+-@\t\r".unicodeScalars.contains($0) } == true ? "'" + text : text
    }

    @Test func theSVGMapIsWellFormedForAnyName() async throws {
        await propertyCheck(count: 40, input: Hostile.texts) { names in
            let center = try Coordinate(latitude: -33.8688, longitude: 151.2093)
            // Built directly, past the store's rules: the renderer must cope with any text.
            let places = names.enumerated().map { index, name in
                NearbyPlace(place: Place(id: Place.ID(Int64(index + 1)), name: name, type: .library, coordinate: center, address: nil, phone: nil, website: nil,
                                         openingHours: nil, categories: [], origin: .user, providerID: nil, fetchedAt: nil, rating: nil, isSaved: false),
                            distance: Double(index) * 10, smoothedQuality: 0, score: 0, isOpen: nil)
            }
            let svg = MapRenderer.svg(places, center: center, radius: 1000)
            let seen = try Readers.read("xml", Data(svg.utf8))
            let texts = try #require(seen["texts"] as? [String])
            for name in names {
                #expect(texts.contains(Self.asXMLReadsIt(name)), "\(name.debugDescription)")
            }
        }
    }

    /// The name as an XML reader returns it: forbidden characters replaced, line ends as LF.
    static func asXMLReadsIt(_ text: String) -> String {
        var result = String.UnicodeScalarView()
        var afterCR = false
        for scalar in text.unicodeScalars {
            defer { afterCR = scalar == "\r" }
            switch scalar.value {
            case 0x0D, 0x2028, 0x2029: result.append("\n")
            case 0x0A where afterCR: continue
            case 0x09, 0x0A: result.append(scalar)
            case 0..<0x20, 0x7F...0x9F, 0xFFFE, 0xFFFF: result.append("\u{FFFD}")
            default: result.append(scalar)
            }
        }
        return String(result)
    }

    // MARK: - fortune-style text

    @Test func fortuneStyleSharingImportsBackAsTheSameQuotes() async throws {
        // Lines ending in white space and a last line reading "-- Someone" are what the fortune
        // format itself cannot carry (README says so); everything else must come back.
        let text = Hostile.text.map { text in
            text.split(separator: "\n", omittingEmptySubsequences: false)
                .map { line in String(line).replacingOccurrences(of: "--", with: "=-").replacingOccurrences(of: "—", with: "=") }
                .joined(separator: "\n")
        }
        await propertyCheck(count: 60, input: text.array(of: 1...8)) { texts in
            let url = temporaryStore(QuoteStore.fileName)
            defer { removeStore(url) }
            let store = try QuoteStore(url: url)
            var quotes: [Quote] = []
            for (index, text) in texts.enumerated() {
                guard let quote = try? store.add(text, source: index % 2 == 0 ? "Ada Lovelace" : nil) else { continue }
                quotes.append(quote)
            }
            let shared = QuoteExport.text(quotes)
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("suite-fortune-\(UUID().uuidString)")
            try Data(shared.utf8).write(to: file)
            defer { try? FileManager.default.removeItem(at: file); try? FileManager.default.removeItem(atPath: file.path + ".dat") }
            // strfile (fortune's own indexer, from fortune-mod, which .ci/run installs) counts the records.
            let hasStrfile = FileManager.default.isExecutableFile(atPath: "/usr/bin/strfile")
            #expect(hasStrfile || ProcessInfo.processInfo.environment["CI"] == nil, "CI must have strfile")
            if hasStrfile {
                let result = try Readers.run("/usr/bin/strfile", [file.path])
                let said = String(decoding: result.stdout, as: UTF8.self)
                #expect(said.contains(quotes.isEmpty ? "no string" : " \(quotes.count) string"), "\(said) for \(shared.debugDescription)")
            }
            let copyURL = temporaryStore(QuoteStore.fileName)
            defer { removeStore(copyURL) }
            let copy = try QuoteStore(url: copyURL)
            try copy.importData(Data(shared.utf8), name: "shared", format: .fortune)
            func essence(_ quotes: [Quote]) -> [String] {
                quotes.map { quote in
                    let lines = quote.text.split(separator: "\n", omittingEmptySubsequences: false).map { String($0).replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression) }
                    return lines.joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines) + " | " + (quote.source?.name ?? "-")
                }.sorted()
            }
            #expect(essence(try copy.allQuotes()) == essence(quotes))
        }
    }
}
