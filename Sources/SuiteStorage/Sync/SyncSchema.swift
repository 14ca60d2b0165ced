import Foundation
import GRDB

/// What of a store follows its user across devices: the tables whose rows are synced, each row
/// known everywhere by a global key (a UUID or a content key, never the local integer id), and
/// the fields of each row, merged one by one.
///
/// Entities are listed so that an entity comes after every entity its references point to: a
/// device applying a batch of changes creates a folder before the items in it.
package struct SyncSchema: Sendable {
    package var entities: [SyncEntity]
    /// What a core derives from the synced rows after a batch of changes was applied, in the
    /// same transaction, given the keys of the rows touched, by entity name: names made unique,
    /// merged texts. It runs with capture off; rows it writes with capture turned back on
    /// (`SyncLedger.capturing`) are pushed as this device's changes. Whatever it derives must
    /// depend only on the synced rows, so that every device derives the same.
    package var afterApply: (@Sendable (Database, [String: Set<String>]) throws -> Void)?

    package init(entities: [SyncEntity], afterApply: (@Sendable (Database, [String: Set<String>]) throws -> Void)? = nil) {
        self.entities = entities
        self.afterApply = afterApply
    }

    package func entity(named name: String) -> SyncEntity? {
        entities.first { $0.name == name }
    }
}

/// A synced table.
package struct SyncEntity: Sendable {
    /// The name in changes (stable: never reused for something else).
    package var name: String
    package var table: String
    /// The local integer id that references in other tables hold.
    package var idColumn: String
    /// The column holding the global key (unique).
    package var keyColumn: String
    package var fields: [SyncField]
    /// SQL expressions for columns that are not synced but need a value when a row arrives from
    /// another device (`NOT NULL` columns of the device's own bookkeeping, say).
    package var insertDefaults: [(column: String, expression: String)]

    package init(
        name: String, table: String, idColumn: String = "id", keyColumn: String, fields: [SyncField],
        insertDefaults: [(column: String, expression: String)] = []
    ) {
        self.name = name
        self.table = table
        self.idColumn = idColumn
        self.keyColumn = keyColumn
        self.fields = fields
        self.insertDefaults = insertDefaults
    }

    package func field(named name: String) -> SyncField? {
        fields.first { $0.name == name }
    }
}

/// A synced field of an entity: one column, or several that change together (a todo's status
/// and its generation).
package struct SyncField: Sendable {
    package var name: String
    package var columns: [String]
    /// The entity a single-column field refers to: the column holds that entity's local id,
    /// changes carry its global key.
    package var reference: String?
    /// For fields that may only move forward: a value's rank, compared before the clock (a
    /// higher rank wins whatever its time). Nil: the last writer wins.
    package var rank: (@Sendable (SyncValue) -> Int64)?
    /// For a reference: the row cannot be without the row referred to (it waits until that row
    /// arrives, and goes when it is deleted), whatever the column's own constraints say.
    package var required: Bool
    /// Free text a person wrote: when two devices changed it without seeing each other's
    /// change, the losing text is kept in the store's conflict log instead of vanishing.
    package var keepsLosers: Bool
    /// Part of what the row's global key is made of (a favourite's quote, a rating's place):
    /// set when the row is made and never changed by the app, since another value would be
    /// another row. Every other field can change on two devices at once, and both changes must
    /// survive (the per-field merge tests change every field that is not identity).
    package var identity: Bool

    package init(
        _ name: String, columns: [String]? = nil, reference: String? = nil, required: Bool = false,
        keepsLosers: Bool = false, identity: Bool = false, rank: (@Sendable (SyncValue) -> Int64)? = nil
    ) {
        self.name = name
        self.columns = columns ?? [name]
        self.reference = reference
        self.required = required
        self.keepsLosers = keepsLosers
        self.identity = identity
        self.rank = rank
    }

    /// A free-text field (see ``keepsLosers``).
    package static func text(_ name: String, columns: [String]? = nil) -> SyncField {
        SyncField(name, columns: columns, keepsLosers: true)
    }

    /// The field every entity has: whether the row exists (1) or was deleted (0).
    package static let existence = "_exists"
}

/// One change to one field of one row, as devices exchange them through the server.
package struct SyncChange: Sendable, Hashable, Codable {
    /// The operation's id (a UUID): pushing or applying it twice changes nothing.
    package var id: String
    package var entity: String
    package var key: String
    package var field: String
    package var value: SyncValue
    package var time: HybridTime
    package var device: String
    /// The operation that held the field on the writing device when it made this change (nil
    /// when none did): a change that replaces another without having seen it overwrote a
    /// concurrent edit, and the losing text goes to the conflict log.
    package var base: String?

    package init(id: String, entity: String, key: String, field: String, value: SyncValue, time: HybridTime, device: String, base: String? = nil) {
        self.id = id
        self.entity = entity
        self.key = key
        self.field = field
        self.value = value
        self.time = time
        self.device = device
        self.base = base
    }

    package var stamp: SyncStamp { SyncStamp(time: time, device: device) }

    /// The encoder for changes: compact JSON with sorted keys, so one change always encodes to
    /// the same bytes.
    package static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}
