extension Array where Element == String {
    /// The strings with `separator` between them, as `joined(separator:)` gives them.
    ///
    /// The standard library's `joined(separator:)` for a collection of strings is not inlined:
    /// its first call asks the runtime for the collection's associated types by mangled name,
    /// which scans all of the binary's protocol conformance records (a tenth of a millisecond
    /// and the page faults of the scan, in commands that take four). This loop asks for nothing.
    package func joinedText(separator: String) -> String {
        var result = ""
        var index = startIndex
        while index < endIndex {
            if index != startIndex { result += separator }
            result += self[index]
            index += 1
        }
        return result
    }
}
