import Foundation
import GRDB
import SuiteStorage

/// More than words on a todo (seed 003: "adding more than just words"): a link, or a file copied
/// into the store's folder.
public struct TodoAttachment: Codable, Sendable, Hashable, Identifiable {
    /// An attachment's identifier in its store.
    public typealias ID = RecordID<TodoAttachment>
    /// A link or a file.
    public enum Kind: String, Codable, Sendable { case link, file }

    /// Its number.
    public var id: ID
    /// The todo it belongs to.
    public var todoID: Todo.ID
    /// Link or file.
    public var kind: Kind
    /// The link (http, https, mailto, ftp or file URL), for a link.
    public var link: String?
    /// The file's name as it was attached, for a file.
    public var fileName: String?
    /// Where the store keeps its copy (mode 0600), for a file.
    public var storedPath: String?
    /// The file's size in bytes, for a file.
    public var size: Int?
    /// When it was added.
    public var addedAt: Date

    /// What an export carries: the link, or the stored copy as a `file:` URL.
    public var uri: String { link ?? storedPath.map { URL(fileURLWithPath: $0).absoluteString } ?? "" }
}

extension BundleStore {
    /// The largest file a todo takes (20 MiB).
    public static let maximumAttachmentBytes = 20 << 20
    /// The link schemes a todo takes.
    public static let linkSchemes: Set<String> = ["http", "https", "mailto", "ftp", "file"]

