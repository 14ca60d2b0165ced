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
        let formatName = format.displayName
        func id(_ uuid: UUID) -> String { uuid.uuidString.lowercased() }
        // Each event name and alias names one event: a second event under a name already taken
        // would silently merge into the first.
        var phrases: [String: Int] = [:]
        for (index, event) in document.events.enumerated() {
            for phrase in [event.name] + event.aliases {
                let key = matchKey(phrase)
                if let other = phrases[key], other != index + 1 {
                    throw .malformedImport(format: formatName, line: nil, reason: "event \(index + 1) ('\(event.name)'): '\(phrase)' already names event \(other)")
                }
                phrases[key] = index + 1
            }
        }
        let todos = Dictionary(document.todos.map { ($0.uuid, $0) }, uniquingKeysWith: { first, _ in first })
        var bundleNumbers: [UUID: Int] = [:]
        var openIn: [UUID: (bundle: UUID, number: Int)] = [:]
        for (index, bundle) in document.bundles.enumerated() {
            let number = index + 1
            func fail(_ reason: String) -> BundleError {
                .malformedImport(format: formatName, line: nil, reason: "bundle \(number) (\(id(bundle.uuid))): \(reason)")
            }
            if let earlier = bundleNumbers[bundle.uuid] { throw fail("the same id as bundle \(earlier)") }
            bundleNumbers[bundle.uuid] = number
            var seen: Set<UUID> = []
            for item in bundle.items {
                guard seen.insert(item.todo).inserted else { throw fail("it holds todo \(id(item.todo)) twice") }
                guard item.outcome == .open else { continue }
                if bundle.status != .open {
                    throw fail("todo \(id(item.todo)) is still open in it, but the bundle is \(bundle.status.rawValue)")
                }
                if let other = openIn[item.todo] {
                    throw fail("todo \(id(item.todo)) is open in it and in bundle \(other.number) (\(id(other.bundle))), so neither could complete")
                }
                openIn[item.todo] = (bundle.uuid, number)
                if let todo = todos[item.todo], todo.status != .inBundle || todo.bundleUUID != bundle.uuid {
                    let state = todo.status == .inBundle ? "in bundle \(todo.bundleUUID.map(id) ?? "none")" : todo.status.rawValue
                    throw fail("todo \(id(item.todo)) is open in it, but the todo says it is \(state)")
                }
            }
        }
        for (index, todo) in document.todos.enumerated() {
            guard todo.status == .inBundle, let bundle = todo.bundleUUID, let number = bundleNumbers[bundle] else { continue }
            if openIn[todo.uuid]?.bundle != bundle {
                throw .malformedImport(format: formatName, line: nil, reason: "todo \(index + 1) (\(id(todo.uuid))): it says it is in bundle \(number) (\(id(bundle))), which does not hold it as open")
            }
        }
    }
}
