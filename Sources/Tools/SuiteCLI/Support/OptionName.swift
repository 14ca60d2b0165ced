import ArgumentParser

/// The long names of the options that the fast path (``FastPath``) reads as well as
/// ArgumentParser: each is spelled once, here, and both readers take it from here
/// (`@Option(name: .customLong(.limit))` in the declarations, ``flag`` in the fast path).
enum OptionName: String {
    // Every store-using command (``CommonOptions``, ``TextOptions``, ``ColorOption``).
    case storeDir = "store-dir", json, color
    // quotes (``QuotesOptions``, ``QuoteFilterOptions``, `search`).
    case user, category, source, favorites, limit
    // places near.
    case at, radius, type, min, max, openNow = "open-now"
    // bundle list and checkin.
    case event, all, aboutTo = "about-to", justFinished = "just-finished"

    /// The option as it is written on the command line: `--store-dir`.
    var flag: String { "--" + rawValue }

    /// The option a command-line word names (`--limit`: ``limit``); nil for any other word,
    /// `--limit=5` and short names included.
    init?(flag word: String) {
        guard word.hasPrefix("--") else { return nil }
        self.init(rawValue: String(word.dropFirst(2)))
    }
}

extension NameSpecification {
    /// The long name `--name` of an ``OptionName``.
    static func customLong(_ name: OptionName) -> NameSpecification {
        .customLong(name.rawValue)
    }
}
