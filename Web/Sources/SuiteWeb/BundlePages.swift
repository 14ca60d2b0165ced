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

    private func page(_ template: String, title: String, current: String, values: [String: Any], status: HTTPResponse.Status = .ok) -> Response {
        WebPage.page(template, title: title, app: "bundle", menu: menu(current), values: values, secrets: app.secrets, status: status)
    }

    private func bundleID(_ context: WebContext) throws -> TodoBundle.ID {
        guard let raw = context.parameters.get("id"), let id = TodoBundle.ID(raw), id.rawValue > 0 else { throw HTTPError(.notFound, message: "no such bundle") }
        return id
    }

    private func todoID(_ context: WebContext) throws -> Todo.ID {
        guard let raw = context.parameters.get("id"), let id = Todo.ID(raw), id.rawValue > 0 else { throw HTTPError(.notFound, message: "no such todo") }
        return id
    }

    /// A form's choice: nil when not made (empty); refused, naming the field, when it is none of
    /// the choices (a forged or stale form), so that bad input never falls back to a default.
    static func choice<Choice: RawRepresentable>(_ type: Choice.Type, _ text: String, named field: String) throws -> Choice? where Choice.RawValue == String {
        guard !text.isEmpty else { return nil }
        guard let choice = Choice(rawValue: text) else { throw WebInputError("unknown \(field) '\(text)'") }
        return choice
    }

    private func row(_ todo: Todo) -> [String: Any] {
        var row: [String: Any] = ["id": todo.id.rawValue, "text": todo.text, "status": todo.status.rawValue, "pending": todo.status == .pending]
        if let event = todo.eventName, todo.preposition != .none { row["trigger"] = "\(todo.preposition.rawValue) \(event)" }
        if let deadline = todo.deadline {
            row["deadline"] = PeopleTime.deadline(deadline, in: zone)
            row["overdue"] = todo.isOverdue(at: Date(), timeZone: zone)
        }
        if !todo.notes.isEmpty { row["notes"] = todo.notes }
        return row
    }

    private func events() async throws -> [[String: Any]] {
        try await store.events().map { ["name": $0.name] }
    }

    /// "Tue 2026-11-25 15:00" (or "Tue 2026-11-25, all day") in the web app's time zone, by the
    /// one rule for people (``PeopleTime``).
    /// What the bundle-icon partial shows: the icon as typed, and the title's initial for a
    /// browser with no font that draws the icon (an emoji, often).
    static func icon(_ icon: String, title: String) -> [String: Any] {
        let typed = icon.trimmingCharacters(in: .whitespacesAndNewlines)
        let initial = title.first { $0.isLetter || $0.isNumber }.map { String($0).uppercased() } ?? "·"
        return ["icon": typed, "hasIcon": !typed.isEmpty, "initial": initial]
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
        let waiting = try await store.todoCount()
        let todos = try await store.todos(order: .byDeadline, limit: paging.size, offset: paging.offset)
        var values: [String: Any] = [
            "todos": todos.map(row), "waiting": waiting,
            "pager": paging.values(path: "/bundle", hasMore: paging.offset + todos.count < waiting, total: waiting, noun: "More waiting todos"),
            "open": try await store.openBundles().map { (["id": $0.id.rawValue, "title": $0.title, "event": $0.eventName] as [String: Any]).merging(Self.icon($0.icon, title: $0.title)) { $1 } },
            // Calendar events of the coming week with their todos (seed 003: events from the calendar).
            "coming": try await store.upcoming(within: 7 * 86_400).map { occurrence -> [String: Any] in
                var shown: [String: Any] = ["event": occurrence.eventName, "when": Self.when(occurrence), "count": occurrence.todos.count,
                                            "todos": occurrence.todos.prefix(Self.comingSize).map(row)]
                if occurrence.todos.count > Self.comingSize {
                    shown["more"] = occurrence.todos.count - Self.comingSize
                    shown["checkin"] = QuotePages.queryValue(occurrence.eventName)
                }
                return shown
            },
            "events": try await events(),
            "text": fields["text"] ?? "", "event": fields["event"] ?? "", "deadlineField": fields["deadline"] ?? "",
            "prepositions": Preposition.allCases.map { preposition -> [String: Any] in
                ["value": preposition.rawValue, "label": preposition == .none ? "no preference" : preposition.rawValue,
                 "checked": preposition.rawValue == (fields["preposition"] ?? "before")]
            },
        ]
        if let error { values["error"] = error }
        return page("bundle-home", title: "Bundles", current: "/bundle", values: values, status: status)
    }

    func addTodo(_ form: WebForm) async throws -> Response {
        let fields = ["text", "event", "preposition", "deadline"].reduce(into: [String: String]()) { $0[$1] = form.first($1) ?? "" }
        let event = fields["event", default: ""].trimmingCharacters(in: .whitespaces)
        do {
            let preposition = try Self.choice(Preposition.self, fields["preposition", default: ""], named: "preposition") ?? .none
            let deadline = try fields["deadline", default: ""].isEmpty ? nil : Deadline.parse(fields["deadline", default: ""], timeZone: zone)
            _ = try await store.addTodo(fields["text", default: ""], event: preposition == .none || event.isEmpty ? nil : event,
                                        preposition: event.isEmpty ? .none : preposition, deadline: deadline,
                                        allowNewEvent: form.first("newEvent") == "1")
        } catch {
            return try await home(fields: fields, error: String(describing: error), status: .unprocessableContent)
        }
        return WebPage.redirect("/bundle")
    }

    // MARK: - Check-in

    func offer(event: String, direction: String, error: String? = nil, status: HTTPResponse.Status = .ok) async throws -> Response {
        var values: [String: Any] = ["events": try await events().map { row in
            var row = row
            row["selected"] = (row["name"] as? String) == event
            return row
        }, "event": event, "aboutTo": direction != CheckInDirection.justFinished.rawValue]
        if !event.isEmpty {
            do {
                let offered = try await store.offer(event: event, direction: CheckInDirection(rawValue: direction) ?? .aboutTo, timeZone: zone)
                values["offered"] = offered.todos.map(row)
                values["eventName"] = offered.event.name
                values["direction"] = (CheckInDirection(rawValue: direction) ?? .aboutTo).rawValue
                values["phrase"] = (CheckInDirection(rawValue: direction) ?? .aboutTo) == .aboutTo ? "I'm about to" : "I just finished"
            } catch {
                values["error"] = String(describing: error)
            }
        }
        if let error { values["error"] = error }
        return page("bundle-checkin", title: "Check in", current: "/bundle/checkin", values: values, status: values["error"] == nil ? status : .unprocessableContent)
    }

    func checkIn(_ form: WebForm) async throws -> Response {
        let event = form.first("event") ?? "", direction = form.first("direction") ?? ""
        let chosen = form.all("todo").compactMap { Todo.ID($0) }
        do {
            let direction = try Self.choice(CheckInDirection.self, direction, named: "direction") ?? .aboutTo
            let bundle = try await store.checkIn(event: event, direction: direction, todoIDs: chosen, timeZone: zone)
            return WebPage.redirect("/bundle/bundles/\(bundle.id.rawValue)")
        } catch {
            return try await offer(event: event, direction: direction, error: String(describing: error), status: .unprocessableContent)
        }
    }

    // MARK: - A bundle

    func bundlePage(_ id: TodoBundle.ID, error: String? = nil, status: HTTPResponse.Status = .ok) async throws -> Response {
        let bundle: TodoBundle
        do {
            bundle = try await store.bundle(id)
        } catch {
            throw HTTPError(.notFound, message: String(describing: error))
        }
        let open = bundle.status == .open
        var values: [String: Any] = [
            "id": id.rawValue, "title": bundle.title, "event": bundle.eventName, "phrase": bundle.direction.phrase,
            "status": bundle.status.rawValue, "isOpen": open, "canComplete": bundle.canComplete,
            "items": bundle.items.map { item -> [String: Any] in
                var row = row(item.todo)
                row["done"] = item.outcome == .done
                row["thrownBack"] = item.outcome == .thrownBack
                row["itemOpen"] = item.outcome == .open && open
                row["bundle"] = id.rawValue
                if let other = item.alsoIn { row["alsoIn"] = other.rawValue }
                return row
            },
        ]
        if open {
            // The event's own todos only, soonest deadline first.
            let pending = try await store.todos(event: bundle.eventName, order: .byDeadline, limit: Self.pullSize)
            values["pullable"] = pending.filter { $0.status == .pending && $0.eventID == bundle.eventID }.map(row)
        }
        values.merge(Self.icon(bundle.icon, title: bundle.title)) { $1 }
        if let error { values["error"] = error }
        return page("bundle-bundle", title: bundle.title, current: "", values: values, status: status)
    }

    func change(_ id: TodoBundle.ID, action: String, _ form: WebForm) async throws -> Response {
        let todo = form.first("todo").flatMap { Todo.ID($0) }
        do {
            switch (action, todo) {
            case ("done", let todo?): _ = try await store.markDone(todo, in: id)
            case ("throwback", let todo?): _ = try await store.throwBack(todo, in: id)
            case ("pull", let todo?): _ = try await store.pull(todo, into: id)
            case ("rename", _): _ = try await store.renameBundle(id, to: form.first("title") ?? "")
            case ("icon", _): _ = try await store.setIcon(id, to: form.first("icon") ?? "")
            case ("complete", _): _ = try await store.complete(id)
            case ("abandon", _): _ = try await store.abandon(id)
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
        var values: [String: Any] = ["events": try await events().map { row in
            var row = row
            row["selected"] = (row["name"] as? String) == event
            return row
        }]
        do {
            let total = try await store.reviewCount(event: event)
            // The latest first, a page at a time.
            let bundles = try await store.review(event: event, latest: paging.size, skipping: paging.offset)
            let formatter = DateFormatter()
            formatter.dateStyle = .full
            formatter.timeStyle = .none
            var days: [(String, [[String: Any]])] = []
            for bundle in bundles.reversed() {
                let day = formatter.string(from: bundle.finishedAt ?? bundle.createdAt)
                let shown: [String: Any] = (["id": bundle.id.rawValue, "title": bundle.title, "event": bundle.eventName,
                                             "done": bundle.items.filter { $0.outcome == .done }.count, "count": bundle.items.count] as [String: Any])
                    .merging(Self.icon(bundle.icon, title: bundle.title)) { $1 }
                if days.last?.0 == day { days[days.count - 1].1.append(shown) } else { days.append((day, [shown])) }
            }
            values["days"] = days.map { ["day": $0.0, "bundles": $0.1] }
            values["pager"] = paging.values(path: "/bundle/review", fields: [("event", event ?? "")],
                                            hasMore: paging.offset + bundles.count < total, total: total, noun: "Older bundles")
            if let event { values["event"] = event }
        } catch {
            values["error"] = String(describing: error)
        }
        return page("bundle-review", title: "Review", current: "/bundle/review", values: values)
    }

    func all(_ query: WebForm = WebForm(), error: String? = nil, status: HTTPResponse.Status = .ok) async throws -> Response {
        let event = query.first("event").flatMap { $0.isEmpty ? nil : $0 }
        let paging = WebPaging(query, size: Self.allSize)
        var values: [String: Any] = [
            "events": try await events().map { row in
                var row = row
                row["selected"] = (row["name"] as? String) == event
                return row
            },
            "prepositions": Preposition.allCases.map { ["value": $0.rawValue, "label": $0 == .none ? "no preference" : $0.rawValue] },
        ]
        do {
            let total = try await store.todoCount(event: event, includeFinished: true)
            let todos = try await store.todos(event: event, includeFinished: true, limit: paging.size, offset: paging.offset)
            values["todos"] = todos.map(row)
            values["total"] = total
            values["pager"] = paging.values(path: "/bundle/all", fields: [("event", event ?? "")],
                                            hasMore: paging.offset + todos.count < total, total: total, noun: "More todos")
            if let event { values["filtered"] = event }
        } catch {
            values["todos"] = [[String: Any]]()
            values["error"] = String(describing: error)
        }
        if let error { values["error"] = error }
        return page("bundle-all", title: "All todos", current: "/bundle/all", values: values, status: values["error"] == nil ? status : .unprocessableContent)
    }

    func move(_ id: Todo.ID, _ form: WebForm) async throws -> Response {
        let event = (form.first("event") ?? "").trimmingCharacters(in: .whitespaces)
        do {
            let preposition = try Self.choice(Preposition.self, form.first("preposition") ?? "", named: "preposition")
            _ = try await store.moveTodo(id, event: event.isEmpty ? nil : event, preposition: preposition, allowNewEvent: form.first("newEvent") == "1")
        } catch {
            return try await all(error: String(describing: error), status: .unprocessableContent)
        }
        return WebPage.redirect("/bundle/all")
    }
}
