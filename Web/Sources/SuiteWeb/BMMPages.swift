import Foundation
import SuiteEnvironment
import HTTPTypes
import Hummingbird
import MotivationCore

/// The business-model pages (seed 000): the intro with the business name, a page per section
/// (description, relationship, a large text field, Continue links marked ✓/!), GOTO with
/// completeness, history and restore, SHARE as downloads, PRINT through the browser, ABOUT.
struct BMMPages {
    let app: WebApp

    var store: BusinessModelStore { app.bmm }

    func register(on router: Router<WebContext>) {
        router.get("/bmm") { _, _ in try await intro() }
        router.post("/bmm/models") { _, context in try await create(context.form) }
        router.post("/bmm/use") { _, context in try await use(context.form) }
        router.post("/bmm/rename") { _, context in try await rename(context.form) }
        router.get("/bmm/goto") { _, _ in try await goto() }
        router.get("/bmm/about") { _, _ in about() }
        router.get("/bmm/section/{section}") { request, context in
            let query = WebForm.query(request)
            return try await section(try sectionID(context), saved: query.first("saved") != nil,
                                     from: query.first("from").flatMap { SectionID(rawValue: $0) })
        }
        router.post("/bmm/section/{section}") { _, context in try await save(try sectionID(context), context.form) }
        router.get("/bmm/section/{section}/history") { _, context in try await history(try sectionID(context)) }
        router.post("/bmm/section/{section}/restore") { _, context in try await restore(try sectionID(context), context.form) }
        router.get("/bmm/share") { request, _ in try await share(force: WebForm.query(request).first("force") != nil) }
        router.get("/bmm/share/{format}") { request, context in
            try await download(context.parameters.get("format") ?? "", force: WebForm.query(request).first("force") != nil)
        }
        router.get("/bmm/print") { request, _ in try await printView(force: WebForm.query(request).first("force") != nil) }
    }

    private func menu(_ current: String) -> [WebPage.MenuItem] {
        [("HOME", "/bmm"), ("GOTO", "/bmm/goto"), ("SHARE", "/bmm/share"), ("PRINT", "/bmm/print"), ("ABOUT", "/bmm/about")].map {
            WebPage.MenuItem(label: $0.0, href: $0.1, current: $0.1 == current)
        }
    }

    private func page(_ content: some WebViewModel, title: String, current: String, status: HTTPResponse.Status = .ok) -> Response {
        WebPage.page(content, title: title, app: "bmm", menu: menu(current), secrets: app.secrets, status: status)
    }

    private func sectionID(_ context: WebContext) throws -> SectionID {
        guard let raw = context.parameters.get("section"), let id = SectionID(rawValue: raw) ?? SectionCatalogue.lookup(raw) else {
            throw HTTPError(.notFound, message: "no such section")
        }
        return id
    }

    /// The current model, or the intro page when there is none.
    private func currentModel() async throws -> BusinessModel? {
        try await store.run { try $0.currentIfAny() }
    }

    // MARK: - Intro, models

    func intro(name: String = "", nameError: String? = nil, rename: String? = nil, renameError: String? = nil,
               status: HTTPResponse.Status = .ok) async throws -> Response {
        let shown = try await currentModel().map { model in
            Intro.Model(name: model.name, percent: model.completeness.percent, rename: rename ?? model.name,
                        first: SectionCatalogue.guidedOrder[0].rawValue, firstTitle: SectionCatalogue.guidedOrder[0].title,
                        next: model.completeness.missing.first.map { SectionLink(id: $0.rawValue, title: $0.title) })
        }
        let models = try await store.run { try $0.models() }.map { summary in
            Intro.Row(id: summary.id.uuidString, name: summary.name, percent: summary.percent, current: summary.isCurrent)
        }
        return page(Intro(name: name, nameError: nameError, renameError: renameError, model: shown, models: models),
                    title: "Business model", current: "/bmm", status: status)
    }

