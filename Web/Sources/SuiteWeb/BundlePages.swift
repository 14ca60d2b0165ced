import BundleCore
import Foundation
import SuiteEnvironment
import HTTPTypes
import Hummingbird

/// The bundle pages (seed 003): add a todo before/after/when/with no preference and a deadline;
/// check in ("I'm about to…" / "I just finished…") picking the todos offered; the bundle's
/// checklist (done, throw back, pull another, title and icon, complete or abandon); review by date
/// and by event; every todo with "change trigger".
struct BundlePages {
    let app: WebApp

    var store: BundleStore { app.bundles }
    var zone: TimeZone { .current }

    func register(on router: Router<WebContext>) {
        router.get("/bundle") { request, _ in try await home(query: WebForm.query(request)) }
        router.post("/bundle/todos") { _, context in try await addTodo(context.form) }
        router.get("/bundle/checkin") { request, _ in
            try await offer(event: WebForm.query(request).first("event") ?? "", direction: WebForm.query(request).first("direction") ?? "")
        }
        router.post("/bundle/checkin") { _, context in try await checkIn(context.form) }
        router.get("/bundle/bundles/{id}") { _, context in try await bundlePage(try bundleID(context)) }
        router.post("/bundle/bundles/{id}/{action}") { _, context in
            try await change(try bundleID(context), action: context.parameters.get("action") ?? "", context.form)
        }
        router.get("/bundle/review") { request, _ in try await review(WebForm.query(request)) }
        router.get("/bundle/all") { request, _ in try await all(WebForm.query(request)) }
        router.post("/bundle/todos/{id}/move") { _, context in try await move(try todoID(context), context.form) }
    }

    private func menu(_ current: String) -> [WebPage.MenuItem] {
        [("HOME", "/bundle"), ("Check in", "/bundle/checkin"), ("Review", "/bundle/review"), ("All todos", "/bundle/all")].map {
            WebPage.MenuItem(label: $0.0, href: $0.1, current: $0.1 == current)
        }
    }

    private func page(_ content: some WebViewModel, title: String, current: String, status: HTTPResponse.Status = .ok) -> Response {
        WebPage.page(content, title: title, app: "bundle", menu: menu(current), secrets: app.secrets, status: status)
    }

    private func bundleID(_ context: WebContext) throws -> TodoBundle.ID {
        guard let raw = context.parameters.get("id"), let id = TodoBundle.ID(raw), id.rawValue > 0 else { throw HTTPError(.notFound, message: "no such bundle") }
        return id
    }

    private func todoID(_ context: WebContext) throws -> Todo.ID {
        guard let raw = context.parameters.get("id"), let id = Todo.ID(raw), id.rawValue > 0 else { throw HTTPError(.notFound, message: "no such todo") }
        return id
    }

    private func row(_ todo: Todo) -> TodoRow {
        TodoRow(id: todo.id.rawValue, text: todo.text, status: todo.status.rawValue, pending: todo.status == .pending,
                trigger: todo.eventName.flatMap { todo.preposition != .none ? "\(todo.preposition.rawValue) \($0)" : nil },
                deadline: todo.deadline.map { PeopleTime.deadline($0, in: zone) },
                overdue: todo.deadline != nil && todo.isOverdue(at: Date(), timeZone: zone))
    }

    /// The trigger events, `selected` the one named `chosen`.
    private func events(selecting chosen: String? = nil) async throws -> [EventRow] {
        try await store.run { try $0.events() }.map { EventRow(name: $0.name, selected: $0.name == chosen) }
    }

    /// "Tue 2026-11-25 15:00" (or "Tue 2026-11-25, all day") in the web app's time zone, by the
    /// one rule for people (``PeopleTime``).
    /// What the bundle-icon partial shows: the icon as typed, and the title's initial for a
    /// browser with no font that draws the icon (an emoji, often).
    static func icon(_ icon: String, title: String) -> BundleIcon {
        let typed = icon.trimmingCharacters(in: .whitespacesAndNewlines)
        let initial = title.first { $0.isLetter || $0.isNumber }.map { String($0).uppercased() } ?? "·"
        return BundleIcon(icon: typed, hasIcon: !typed.isEmpty, initial: initial)
    }

