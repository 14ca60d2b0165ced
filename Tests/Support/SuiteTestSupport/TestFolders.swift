import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Folders for tests: all inside one folder per test process, which is removed when the process
/// exits, so a run leaves nothing in the temporary folder whatever each test does with its own.
public enum TestFolders {
    static let root: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("suite-tests-\(getpid())-\(UUID().uuidString.prefix(8))")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(at: TestFolders.root) }
        return url
    }()

    /// A new path (not created) named `prefix-<uuid>` inside the process's folder.
    public static func make(_ prefix: String) -> URL {
        root.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
    }
}
