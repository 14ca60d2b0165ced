import ArgumentParser

/// Positional arguments whose value may start with `-`: a negative number, or a coordinate such
/// as `-33.8688,151.2093`.
///
/// ArgumentParser reads any word starting with `-` as an option, and a positional argument has
/// no `.unconditional` strategy as options do. Such a command declares its positional as
/// `@Argument(parsing: .allUnrecognized)`, which receives every word ArgumentParser did not
/// recognise, in order; ``one(_:name:)`` then takes exactly one value from them and says
/// "Unknown option" for anything else starting with `-`, as ArgumentParser would (exit 64).
enum SignedArgument {
    /// True for a word that is a value although it starts with `-`: `-1`, `-0.5`, `-.5`,
    /// `-33.8,151.2`.
    static func isSignedValue(_ word: String) -> Bool {
        let rest = word.unicodeScalars.dropFirst()
        guard word.hasPrefix("-"), let first = rest.first else { return false }
        if ("0"..."9").contains(first) { return true }
        return first == "." && rest.dropFirst().first.map { ("0"..."9").contains($0) } == true
    }

    /// The one value among `words` (what an `.allUnrecognized` argument collected).
    ///
    /// - Parameters:
    ///   - words: the words ArgumentParser did not recognise.
    ///   - name: the argument's value name, for messages.
    /// - Throws: `ValidationError` (exit 64) for a missing value, an unknown option or a second value.
    static func one(_ words: [String], name: String) throws -> String {
        try values(words, names: [name])[0]
    }

    /// Exactly `names.count` values among `words`, in order.
    ///
    /// - Throws: `ValidationError` (exit 64) for a missing value, an unknown option or one too many.
    static func values(_ words: [String], names: [String]) throws -> [String] {
        var words = words
        if let terminator = words.firstIndex(of: "--") { words.remove(at: terminator) }
        if let option = words.first(where: { $0.hasPrefix("-") && $0 != "-" && !isSignedValue($0) }) {
            throw ValidationError("Unknown option '\(option)'")
        }
        guard words.count >= names.count else { throw ValidationError("Missing expected argument '<\(names[words.count])>'") }
        guard words.count == names.count else { throw ValidationError("Unexpected argument '\(words[names.count])'") }
        return words
    }
}