    static func when(_ occurrence: EventOccurrence) -> String {
        occurrence.isAllDay ? String(PeopleTime.unnamed(occurrence.start, in: .current).prefix(14)) + ", all day" : PeopleTime.stamp(occurrence.start)
    }

    // MARK: - The pile

    /// How many waiting todos the pile shows at once, soonest deadline first.
    static let pileSize = 50
    /// How many todos of an event coming up the pile shows (the check-in offers them all).
    static let comingSize = 10
    /// How many todos a page of all todos holds.
    static let allSize = 50
    /// How many completed bundles a page of the review holds.
    static let reviewSize = 30
    /// How many of an event's pending todos a bundle offers to pull in, soonest deadline first.
    static let pullSize = 200

    func home(query: WebForm = WebForm(), fields: [String: String] = [:], error: String? = nil, status: HTTPResponse.Status = .ok) async throws -> Response {
        let paging = WebPaging(query, size: Self.pileSize)
        let waiting = try await store.run { try $0.todoCount() }
        let todos = try await store.run { try $0.todos(order: .byDeadline, limit: paging.size, offset: paging.offset) }
        let shown = Home(
            todos: todos.map(row), waiting: waiting,
            pager: paging.pager(path: "/bundle", hasMore: paging.offset + todos.count < waiting, total: waiting, noun: "More waiting todos"),
            open: try await store.run { try $0.openBundles() }.map { Home.OpenBundle(id: $0.id.rawValue, title: $0.title, event: $0.eventName, badge: Self.icon($0.icon, title: $0.title)) },
            // Calendar events of the coming week with their todos (seed 003: events from the calendar).
            coming: try await store.run { try $0.upcoming(within: 7 * 86_400) }.map { occurrence in
                let more = occurrence.todos.count > Self.comingSize
                return Home.Coming(event: occurrence.eventName, when: Self.when(occurrence), count: occurrence.todos.count,
                                   todos: occurrence.todos.prefix(Self.comingSize).map(row),
                                   more: more ? occurrence.todos.count - Self.comingSize : nil,
                                   checkin: more ? QuotePages.queryValue(occurrence.eventName) : nil)
            },
            events: try await events(),
            text: fields["text"] ?? "", event: fields["event"] ?? "", deadlineField: fields["deadline"] ?? "",
            prepositions: Preposition.allCases.map { preposition in
                PrepositionRow(value: preposition.rawValue, label: preposition == .none ? "no preference" : preposition.rawValue,
                               checked: preposition.rawValue == (fields["preposition"] ?? "before"))
            },
            error: error)
        return page(shown, title: "Bundles", current: "/bundle", status: status)
    }

    func addTodo(_ form: WebForm) async throws -> Response {
        let fields = ["text", "event", "preposition", "deadline"].reduce(into: [String: String]()) { $0[$1] = form.first($1) ?? "" }
        let event = fields["event", default: ""].trimmingCharacters(in: .whitespaces)
        do {
            let preposition = try WebForm.choice(Preposition.self, fields["preposition", default: ""], named: "preposition") ?? .none
            let deadline = try fields["deadline", default: ""].isEmpty ? nil : Deadline.parse(fields["deadline", default: ""], timeZone: zone)
            _ = try await store.run { try $0.addTodo(fields["text", default: ""], event: preposition == .none || event.isEmpty ? nil : event,
                                        preposition: event.isEmpty ? .none : preposition, deadline: deadline,
                                        allowNewEvent: form.first("newEvent") == "1") }
        } catch {
            return try await home(fields: fields, error: String(describing: error), status: .unprocessableContent)
        }
        return WebPage.redirect("/bundle")
    }

