import Foundation
import SuiteMarkup
import SuiteStorage

/// Renders a model for sharing and printing: Markdown, printable HTML, paginated plain text, and
/// a Business Model Canvas view. All sections appear in guided order.
public enum ModelRenderer {
    /// Markdown: the business name as title, a completeness summary, a notice listing unfinished
    /// sections, then one `##` heading per section.
    public static func markdown(_ model: BusinessModel) -> String {
        let completeness = model.completeness
        var lines = ["# " + Markup.markdownLine(displayName(model)), "", summaryLine(completeness)]
        if let notice = unfinishedNotice(completeness) {
            lines += ["", "> **Unfinished:** \(notice)"]
        }
        for id in SectionCatalogue.guidedOrder {
            lines += ["", "## \(id.title)", ""]
            if let entry = model.entries[id], entry.isAnswered {
                lines += Markup.markdownText(entry.text)
                if let confidence = entry.confidence { lines += ["", "_Confidence: \(label(confidence))._"] }
            } else {
                lines.append("_Not written yet._")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A self-contained HTML page with print styles; every user string is escaped.
    public static func html(_ model: BusinessModel) -> String {
        let completeness = model.completeness
        var body = """
            <h1>\(escape(displayName(model)))</h1>
            <p class="summary">\(escape(summaryLine(completeness)))</p>

            """
        if let notice = unfinishedNotice(completeness) {
            body += "<p class=\"notice\"><strong>Unfinished:</strong> \(escape(notice))</p>\n"
        }
        for id in SectionCatalogue.guidedOrder {
            body += "<section id=\"\(id.rawValue)\">\n<h2>\(escape(id.title))</h2>\n"
            if let entry = model.entries[id], entry.isAnswered {
                body += "<div class=\"text\">\(escape(entry.text))</div>\n"
                if let confidence = entry.confidence {
                    body += "<p class=\"confidence\">Confidence: \(escape(label(confidence)))</p>\n"
                }
            } else {
                body += "<p class=\"empty\">Not written yet.</p>\n"
            }
            body += "</section>\n"
        }
        return """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <title>\(escape(displayName(model))) — business model</title>
            <style>
            body { font: 11pt/1.45 Georgia, "Times New Roman", serif; max-width: 42em; margin: 2em auto; padding: 0 1em; color: #111; }
            h1 { font-size: 1.8em; margin-bottom: 0.2em; }
            h2 { font-size: 1.2em; border-bottom: 1px solid #999; margin-top: 1.6em; }
            .summary { color: #444; }
            .notice { border-left: 4px solid #c60; padding: 0.3em 0.8em; background: #fff4e5; }
            .text { white-space: pre-wrap; }
            .empty, .confidence { color: #666; font-style: italic; }
            @media print {
              body { margin: 0; max-width: none; font-size: 10.5pt; }
              .notice { background: none; }
              section { break-inside: avoid-page; }
              h2 { break-after: avoid-page; }
            }
            @page { margin: 2cm; }
            </style>
            </head>
            <body>
            \(body)</body>
            </html>

            """
    }

    /// Plain text for a printer: lines of at most `width` columns, pages of `pageLength` lines
    /// separated by form feeds, each ending with a footer "name — page N of M".
    public static func text(_ model: BusinessModel, width: Int = 72, pageLength: Int = 60) -> String {
        var model = model
        model.name = Markup.plain(model.name).replacingOccurrences(of: "\n", with: " ")
        for (section, entry) in model.entries { model.entries[section]?.text = Markup.plain(entry.text) }
        let width = max(width, 20)
        let bodyLength = max(pageLength - 2, 5)
        let completeness = model.completeness
        var lines = wrap(displayName(model), width: width)
        lines.append(String(repeating: "=", count: min(width, max(displayName(model).count, 1))))
        lines += wrap(summaryLine(completeness), width: width)
        if let notice = unfinishedNotice(completeness) {
            lines += [""] + wrap("Unfinished: \(notice)", width: width)
        }
        for id in SectionCatalogue.guidedOrder {
            lines += ["", id.title.uppercased(), String(repeating: "-", count: min(width, id.title.count))]
            if let entry = model.entries[id], entry.isAnswered {
                lines += wrap(entry.text, width: width)
                if let confidence = entry.confidence { lines.append("(Confidence: \(label(confidence)))") }
            } else {
                lines.append("(not written yet)")
            }
        }
        var pages: [[String]] = []
        var index = 0
        while index < lines.count {
            var page = Array(lines[index..<min(index + bodyLength, lines.count)])
            index += page.count
            while page.first == "" && !page.isEmpty { page.removeFirst() }
            pages.append(page)
        }
        let name = displayName(model)
        return pages.enumerated().map { number, page in
            let padding = Array(repeating: "", count: bodyLength - page.count)
            let footer = "\(name) — page \(number + 1) of \(pages.count)"
            return (page + padding + ["", footer]).joined(separator: "\n") + "\n"
        }.joined(separator: "\u{0C}")
    }

    /// A Markdown view shaped like the Business Model Canvas, mapped as EBMM suggests.
    public static func canvas(_ model: BusinessModel) -> String {
        let blocks: [(String, [SectionID])] = [
            ("Key Partners", [.partnerType]),
            ("Key Activities", [.requiredCompetency]),
            ("Key Resources", [.resourceAsset]),
            ("Value Propositions", [.valueProposition, .customerNeeds]),
            ("Customer Relationships", []),
            ("Channels", [.channels]),
            ("Customer Segments", [.customerType]),
            ("Cost Structure", [.costAndRevenueModels]),
            ("Revenue Streams", [.costAndRevenueModels]),
        ]
        var lines = ["# " + Markup.markdownLine(displayName(model)) + " — Business Model Canvas", "",
                     "Mapped from the EBMM Business Model area; Products & Services and Geographies & Locales have no canvas block."]
        for (title, sections) in blocks {
            lines += ["", "## \(title)", ""]
            if sections.isEmpty {
                lines.append("_No EBMM element maps here._")
                continue
            }
            let answered = sections.filter { model.isAnswered($0) }
            if answered.isEmpty {
                lines.append("_Not written yet (\(sections.map(\.title).joined(separator: ", ")))._")
            }
            for id in answered {
                if sections.count > 1 { lines += ["**From \(id.title):**", ""] }
                lines += Markup.markdownText(model.text(of: id))
                if sections.count > 1 && id != answered.last { lines.append("") }
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    // MARK: - Pieces

    static func displayName(_ model: BusinessModel) -> String {
        let name = model.name.trimmingCharacters(in: .whitespacesAndNewlines)
        return name.isEmpty ? "Untitled business" : name
    }

    static func summaryLine(_ completeness: Completeness) -> String {
        "Business model (EBMM Business Model area): \(completeness.done.count) of \(SectionCatalogue.sections.count) sections written (\(completeness.percent)%)."
    }

    /// The unfinished sections by level, or nil when all are written.
    static func unfinishedNotice(_ completeness: Completeness) -> String? {
        let parts = RequirementLevel.allCases.compactMap { level -> String? in
            let missing = completeness.missing(at: level)
            return missing.isEmpty ? nil : "\(level.rawValue): \(missing.map(\.title).joined(separator: ", "))"
        }
        return parts.isEmpty ? nil : parts.joined(separator: "; ")
    }

    static func label(_ confidence: Confidence) -> String {
        switch confidence {
        case .assumption: return "assumption"
        case .someEvidence: return "some evidence"
        case .validated: return "validated"
        }
    }

    /// Escapes text for HTML element content and attribute values (SuiteStorage's `Markup`, the one
    /// escaper: `& < > " '` as references, characters XML forbids replaced).
    public static func escape(_ text: String) -> String { Markup.escape(text) }

    /// Wraps text at `width` columns, keeping paragraph breaks and breaking words longer than a line.
    static func wrap(_ text: String, width: Int) -> [String] {
        var output: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = ""
            for word in paragraph.split(separator: " ", omittingEmptySubsequences: true) {
                var word = Substring(word)
                while word.count > width {
                    if !line.isEmpty { output.append(line); line = "" }
                    output.append(String(word.prefix(width)))
                    word = word.dropFirst(width)
                }
                if line.isEmpty {
                    line = String(word)
                } else if line.count + 1 + word.count <= width {
                    line += " " + word
                } else {
                    output.append(line)
                    line = String(word)
                }
            }
            output.append(line)
        }
        return output
    }
}
