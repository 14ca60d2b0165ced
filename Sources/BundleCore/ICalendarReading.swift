import Foundation

/// What reading an iCalendar file needs beyond Suite's own export: the time forms RFC 5545
/// allows, foreign UIDs, and the list of what Suite has no place for.
enum ICalendarReading {
    /// The `foreignFields` key that keeps a UID that is not a UUID, so that an export gives it back.
    static let foreignUIDKey = "icalendar_uid"

    /// Properties of a VTODO that carry meaning Suite does not keep: reported, not imported
    /// (`ATTACH` is read as a link, and reported only when it is not one).
    static let droppedProperties: Set<String> = [
        "RRULE", "RDATE", "EXDATE", "EXRULE", "RECURRENCE-ID", "DTSTART", "DURATION", "PRIORITY",
        "PERCENT-COMPLETE", "LOCATION", "GEO", "URL", "ATTENDEE", "ORGANIZER", "CONTACT",
        "COMMENT", "RESOURCES",
    ]

    /// Components of a calendar that are not todos (a VTIMEZONE is read, not dropped).
    static let droppedComponents: Set<String> = ["VEVENT", "VJOURNAL", "VFREEBUSY"]

    /// A DATE-TIME value (RFC 5545 §3.3.5) in any of its three forms: UTC (`…Z`), local time in
    /// the zone its `TZID` names, or floating (no zone), read in `timeZone`, the user's.
    ///
    /// - Returns: the moment, and a warning when a `TZID` is not a known time zone (the time is
    ///   then read in `timeZone`); nil when the value is not a date-time.
    static func dateTime(_ value: String, tzid: String?, timeZone: TimeZone) -> (date: Date, warning: String?)? {
        if value.hasSuffix("Z") { return CompactTime.date(value).map { ($0, nil) } }
        var zone = timeZone
        var warning: String?
        if let tzid {
            // RFC 5545 allows a leading "/" for globally unique ids such as "/Europe/Berlin".
            let name = tzid.hasPrefix("/") ? String(tzid.dropFirst()) : tzid
            if let known = TimeZone(identifier: name) {
                zone = known
            } else {
                warning = "time zone '\(tzid)' unknown, read as local time"
            }
        }
        guard let date = CompactTime.date(value, in: zone) else { return nil }
        return (date, warning)
    }

    /// A stable UUID for a UID that is not one, so that importing the same file again updates
    /// the same todos: 128 bits of two FNV-1a hashes of the UID, marked as a version 8
    /// (vendor-specific) UUID.
    static func uuid(forForeignUID uid: String) -> UUID {
        func fnv1a(_ seed: UInt64) -> UInt64 {
            var hash = seed
            for byte in "suite-icalendar-uid:\(uid)".utf8 {
                hash ^= UInt64(byte)
                hash = hash &* 0x0000_0100_0000_01B3
            }
            return hash
        }
        let high = fnv1a(0xCBF2_9CE4_8422_2325), low = fnv1a(0x6C62_272E_07BB_0142)
        var bytes = (0..<8).map { UInt8(truncatingIfNeeded: high >> (56 - 8 * $0)) } + (0..<8).map { UInt8(truncatingIfNeeded: low >> (56 - 8 * $0)) }
        bytes[6] = (bytes[6] & 0x0F) | 0x80  // version 8
        bytes[8] = (bytes[8] & 0x3F) | 0x80  // RFC 4122 variant
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                           bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }

    /// What a file held that was not imported, one entry per kind: "RRULE in 2 todos",
    /// "VEVENT ×3 (not todos)", then the notes (an unknown time zone), sorted.
    struct Dropped {
        var inTodos: [String: Int] = [:]
        var components: [String: Int] = [:]
        var notes: Set<String> = []

        var descriptions: [String] {
            inTodos.sorted { $0.key < $1.key }.map { "\($0.key) in \($0.value) todo\($0.value == 1 ? "" : "s")" }
                + components.sorted { $0.key < $1.key }.map { "\($0.key) ×\($0.value) (not todos)" }
                + notes.sorted()
        }
    }
}
