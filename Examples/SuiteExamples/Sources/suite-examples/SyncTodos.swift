// `suite-examples sync-todos SERVER ACCOUNT STORE_DIR` (the password on standard input): what an
// app does to sync its todos with SuiteSync. It opens the bundle store of STORE_DIR, logs the
// folder in to the account the first time, syncs through URLSession and prints the todos.
import BundleCore
import Foundation
import SuiteSync
import SuiteURLSession

enum SyncTodos {
    static func start(_ arguments: [String]) {
        guard arguments.count == 3, let server = URL(string: arguments[0]) else {
            FileHandle.standardError.write(Data("usage: suite-examples sync-todos SERVER ACCOUNT STORE_DIR (password on standard input)\n".utf8))
            exit(64)
        }
        let account = arguments[1]
        let folder = URL(fileURLWithPath: arguments[2], isDirectory: true)
        let password = readLine(strippingNewline: true) ?? ""
        Task {
            do {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                let todos = try BundleStore(url: folder.appendingPathComponent(BundleStore.fileName))
                let sync = SyncClient(folder: folder, stores: [todos], http: URLSessionHTTPClient())
                if try await !sync.status().isSyncing {
                    let device = try await sync.logIn(server: server, account: account, password: password, device: "sync-todos example")
                    print("logged in as \(account); this device is \(device)")
                }
                let report = try await sync.sync()
                for store in report.stores { print("\(store.log): sent \(store.sent), received \(store.received)") }
                for todo in try await todos.run({ try $0.todos(includeFinished: true) }) { print("- \(todo.text)") }
                exit(0)
            } catch let error as SyncError {
                FileHandle.standardError.write(Data("sync-todos: \(error.message) [\(error.code)]\n".utf8))
                exit(1)
            } catch {
                FileHandle.standardError.write(Data("sync-todos: \(error)\n".utf8))
                exit(1)
            }
        }
        dispatchMain()
    }
}
