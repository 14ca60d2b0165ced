// `suite-examples watch-todos STORE_DIR`: what an app's todo screen does with BundleCore. It opens
// the bundle store without blocking, observes the pending todos and shows them again after every
// change, including changes another process (the `suite` CLI) makes, until it is interrupted.
import BundleCore
import Foundation

enum WatchTodos {
    /// Starts watching; the process ends when the store cannot be used (exit 1) or on a signal.
    static func start(_ arguments: [String]) {
        guard arguments.count == 1 else {
            FileHandle.standardError.write(Data("usage: suite-examples watch-todos STORE_DIR\n".utf8))
            exit(64)
        }
        let url = URL(fileURLWithPath: arguments[0]).appendingPathComponent(BundleStore.fileName)
        Task {
            do {
                try await watch(url)
                exit(0)
            } catch {
                FileHandle.standardError.write(Data("suite-examples: \(error)\n".utf8))
                exit(1)
            }
        }
    }

    static func watch(_ url: URL) async throws {
        // Read-only: the screen shows; the CLI (or the app's other screens) write.
        let store = try await BundleStore.open(at: url, readOnly: true)
        for try await todos in store.observeTodos() {
            let pending = todos.filter { $0.status == .pending }
            var screen = "Pending todos: \(pending.count)\n"
            for todo in pending {
                // One line each, whatever the text holds (notes and text may span lines).
                let text = todo.text.map { $0.isNewline || $0 == "\t" ? " " : String($0) }.joined()
                screen += "#\(todo.id) \(text)\(todo.eventName.map { " (\(todo.preposition.rawValue) \($0))" } ?? "")\n"
            }
            FileHandle.standardOutput.write(Data(screen.utf8))
        }
    }
}
