import Foundation
import SuiteStorage

/// The values screens show, kept current: each observation gives the value at once, then again
/// whenever a change to the store alters it, made through this store at once, by another process
/// (the `suite` CLI, a timer's tick) or another `QuoteStore` on the same file within about 200 ms.
/// Iterate with `for try await`; cancelling the iterating task ends the observation.
extension QuoteStore {
    /// A number that grows with every commit that changed this store — through this store, another
    /// store value on the same file or another process — for a screen that follows "something
    /// changed" without reading anything (it re-reads what it shows itself). Own commits arrive at
    /// once, other processes' within about 200 ms; commits in a burst may come as one value. The
    /// number means nothing beyond its growth, and a write that changed nothing gives none.
    public func observeChanges() -> StoreObservation<Int, QuoteError> {
        store.observeChanges()
    }

    /// Today's quote as `user` sees it (``todaysQuote(year:month:day:user:)-5msrl``): nil while the store
    /// holds no quote, then the quote, again when it is edited, favourited or noted.
    ///
    /// The day is fixed: when the calendar day changes, start a new observation for the new day.
    ///
    /// - Parameters:
    ///   - year: the calendar day, in the user's time zone …
    ///   - month: … its month …
    ///   - day: … and its day of the month.
    ///   - user: whose favourites and notes.
    /// - Returns: the values, as an `AsyncSequence` that throws ``QuoteError``.
    public func observeTodaysQuote(year: Int, month: Int, day: Int, user: String) -> StoreObservation<TodaysQuote?, QuoteError> {
        store.observe { [self] () throws(QuoteError) -> TodaysQuote? in try self.todaysQuote(year: year, month: month, day: day, user: user) }
    }

    /// The user's favourites, newest first (``favorites(user:)-2o6p``).
    ///
    /// - Parameter user: whose favourites.
    /// - Returns: the values, as an `AsyncSequence` that throws ``QuoteError``.
    public func observeFavorites(user: String) -> StoreObservation<[Quote], QuoteError> {
        store.observe { [self] () throws(QuoteError) -> [Quote] in try self.favorites(user: user) }
    }

    /// What the user was sent, newest first (`history(user:since:before:limit:)`): a new delivery
    /// made by a timer's tick in another process arrives here too.
    ///
    /// - Parameters:
    ///   - user: whose deliveries.
    ///   - since: only slots from this time on, or all.
    ///   - limit: at most this many.
    /// - Returns: the values, as an `AsyncSequence` that throws ``QuoteError``.
    public func observeHistory(user: String, since: Date? = nil, limit: Int = 100) -> StoreObservation<[Delivery], QuoteError> {
        store.observe { [self] () throws(QuoteError) -> [Delivery] in try self.history(user: user, since: since, limit: limit) }
    }

    /// The user's schedule, nil while none is set (``schedule(user:)-4yv47``).
    ///
    /// - Parameter user: whose schedule.
    /// - Returns: the values, as an `AsyncSequence` that throws ``QuoteError``.
    public func observeSchedule(user: String) -> StoreObservation<Schedule?, QuoteError> {
        store.observe { [self] () throws(QuoteError) -> Schedule? in try self.schedule(user: user) }
    }
}