    func create(_ form: WebForm) async throws -> Response {
        let name = form.first("name") ?? ""
        do {
            _ = try await store.run { s throws(MotivationError) in try s.create(name: name) }
        } catch {
            return try await intro(name: name, nameError: error.description, status: .unprocessableContent)
        }
        return WebPage.redirect("/bmm/section/\(SectionCatalogue.guidedOrder[0].rawValue)")
    }

    /// HOME is where the business name changes.
    func rename(_ form: WebForm) async throws -> Response {
        let name = form.first("rename") ?? ""
        guard let model = try await currentModel() else { return WebPage.redirect("/bmm") }
        do {
            _ = try await store.run { s throws(MotivationError) in try s.rename(model.id, to: name) }
        } catch {
            return try await intro(rename: name, renameError: error.description, status: .unprocessableContent)
        }
        return WebPage.redirect("/bmm")
    }

    func use(_ form: WebForm) async throws -> Response {
        guard let id = form.first("model").flatMap(UUID.init(uuidString:)) else { return WebPage.redirect("/bmm") }
        do {
            _ = try await store.run { s throws(MotivationError) in try s.use(id) }
        } catch {
            // Deleted meanwhile (by the CLI or another device): the list shows what is there.
            guard case .modelNotFound = error else { throw error }
        }
        return WebPage.redirect("/bmm")
    }

    func about() -> Response {
        page(About(paragraphs: SectionCatalogue.about.components(separatedBy: "\n\n")), title: "About", current: "/bmm/about")
    }

    // MARK: - Sections

    func goto() async throws -> Response {
        guard let model = try await currentModel() else { return WebPage.redirect("/bmm") }
        let sections = SectionCatalogue.guidedOrder.map { id in
            Goto.Row(id: id.rawValue, title: id.title, answered: model.isAnswered(id), level: SectionCatalogue.section(id).level.rawValue)
        }
        return page(Goto(modelName: model.name, percent: model.completeness.percent, hasName: model.completeness.hasName, sections: sections),
                    title: "GOTO", current: "/bmm/goto")
    }

    func section(_ id: SectionID, saved: Bool = false, from: SectionID? = nil, text: String? = nil, confidence: String? = nil,
                 textError: String? = nil, status: HTTPResponse.Status = .ok) async throws -> Response {
        guard let model = try await currentModel() else { return WebPage.redirect("/bmm") }
        let info = SectionCatalogue.section(id)
        let heads = try await store.run { try $0.heads(of: id, in: model.id) }
        let chosen = confidence ?? model.entries[id]?.confidence?.rawValue ?? ""
        let shown = Section(
            id: id.rawValue, section: id.rawValue, title: id.title, summary: info.summary, prompts: info.prompts,
            modelName: model.name, percent: model.completeness.percent, answered: model.isAnswered(id),
            text: text ?? model.text(of: id), saved: saved,
            confidences: ([("", "Not set")] + Confidence.allCases.map { ($0.rawValue, $0.rawValue.replacingOccurrences(of: "-", with: " ")) }).map { value, label in
                WebPage.Option(value: value, label: label, selected: value == chosen)
            },
            continueTo: SectionCatalogue.continueLinks(from: id).map { Section.Onward(id: $0.rawValue, title: $0.title, answered: model.isAnswered($0)) },
            // Back, with the previous view's short title (the seed's navigation bar).
            back: from.map { Section.Back(id: $0.rawValue, short: $0.shortID.uppercased(), title: $0.title) },
            sentence: SectionCatalogue.leadingRelationship(to: id)?.sentence,
            disagreeing: heads.count > 1 ? heads.map { String($0.version) }.joined(separator: ", ") : nil,
            textError: textError)
        return page(shown, title: id.title, current: "", status: status)
    }

