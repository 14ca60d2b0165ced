import Crypto
import Foundation
import SuiteStorage

/// A browser's push subscription (the Push API's `PushSubscription.toJSON()`): where to POST
/// and the keys to encrypt for. Checked whole when it is made, so a stored one can always be used.
public struct PushSubscription: Sendable, Equatable, Codable {
    /// The push service's address for this browser.
    public let endpoint: URL
    /// The browser's P-256 public key (`keys.p256dh`), 65 bytes uncompressed.
    public let p256dh: Data
    /// The browser's auth secret (`keys.auth`), 16 bytes.
    public let auth: Data

    /// The longest endpoint taken (push services' are about 200 to 500 characters).
    public static let maximumEndpoint = 2048

    /// Checks `endpoint` and the keys (base64url, as the browser gives them).
    ///
    /// - Parameters:
    ///   - allowLoopback: Also take `http://127.0.0.1`, `http://[::1]` and `http://localhost`
    ///     endpoints (tests, with `SUITE_PUSH_ALLOW_LOOPBACK=1`; see ``PushSettings``).
    /// - Throws: ``PushError/invalid(_:)`` naming what is wrong.
    public init(endpoint: String, p256dh: String, auth: String, allowLoopback: Bool = PushSettings.allowLoopback) throws(PushError) {
        guard endpoint.utf8.count <= Self.maximumEndpoint else { throw .invalid("the endpoint is longer than \(Self.maximumEndpoint) characters") }
        guard let url = URL(string: endpoint), let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased(), !host.isEmpty,
              url.user == nil, url.password == nil, url.fragment == nil
        else { throw .invalid("the endpoint is not an absolute URL") }
        let loopback = ["127.0.0.1", "::1", "[::1]", "localhost"].contains(host)
        guard scheme == "https" || (scheme == "http" && loopback && allowLoopback) else {
            throw .invalid("the endpoint must be https (\(scheme)://\(host) is not)")
        }
        // Push services have names; an address or a name of this machine or its network is not one.
        if !(loopback && allowLoopback) && Self.isLocal(host) {
            throw .invalid("the endpoint must be a push service's name, not \(host)")
        }
        guard let key = Base64URL.decode(p256dh), key.count == 65, (try? P256.KeyAgreement.PublicKey(x963Representation: key)) != nil else {
            throw .invalid("keys.p256dh is not a P-256 public key")
        }
        guard let secret = Base64URL.decode(auth), secret.count == 16 else { throw .invalid("keys.auth is not 16 bytes") }
        self.endpoint = url
        self.p256dh = key
        self.auth = secret
    }

    /// Reads `{"endpoint": …, "keys": {"p256dh": …, "auth": …}}` (the browser's JSON).
    public init(json: Data, allowLoopback: Bool = PushSettings.allowLoopback) throws(PushError) {
        guard json.count <= 8192, let object = try? JSONSerialization.jsonObject(with: json) as? [String: Any],
              let endpoint = object["endpoint"] as? String, let keys = object["keys"] as? [String: Any],
              let p256dh = keys["p256dh"] as? String, let auth = keys["auth"] as? String
        else { throw .invalid("not a push subscription: {\"endpoint\": …, \"keys\": {\"p256dh\": …, \"auth\": …}}") }
        try self.init(endpoint: endpoint, p256dh: p256dh, auth: auth, allowLoopback: allowLoopback)
    }

    /// An IP address, or a name that stays on this machine or its network.
    static func isLocal(_ host: String) -> Bool {
        let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        if bare == "localhost" || bare.hasSuffix(".localhost") || bare.hasSuffix(".local") || bare.hasSuffix(".internal") || !bare.contains(".") && !bare.contains(":") {
            return true
        }
        let isIPv4 = bare.split(separator: ".", omittingEmptySubsequences: false).count == 4 && bare.allSatisfy { $0.isNumber || $0 == "." }
        return isIPv4 || bare.contains(":")
    }

    var publicKey: P256.KeyAgreement.PublicKey {
        // Checked in init.
        (try? P256.KeyAgreement.PublicKey(x963Representation: p256dh)) ?? P256.KeyAgreement.PrivateKey().publicKey
    }

    /// The endpoint's origin (`scheme://host[:port]`): the VAPID JWT's audience.
    public var audience: String {
        let scheme = endpoint.scheme?.lowercased() ?? "https"
        var origin = "\(scheme)://\(endpoint.host?.lowercased() ?? "")"
        // An origin leaves the scheme's own port out.
        if let port = endpoint.port, !(scheme == "https" && port == 443) && !(scheme == "http" && port == 80) { origin += ":\(port)" }
        return origin
    }

    /// The push service's name, as the settings page lists a subscription.
    public var service: String { endpoint.host ?? endpoint.absoluteString }
}

/// What the environment says about push.
public enum PushSettings {
    /// `SUITE_PUSH_ALLOW_LOOPBACK=1`: endpoints on this machine over plain HTTP are taken (tests).
    public static var allowLoopback: Bool {
        ProcessInfo.processInfo.environment["SUITE_PUSH_ALLOW_LOOPBACK"] == "1"
    }

    /// How a push service reaches whoever runs this Suite (the VAPID JWT's `sub`):
    /// `$SUITE_PUSH_CONTACT` (a `mailto:` or `https:` address; Apple's push service refuses one at
    /// `localhost`), else `mailto:` the user at this machine's name.
    public static var contact: String {
        let environment = ProcessInfo.processInfo.environment
        if let contact = environment["SUITE_PUSH_CONTACT"], contact.hasPrefix("mailto:") || contact.hasPrefix("https:"),
           contact.count <= 200, !contact.contains(where: { $0.isWhitespace || $0.isNewline }) {
            return contact
        }
        let user = (environment["USER"] ?? environment["LOGNAME"]).flatMap { $0.isEmpty ? nil : $0 } ?? "suite"
        let host = ProcessInfo.processInfo.hostName
        let name = host.contains(".") && host != "localhost" ? host : host + ".invalid"
        return "mailto:\(user.filter { $0.isLetter || $0.isNumber || "._-".contains($0) })@\(name.filter { $0.isLetter || $0.isNumber || ".-".contains($0) })"
    }
}

/// Why push refused or failed.
public enum PushError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A subscription, payload or key that is not one.
    case invalid(String)
    /// The store of subscriptions or the key file.
    case store(String)
    /// Too many subscriptions are kept already.
    case full(Int)

    public var description: String {
        switch self {
        case .invalid(let reason): reason
        case .store(let reason): reason
        case .full(let limit): "at most \(limit) browsers can be subscribed; remove one in the settings page first"
        }
    }
}

extension PushError: StoreFailureRepresentable {
    package init(storeFailure: StoreFailure) {
        self = .store(storeFailure.description)
    }
}
