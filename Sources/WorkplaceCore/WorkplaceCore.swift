/// Places to work: places near you that are good for working, and your ratings of them.
///
/// This library is being built; today it offers only the name of its store file.
public enum WorkplaceCore {
    /// The file name of this library's store inside the Suite store folder.
    public static let storeFileName = "places.sqlite"
}
