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

    /// `text` as a link a todo can hold: an absolute URL of a known scheme, one line, no spaces
    /// or control characters, at most 2,000 bytes.
    ///
    /// - Throws: ``BundleError/invalidAttachment(_:)`` saying what is wrong.
    public static func validatedLink(_ text: String) throws(BundleError) -> String {
        let link = text.trimmingCharacters(in: .whitespaces)
        guard !link.isEmpty, link.utf8.count <= 2_000,
              link.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value != 0x7F && !(0x80...0x9F).contains($0.value) }),
              let url = URL(string: link), let scheme = url.scheme?.lowercased(), linkSchemes.contains(scheme),
              scheme == "mailto" || url.host != nil || scheme == "file" else {
            throw .invalidAttachment("'\(text.prefix(200))' is not a link like https://example.org/page (http, https, mailto, ftp or file)")
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
            try db.execute(sql: "INSERT INTO todo_attachment (todo_id, kind, link, created_ms, sync_key) VALUES (?, 'link', ?, ?, lower(hex(randomblob(16))))",
                           arguments: [todoID, link, stamp])
            return try Self.loadAttachment(TodoAttachment.ID(db.lastInsertedRowID), db: db)
        }
    }

    /// Copies a file into the store's folder (`attachments/`, mode 0600) and attaches it to a
    /// todo. The copy stays on this device (a link syncs, a file does not); removing the
    /// attachment removes the copy.
    ///
    /// - Throws: ``BundleError/todoNotFound(_:)``, ``BundleError/invalidAttachment(_:)``.
    @discardableResult
    public func attachFile(at url: URL, to todoID: Todo.ID) throws(BundleError) -> TodoAttachment {
        try Self.checkAttachable(url)
        let data: Data
        do { data = try Data(contentsOf: url) } catch { throw .invalidAttachment("\(url.path): cannot be read") }
        guard data.count <= Self.maximumAttachmentBytes else { throw .invalidAttachment("\(url.path): larger than \(Self.maximumAttachmentBytes >> 20) MiB") }
        let folder = attachmentFolder
        let name = url.lastPathComponent
        let safe = name.unicodeScalars.filter { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || ".-_".unicodeScalars.contains($0)) }
        let stored = folder + "/" + UUID().uuidString.lowercased() + "-" + String(String.UnicodeScalarView(safe.suffix(60)))
        if let problem = PrivateFile.create(data, to: stored, folder: folder) { throw .invalidAttachment("cannot keep a copy of \(name): \(problem)") }
        let stamp = stamp
        do {
            return try write { db in
                _ = try Self.loadTodo(todoID, db: db)
                try db.execute(sql: "INSERT INTO todo_attachment (todo_id, kind, name, stored, size, created_ms) VALUES (?, 'file', ?, ?, ?, ?)",
                               arguments: [todoID, name, stored, data.count, stamp])
                return try Self.loadAttachment(TodoAttachment.ID(db.lastInsertedRowID), db: db)
            }
        } catch {
            unlink(stored)
            throw error
        }
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
        if let stored = removed.storedPath { unlink(stored) }
        return removed
    }

    /// Where file copies are kept: `attachments/` in the store's folder (a private temporary
    /// folder for a store in memory).
    var attachmentFolder: String {
        let path = store.path
        if path == ":memory:" { return NSTemporaryDirectory() + "suite-attachments-\(getpid())" }
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
                       storedPath: row["stored"], size: row["size"], addedAt: Millis(row["created_ms"] as Int64).date)
    }

    /// The URIs of each todo's attachments, for exports.
    static func attachmentURIs(_ db: Database) throws -> [Int64: [String]] {
        var result: [Int64: [String]] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT * FROM todo_attachment ORDER BY id") {
            let attachment = attachment(from: row)
            result[attachment.todoID.rawValue, default: []].append(attachment.uri)
        }
        return result
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
    /// Writes `data` to a new file with mode 0600 in `folder` (made 0700 when missing), synced;
    /// the problem when it cannot.
    static func create(_ data: Data, to path: String, folder: String) -> String? {
        if mkdir(folder, 0o700) != 0 && errno != EEXIST { return String(cString: strerror(errno)) }
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return String(cString: strerror(errno)) }
        defer { close(fd) }
        var offset = 0
        let failure: String? = data.withUnsafeBytes { buffer -> String? in
            guard let base = buffer.baseAddress else { return nil }  // nothing to write
            while offset < buffer.count {
                let written = write(fd, base + offset, buffer.count - offset)
                if written < 0 { return String(cString: strerror(errno)) }
                offset += written
            }
            return nil
        }
        if let failure { unlink(path); return failure }
        if fsync(fd) != 0 { unlink(path); return String(cString: strerror(errno)) }
        return nil
    }
}
