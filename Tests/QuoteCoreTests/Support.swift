import Foundation
import SuiteTestSupport
@testable import QuoteCore

/// A clock the tests move by hand.
final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current: Date
    init(_ start: Date) { current = start }
    var now: Date { lock.withLock { current } }
    func set(_ date: Date) { lock.withLock { current = date } }
}

func freshStoreURL() -> URL {
    TestFolders.make("suite-quote-tests").appendingPathComponent(QuoteStore.fileName)
}

func freshStore(now: @escaping @Sendable () -> Date = Date.init) throws -> QuoteStore {
    try QuoteStore(url: freshStoreURL(), now: now)
}

let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Fixtures/quotes").standardizedFileURL

func date(_ text: String) -> Date {
    (try? Date.ISO8601FormatStyle().parse(text)) ?? Date(timeIntervalSince1970: 0)
}

func iso(_ date: Date) -> String { date.formatted(Date.ISO8601FormatStyle()) }

/// Writes `text` to a fresh file and returns its URL.
func temporaryFile(_ name: String, _ data: Data) throws -> URL {
    let folder = TestFolders.make("suite-quote-files")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let url = folder.appendingPathComponent(name)
    try data.write(to: url)
    return url
}
