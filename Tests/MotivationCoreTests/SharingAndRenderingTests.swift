import Foundation
import Testing
@testable import MotivationCore
import SuiteStorage

func model(name: String = "Acme Bakery", _ texts: [SectionID: String]) -> BusinessModel {
    let date = Date(timeIntervalSince1970: 1_790_000_000)
    return BusinessModel(
        name: name, entries: texts.mapValues { SectionEntry(text: $0, updatedAt: date) },
        createdAt: date, updatedAt: date)
}

@Suite struct SharingRulesTests {
    @Test func refusesWithoutTheValuePropositionUnlessForced() throws {
        let check = model([.customerNeeds: "fresh bread"]).completeness.shareCheck
        #expect(!check.isAllowed)
        #expect(check.blocking == ["Value Proposition"])
        #expect(!check.missingName && check.missingSections == [.valueProposition])
        #expect(throws: MotivationError.notShareable(missingName: false, missingSections: [.valueProposition])) { try check.enforce(force: false) }
        try check.enforce(force: true)
    }

    @Test func refusesWithoutABusinessName() {
        let check = model(name: "  ", [.valueProposition: "x"]).completeness.shareCheck
        #expect(check.blocking == ["business name"])
        #expect(check.missingName && check.missingSections.isEmpty)
    }

    @Test func warnsAboutUnfinishedSectionsByLevelCoreFirst() throws {
        let check = model([.valueProposition: "x", .customerNeeds: "y", .channels: "z"]).completeness.shareCheck
        #expect(check.isAllowed)
        #expect(check.warnings.map(\.level) == [.core, .recommended])
        #expect(check.warnings[0].sections == [.customerType, .productsAndServices, .costAndRevenueModels])
        #expect(check.warnings[1].sections == [.geographiesAndLocales, .requiredCompetency])
        #expect(check.warningText == "unfinished sections — core: Customer Type, Products & Services, Cost & Revenue Models; recommended: Geographies & Locales, Required Competency")
    }

    @Test func aCompleteModelHasNoWarnings() {
        let all = Dictionary(uniqueKeysWithValues: SectionID.allCases.map { ($0, "text for \($0.rawValue)") })
        let completeness = model(all).completeness
        #expect(completeness.isComplete)
        #expect(completeness.percent == 100)
        #expect(completeness.shareCheck.warningText == nil)
    }
}

@Suite struct RenderingTests {
    @Test func markdownHasOneHeadingPerSectionInGuidedOrderAndANotice() {
        let markdown = ModelRenderer.markdown(model([.valueProposition: "Bread by 7 am", .customerType: "Commuters"]))
        #expect(markdown.hasPrefix("# Acme Bakery\n"))
        let headings = markdown.split(separator: "\n").filter { $0.hasPrefix("## ") }.map { String($0.dropFirst(3)) }
        #expect(headings == SectionCatalogue.guidedOrder.map(\.title))
        #expect(markdown.contains("2 of 10 sections written (20%)"))
        #expect(markdown.contains("> **Unfinished:** core: Customer Needs, Products & Services, Cost & Revenue Models; recommended:"))
        #expect(markdown.contains("## Value Proposition\n\nBread by 7 am\n"))
    }

    @Test func markdownKeepsUserHeadingsFromBreakingTheDocument() {
        let markdown = ModelRenderer.markdown(model([.valueProposition: "## Not a section\n<script>x</script>"]))
        #expect(markdown.contains("\\#\\# Not a section"))
        #expect(!markdown.contains("<script>"))
    }

    @Test func htmlEscapesEveryUserString() {
        let hostile = "<script>alert('x')</script> & \"quotes\""
        let html = ModelRenderer.html(model(name: "<b>Evil</b> & Co", [.valueProposition: hostile, .channels: "<img src=x onerror=alert(1)>"]))
        #expect(!html.contains("<script>alert"))
        #expect(!html.contains("<img"))
        #expect(!html.contains("<b>Evil"))
        #expect(html.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;quotes&quot;"))
        #expect(html.contains("<title>&lt;b&gt;Evil&lt;/b&gt; &amp; Co — business model</title>"))
        #expect(html.contains("@media print"))
        #expect(html.components(separatedBy: "<section ").count - 1 == 10)
    }

