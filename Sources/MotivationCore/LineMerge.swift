/// A line-wise three-way merge: two texts that both started from `base` are combined when the
/// lines each one changed do not touch the lines the other changed.
///
/// The result depends only on the three texts, so every device that merges the same two
/// versions of a section gets the same text.
enum LineMerge {
    /// One change from the base: the base lines `start..<end` replaced by `lines`.
    struct Hunk: Equatable {
        var start: Int
        var end: Int
        var lines: [Substring]
    }

    /// Above this many line pairs to compare, the changed middle of a text counts as one change
    /// (a merge may then be refused where a finer diff would allow it; never the reverse).
    static let comparisonLimit = 4_000_000

    /// `ours` and `theirs` merged against `base`, or nil when they change the same or adjacent
    /// lines differently (a conflict the user resolves).
    static func merge(base: String, ours: String, theirs: String) -> String? {
        if ours == theirs || theirs == base { return ours }
        if ours == base { return theirs }
        let baseLines = lines(base), ourLines = lines(ours), theirLines = lines(theirs)
        let mine = hunks(from: baseLines, to: ourLines), others = hunks(from: baseLines, to: theirLines)
        var merged: [Hunk] = []
        var i = 0, j = 0
        while i < mine.count || j < others.count {
            if j == others.count || (i < mine.count && mine[i].end < others[j].start) {
                merged.append(mine[i]); i += 1
            } else if i == mine.count || others[j].end < mine[i].start {
                merged.append(others[j]); j += 1
            } else if mine[i] == others[j] {
                merged.append(mine[i]); i += 1; j += 1
            } else {
                return nil   // the two change the same lines, or lines next to each other
            }
        }
        var result: [Substring] = []
        var position = 0
        for hunk in merged {
            result += baseLines[position..<hunk.start]
            result += hunk.lines
            position = hunk.end
        }
        result += baseLines[position...]
        return result.joined(separator: "\n")
    }

    static func lines(_ text: String) -> [Substring] {
        text.split(separator: "\n", omittingEmptySubsequences: false)
    }

    /// The changes that turn `base` into `other`, in order, none overlapping.
    static func hunks(from base: [Substring], to other: [Substring]) -> [Hunk] {
        var prefix = 0
        while prefix < base.count, prefix < other.count, base[prefix] == other[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < base.count - prefix, suffix < other.count - prefix,
              base[base.count - 1 - suffix] == other[other.count - 1 - suffix] { suffix += 1 }
        let a = Array(base[prefix..<(base.count - suffix)]), b = Array(other[prefix..<(other.count - suffix)])
        if a.isEmpty && b.isEmpty { return [] }
        if a.isEmpty || b.isEmpty || a.count * b.count > comparisonLimit {
            return [Hunk(start: prefix, end: prefix + a.count, lines: b)]
        }
        // Longest common subsequence, lengths from the end.
        let width = b.count + 1
        var table = [Int32](repeating: 0, count: (a.count + 1) * width)
        for x in stride(from: a.count - 1, through: 0, by: -1) {
            for y in stride(from: b.count - 1, through: 0, by: -1) {
                table[x * width + y] = a[x] == b[y]
                    ? table[(x + 1) * width + y + 1] + 1
                    : max(table[(x + 1) * width + y], table[x * width + y + 1])
            }
        }
        var result: [Hunk] = []
        var x = 0, y = 0
        var open: Hunk?
        func close() {
            if let hunk = open { result.append(hunk) }
            open = nil
        }
        while x < a.count || y < b.count {
            if x < a.count, y < b.count, a[x] == b[y] {
                close()
                x += 1; y += 1
            } else if y < b.count, x == a.count || table[x * width + y + 1] >= table[(x + 1) * width + y] {
                if open == nil { open = Hunk(start: prefix + x, end: prefix + x, lines: []) }
                open?.lines.append(b[y]); y += 1
            } else {
                if open == nil { open = Hunk(start: prefix + x, end: prefix + x, lines: []) }
                open?.end = prefix + x + 1; x += 1
            }
        }
        close()
        return result
    }
}
