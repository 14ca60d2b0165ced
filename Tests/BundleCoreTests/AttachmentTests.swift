import Foundation
import SuiteStorage
import SuiteTestSupport
import Testing
@testable import BundleCore

/// Links and files on todos (seed 003: "adding more than just words").
@Suite struct AttachmentTests {
    func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("suite-attach-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    func mode(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    @Test func linksAndFilesAreCheckedCopiedPrivatelyAndExported() throws {
        let dir = try folder()
        let store = try BundleStore(url: dir.appendingPathComponent("store/bundle.sqlite"))
        let todo = try store.addTodo("Sign the lease", event: "go to the agency", preposition: .before, allowNewEvent: true)
        let link = try store.addLink("https://example.org/lease?id=7", to: todo.id)
        #expect(link.kind == .link && link.uri == "https://example.org/lease?id=7")
        for bad in ["not a link", "javascript:alert(1)", "https://exa mple.org", "https://example.org/\u{1B}[2J", "http://", ""] {
            #expect(throws: BundleError.self, "\(bad)") { try store.addLink(bad, to: todo.id) }
        }
        let source = dir.appendingPathComponent("lease copy.pdf")
        try Data("%PDF-1.4 a lease".utf8).write(to: source)
        let file = try store.attachFile(at: source, to: todo.id)
        let stored = try #require(file.storedPath)
        #expect(file.fileName == "lease copy.pdf" && file.size == 16)
        #expect(stored.hasPrefix(dir.appendingPathComponent("store/attachments/").path))
        #expect(mode(stored) & 0o777 == 0o600)
        #expect(mode(dir.appendingPathComponent("store/attachments").path) & 0o777 == 0o700)
        #expect(try Data(contentsOf: URL(fileURLWithPath: stored)) == Data("%PDF-1.4 a lease".utf8))
        #expect(try store.attachments(of: todo.id).map(\.kind) == [.link, .file])

        // Too large, a folder, a missing file, or no such todo: refused, nothing copied.
        let big = dir.appendingPathComponent("big.bin")
        #expect(FileManager.default.createFile(atPath: big.path, contents: nil))
        let handle = try FileHandle(forWritingTo: big)
        try handle.truncate(atOffset: UInt64(BundleStore.maximumAttachmentBytes + 1))
        try handle.close()
        #expect(throws: BundleError.self) { try store.attachFile(at: big, to: todo.id) }
        #expect(throws: BundleError.self) { try store.attachFile(at: dir, to: todo.id) }
        #expect(throws: BundleError.self) { try store.attachFile(at: dir.appendingPathComponent("missing.pdf"), to: todo.id) }
        #expect(throws: BundleError.todoNotFound(999)) { try store.attachFile(at: source, to: 999) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent("store/attachments").path).count == 1)

        // Exports carry them: VTODO ATTACH, Taskwarrior annotations.
        let ics = String(decoding: try store.export(.ics, timeZone: TimeZone(identifier: "UTC")!), as: UTF8.self)
        #expect(ics.contains("ATTACH:https://example.org/lease?id=7\r\n"))
        #expect(ics.contains("ATTACH:file://"))
        let task = String(decoding: try store.export(.taskwarrior, timeZone: TimeZone(identifier: "UTC")!), as: UTF8.self)
        #expect(task.contains("\"description\" : \"https://example.org/lease?id=7\""))

        // Removing the file removes the copy.
        try store.removeAttachment(file.id)
        #expect(!FileManager.default.fileExists(atPath: stored))
        #expect(throws: BundleError.attachmentNotFound(file.id)) { try store.removeAttachment(file.id) }
    }

    @Test func linksOutsideASCIIArePercentEncodedAndInvisibleCharactersRefused() throws {
        #expect(try BundleStore.validatedLink("https://de.wikipedia.org/wiki/Straße") == "https://de.wikipedia.org/wiki/Stra%C3%9Fe")
        for bad in ["https://example.org/\u{2028}x", "https://example.org/\u{202E}fdp.exe", "https://example.org/\u{85}", "https://example.org/a\"b",
                    "https://example.org/<script>", "https://example.org/\u{00A0}x"] {
            #expect(throws: BundleError.self, "\(bad)") { try BundleStore.validatedLink(bad) }
        }
        // A file's name keeps no terminal escapes or line breaks.
        #expect(BundleStore.displayName("a\u{1B}[2Jb\nc\u{202E}.pdf") == "a\u{FFFD}[2Jb\u{FFFD}c\u{FFFD}.pdf")
    }