    @Test func plainTextIsPaginatedForAPrinter() {
        let long = (1...200).map { "Line \($0) of a long answer that goes on for a while." }.joined(separator: "\n")
        let text = ModelRenderer.text(model([.valueProposition: long]), width: 72, pageLength: 60)
        let pages = text.split(separator: "\u{0C}", omittingEmptySubsequences: false)
        #expect(pages.count > 3)
        for (index, page) in pages.enumerated() {
            let lines = page.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
            #expect(lines.count == 60)
            #expect(lines.last.map(String.init) == "Acme Bakery — page \(index + 1) of \(pages.count)")
            #expect(lines.allSatisfy { $0.count <= 72 })
        }
    }

    @Test func wrapBreaksLongWordsAndKeepsParagraphs() {
        let lines = ModelRenderer.wrap("short words here\n\n" + String(repeating: "x", count: 50), width: 20)
        #expect(lines == ["short words here", "", String(repeating: "x", count: 20), String(repeating: "x", count: 20), String(repeating: "x", count: 10)])
    }

    @Test func canvasMapsSectionsToCanvasBlocks() {
        let canvas = ModelRenderer.canvas(model([.valueProposition: "VP text", .customerNeeds: "CN text", .partnerType: "Mills"]))
        #expect(canvas.contains("## Key Partners\n\nMills"))
        #expect(canvas.contains("## Value Propositions\n\n**From Value Proposition:**\n\nVP text\n\n**From Customer Needs:**\n\nCN text"))
        #expect(canvas.contains("## Customer Relationships\n\n_No EBMM element maps here._"))
    }
}

@Suite struct DocumentTests {
    @Test func exportImportExportIsIdentical() throws {
        let source = try freshStore()
        let model = try source.create(name: "Acme Bakery")
        try source.save(text: "Bread by 7 am", confidence: .validated, section: .valueProposition, in: model.id)
        try source.save(text: "Bread by 6 am", section: .valueProposition, in: model.id)
        try source.save(text: "Ünïcödé ✓ \"quoted\"\nsecond line", section: .customerNeeds, in: model.id)
        try source.save(text: "", section: .channels, in: model.id)
        let first = try source.document(for: model.id).encoded()

        let target = try freshStore()
        try target.importDocument(BusinessModelDocument.decode(first))
        let second = try target.document(for: try target.current().id).encoded()
        #expect(String(decoding: first, as: UTF8.self) == String(decoding: second, as: UTF8.self))
        #expect(String(decoding: first, as: UTF8.self).contains("\"schema\" : \"suite-bmm/1\""))
        // Importing the same model again is refused; --as gives it a new name and id.
        #expect(throws: MotivationError.duplicateName("Acme Bakery")) { try target.importDocument(BusinessModelDocument.decode(first)) }
        let renamed = try target.importDocument(BusinessModelDocument.decode(first), as: "Acme Two")
        #expect(renamed.id != model.id)
        #expect(renamed.text(of: .valueProposition) == "Bread by 6 am")
    }

    static let valid = """
        {"schema": "suite-bmm/1", "model": {"id": "6F9619FF-8B86-D011-B42D-00C04FC964FF", "name": "X",
         "createdAt": "2026-01-01T00:00:00.000Z", "updatedAt": "2026-01-01T00:00:00.000Z", "sections": []}}
        """

