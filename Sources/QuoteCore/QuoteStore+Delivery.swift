import Foundation
import GRDB
import SuiteStorage

extension QuoteStore {
    /// The user's schedule, if set.
    public func schedule(user: String) throws(QuoteError) -> Schedule? {
        try read { db in
            guard let text = try String.fetchOne(db, sql: "SELECT definition FROM schedule WHERE user = ?", arguments: [user]) else { return nil }
            // A definition that no longer passes the rules (edited by hand, damaged) counts as none.
            guard let schedule = try? JSONDecoder().decode(Schedule.self, from: Data(text.utf8)), (try? schedule.validate()) != nil else {
                return nil
            }
            return schedule
        }
    }

    /// Sets (or, with nil, removes) the user's schedule.
    ///
    /// - Throws: ``QuoteError/invalidSchedule(_:)`` for a schedule that cannot work, also
    ///   ``QuoteError/ScheduleProblem/unknownCategory(_:)`` when its category is not in the store;
    ///   ``QuoteError/invalidText(_:)`` for the user name.
    public func setSchedule(_ schedule: Schedule?, user: String) throws(QuoteError) {
        let user = try Self.validated(name: user, .quoteUserName)
        if let schedule { try schedule.validate() }
        let category = schedule?.category
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let text = schedule.flatMap { try? encoder.encode($0) }.map { String(decoding: $0, as: UTF8.self) }
        try write { db in
            if let category,
               try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM category WHERE key = ?)", arguments: [Self.nameKey(category)]) != true {
                throw QuoteError.invalidSchedule(.unknownCategory(category))
            }
            if let text {
                try db.execute(sql: "INSERT INTO schedule (user, definition) VALUES (?, ?) ON CONFLICT (user) DO UPDATE SET definition = excluded.definition",
                               arguments: [user, text])
            } else {
                try db.execute(sql: "DELETE FROM schedule WHERE user = ?", arguments: [user])
            }
        }
    }

    /// The slot a tick at `now` should deliver for the user, or nil (no schedule, nothing due,
    /// already delivered).
    public func due(now: Date, user: String) throws(QuoteError) -> Date? {
        guard let schedule = try schedule(user: user) else { return nil }
        let last = try read { db in try Self.lastDeliveredSlot(user: user, now: now, db: db) }
        return schedule.due(now: now, lastDelivered: last)
    }

    /// The latest slot delivered at or before `now`. A delivery recorded for a later slot (the
    /// clock jumped forward and back, or an old `tick --at` in the future) does not count: it
    /// must not silence the deliveries due until then.
    static func lastDeliveredSlot(user: String, now: Date, db: Database) throws -> Date? {
        try Int64.fetchOne(db, sql: "SELECT max(slot_ms) FROM delivery WHERE user = ? AND slot_ms <= ?",
                           arguments: [user, Millis(now).value]).map { Millis($0).date }
    }

    /// What ``deliverDue(now:user:channel:)-3e3x5`` would deliver at `now`, recording nothing: neither
    /// the delivery nor the shuffle bag's step (for trying a schedule out at another time).
    ///
    /// - Returns: the delivery a tick at `now` would make, or nil when nothing would be due.
    public func previewDue(now: Date, user: String, channel: String) throws(QuoteError) -> Delivery? {
        guard let schedule = try schedule(user: user) else { return nil }
        let filter = QuoteFilter(category: schedule.category)
        return try write { db in
            var preview: Delivery?
            try db.inSavepoint {
                guard let slot = schedule.due(now: now, lastDelivered: try Self.lastDeliveredSlot(user: user, now: now, db: db)) else {
                    return .rollback
                }
                let id = schedule.tailored ? try Self.nextTailored(filter, user: user, db: db) : try Self.nextFromBag(filter, user: user, db: db)
                let quote = try Self.loadQuote(Quote.ID(id), db: db)
                preview = Delivery(quote: quote, slot: Millis(slot).date, deliveredAt: Millis(now).date, channel: channel,
                                   reminder: schedule.reminders ? try Self.reminder(for: quote, user: user, db: db) : nil)
                return .rollback  // the bag's step is undone too
            }
            return preview
        }
    }

    /// Delivers what is due at `now`: picks a quote from the schedule's shuffle bag and records it
    /// by its slot, in one transaction, so that ticking twice for one slot delivers once.
    ///
    /// - Parameters:
    ///   - now: the time of the tick.
    ///   - user: whose schedule.
    ///   - channel: how the caller will show it ("notify-send", "stdout").
    /// - Returns: the delivery, or nil when nothing is due.
    public func deliverDue(now: Date, user: String, channel: String) throws(QuoteError) -> Delivery? {
        let user = try Self.validated(name: user, .quoteUserName)
        guard let schedule = try schedule(user: user) else { return nil }
        let filter = QuoteFilter(category: schedule.category)
        return try write { db in
            guard let slot = schedule.due(now: now, lastDelivered: try Self.lastDeliveredSlot(user: user, now: now, db: db)) else { return nil }
            let id = schedule.tailored ? try Self.nextTailored(filter, user: user, db: db) : try Self.nextFromBag(filter, user: user, db: db)
            try db.execute(sql: "INSERT OR IGNORE INTO delivery (user, slot_ms, quote_id, delivered_ms, channel) VALUES (?, ?, ?, ?, ?)",
                           arguments: [user, Millis(slot).value, id, Millis(now).value, channel])
            guard db.changesCount > 0 else { return nil }
            let quote = try Self.loadQuote(Quote.ID(id), db: db)
            return Delivery(quote: quote, slot: Millis(Millis(slot).value).date,
                            deliveredAt: Millis(Millis(now).value).date, channel: channel,
                            reminder: schedule.reminders ? try Self.reminder(for: quote, user: user, db: db) : nil)
        }
    }

    /// One quote by id, found in this transaction (a missing one is an error, never a trap).
    static func loadQuote(_ id: Quote.ID, db: Database) throws -> Quote {
        guard let quote = try loadQuotes([id.rawValue], db: db).first else { throw QuoteError.quoteNotFound(id) }
        return quote
    }

    /// Every quote, for export, read in pages from one snapshot.
    public func allQuotes() throws(QuoteError) -> [Quote] {
        try read { db in
            let ids = try Int64.fetchAll(db, sql: "SELECT id FROM quote ORDER BY id")
            var quotes: [Quote] = []
            quotes.reserveCapacity(ids.count)
            var start = 0
            while start < ids.count {
                quotes += try Self.loadQuotes(Array(ids[start..<min(start + 500, ids.count)]), db: db)
                start += 500
            }
            return quotes
        }
    }

    /// Every quote, by id, handed to `body` one at a time from one read transaction (the store as
    /// of one moment), read in pages of 500, so that any number of quotes fits in little memory;
    /// for exports. Community counts are not looked up.
    ///
    /// - Throws: ``QuoteError`` for the store, or what `body` throws (which stops the walk).
    public func forEachQuote(_ body: (Quote) throws -> Void) throws {
        var failure: (any Error)?
        try read { db in
            var last: Int64 = .min
            while true {
                let ids = try Int64.fetchAll(db.cachedStatement(sql: "SELECT id FROM quote WHERE id > ? ORDER BY id LIMIT 500"), arguments: [last])
                guard let end = ids.last else { return }
                for quote in try Self.loadQuotes(ids, db: db, community: false) {
                    do {
                        try body(quote)
                    } catch {
                        failure = error
                        return
                    }
                }
                last = end
            }
        }
        if let failure { throw failure }
    }
}
