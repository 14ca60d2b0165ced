import Foundation
import SuiteSync
#if canImport(Glibc)
import Glibc
private let systemSocket = Glibc.socket
private let streamType = Int32(SOCK_STREAM.rawValue)
/// A peer that went away makes `send` fail instead of raising SIGPIPE.
private let sendFlags = Int32(MSG_NOSIGNAL)
#elseif canImport(Darwin)
import Darwin
private let systemSocket = Darwin.socket
private let streamType = SOCK_STREAM
/// Darwin has no MSG_NOSIGNAL: the socket is made with SO_NOSIGPIPE instead (``listen``).
private let sendFlags: Int32 = 0
#endif

/// Listens to a sync server's `GET /v1/events` stream (server-sent events) on a thread of its
/// own and hands each log it names to `onLog`, so that `suite sync --watch` pulls as soon as
/// another device pushed. Plain `http://` only, over a socket (libcurl hands a body over only when it is
/// complete); for `https://`, or while the stream is down, the watcher's periodic sync covers.
final class ServerEvents: @unchecked Sendable {
    private let lock = NSLock()
    private var stopped = false
    private var socket: Int32 = -1
    private let onLog: @Sendable (String) -> Void

    /// Starts listening; reconnects after a second when the stream ends or fails.
    init?(server: URL, token: String, onLog: @escaping @Sendable (String) -> Void = { _ in }) {
        self.onLog = onLog
        guard server.scheme?.lowercased() == "http", let host = server.host else { return nil }
        let port = server.port ?? 80
        let path = (server.path.hasSuffix("/") ? String(server.path.dropLast()) : server.path) + "/v1/events"
        let thread = Thread { [weak self] in
            while let self, !self.isStopped {
                self.listen(host: host, port: port, path: path, token: token)
                if self.isStopped { break }
                Thread.sleep(forTimeInterval: 1)
            }
        }
        thread.start()
    }

    var isStopped: Bool { lock.withLock { stopped } }

    func stop() {
        lock.withLock {
            stopped = true
            if socket >= 0 { shutdown(socket, Int32(SHUT_RDWR)) }
        }
    }

    private func listen(host: String, port: Int, path: String, token: String) {
        var hints = addrinfo()
        hints.ai_socktype = streamType
        var result: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &result) == 0, let first = result else { return }
        defer { freeaddrinfo(result) }
        let descriptor = systemSocket(first.pointee.ai_family, first.pointee.ai_socktype, first.pointee.ai_protocol)
        guard descriptor >= 0 else { return }
        #if canImport(Darwin)
        var on: Int32 = 1
        _ = setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
        #endif
        defer {
            lock.withLock { socket = -1 }
            close(descriptor)
        }
        guard connect(descriptor, first.pointee.ai_addr, first.pointee.ai_addrlen) == 0 else { return }
        lock.withLock { socket = descriptor }
        if isStopped { return }
        let request = "GET \(path) HTTP/1.1\r\nHost: \(host):\(port)\r\nAuthorization: Bearer \(token)\r\nAccept: text/event-stream\r\nConnection: close\r\n\r\n"
        let sent = request.utf8CString.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count - 1, sendFlags) }
        guard sent > 0 else { return }
        var pending = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        var headerDone = false
        while true {
            let read = recv(descriptor, &buffer, buffer.count, 0)
            if read <= 0 { return }
            pending.append(contentsOf: buffer[..<read])
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
                pending.removeSubrange(pending.startIndex...newline)
                if !headerDone {
                    if line.hasPrefix("HTTP/1.1 "), !line.hasPrefix("HTTP/1.1 200") { return }
                    if line.isEmpty { headerDone = true }
                    continue
                }
                // The body may be chunked: chunk sizes are lines of hex digits, never "data:".
                if line.hasPrefix("data:") {
                    let log = line.dropFirst("data:".count).trimmingCharacters(in: .whitespaces)
                    onLog(log)
                }
            }
        }
    }
}

/// ``ServerEvents`` as SuiteSync's event source for `suite sync --watch`.
struct SocketServerEvents: SyncServerEvents {
    func changes(server: URL, token: String) -> AsyncStream<String> {
        let (stream, continuation) = AsyncStream.makeStream(of: String.self)
        guard let events = ServerEvents(server: server, token: token, onLog: { continuation.yield($0) }) else {
            // https:// or no host: the watcher's periodic sync covers; the stream stays open.
            return stream
        }
        continuation.onTermination = { _ in events.stop() }
        return stream
    }
}
