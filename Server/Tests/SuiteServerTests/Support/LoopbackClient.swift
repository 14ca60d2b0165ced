import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A tiny HTTP/1.1 client over a blocking socket to 127.0.0.1, for tests that need to read a
/// streaming body as it arrives (the HummingbirdTesting client waits for the whole body).
/// Every read has a timeout, so a test never hangs.
final class LoopbackClient: @unchecked Sendable {  // used by one task at a time
    enum Failure: Error, CustomStringConvertible {
        case socket(String)
        case timeout
        case closed
        var description: String {
            switch self {
            case .socket(let what): "socket: \(what)"
            case .timeout: "timed out"
            case .closed: "connection closed"
            }
        }
    }

    private let descriptor: Int32
    private var buffer = Data()

    /// Connects to 127.0.0.1:port from `source` (any 127.x.y.z address is this machine);
    /// reads give up after `timeout` seconds without data.
    init(port: Int, from source: String = "127.0.0.1", timeout: TimeInterval = 10) throws {
        #if canImport(Glibc)
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw Failure.socket("socket() failed") }
        var time = timeval(tv_sec: Int(timeout), tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        local.sin_addr.s_addr = inet_addr(source)
        let bound = withUnsafePointer(to: &local) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else {
            close(descriptor)
            throw Failure.socket("bind() to \(source) failed")
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            close(descriptor)
            throw Failure.socket("connect() to port \(port) failed")
        }
    }

    deinit {
        close(descriptor)
    }

    /// Sends a request (with `Connection: close` unless `keepOpen`).
    func send(method: String, path: String, headers: [String: String] = [:], body: Data = Data()) throws {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: \(body.count)\r\n"
        for (name, value) in headers {
            head += "\(name): \(value)\r\n"
        }
        head += "\r\n"
        let bytes = Data(head.utf8) + body
        let sent = bytes.withUnsafeBytes { raw in
            #if canImport(Glibc)
            Glibc.send(descriptor, raw.baseAddress, raw.count, 0)
            #else
            Darwin.send(descriptor, raw.baseAddress, raw.count, 0)
            #endif
        }
        guard sent == bytes.count else { throw Failure.socket("short send") }
    }

    /// Sends bytes as they are (a partial request, say).
    func sendRaw(_ bytes: Data) throws {
        let sent = bytes.withUnsafeBytes { raw in
            #if canImport(Glibc)
            Glibc.send(descriptor, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL))
            #else
            Darwin.send(descriptor, raw.baseAddress, raw.count, 0)
            #endif
        }
        guard sent == bytes.count else { throw Failure.socket("short send") }
    }

    /// Whether the server closed the connection within the read timeout (anything it sent
    /// first is skipped).
    func isClosedByServer() -> Bool {
        do {
            _ = try readToEnd()
            return true
        } catch Failure.timeout {
            return false
        } catch {
            return true  // reset
        }
    }

    /// The next line (without CR LF).
    func readLine() throws -> String {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                var line = buffer[buffer.startIndex..<newline]
                if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
                buffer = Data(buffer[buffer.index(after: newline)...])
                return String(decoding: line, as: UTF8.self)
            }
            try fill()
        }
    }

    /// Reads lines until one satisfies the predicate, and returns it.
    func readLine(where predicate: (String) -> Bool) throws -> String {
        while true {
            let line = try readLine()
            if predicate(line) { return line }
        }
    }

    /// Reads everything until the server closes the connection.
    func readToEnd() throws -> Data {
        do {
            while true { try fill() }
        } catch Failure.closed {
            defer { buffer = Data() }
            return buffer
        }
    }

    /// Reads everything until the server closes the connection, which it must do within
    /// `limit` seconds even while it keeps sending (an event stream's keep-alives).
    func readToEnd(within limit: TimeInterval) throws -> Data {
        let deadline = Date().addingTimeInterval(limit)
        do {
            while Date() < deadline { try fill() }
            throw Failure.timeout
        } catch Failure.closed {
            defer { buffer = Data() }
            return buffer
        }
    }

    private func fill() throws {
        var chunk = [UInt8](repeating: 0, count: 4096)
        let count = chunk.withUnsafeMutableBytes { raw in recv(descriptor, raw.baseAddress, raw.count, 0) }
        if count > 0 {
            buffer.append(contentsOf: chunk[0..<count])
        } else if count == 0 {
            throw Failure.closed
        } else {
            throw errno == EAGAIN || errno == EWOULDBLOCK ? Failure.timeout : Failure.socket("recv() failed (errno \(errno))")
        }
    }

    /// One request on a new connection: the status and the body (read to the end).
    static func request(port: Int, from source: String = "127.0.0.1", method: String, path: String, headers: [String: String] = [:], body: Data = Data()) throws -> (status: Int, body: Data) {
        let client = try LoopbackClient(port: port, from: source)
        try client.send(method: method, path: path, headers: headers.merging(["Connection": "close"]) { a, _ in a }, body: body)
        let statusLine = try client.readLine()
        let parts = statusLine.split(separator: " ")
        guard parts.count >= 2, let status = Int(parts[1]) else { throw Failure.socket("bad status line \(statusLine)") }
        _ = try client.readLine { $0.isEmpty }
        return (status, try client.readToEnd())
    }
}

/// Runs blocking work (socket reads, waiting for a process) on a Dispatch thread, away from
/// the cooperative pool the server under test also uses.
func blocking<Result: Sendable>(_ work: @escaping @Sendable () throws -> Result) async throws -> Result {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async {
            continuation.resume(with: Swift.Result { try work() })
        }
    }
}
