import Foundation
import NIOCore

/// Who a request comes from, as far as limits are concerned: an IPv4 address, or an IPv6
/// address by its /64 (one subscriber usually holds a whole /64).
public struct ClientAddress: Sendable, Hashable, CustomStringConvertible {
    /// The key limits count by.
    public let key: String

    /// A client whose address is not known (tests without a socket): one shared key.
    public static let unknown = ClientAddress(key: "unknown")

    private init(key: String) {
        self.key = key
    }

    /// The address of a socket's peer.
    public init(_ address: SocketAddress?) {
        guard let address else {
            self = .unknown
            return
        }
        if case .unixDomainSocket = address {
            self.init(key: "unix")
        } else {
            self.init(text: address.ipAddress ?? "unknown")
        }
    }

    /// An address written as text (IPv4 dotted, IPv6 with colons); anything else is kept as
    /// it is, at most 64 characters.
    public init(text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.contains(":"), let v6 = try? SocketAddress(ipAddress: trimmed, port: 0), case .v6(let inner) = v6 {
            let bytes = withUnsafeBytes(of: inner.address.sin6_addr) { Array($0) }
            // An IPv4 address mapped into IPv6 counts as that IPv4 address.
            if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xff && bytes[11] == 0xff {
                self.init(key: bytes[12..<16].map(String.init).joined(separator: "."))
                return
            }
            let prefix = stride(from: 0, to: 8, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
            self.init(key: prefix.joined(separator: ":") + "::/64")
            return
        }
        self.init(key: String(trimmed.prefix(64)))
    }

    public var description: String { key }

    /// Whether a socket's peer is this machine (127.0.0.0/8, ::1, or either mapped).
    public static func isLoopback(_ address: SocketAddress?) -> Bool {
        guard let text = address?.ipAddress else { return false }
        return text.hasPrefix("127.") || text == "::1" || text.lowercased().hasPrefix("::ffff:127.")
    }
}