    func save(_ id: SectionID, _ form: WebForm) async throws -> Response {
        guard let model = try await currentModel() else { return WebPage.redirect("/bmm") }
        let text = form.first("text") ?? ""
        let rawConfidence = form.first("confidence") ?? ""
        let confidence = Confidence(rawValue: rawConfidence)
        guard rawConfidence.isEmpty || confidence != nil else {
            return try await section(id, text: text, textError: "unknown confidence '\(rawConfidence)'", status: .unprocessableContent)
        }
        do {
            let current = model.entries[id]
            if text != model.text(of: id) || confidence != current?.confidence {
                if text == model.text(of: id) {
                    _ = try await store.run { s throws(MotivationError) in try s.setConfidence(confidence, section: id, in: model.id) }
                } else {
                    _ = try await store.run { s throws(MotivationError) in try s.save(text: text, confidence: confidence, section: id, in: model.id) }
                    if confidence == nil, current?.confidence != nil { _ = try await store.run { s throws(MotivationError) in try s.setConfidence(nil, section: id, in: model.id) } }
                }
            }
        } catch {
            // The text stays in the field, with the reason beside it; nothing was saved.
            return try await section(id, text: text, confidence: rawConfidence, textError: error.description, status: .unprocessableContent)
        }
        if form.first("then") == "continue", let next = SectionCatalogue.continueLinks(from: id).first {
            return WebPage.redirect("/bmm/section/\(next.rawValue)?from=\(id.rawValue)")
        }
        return WebPage.redirect("/bmm/section/\(id.rawValue)?saved=1")
    }

    func history(_ id: SectionID) async throws -> Response {
        guard let model = try await currentModel() else { return WebPage.redirect("/bmm") }
        let heads = Set(try await store.run { try $0.heads(of: id, in: model.id) }.map(\.version))
        let versions = try await store.run { try $0.history(of: id, in: model.id) }.reversed().map { version in
            History.Row(version: version.version, text: version.text, savedAt: Self.stamp(version.savedAt),
                        head: heads.contains(version.version), id: id.rawValue, confidence: version.confidence?.rawValue)
        }
        return page(History(id: id.rawValue, title: id.title, versions: versions,
                            disagreeing: heads.count > 1 ? heads.sorted().map(String.init).joined(separator: ", ") : nil),
                    title: "History of \(id.title)", current: "")
    }

    func restore(_ id: SectionID, _ form: WebForm) async throws -> Response {
        guard let model = try await currentModel() else { return WebPage.redirect("/bmm") }
        guard let version = form.first("version").flatMap(Int.init) else { return WebPage.redirect("/bmm/section/\(id.rawValue)/history") }
        do {
            _ = try await store.run { s throws(MotivationError) in try s.restore(section: id, version: version, in: model.id) }
        } catch {
            guard case .versionNotFound = error else { throw error }
            return WebPage.redirect("/bmm/section/\(id.rawValue)/history")
        }
        return WebPage.redirect("/bmm/section/\(id.rawValue)?saved=1")
    }

    // MARK: - Share, print

    /// The sharing rules of `suite bmm export`: refused without a business name or the Value
    /// Proposition unless forced; unfinished sections named as a warning.
    private func check(_ model: BusinessModel, force: Bool) -> (refusal: String?, warning: String?) {
        let check = model.completeness.shareCheck
        do {
            try check.enforce(force: force)
        } catch {
            return (error.description.prefix(1).uppercased() + error.description.dropFirst() + ".", check.warningText)
        }
        return (nil, check.warningText.map { $0.prefix(1).uppercased() + $0.dropFirst() })
    }

    func share(force: Bool) async throws -> Response {
        guard let model = try await currentModel() else { return WebPage.redirect("/bmm") }
        let (refusal, warning) = check(model, force: force)
        return page(Share(modelName: model.name, forceQuery: force ? "?force=1" : "", refusal: refusal, warning: warning),
                    title: "Share", current: "/bmm/share")
    }

    func download(_ format: String, force: Bool) async throws -> Response {
        guard let model = try await currentModel() else { return WebPage.redirect("/bmm") }
        guard check(model, force: force).refusal == nil else { return WebPage.redirect("/bmm/share") }
        let base = model.name
        switch format {
        case "markdown": return WebPage.download(Data(ModelRenderer.markdown(model).utf8), name: "\(base).md", type: "text/markdown; charset=utf-8")
        case "html": return WebPage.download(Data(ModelRenderer.html(model).utf8), name: "\(base).html", type: "text/html; charset=utf-8")
        case "json": return WebPage.download(try await store.run { try $0.document(for: model.id) }.encoded(), name: "\(base).json", type: "application/json")
        default: throw HTTPError(.notFound, message: "no such format")
        }
    }

