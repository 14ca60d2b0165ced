/// Todos tied to trigger events, check-in runs that bundle them, and their review.
///
/// This library is being built; today it offers only the name of its store file.
public enum BundleCore {
    /// The file name of this library's store inside the Suite store folder.
    public static let storeFileName = "bundle.sqlite"
}
