import Foundation

extension BundleStore {
    /// Refuses a file whose records contradict each other, before anything is written, so that
    /// an import never fails half-way on the store's constraints nor leaves a bundle that can
    /// never complete:
    ///
    /// - two events under one name or alias;
    /// - a bundle id given twice, or a bundle naming the same todo twice;
    /// - a todo still open in two bundles, or open in a bundle that is not open;
    /// - a todo open in a bundle while the todo itself is not in that bundle, or a todo that says
    ///   it is in a bundle the file describes without holding it there as open.
    ///
    /// - Throws: ``BundleError/malformedImport(format:line:reason:)`` naming the bundle (its
    ///   number in the file and its id) and the todo.
    static func checkConsistency(_ document: InterchangeDocument, format: InterchangeFormat) throws(BundleError) {
        let check = try ImportConsistency(events: document.events, bundles: document.bundles, format: format)
        for (index, todo) in document.todos.enumerated() { try check.check(todo, number: index + 1) }
    }

    /// The checks of ``checkConsistency(_:format:)``: those of events and bundles when made, those
    /// of each todo by ``check(_:number:)`` (so that a file's todos can be checked as they are read).
    struct ImportConsistency {
        private let formatName: String
        private var bundleNumbers: [UUID: Int] = [:]
        private var openIn: [UUID: (bundle: UUID, number: Int)] = [:]

        private static func id(_ uuid: UUID) -> String { uuid.uuidString.lowercased() }

        init(events: [InterchangeEvent], bundles: [InterchangeBundle], format: InterchangeFormat) throws(BundleError) {
            let formatName = format.displayName
            self.formatName = formatName
            // Each event name and alias names one event: a second event under a name already taken
            // would silently merge into the first.
            var phrases: [String: Int] = [:]
            for (index, event) in events.enumerated() {
                for phrase in [event.name] + event.aliases {
                    let key = matchKey(phrase)
                    if let other = phrases[key], other != index + 1 {
                        throw .malformedImport(format: formatName, line: nil, reason: "event \(index + 1) ('\(event.name)'): '\(phrase)' already names event \(other)")
                    }
                    phrases[key] = index + 1
                }
            }
            for (index, bundle) in bundles.enumerated() {
                let number = index + 1
                func fail(_ reason: String) -> BundleError {
                    .malformedImport(format: formatName, line: nil, reason: "bundle \(number) (\(Self.id(bundle.uuid))): \(reason)")
                }
                if let earlier = bundleNumbers[bundle.uuid] { throw fail("the same id as bundle \(earlier)") }
                bundleNumbers[bundle.uuid] = number
                var seen: Set<UUID> = []
                for item in bundle.items {
                    guard seen.insert(item.todo).inserted else { throw fail("it holds todo \(Self.id(item.todo)) twice") }
                    guard item.outcome == .open else { continue }
                    if bundle.status != .open {
                        throw fail("todo \(Self.id(item.todo)) is still open in it, but the bundle is \(bundle.status.rawValue)")
                    }
                    if let other = openIn[item.todo] {
                        throw fail("todo \(Self.id(item.todo)) is open in it and in bundle \(other.number) (\(Self.id(other.bundle))), so neither could complete")
                    }
                    openIn[item.todo] = (bundle.uuid, number)
                }
            }
        }

        /// Refuses `todo` (the file's `number`th) when it and the bundles disagree on where it is.
        func check(_ todo: InterchangeTodo, number: Int) throws(BundleError) {
            if let open = openIn[todo.uuid], todo.status != .inBundle || todo.bundleUUID != open.bundle {
                let state = todo.status == .inBundle ? "in bundle \(todo.bundleUUID.map(Self.id) ?? "none")" : todo.status.rawValue
                throw .malformedImport(format: formatName, line: nil,
                                       reason: "bundle \(open.number) (\(Self.id(open.bundle))): todo \(Self.id(todo.uuid)) is open in it, but the todo says it is \(state)")
            }
            guard todo.status == .inBundle, let bundle = todo.bundleUUID, let bundleNumber = bundleNumbers[bundle] else { return }
            if openIn[todo.uuid]?.bundle != bundle {
                throw .malformedImport(format: formatName, line: nil, reason: "todo \(number) (\(Self.id(todo.uuid))): it says it is in bundle \(bundleNumber) (\(Self.id(bundle))), which does not hold it as open")
            }
        }
    }
}