    // MARK: - Check-in

    func offer(event: String, direction: String, error: String? = nil, status: HTTPResponse.Status = .ok) async throws -> Response {
        var shown = CheckIn(events: try await events(selecting: event), event: event, aboutTo: direction != CheckInDirection.justFinished.rawValue)
        if !event.isEmpty {
            do {
                let offered = try await store.run { try $0.offer(event: event, direction: CheckInDirection(rawValue: direction) ?? .aboutTo, timeZone: zone) }
                shown.offered = offered.todos.map(row)
                shown.eventName = offered.event.name
                shown.direction = (CheckInDirection(rawValue: direction) ?? .aboutTo).rawValue
                shown.phrase = (CheckInDirection(rawValue: direction) ?? .aboutTo) == .aboutTo ? "I'm about to" : "I just finished"
            } catch {
                shown.error = String(describing: error)
            }
        }
        if let error { shown.error = error }
        return page(shown, title: "Check in", current: "/bundle/checkin", status: shown.error == nil ? status : .unprocessableContent)
    }

    func checkIn(_ form: WebForm) async throws -> Response {
        let event = form.first("event") ?? "", direction = form.first("direction") ?? ""
        let chosen = form.all("todo").compactMap { Todo.ID($0) }
        do {
            let direction = try WebForm.choice(CheckInDirection.self, direction, named: "direction") ?? .aboutTo
            let bundle = try await store.run { try $0.checkIn(event: event, direction: direction, todoIDs: chosen, timeZone: zone) }
            return WebPage.redirect("/bundle/bundles/\(bundle.id.rawValue)")
        } catch {
            return try await offer(event: event, direction: direction, error: String(describing: error), status: .unprocessableContent)
        }
    }

    // MARK: - A bundle

    func bundlePage(_ id: TodoBundle.ID, error: String? = nil, status: HTTPResponse.Status = .ok) async throws -> Response {
        let bundle: TodoBundle
        do {
            bundle = try await store.run { try $0.bundle(id) }
        } catch {
            throw HTTPError(.notFound, message: String(describing: error))
        }
        let open = bundle.status == .open
        var pullable: [TodoRow]?
        if open {
            // The event's own todos only, soonest deadline first.
            let pending = try await store.run { try $0.todos(event: bundle.eventName, order: .byDeadline, limit: Self.pullSize) }
            pullable = pending.filter { $0.status == .pending && $0.eventID == bundle.eventID }.map(row)
        }
        let shown = Checklist(
            id: id.rawValue, title: bundle.title, event: bundle.eventName, phrase: bundle.direction.phrase,
            status: bundle.status.rawValue, isOpen: open, canComplete: bundle.canComplete,
            items: bundle.items.map { item in
                Checklist.Item(todo: row(item.todo), done: item.outcome == .done, thrownBack: item.outcome == .thrownBack,
                               itemOpen: item.outcome == .open && open, bundle: id.rawValue, alsoIn: item.alsoIn?.rawValue)
            },
            pullable: pullable, badge: Self.icon(bundle.icon, title: bundle.title), error: error)
        return page(shown, title: bundle.title, current: "", status: status)
    }

    func change(_ id: TodoBundle.ID, action: String, _ form: WebForm) async throws -> Response {
        let todo = form.first("todo").flatMap { Todo.ID($0) }
        do {
            switch (action, todo) {
            case ("done", let todo?): _ = try await store.run { try $0.markDone(todo, in: id) }
            case ("throwback", let todo?): _ = try await store.run { try $0.throwBack(todo, in: id) }
            case ("pull", let todo?): _ = try await store.run { try $0.pull(todo, into: id) }
            case ("rename", _): _ = try await store.run { try $0.renameBundle(id, to: form.first("title") ?? "") }
            case ("icon", _): _ = try await store.run { try $0.setIcon(id, to: form.first("icon") ?? "") }
            case ("complete", _): _ = try await store.run { try $0.complete(id) }
            case ("abandon", _): _ = try await store.run { try $0.abandon(id) }
            default: throw HTTPError(.notFound, message: "no such action")
            }
        } catch let error as HTTPError {
            throw error
        } catch {
            return try await bundlePage(id, error: String(describing: error), status: .unprocessableContent)
        }
        return WebPage.redirect("/bundle/bundles/\(id.rawValue)")
    }