    @Test func aTodoWithFilesIsWrittenWholeOrNotAtAll() throws {
        let dir = try folder()
        let storeFolder = dir.appendingPathComponent("store")
        let store = try BundleStore(url: storeFolder.appendingPathComponent("bundle.sqlite"))
        let source = dir.appendingPathComponent("form.pdf")
        try Data("form".utf8).write(to: source)
        // Where the copies go is taken by a file: the copy fails as store I/O, and neither the
        // todo nor its link is written.
        try Data().write(to: storeFolder.appendingPathComponent("attachments"))
        #expect {
            try store.addTodo("Hand in the form", event: nil, preposition: .none, links: ["https://example.org/form"], files: [source])
        } throws: { error in
            guard case .store(let failure)? = error as? BundleError else { return false }
            return failure.path.hasPrefix(storeFolder.appendingPathComponent("attachments").path)
        }
        #expect(try store.todos(includeFinished: true).isEmpty)
        // A bad link refuses the whole todo before anything is copied.
        try FileManager.default.removeItem(at: storeFolder.appendingPathComponent("attachments"))
        #expect(throws: BundleError.self) {
            try store.addTodo("Hand in the form", event: nil, preposition: .none, links: ["not a link"], files: [source])
        }
        #expect(!FileManager.default.fileExists(atPath: storeFolder.appendingPathComponent("attachments").path))
        // Both fine: one step; removing the todo removes its copy.
        let todo = try store.addTodo("Hand in the form", event: nil, preposition: .none, links: ["https://example.org/form"], files: [source])
        let attachments = try store.attachments(of: todo.id)
        #expect(attachments.map(\.kind) == [.link, .file])
        let copy = try #require(attachments.last?.storedPath)
        #expect(FileManager.default.fileExists(atPath: copy))
        try store.removeTodo(todo.id)
        #expect(!FileManager.default.fileExists(atPath: copy))
    }

    @Test func linksComeBackFromTaskwarriorAndICalendarExportsWithoutDuplicates() throws {
        let dir = try folder()
        let store = try BundleStore(url: dir.appendingPathComponent("a/bundle.sqlite"))
        let todo = try store.addTodo("Sign the lease", event: nil, preposition: .none, notes: "bring a pen", links: ["https://example.org/lease"])
        // Notes that are just a URL stay notes; a file's copy does not come back as a link.
        let urlNotes = try store.addTodo("Read the terms", event: nil, preposition: .none, notes: "https://example.org/terms")
        let source = dir.appendingPathComponent("terms.pdf")
        try Data("terms".utf8).write(to: source)
        try store.attachFile(at: source, to: urlNotes.id)
        let utc = try #require(TimeZone(identifier: "UTC"))
        for format in [InterchangeFormat.taskwarrior, .ics] {
            let exported = try store.export(format, timeZone: utc)
            #expect(try store.importData(exported, format: format, timeZone: utc).dropped.isEmpty, "\(format): ATTACH is read, not dropped")
            #expect(try store.todo(urlNotes.id).notes == "https://example.org/terms", "\(format)")
            #expect(try store.attachments(of: urlNotes.id).map(\.kind) == [.file], "\(format)")
            // Read back into the same store: nothing doubles, the notes stay the notes.
            try store.importData(exported, format: format, timeZone: utc)
            #expect(try store.attachments(of: todo.id).compactMap(\.link) == ["https://example.org/lease"], "\(format)")
            #expect(try store.todo(todo.id).notes == "bring a pen", "\(format)")
            // Into another store: the link arrives as a link.
            let other = try BundleStore(url: dir.appendingPathComponent("\(format.rawValue)/bundle.sqlite"))
            try other.importData(exported, format: format, timeZone: utc)
            let there = try #require(try other.todos().first { $0.text == "Sign the lease" })
            #expect(try other.attachments(of: there.id).compactMap(\.link) == ["https://example.org/lease"], "\(format)")
            #expect(there.notes == "bring a pen", "\(format)")
            let terms = try #require(try other.todos().first { $0.text == "Read the terms" })
            #expect(terms.notes == "https://example.org/terms", "\(format)")
            #expect(try other.attachments(of: terms.id).isEmpty, "\(format): the copy stays on its device")
        }
    }

    @Test func linksSyncButFileCopiesStayOnTheirDevice() async throws {
        let server = InMemorySyncServer()
        let laptop = try BundleStore.inMemory(), phone = try BundleStore.inMemory()
        try laptop.store.syncEnable()
        try phone.store.syncEnable()
        let todo = try await laptop.run { try $0.addTodo("Sign the lease", event: "go to the agency", preposition: .before, allowNewEvent: true) }
        try await laptop.run { try $0.addLink("https://example.org/lease", to: todo.id) }
        let source = try folder().appendingPathComponent("lease.pdf")
        try Data("lease".utf8).write(to: source)
        let file = try await laptop.run { try $0.attachFile(at: source, to: todo.id) }
        for store in [laptop, phone] { _ = try await SyncSession(store: store.store, log: "bundle", transport: server).run() }
        let there = try #require(try await phone.run({ try $0.todos() }).first)
        #expect(try await phone.run({ try $0.attachments(of: there.id) }).map(\.uri) == ["https://example.org/lease"])
        try await laptop.run { try $0.removeAttachment(file.id) }
    }
}
