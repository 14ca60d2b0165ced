import Crypto
import Foundation

/// One Web Push request, as RFC 8030 (the protocol), RFC 8291 (the payload's encryption,
/// `aes128gcm`) and RFC 8292 (VAPID, the sender's signature) describe it: what to POST to a
/// subscription's endpoint.
public struct WebPushMessage: Sendable, Equatable {
    /// The endpoint to POST to.
    public let endpoint: URL
    /// `Authorization`, `Content-Encoding`, `Content-Type`, `TTL` and `Urgency`.
    public let headers: [String: String]
    /// The encrypted payload: a header (salt, record size, the sender's public key) and one record.
    public let body: Data

    /// The largest payload: push services take 4096 bytes of body, of which the header takes 86 and
    /// the record's padding delimiter and tag 17.
    public static let maximumPayload = 3993

    /// Encrypts `payload` for `subscription` and signs the request with `key`.
    ///
    /// - Parameters:
    ///   - payload: What the browser's service worker receives (`event.data`).
    ///   - subscription: The browser's endpoint and keys.
    ///   - key: The sender's VAPID key.
    ///   - contact: `mailto:` or `https:` address push services may write to (the JWT's `sub`).
    ///   - ttl: How long the push service may keep the message for a browser that is offline.
    ///   - now: The time the signature's expiry (12 hours later) is counted from.
    /// - Throws: ``PushError/invalid(_:)`` when the payload is too large.
    public init(payload: Data, to subscription: PushSubscription, key: VAPIDKey, contact: String, ttl: Int = 86_400, now: Date = Date()) throws(PushError) {
        guard payload.count <= Self.maximumPayload else {
            throw .invalid("a push payload is at most \(Self.maximumPayload) bytes, not \(payload.count)")
        }
        endpoint = subscription.endpoint
        guard let body = Self.encrypt(payload, for: subscription) else { throw .invalid("the payload could not be encrypted for \(subscription.service)") }
        self.body = body
        headers = [
            "Authorization": key.authorization(audience: subscription.audience, contact: contact, now: now),
            "Content-Encoding": "aes128gcm",
            "Content-Type": "application/octet-stream",
            "TTL": String(ttl),
            "Urgency": "normal",
        ]
    }

    /// RFC 8291: ECDH with the browser's key, HKDF with its auth secret, AES-128-GCM, one record.
    static func encrypt(_ payload: Data, for subscription: PushSubscription, sender: P256.KeyAgreement.PrivateKey = .init(),
                        salt: [UInt8] = randomBytes(16)) -> Data? {
        let senderPublic = sender.publicKey.x963Representation
        // The subscription's key was checked when it was made, so the agreement cannot fail.
        let browserKey = subscription.publicKey
        guard let shared = try? sender.sharedSecretFromKeyAgreement(with: browserKey) else { return nil }
        let secret = shared.withUnsafeBytes { SymmetricKey(data: Data($0)) }
        // IKM = HKDF(auth, ecdh, "WebPush: info" || 0 || ua_public || as_public, 32)
        let keyInfo = Data("WebPush: info".utf8) + [0] + subscription.p256dh + senderPublic
        let prkKey = HKDF<SHA256>.extract(inputKeyMaterial: secret, salt: subscription.auth)
        let ikm = HKDF<SHA256>.expand(pseudoRandomKey: prkKey, info: keyInfo, outputByteCount: 32)
        // CEK and NONCE from the salt (RFC 8188).
        let prk = HKDF<SHA256>.extract(inputKeyMaterial: ikm, salt: salt)
        let cek = HKDF<SHA256>.expand(pseudoRandomKey: prk, info: Data("Content-Encoding: aes128gcm".utf8) + [0], outputByteCount: 16)
        let nonceBytes = HKDF<SHA256>.expand(pseudoRandomKey: prk, info: Data("Content-Encoding: nonce".utf8) + [0], outputByteCount: 12)
        // The last (and only) record: the payload, then the delimiter 2.
        let padded = payload + [2]
        guard let nonce = try? AES.GCM.Nonce(data: nonceBytes.withUnsafeBytes { Data($0) }),
              let sealed = try? AES.GCM.seal(padded, using: cek, nonce: nonce)
        else { return nil }
        let recordSize = UInt32(4096)
        var header = Data(salt)
        header.append(contentsOf: [UInt8(recordSize >> 24), UInt8(recordSize >> 16 & 0xFF), UInt8(recordSize >> 8 & 0xFF), UInt8(recordSize & 0xFF)])
        header.append(UInt8(senderPublic.count))
        header.append(senderPublic)
        return header + sealed.ciphertext + sealed.tag
    }

    static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }
}

/// The sender's key pair for VAPID (RFC 8292): an ES256 (P-256) key whose public half the browser
/// was given when it subscribed (`applicationServerKey`), so that only this sender can push to it.
public struct VAPIDKey: Sendable {
    public let privateKey: P256.Signing.PrivateKey

    public init(_ privateKey: P256.Signing.PrivateKey = .init()) {
        self.privateKey = privateKey
    }

    /// The public key as browsers take it: the uncompressed point, base64url without padding.
    public var publicKeyText: String { Base64URL.encode(privateKey.publicKey.x963Representation) }

    /// `vapid t=<JWT>,k=<public key>`: a JWT (ES256) for `audience` (the endpoint's origin)
    /// that expires 12 hours after `now`, naming `contact`.
    public func authorization(audience: String, contact: String, now: Date) -> String {
        let header = Base64URL.encode(Data(#"{"typ":"JWT","alg":"ES256"}"#.utf8))
        let claims: [String: Any] = ["aud": audience, "exp": Int(now.timeIntervalSince1970) + 12 * 3600, "sub": contact]
        let body = Base64URL.encode((try? JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data())
        let signed = header + "." + body
        let signature = (try? privateKey.signature(for: Data(signed.utf8)).rawRepresentation) ?? Data()
        return "vapid t=\(signed).\(Base64URL.encode(signature)),k=\(publicKeyText)"
    }
}

/// Base64url without padding (RFC 4648 §5), as Web Push writes keys and JWTs.
public enum Base64URL {
    public static func encode(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Decodes base64url, with or without padding; nil for anything else.
    public static func decode(_ text: String) -> Data? {
        guard text.utf8.allSatisfy({ $0 == 0x2D || $0 == 0x5F || $0 == 0x3D || (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) })
        else { return nil }
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/").replacingOccurrences(of: "=", with: "")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }
}
