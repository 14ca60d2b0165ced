import Foundation
import SuiteStorage
import SuiteSync
import SuiteSyncProtocol

/// The sync server's calls through libcurl, as the `suite` tool makes them.
typealias HTTPSyncClient = SyncServerClient

extension SyncServerClient {
    init(server: URL, token: String? = nil) {
        self.init(server: server, token: token, http: CurlHTTPClient())
    }
}

extension SyncCommand {
    /// The client for a store folder: libcurl for requests, a socket for the server's events.
    static func client(folder: URL, stores: [any SyncableStore] = []) -> SyncClient {
        SyncClient(folder: folder, stores: stores, http: CurlHTTPClient(), events: SocketServerEvents())
    }
}