    // MARK: - Review, all todos

    func review(_ query: WebForm) async throws -> Response {
        let event = query.first("event").flatMap { $0.isEmpty ? nil : $0 }
        let paging = WebPaging(query, size: Self.reviewSize)
        var shown = Review(events: try await events(selecting: event))
        do {
            let total = try await store.run { try $0.reviewCount(event: event) }
            // The latest first, a page at a time.
            let bundles = try await store.run { try $0.review(event: event, latest: paging.size, skipping: paging.offset) }
            let formatter = DateFormatter()
            formatter.dateStyle = .full
            formatter.timeStyle = .none
            var days: [Review.Day] = []
            for bundle in bundles.reversed() {
                let day = formatter.string(from: bundle.finishedAt ?? bundle.createdAt)
                let row = Review.Row(id: bundle.id.rawValue, title: bundle.title, event: bundle.eventName,
                                     done: bundle.items.filter { $0.outcome == .done }.count, count: bundle.items.count,
                                     badge: Self.icon(bundle.icon, title: bundle.title))
                if days.last?.day == day { days[days.count - 1].bundles.append(row) } else { days.append(Review.Day(day: day, bundles: [row])) }
            }
            shown.days = days
            shown.pager = paging.pager(path: "/bundle/review", fields: [("event", event ?? "")],
                                       hasMore: paging.offset + bundles.count < total, total: total, noun: "Older bundles")
            shown.event = event
        } catch {
            shown.error = String(describing: error)
        }
        return page(shown, title: "Review", current: "/bundle/review")
    }

    func all(_ query: WebForm = WebForm(), error: String? = nil, status: HTTPResponse.Status = .ok) async throws -> Response {
        let event = query.first("event").flatMap { $0.isEmpty ? nil : $0 }
        let paging = WebPaging(query, size: Self.allSize)
        var shown = All(
            events: try await events(selecting: event),
            prepositions: Preposition.allCases.map { PrepositionRow(value: $0.rawValue, label: $0 == .none ? "no preference" : $0.rawValue, checked: false) })
        do {
            let total = try await store.run { try $0.todoCount(event: event, includeFinished: true) }
            let todos = try await store.run { try $0.todos(event: event, includeFinished: true, limit: paging.size, offset: paging.offset) }
            shown.todos = todos.map(row)
            shown.total = total
            shown.pager = paging.pager(path: "/bundle/all", fields: [("event", event ?? "")],
                                       hasMore: paging.offset + todos.count < total, total: total, noun: "More todos")
            shown.filtered = event
        } catch {
            shown.error = String(describing: error)
        }
        if let error { shown.error = error }
        return page(shown, title: "All todos", current: "/bundle/all", status: shown.error == nil ? status : .unprocessableContent)
    }

    func move(_ id: Todo.ID, _ form: WebForm) async throws -> Response {
        let event = (form.first("event") ?? "").trimmingCharacters(in: .whitespaces)
        do {
            let preposition = try WebForm.choice(Preposition.self, form.first("preposition") ?? "", named: "preposition")
            _ = try await store.run { try $0.moveTodo(id, event: event.isEmpty ? nil : event, preposition: preposition, allowNewEvent: form.first("newEvent") == "1") }
        } catch {
            return try await all(error: String(describing: error), status: .unprocessableContent)
        }
        return WebPage.redirect("/bundle/all")
    }
}

// MARK: - View models

