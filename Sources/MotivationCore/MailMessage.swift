import Foundation

/// An e-mail (RFC 5322, MIME) that carries one document as an attachment: the seed's SHARE by
/// e-mail as a file a mail program opens as a draft (`X-Unsent: 1`). Header text outside ASCII
/// is written as RFC 2047 encoded words; the body and the attachment are base64, so any text a
/// model holds travels unchanged.
public struct MailMessage: Sendable, Equatable {
    /// The recipient's address.
    public var to: String
    /// The subject line.
    public var subject: String
    /// The message text (plain text).
    public var body: String
    /// The attachment's file name (ASCII letters, digits, `.`, `-`, `_`; others become `_`).
    public var attachmentName: String
    /// The attachment's media type, like `text/markdown; charset=utf-8`.
    public var attachmentType: String
    /// The attachment's bytes.
    public var attachment: Data

    /// Why an address cannot be used.
    public enum AddressProblem: Error, Sendable, Equatable, CustomStringConvertible {
        case notAnAddress(String)

        public var description: String {
            switch self {
            case .notAnAddress(let text): "'\(text)' is not an e-mail address like name@example.org"
            }
        }
    }

    /// Creates a message; the address is checked: one `local@domain` in ASCII, the local part
    /// letters, digits and `.!#$'*+/^_{}|~-` (not starting or ending with a dot, no two dots in a
    /// row), the domain two or more labels of letters, digits and hyphens. So an address is a
    /// single recipient, never a header, a program option or a `mailto:` query of its own.
    public init(to: String, subject: String, body: String, attachmentName: String, attachmentType: String, attachment: Data) throws(AddressProblem) {
        let address = to.trimmingCharacters(in: .whitespaces)
        guard Self.isAddress(address) else { throw .notAnAddress(String(to.prefix(200))) }
        self.to = address
        self.subject = subject
        self.body = body
        self.attachmentName = String(attachmentName.map { $0.isASCII && ($0.isLetter || $0.isNumber || ".-_".contains($0)) ? $0 : "_" })
        self.attachmentType = attachmentType
        self.attachment = attachment
    }

    /// Whether `address` is a plain `local@domain` address (see ``init(to:subject:body:attachmentName:attachmentType:attachment:)``).
    public static func isAddress(_ address: String) -> Bool {
        let parts = address.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, address.utf8.count <= 254, address.allSatisfy(\.isASCII) else { return false }
        let local = parts[0], domain = parts[1]
        let localCharacters = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.!#$'*+/^_{}|~-")
        guard !local.isEmpty, local.utf8.count <= 64, !local.hasPrefix("."), !local.hasPrefix("-"), !local.hasSuffix("."), !local.contains(".."),
              local.allSatisfy(localCharacters.contains) else { return false }
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        return labels.count >= 2 && labels.allSatisfy { label in
            (1...63).contains(label.utf8.count) && !label.hasPrefix("-") && !label.hasSuffix("-")
                && label.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
        }
    }

    /// The message as RFC 5322 text with CRLF line ends, dated `date`.
    public func rendered(date: Date, boundaryKey: String = UUID().uuidString) -> Data {
        let boundary = "=_suite_" + boundaryKey.filter { $0.isLetter || $0.isNumber }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(secondsFromGMT: 0)
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss '+0000'"
        let lines = [
            "To: \(to)",
            "Subject: \(Self.headerText(subject))",
            "Date: \(formatter.string(from: date))",
            "MIME-Version: 1.0",
            "X-Unsent: 1",
            "Content-Type: multipart/mixed; boundary=\"\(boundary)\"",
            "",
            "This is a message in MIME format.",
            "",
            "--\(boundary)",
            "Content-Type: text/plain; charset=utf-8",
            "Content-Transfer-Encoding: base64",
            "",
            Self.base64Lines(Data(body.utf8)),
            "--\(boundary)",
            "Content-Type: \(attachmentType)",
            "Content-Transfer-Encoding: base64",
            "Content-Disposition: attachment; filename=\"\(attachmentName)\"",
            "",
            Self.base64Lines(attachment),
            "--\(boundary)--",
            "",
        ]
        return Data(lines.joined(separator: "\r\n").utf8)
    }

    /// Header text: ASCII without controls as it is, anything else as UTF-8 "B" encoded words,
    /// each at most 75 characters, split between characters.
    static func headerText(_ text: String) -> String {
        let oneLine = text.unicodeScalars.map { $0.properties.generalCategory == .control ? " " : String($0) }.joined()
        if oneLine.unicodeScalars.allSatisfy({ $0.isASCII }) && oneLine.count <= 900 { return oneLine }
        var words: [String] = []
        var chunk = ""
        for character in oneLine {
            if (chunk + String(character)).utf8.count > 45 {
                words.append(chunk)
                chunk = ""
            }
            chunk.append(character)
        }
        if !chunk.isEmpty { words.append(chunk) }
        return words.map { "=?UTF-8?B?\(Data($0.utf8).base64EncodedString())?=" }.joined(separator: "\r\n ")
    }

    /// Base64 in lines of 76 characters.
    static func base64Lines(_ data: Data) -> String {
        let text = data.base64EncodedString()
        var lines: [Substring] = []
        var start = text.startIndex
        while start < text.endIndex {
            let end = text.index(start, offsetBy: 76, limitedBy: text.endIndex) ?? text.endIndex
            lines.append(text[start..<end])
            start = end
        }
        return lines.joined(separator: "\r\n")
    }
}