    @Test(arguments: [
        ("", "invalid JSON"),
        ("not json", "invalid JSON"),
        ("[]", "wrong type"),
        (#"{"schema": "other/1", "model": {"id": "6F9619FF-8B86-D011-B42D-00C04FC964FF", "name": "X", "createdAt": "2026-01-01T00:00:00Z", "updatedAt": "2026-01-01T00:00:00Z", "sections": []}}"#, "schema is 'other/1'"),
        (#"{"schema": "suite-bmm/1"}"#, "missing field 'model'"),
        (#"{"schema": "suite-bmm/1", "model": {"id": "nope", "name": "X", "createdAt": "2026-01-01T00:00:00Z", "updatedAt": "2026-01-01T00:00:00Z", "sections": []}}"#, "is not a UUID"),
        (#"{"schema": "suite-bmm/1", "model": {"id": "6F9619FF-8B86-D011-B42D-00C04FC964FF", "name": "X", "createdAt": "yesterday", "updatedAt": "2026-01-01T00:00:00Z", "sections": []}}"#, "model.createdAt 'yesterday'"),
        (#"{"schema": "suite-bmm/1", "model": {"id": "6F9619FF-8B86-D011-B42D-00C04FC964FF", "name": "X", "createdAt": "2026-01-01T00:00:00Z", "updatedAt": "2026-01-01T00:00:00Z", "sections": [{"id": "mission", "text": "", "history": []}]}}"#, "'mission' is not a section"),
        (#"{"schema": "suite-bmm/1", "model": {"id": "6F9619FF-8B86-D011-B42D-00C04FC964FF", "name": "X", "createdAt": "2026-01-01T00:00:00Z", "updatedAt": "2026-01-01T00:00:00Z", "sections": [{"id": "channels", "text": "", "history": []}, {"id": "channels", "text": "", "history": []}]}}"#, "appears twice"),
        (#"{"schema": "suite-bmm/1", "model": {"id": "6F9619FF-8B86-D011-B42D-00C04FC964FF", "name": "X", "createdAt": "2026-01-01T00:00:00Z", "updatedAt": "2026-01-01T00:00:00Z", "sections": [{"id": "channels", "text": "a", "confidence": "sure", "updatedAt": "2026-01-01T00:00:00Z", "history": []}]}}"#, "'sure' is not one of"),
        (#"{"schema": "suite-bmm/1", "model": {"id": "6F9619FF-8B86-D011-B42D-00C04FC964FF", "name": "X", "createdAt": "2026-01-01T00:00:00Z", "updatedAt": "2026-01-01T00:00:00Z", "sections": [{"id": "channels", "text": "a", "updatedAt": "2026-01-01T00:00:00Z", "history": [{"version": 2, "text": "a", "savedAt": "2026-01-01T00:00:00Z"}, {"version": 1, "text": "a", "savedAt": "2026-01-01T00:00:00Z"}]}]}}"#, "must count up"),
    ])
    func malformedDocumentsSayWhatIsWrong(json: String, expected: String) {
        #expect {
            try BusinessModelDocument.decode(Data(json.utf8))
        } throws: { error in
            guard case .malformedDocument(let reason) = error as? MotivationError else { return false }
            return reason.contains(expected)
        }
    }

    @Test func aValidMinimalDocumentDecodes() throws {
        let document = try BusinessModelDocument.decode(Data(Self.valid.utf8))
        #expect(document.model.name == "X")
        #expect(document.model.entries.isEmpty)
    }

    @Test func importRefusesAnInvalidNameAndChangesNothing() throws {
        let store = try freshStore()
        var document = try BusinessModelDocument.decode(Data(Self.valid.utf8))
        document.model.name = "   "
        #expect(throws: MotivationError.invalidText(InvalidText(field: .businessName, problem: .empty))) { try store.importDocument(document) }
        #expect(try store.models().isEmpty)
    }
}

@Suite struct TimestampTests {
    @Test func everyMillisecondFormatsAndParsesBackExactly() throws {
        var drifted: [Int64] = []
        for millis in Int64(1_763_703_998_000)..<Int64(1_763_703_999_000) {
            let text = Timestamp.string(Millis(millis).date)
            if Millis(try Timestamp.date(text, field: "t")).value != millis { drifted.append(millis) }
        }
        #expect(drifted.isEmpty)
        #expect(Timestamp.string(Millis(1_763_703_998_007).date) == "2025-11-21T05:46:38.007Z")
    }
}

@Suite struct DocumentConsistencyTests {
    func document() throws -> BusinessModelDocument {
        let store = try freshStore()
        let model = try store.create(name: "Acme")
        try store.save(text: "one", section: .valueProposition, in: model.id)
        try store.save(text: "two", section: .valueProposition, in: model.id)
        return try store.document(for: model.id)
    }

    @Test func aSectionWhoseTextIsNotItsLastVersionIsRefused() throws {
        var document = try document()
        document.model.entries[.valueProposition]?.text = "three"
        let target = try freshStore()
        #expect(throws: MotivationError.malformedDocument(reason: "Value Proposition: the text differs from its last saved version (2)")) {
            try target.importDocument(document)
        }
        #expect(try target.models().isEmpty)
    }

    @Test func versionsMustBeNumberedOneToN() throws {
        var document = try document()
        document.history[.valueProposition]?[1].version = 1_000_000
        let target = try freshStore()
        #expect(throws: MotivationError.malformedDocument(reason: "Value Proposition: versions must be numbered 1 to 2 in order")) {
            try target.importDocument(document)
        }
        #expect(try target.importDocument(try self.document()).name == "Acme")
    }
}