    func printView(force: Bool) async throws -> Response {
        guard let model = try await currentModel() else { return WebPage.redirect("/bmm") }
        let (refusal, warning) = check(model, force: force)
        let sections = SectionCatalogue.guidedOrder.map { id in
            Print.Row(title: id.title, answered: model.isAnswered(id), text: model.text(of: id), confidence: model.entries[id]?.confidence?.rawValue)
        }
        return page(Print(modelName: model.name, refusal: refusal, warning: warning, sections: sections),
                    title: "Print \(model.name)", current: "/bmm/print")
    }

    static func stamp(_ date: Date) -> String { PeopleTime.stamp(date) }
}

// MARK: - View models

extension BMMPages {
    /// A link to a section: its id and title.
    struct SectionLink: TemplateValues {
        let id: String
        let title: String
    }

    /// HOME: the current model (none before the first), the new-model form and the models.
    struct Intro: WebViewModel {
        static let template = "bmm-intro"

        struct Model: TemplateValues {
            let name: String
            let percent: Int
            /// The rename field's text.
            let rename: String
            let first: String
            let firstTitle: String
            /// The first section not answered, none when every one is.
            let next: SectionLink?
        }

        struct Row: TemplateValues {
            let id: String
            let name: String
            let percent: Int
            let current: Bool
        }

        /// The new-model field's text.
        let name: String
        let nameError: String?
        let renameError: String?
        let model: Model?
        let models: [Row]
    }

    struct About: WebViewModel {
        static let template = "bmm-about"
        let paragraphs: [String]
    }

    /// GOTO: every section, answered or not.
    struct Goto: WebViewModel {
        static let template = "bmm-goto"

        struct Row: TemplateValues {
            let id: String
            let title: String
            let answered: Bool
            let level: String
        }

        let modelName: String
        let percent: Int
        let hasName: Bool
        let sections: [Row]
    }

    /// A section's page: its text, confidence and links on.
    struct Section: WebViewModel {
        static let template = "bmm-section"

        /// Back to the section before, by its short title.
        struct Back: TemplateValues {
            let id: String
            let short: String
            let title: String
        }

        /// A section to continue to, marked answered or not.
        struct Onward: TemplateValues {
            let id: String
            let title: String
            let answered: Bool
        }

        let id: String
        /// The section's id again, for the links on (where `id` is the linked section's).
        let section: String
        let title: String
        let summary: String
        let prompts: [String]
        let modelName: String
        let percent: Int
        let answered: Bool
        let text: String
        let saved: Bool
        let confidences: [WebPage.Option]
        let continueTo: [Onward]
        let back: Back?
        let sentence: String?
        /// The versions saved at once on two devices, when there are.
        let disagreeing: String?
        let textError: String?
    }

    struct History: WebViewModel {
        static let template = "bmm-history"

        struct Row: TemplateValues {
            let version: Int
            let text: String
            let savedAt: String
            let head: Bool
            /// The section's id (the restore form's address).
            let id: String
            let confidence: String?
        }

        let id: String
        let title: String
        let versions: [Row]
        let disagreeing: String?
    }

    struct Share: WebViewModel {
        static let template = "bmm-share"
        let modelName: String
        /// `?force=1` when the rules were overridden, so the downloads are too.
        let forceQuery: String
        let refusal: String?
        let warning: String?
    }

    struct Print: WebViewModel {
        static let template = "bmm-print"

        struct Row: TemplateValues {
            let title: String
            let answered: Bool
            let text: String
            let confidence: String?
        }

        let modelName: String
        let refusal: String?
        let warning: String?
        let sections: [Row]
    }
}
