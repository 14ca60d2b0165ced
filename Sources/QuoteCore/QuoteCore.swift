/// Quotes by category and source, favourites, notes and a delivery schedule.
///
/// This library is being built; today it offers only the name of its store file.
public enum QuoteCore {
    /// The file name of this library's store inside the Suite store folder.
    public static let storeFileName = "quotes.sqlite"
}
