import Foundation
import Mustache

/// Values a template reads by name: a page's view model and every row or part inside it.
///
/// swift-mustache reads a value that is not a ``MustacheParent`` through `Mirror`, reflecting
/// all of its stored properties for every name it looks up — and a name a list's row does not
/// have (`csrf`, a page-wide flag) is looked up on each row and every value around it first.
/// With 50 rows that was most of a page's time (`Benchmarks/web_pages.py`). A `TemplateValues`
/// type answers instead from a table of its property names, made once per type: a name it does
/// not have costs a dictionary lookup, and one it has reflects only that property.
///
/// The semantics are swift-mustache's own: stored properties only, and a nil Optional is no
/// value (`{{#name}}` is false; `{{name}}` is then looked up in the values around it).
protocol TemplateValues: MustacheParent, Sendable {}

extension TemplateValues {
    func child(named name: String) -> Any? {
        guard let field = TemplateFields.of(self)[name] else { return nil }
        let children = Mirror(reflecting: self).children
        let value = children[children.index(children.startIndex, offsetBy: field.index)].value
        return field.optional ? (value as? any OptionalValue)?.wrapped : value
    }
}

/// The stored properties of each `TemplateValues` type, by name: their place among the
/// type's children and whether they are Optional.
enum TemplateFields {
    struct Field {
        let index: Int
        let optional: Bool
    }

    private static let lock = NSLock()
    nonisolated(unsafe) private static var tables: [ObjectIdentifier: [String: Field]] = [:]

    static func of<Value>(_ value: Value) -> [String: Field] {
        let key = ObjectIdentifier(Value.self)
        if let table = lock.withLock({ tables[key] }) { return table }
        var table: [String: Field] = [:]
        for (index, child) in Mirror(reflecting: value).children.enumerated() {
            // A property's type, not its value, says whether it is Optional.
            guard let label = child.label, table[label] == nil else { continue }
            table[label] = Field(index: index, optional: Mirror(reflecting: child.value).displayStyle == .optional)
        }
        lock.withLock { tables[key] = table }
        return table
    }
}

/// An Optional, seen through `Any`.
protocol OptionalValue {
    var wrapped: Any? { get }
}

extension Optional: OptionalValue {
    var wrapped: Any? { self.map { $0 as Any } }
}