    /// `text` as a link a todo can hold: an absolute URL of a known scheme, one line, at most
    /// 2,000 bytes, in ASCII: letters outside ASCII are percent-encoded (`Straße` becomes
    /// `Stra%C3%9Fe`); spaces, control and formatting characters and `"<>\^`{|}` are refused.
    ///
    /// - Throws: ``BundleError/invalidAttachment(_:)`` saying what is wrong.
    public static func validatedLink(_ text: String) throws(BundleError) -> String {
        let refusal = BundleError.invalidAttachment(
            "'\(String(text.unicodeScalars.prefix(200).map { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) ? "?" : Character($0) }))' "
                + "is not a link like https://example.org/page (http, https, mailto, ftp or file; no spaces)")
        let hex = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = []
        for scalar in text.trimmingCharacters(in: .whitespaces).unicodeScalars {
            if scalar.isASCII {
                guard scalar.value > 0x20, scalar.value < 0x7F, !"\"<>\\^`{|}".unicodeScalars.contains(scalar) else { throw refusal }
                bytes.append(UInt8(scalar.value))
            } else {
                switch scalar.properties.generalCategory {
                case .control, .format, .lineSeparator, .paragraphSeparator, .spaceSeparator, .privateUse, .surrogate, .unassigned: throw refusal
                default: break
                }
                for byte in String(scalar).utf8 { bytes += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]] }
            }
        }
        let link = String(decoding: bytes, as: UTF8.self)
        guard !link.isEmpty, link.utf8.count <= 2_000,
              let url = URL(string: link), let scheme = url.scheme?.lowercased(), linkSchemes.contains(scheme),
              scheme == "mailto" || url.host != nil || scheme == "file" else {
            throw refusal
        }
        return link
    }

    /// Checks that `url` is a regular, readable file of at most ``maximumAttachmentBytes``.
    ///
    /// - Throws: ``BundleError/invalidAttachment(_:)``.
    public static func checkAttachable(_ url: URL) throws(BundleError) {
        var info = stat()
        guard stat(url.path, &info) == 0 else { throw .invalidAttachment("\(url.path): no such file") }
        guard info.st_mode & S_IFMT == S_IFREG else { throw .invalidAttachment("\(url.path): not a regular file") }
        guard Int(info.st_size) <= maximumAttachmentBytes else {
            throw .invalidAttachment("\(url.path): larger than \(maximumAttachmentBytes >> 20) MiB")
        }
        guard access(url.path, R_OK) == 0 else { throw .invalidAttachment("\(url.path): cannot be read") }
    }

    /// Adds a link to a todo.
    ///
    /// - Throws: ``BundleError/todoNotFound(_:)``, ``BundleError/invalidAttachment(_:)``.
    @discardableResult
    public func addLink(_ text: String, to todoID: Todo.ID) throws(BundleError) -> TodoAttachment {
        let link = try Self.validatedLink(text)
        let stamp = stamp
        return try write { db in
            _ = try Self.loadTodo(todoID, db: db)
            try Self.insertLink(link, todo: todoID, db: db, stamp: stamp)
            return try Self.loadAttachment(TodoAttachment.ID(db.lastInsertedRowID), db: db)
        }
    }

    /// Copies a file into the store's folder (`attachments/`, mode 0600) and attaches it to a
    /// todo. The copy stays on this device (a link syncs, a file does not); removing the
    /// attachment, or the todo, removes the copy.
    ///
    /// - Throws: ``BundleError/todoNotFound(_:)``, ``BundleError/invalidAttachment(_:)``, or
    ///   ``BundleError/store(_:)`` when the copy cannot be kept.
    @discardableResult
    public func attachFile(at url: URL, to todoID: Todo.ID) throws(BundleError) -> TodoAttachment {
        try Self.checkAttachable(url)
        let copy = try copyIn(url)
        let stamp = stamp
        do {
            return try write { db in
                _ = try Self.loadTodo(todoID, db: db)
                try Self.insertFile(copy, todo: todoID, db: db, stamp: stamp)
                return try Self.loadAttachment(TodoAttachment.ID(db.lastInsertedRowID), db: db)
            }
        } catch {
            unlink(copy.path)
            throw error
        }
    }

    /// A file copied into the store's folder, not yet recorded.
    struct StoredCopy {
        var name: String
        var path: String
        var size: Int
    }

    /// Copies `url` (checked by ``checkAttachable(_:)``) into ``attachmentFolder``.
    func copyIn(_ url: URL) throws(BundleError) -> StoredCopy {
        let data: Data
        do { data = try Data(contentsOf: url) } catch { throw .invalidAttachment("\(url.path): cannot be read") }
        guard data.count <= Self.maximumAttachmentBytes else { throw .invalidAttachment("\(url.path): larger than \(Self.maximumAttachmentBytes >> 20) MiB") }
        let folder = attachmentFolder
        let name = Self.displayName(url.lastPathComponent)
        let safe = url.lastPathComponent.unicodeScalars.filter { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || ".-_".unicodeScalars.contains($0)) }
        let stored = folder + "/" + UUID().uuidString.lowercased() + "-" + String(String.UnicodeScalarView(safe.suffix(60)))
        if let problem = PrivateFile.create(data, to: stored, folder: folder) {
            throw .store(StoreError(kind: problem.code == ENOSPC || problem.code == EDQUOT ? .diskFull : .unavailable, path: stored,
                                    detail: "cannot keep a copy of \(name): \(problem.reason)"))
        }
        return StoredCopy(name: name, path: stored, size: data.count)
    }

    /// A file's name as a todo shows it: control and formatting characters (a terminal's
    /// escapes, line breaks, direction marks) become U+FFFD; at most 255 characters.
    static func displayName(_ name: String) -> String {
        var result = String.UnicodeScalarView()
        for scalar in name.unicodeScalars.prefix(255) {
            switch scalar.properties.generalCategory {
            case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate: result.append("\u{FFFD}")
            default: result.append(scalar)
            }
        }
        return String(result)
    }

    static func insertLink(_ link: String, todo todoID: Todo.ID, db: Database, stamp: Int64) throws {
        try db.execute(sql: "INSERT INTO todo_attachment (todo_id, kind, link, created_ms, sync_key) VALUES (?, 'link', ?, ?, lower(hex(randomblob(16))))",
                       arguments: [todoID, link, stamp])
    }

    static func insertFile(_ copy: StoredCopy, todo todoID: Todo.ID, db: Database, stamp: Int64) throws {
        try db.execute(sql: "INSERT INTO todo_attachment (todo_id, kind, name, stored, size, created_ms) VALUES (?, 'file', ?, ?, ?, ?)",
                       arguments: [todoID, copy.name, copy.path, copy.size, stamp])
    }

    /// A todo's links and files, in the order they were added.
    public func attachments(of todoID: Todo.ID) throws(BundleError) -> [TodoAttachment] {
        try read { db in
            _ = try Self.loadTodo(todoID, db: db)
            return try Row.fetchAll(db, sql: "SELECT * FROM todo_attachment WHERE todo_id = ? ORDER BY id", arguments: [todoID]).map(Self.attachment(from:))
        }
    }

    /// Removes an attachment (and the store's copy of a file).
    ///
    /// - Throws: ``BundleError/attachmentNotFound(_:)``.
    @discardableResult
    public func removeAttachment(_ id: TodoAttachment.ID) throws(BundleError) -> TodoAttachment {
        let removed = try write { db in
            let attachment = try Self.loadAttachment(id, db: db)
            try db.execute(sql: "DELETE FROM todo_attachment WHERE id = ?", arguments: [id])
            return attachment
        }
        if let stored = removed.storedPath { removeCopy(stored) }
        return removed
    }

    /// The file names (in ``attachmentFolder``) of the copies the bundle store file at `path`
    /// refers to, read without writing to it (no log or shared-memory file is created beside a
    /// file that has no log): what a backup of that file must carry.
    ///
    /// - Throws: ``BundleError/store(_:)`` when the file cannot be read.
    package static func storedFileNames(inStoreAt path: String) throws(BundleError) -> [String] {
        do {
            let stored = try StoreBackup.strings(path: path, sql: "SELECT stored FROM todo_attachment WHERE kind = 'file' AND stored IS NOT NULL ORDER BY id")
            return stored.map { ($0 as NSString).lastPathComponent }.filter(isStoredCopyName)
        } catch {
            throw BundleError(storeFailure: error)
        }
    }

    /// Whether `name` is the name of a copy a store makes: `UUID-name`, letters, digits, `.`, `-`
    /// and `_` only, so it cannot leave the attachments folder.
    package static func isStoredCopyName(_ name: String) -> Bool {
        name.utf8.count > 37 && name.utf8.count <= 100 && UUID(uuidString: String(name.prefix(36))) != nil && name.dropFirst(36).hasPrefix("-")
            && name.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || ".-_".unicodeScalars.contains($0)) }
    }

    /// Copies the attachment copies named `names` (``isStoredCopyName(_:)``) from the folder
    /// `source` into `destination` (made 0700 when missing; files 0600, synced): what a backup
    /// takes along and a restore puts back. A file already there with the same bytes is left as
    /// it is; another is replaced whole (written beside it, then renamed over it).
    ///
    /// - Returns: The names copied (or already there) with their sizes, and the names missing
    ///   from `source` (a copy removed since, or lost).
    /// - Throws: ``BundleError/store(_:)`` when a copy cannot be read or written.
    package static func copyStoredFiles(_ names: [String], from source: String, to destination: String)
        throws(BundleError) -> (copied: [(name: String, bytes: Int)], missing: [String]) {
        var copied: [(name: String, bytes: Int)] = [], missing: [String] = [], seen = Set<String>()
        for name in names where isStoredCopyName(name) && seen.insert(name).inserted {
            let from = source + "/" + name, to = destination + "/" + name
            var info = stat()
            guard lstat(from, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { missing.append(name); continue }
            guard Int(info.st_size) <= maximumAttachmentBytes, let data = FileManager.default.contents(atPath: from) else {
                throw .store(StoreError(kind: .unavailable, path: from, detail: "cannot read the attached file \(name)"))
            }
            if FileManager.default.contents(atPath: to) == data {
                copied.append((name, data.count))
                continue
            }
            let staged = destination + "/." + name + ".\(getpid())"
            unlink(staged)
            if let problem = PrivateFile.create(data, to: staged, folder: destination) {
                throw .store(StoreError(kind: problem.code == ENOSPC || problem.code == EDQUOT ? .diskFull : .unavailable, path: to,
                                        detail: "cannot write the attached file \(name): \(problem.reason)"))
            }
            guard rename(staged, to) == 0 else {
                let reason = String(cString: strerror(errno))
                unlink(staged)
                throw .store(StoreError(kind: .unavailable, path: to, detail: "cannot write the attached file \(name): \(reason)"))
            }
            copied.append((name, data.count))
        }
        return (copied, missing)
    }

    /// The folder where the bundle store file at `path` keeps its attachment copies.
    package static func attachmentFolder(ofStoreAt path: String) -> String {
        (path as NSString).deletingLastPathComponent + "/attachments"
    }

    /// Points every file attachment at its copy in this store's ``attachmentFolder`` (the same
    /// file name): after a restore into another store folder, the todos refer to the copies the
    /// restore put there, not to the folder the backup was taken from. Changes nothing that syncs
    /// (file attachments stay on their device).
    ///
    /// - Returns: How many attachments now point elsewhere.
    @discardableResult
    package func relocateStoredFiles() throws(BundleError) -> Int {
        let folder = attachmentFolder
        return try write { db in
            var moved = 0
            for row in try Row.fetchAll(db, sql: "SELECT id, stored FROM todo_attachment WHERE kind = 'file' AND stored IS NOT NULL") {
                let stored: String = row["stored"]
                let name = (stored as NSString).lastPathComponent
                let relocated = folder + "/" + name
                guard Self.isStoredCopyName(name), relocated != stored else { continue }
                try db.execute(sql: "UPDATE todo_attachment SET stored = ? WHERE id = ?", arguments: [relocated, row["id"] as Int64])
                moved += 1
            }
            return moved
        }
    }

    /// Whether `uri` is the `file:` URL of a copy a store keeps (`…/attachments/UUID-name`), as
    /// exports write it: read back, it is not made a link (the copy stays on its device).
    static func isStoredCopy(_ uri: String) -> Bool {
        guard uri.lowercased().hasPrefix("file:"), let url = URL(string: uri) else { return false }
        let name = url.lastPathComponent
        return url.deletingLastPathComponent().lastPathComponent == "attachments" && name.count > 37
            && UUID(uuidString: String(name.prefix(36))) != nil && name.dropFirst(36).hasPrefix("-")
    }

    /// Removes a copy the store made, and nothing outside its attachments folder.
    func removeCopy(_ path: String) {
        let folder = attachmentFolder + "/"
        guard path.hasPrefix(folder), !path.dropFirst(folder.count).contains("/") else { return }
        unlink(path)
    }

    /// Where file copies are kept: `attachments/` in the store's folder (a private temporary
    /// folder for a store in memory).
    var attachmentFolder: String {
        let path = store.path
        if path == ":memory:" { return (NSTemporaryDirectory() as NSString).appendingPathComponent("suite-attachments-\(getuid())-\(getpid())") }
        return (path as NSString).deletingLastPathComponent + "/attachments"
    }

    static func loadAttachment(_ id: TodoAttachment.ID, db: Database) throws -> TodoAttachment {
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM todo_attachment WHERE id = ?", arguments: [id]) else {
            throw BundleError.attachmentNotFound(id)
        }
        return attachment(from: row)
    }

    static func attachment(from row: Row) -> TodoAttachment {
        TodoAttachment(id: TodoAttachment.ID(row["id"] as Int64), todoID: Todo.ID(row["todo_id"] as Int64),
                       kind: TodoAttachment.Kind(rawValue: row["kind"]) ?? .link, link: row["link"], fileName: row["name"],
                       storedPath: row["stored"], size: Int.fromDatabaseValue(row["size"]),
                       // Filled by sync: read leniently, a value of another type is not a trap.
                       addedAt: Millis(Int64.fromDatabaseValue(row["created_ms"]) ?? 0).date)
    }

    /// The URIs of each todo's attachments, for exports.
    /// What an export writes for `attachment`: its URI. A link that came by sync (or was kept by
    /// an earlier version) is checked again: it goes into a file as the rule writes it, and not
    /// at all (nil) when it is not one.
    static func exportedURI(_ attachment: TodoAttachment) -> String? {
        var attachment = attachment
        if let link = attachment.link {
            guard let checked = try? validatedLink(link) else { return nil }
            attachment.link = checked
        }
        return attachment.uri
    }

    /// Links and files on todos (migration v6). Links sync (by a random key); files, whose
    /// copies stay on the device, have no key and are not synced.
    static func migrateToAttachments(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE todo_attachment (
                id INTEGER PRIMARY KEY,
                todo_id INTEGER NOT NULL REFERENCES todo(id) ON DELETE CASCADE,
                kind TEXT NOT NULL,
                link TEXT,
                name TEXT,
                stored TEXT,
                size INTEGER,
                created_ms INTEGER NOT NULL,
                sync_key TEXT UNIQUE
            );
            CREATE INDEX todo_attachment_todo ON todo_attachment(todo_id);
            """)
        try SyncLedger.installTriggers(db, schema: syncSchema)
    }
}

/// A file only its owner can read.
enum PrivateFile {
    /// Why a file could not be written: the system's error number and its words.
    struct Problem: Error {
        var code: Int32
        var reason: String
        init(_ code: Int32, _ reason: String? = nil) {
            self.code = code
            self.reason = reason ?? String(cString: strerror(code))
        }
    }

    /// Writes `data` to a new file with mode 0600 in `folder` (made 0700 when missing; an
    /// existing one must be a folder of this user, not a link, and is made 0700), synced; the
    /// problem when it cannot.
    static func create(_ data: Data, to path: String, folder: String) -> Problem? {
        if mkdir(folder, 0o700) != 0 && errno != EEXIST { return Problem(errno) }
        var info = stat()
        guard lstat(folder, &info) == 0 else { return Problem(errno) }
        guard info.st_mode & S_IFMT == S_IFDIR, info.st_uid == geteuid() else {
            return Problem(ENOTDIR, "\(folder) is not a folder of this user")
        }
        if info.st_mode & 0o777 != 0o700, chmod(folder, 0o700) != 0 { return Problem(errno) }
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { return Problem(errno) }
        defer { close(fd) }
        var offset = 0
        let failure: Problem? = data.withUnsafeBytes { buffer -> Problem? in
            guard let base = buffer.baseAddress else { return nil }  // nothing to write
            while offset < buffer.count {
                let written = write(fd, base + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return Problem(errno)
                }
                offset += written
            }
            return nil
        }
        if let failure { unlink(path); return failure }
        if fsync(fd) != 0 { let problem = Problem(errno); unlink(path); return problem }
        return nil
    }
}