extension BundlePages {
    /// A todo as the `todo` partial and the lists show it.
    struct TodoRow: TemplateValues {
        let id: Int64
        let text: String
        let status: String
        let pending: Bool
        /// `before go to the bank`: when it has an event and a preposition.
        let trigger: String?
        let deadline: String?
        /// Whether the deadline has passed (false without one).
        let overdue: Bool
    }

    /// What the `bundle-icon` partial shows (as a value's `badge`): the icon as typed, and the
    /// title's initial for a browser with no font that draws the icon.
    struct BundleIcon: TemplateValues {
        let icon: String
        let hasIcon: Bool
        let initial: String
    }

    /// A trigger event of a list or a select.
    struct EventRow: TemplateValues {
        let name: String
        let selected: Bool
    }

    /// A choice of preposition (`before`, `after`, …).
    struct PrepositionRow: TemplateValues {
        let value: String
        let label: String
        let checked: Bool
    }

    /// HOME: open bundles, the coming week's events, the form to add a todo and the pile.
    struct Home: WebViewModel {
        static let template = "bundle-home"

        struct OpenBundle: TemplateValues {
            let id: Int64
            let title: String
            let event: String
            let badge: BundleIcon
        }

        /// A calendar event's time coming up, with (the first of) its todos.
        struct Coming: TemplateValues {
            let event: String
            let when: String
            let count: Int
            let todos: [TodoRow]
            /// How many todos are not shown, when some are not.
            let more: Int?
            /// The event's name for the check-in link's query, when some are not shown.
            let checkin: String?
        }

        let todos: [TodoRow]
        let waiting: Int
        let pager: WebPaging.Pager
        let open: [OpenBundle]
        let coming: [Coming]
        let events: [EventRow]
        /// The form's fields, as sent when it was refused.
        let text: String
        let event: String
        let deadlineField: String
        let prepositions: [PrepositionRow]
        let error: String?
    }

    /// Check-in: the event and direction asked, and the todos offered for them.
    struct CheckIn: WebViewModel {
        static let template = "bundle-checkin"
        let events: [EventRow]
        let event: String
        let aboutTo: Bool
        var offered: [TodoRow]?
        var eventName: String?
        var direction: String?
        /// "I'm about to" or "I just finished".
        var phrase: String?
        var error: String?
    }

    /// A bundle's checklist.
    struct Checklist: WebViewModel {
        static let template = "bundle-bundle"

        /// A todo of the bundle, and what became of it.
        struct Item: TemplateValues {
            let todo: TodoRow
            let done: Bool
            let thrownBack: Bool
            /// Neither done nor thrown back, in an open bundle.
            let itemOpen: Bool
            /// The bundle's id (the forms' address).
            let bundle: Int64
            /// Another bundle the todo is in (checked in on two devices at once).
            let alsoIn: Int64?
        }

        let id: Int64
        let title: String
        let event: String
        let phrase: String
        let status: String
        let isOpen: Bool
        let canComplete: Bool
        let items: [Item]
        /// The event's todos to pull in, when the bundle is open.
        let pullable: [TodoRow]?
        let badge: BundleIcon
        let error: String?
    }

    /// The review: completed bundles by day, the latest first.
    struct Review: WebViewModel {
        static let template = "bundle-review"

        struct Row: TemplateValues {
            let id: Int64
            let title: String
            let event: String
            let done: Int
            let count: Int
            let badge: BundleIcon
        }

        struct Day: TemplateValues {
            let day: String
            var bundles: [Row]
        }

        let events: [EventRow]
        /// None when the bundles could not be read.
        var days: [Day]?
        var pager: WebPaging.Pager?
        /// The event the list is of, when filtered.
        var event: String?
        var error: String?
    }

    /// Every todo, by event, with "change trigger".
    struct All: WebViewModel {
        static let template = "bundle-all"
        let events: [EventRow]
        let prepositions: [PrepositionRow]
        var todos: [TodoRow] = []
        var total: Int?
        var pager: WebPaging.Pager?
        /// The event the list is of, when filtered.
        var filtered: String?
        var error: String?
    }
}
