import Foundation

/// A PostgreSQL connection URL, as libpq reads the common forms:
/// `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE` over TCP, and
/// `postgres://USER@/DATABASE?host=/socket/dir` over the Unix socket `DIR/.s.PGSQL.PORT`.
///
/// The query may also give `host`, `port`, `user`, `password` and `dbname`; `sslmode` may be
/// `disable` or `prefer` (both connect without TLS; TLS is not supported yet).
package struct PostgresURL: Sendable, Hashable, CustomStringConvertible {
    /// Where to connect.
    package enum Endpoint: Sendable, Hashable {
        /// TCP to a host name or address.
        case tcp(host: String, port: Int)
        /// A Unix-domain socket file.
        case unixSocket(path: String)
    }

    /// Where to connect.
    package var endpoint: Endpoint
    /// The role.
    package var user: String
    /// The password, if any.
    package var password: String?
    /// The database (libpq's default is the user's name).
    package var database: String

    /// Why a URL was refused.
    package struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        /// What is wrong.
        package var description: String
    }

    /// Parses a URL.
    ///
    /// - Parameter text: `postgres://…` or `postgresql://…`.
    /// - Throws: ``ParseError`` saying what is wrong.
    package init(_ text: String) throws {
        let schemes = ["postgres://", "postgresql://"]
        guard let scheme = schemes.first(where: { text.hasPrefix($0) }) else {
            throw ParseError(description: "a database URL starts with postgres:// or postgresql://")
        }
        var rest = Substring(text.dropFirst(scheme.count))
        var query: [String: String] = [:]
        if let mark = rest.firstIndex(of: "?") {
            for pair in rest[rest.index(after: mark)...].split(separator: "&") where !pair.isEmpty {
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                guard parts.count == 2, let key = Self.decode(parts[0]), let value = Self.decode(parts[1]) else {
                    throw ParseError(description: "the database URL's query part \(pair) is not NAME=VALUE")
                }
                query[key] = value
            }
            rest = rest[..<mark]
        }
        let authority: Substring
        var path: Substring = ""
        if let slash = rest.firstIndex(of: "/") {
            authority = rest[..<slash]
            path = rest[rest.index(after: slash)...]
        } else {
            authority = rest
        }
        var userInfo: Substring?
        var hostPort = authority
        if let at = authority.lastIndex(of: "@") {
            userInfo = authority[..<at]
            hostPort = authority[authority.index(after: at)...]
        }
        var user: String?
        var password: String?
        if let userInfo {
            let parts = userInfo.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            user = Self.decode(parts[0])
            if parts.count == 2 { password = Self.decode(parts[1]) }
        }
        var host: String?
        var port: Int?
        if hostPort.hasPrefix("[") {
            guard let close = hostPort.firstIndex(of: "]") else {
                throw ParseError(description: "the database URL has an unclosed [ in its host")
            }
            host = String(hostPort[hostPort.index(after: hostPort.startIndex)..<close])
            let after = hostPort[hostPort.index(after: close)...]
            if after.hasPrefix(":") {
                port = Int(after.dropFirst())
                guard port != nil else { throw ParseError(description: "the database URL's port is not a number") }
            }
        } else if let colon = hostPort.lastIndex(of: ":") {
            host = String(hostPort[..<colon])
            port = Int(hostPort[hostPort.index(after: colon)...])
            guard port != nil else { throw ParseError(description: "the database URL's port is not a number") }
        } else if !hostPort.isEmpty {
            host = String(hostPort)
        }
        if host?.isEmpty == true { host = nil }

        if let value = query["host"] { host = value }
        if let value = query["port"] {
            guard let number = Int(value) else { throw ParseError(description: "the database URL's port is not a number") }
            port = number
        }
        if let value = query["user"] { user = value }
        if let value = query["password"] { password = value }
        var database = path.isEmpty ? nil : Self.decode(path)
        if let value = query["dbname"] { database = value }
        if let mode = query["sslmode"], mode != "disable", mode != "prefer" {
            throw ParseError(description: "sslmode=\(mode) is not supported (TLS to PostgreSQL is not implemented; use disable)")
        }

        guard let user, !user.isEmpty else {
            throw ParseError(description: "the database URL names no user (postgres://USER@HOST/DATABASE)")
        }
        let resolvedPort = port ?? 5432
        guard (1...65535).contains(resolvedPort) else {
            throw ParseError(description: "the database URL's port \(resolvedPort) is out of range")
        }
        guard let host else {
            throw ParseError(description: "the database URL names no host (add one, or ?host=/socket/dir)")
        }
        if host.hasPrefix("/") {
            endpoint = .unixSocket(path: (host.hasSuffix("/") ? String(host.dropLast()) : host) + "/.s.PGSQL.\(resolvedPort)")
        } else {
            endpoint = .tcp(host: host, port: resolvedPort)
        }
        self.user = user
        self.password = password
        self.database = database ?? user
    }

    private static func decode(_ text: Substring) -> String? {
        String(text).removingPercentEncoding
    }

    /// The URL for libpq's tools (pg_dump, pg_restore), without the password (they get it in
    /// PGPASSWORD, never on a command line).
    package var libpqURL: String {
        let encode = { (text: String) in text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? text }
        switch endpoint {
        case .tcp(let host, let port):
            let shownHost = host.contains(":") ? "[\(host)]" : host
            return "postgresql://\(encode(user))@\(shownHost):\(port)/\(encode(database))"
        case .unixSocket(let path):
            // libpq names the socket's folder and port, not the socket file.
            let file = (path as NSString).lastPathComponent
            guard file.hasPrefix(".s.PGSQL."), let port = Int(file.dropFirst(".s.PGSQL.".count)) else {
                return "postgresql://\(encode(user))@/\(encode(database))?host=\(encode(path))"
            }
            return "postgresql://\(encode(user))@/\(encode(database))?host=\(encode((path as NSString).deletingLastPathComponent))&port=\(port)"
        }
    }

    /// The URL without its password, for messages.
    package var description: String {
        switch endpoint {
        case .tcp(let host, let port):
            let shownHost = host.contains(":") ? "[\(host)]" : host
            return "postgres://\(user)@\(shownHost):\(port)/\(database)"
        case .unixSocket(let path):
            return "postgres://\(user)@/\(database) (socket \(path))"
        }
    }
}
