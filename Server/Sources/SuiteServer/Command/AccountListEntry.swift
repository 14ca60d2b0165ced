import Foundation
import SuiteEnvironment

/// One account in `suite-server accounts list --json`. Its keys stay stable: `name`,
/// `createdAt`, `lastActivityAt` (ISO 8601, UTC), `devices`, `logs`, `operations`, `bytes`,
/// `disabled`, and `disabledAt` (null unless disabled).
package struct AccountListEntry: Codable, Sendable, Hashable {
    package var name: String
    package var createdAt: Date
    package var lastActivityAt: Date
    package var devices: Int64
    package var logs: Int64
    package var operations: Int64
    package var bytes: Int64
    package var disabled: Bool
    package var disabledAt: Date?

    /// The entry of an account.
    package init(_ account: AccountSummary) {
        name = account.name
        createdAt = account.createdAt
        lastActivityAt = account.lastActivityAt
        devices = account.devices
        logs = account.logs
        operations = account.operations
        bytes = account.bytes
        disabled = account.disabledAt != nil
        disabledAt = account.disabledAt
    }

    private enum CodingKeys: String, CodingKey {
        case name, createdAt, lastActivityAt, devices, logs, operations, bytes, disabled, disabledAt
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(lastActivityAt, forKey: .lastActivityAt)
        try container.encode(devices, forKey: .devices)
        try container.encode(logs, forKey: .logs)
        try container.encode(operations, forKey: .operations)
        try container.encode(bytes, forKey: .bytes)
        try container.encode(disabled, forKey: .disabled)
        // Always there, null while the account is in use, so the shape never changes.
        try container.encode(disabledAt, forKey: .disabledAt)
    }

    /// The entries as one JSON array (keys sorted, ISO 8601 dates).
    package static func json(_ entries: [AccountListEntry]) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return String(decoding: try encoder.encode(entries), as: UTF8.self)
    }

    /// A size for people: `0 bytes`, `532 bytes`, `4 kB`, `1.2 MB`.
    package static func bytes(_ count: Int64) -> String {
        count == 0 ? "0 bytes" : count.formatted(ByteCountFormatStyle(style: .file))
    }

    /// The accounts as a table for people: a header, then one aligned line each (numbers to the
    /// right, local times as `suite` writes them).
    package static func table(_ accounts: [AccountSummary]) -> String {
        let header = ["NAME", "CREATED", "LAST ACTIVITY", "DEVICES", "LOGS", "OPERATIONS", "STORED", "STATE"]
        let rightAligned: Set<Int> = [3, 4, 5, 6]
        let rows = accounts.map { account in
            [account.name, PeopleTime.stamp(account.createdAt), PeopleTime.stamp(account.lastActivityAt), "\(account.devices)", "\(account.logs)",
             "\(account.operations)", bytes(account.bytes), account.disabledAt.map { "disabled since \(PeopleTime.stamp($0))" } ?? "in use"]
        }
        let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        return ([header] + rows).map { row in
            row.indices.map { column in
                let padding = String(repeating: " ", count: widths[column] - row[column].count)
                if column == row.count - 1 { return row[column] }
                return rightAligned.contains(column) ? padding + row[column] : row[column] + padding
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }
}
