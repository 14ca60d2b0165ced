import ArgumentParser
import BundleCore
import Foundation
import SuiteEnvironment
import SuiteStorage

/// What `suite backup` writes beside the copies: when, and which stores.
struct BackupManifest: Codable {
    static let fileName = "suite-backup.json"
    static let format = "suite-backup-1"

    struct Store: Codable {
        var file: String
        var bytes: Int
    }

    /// A file a todo has attached (`bundle attach --file`), copied into `attachments/`.
    struct Attachment: Codable {
        var file: String
        var bytes: Int
    }

    var format: String
    /// When the copies were taken (each is its store as of a moment at or after this).
    var takenAt: Date
    var stores: [Store]
    /// The attached files the bundle store's copy refers to (absent in backups made before
    /// attachments were carried).
    var attachments: [Attachment]?

    /// The folder of a backup where attached files are kept.
    static let attachmentFolder = "attachments"

    static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}

/// `suite backup DIR`.
struct BackupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Write a consistent copy of every store to a new folder, while other suite processes keep working.",
        discussion: """
            Each store (bmm, places, quotes, bundle) is copied with SQLite's online backup API in \
            one read transaction: the copy is the store as of one moment, whatever other processes \
            write meanwhile, and is checked with SQLite's integrity check. The files todos have \
            attached (bundle attach --file) that the copy refers to go into DIR/attachments. DIR \
            must be new or empty; it gets mode 0700, the copies 0600, and suite-backup.json saying \
            what it holds and when. The sync \
            settings (sync.json: this device's token and the data key) are not copied: after a \
            restore on another machine, log in again.

            Examples:
              suite backup ~/backups/suite-2026-11-24
              suite restore ~/backups/suite-2026-11-24
            """)

    @OptionGroup var options: TextOptions
    @Argument(help: ArgumentHelp("The folder to write (new or empty).", valueName: "dir")) var directory: String

    func run() throws {
        let folder = try options.storeFolder()
        let target = URL(fileURLWithPath: directory).standardizedFileURL
        let fileManager = FileManager.default
        var isDirectory: ObjCBool = false
        if fileManager.fileExists(atPath: target.path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw CLIError.io("cannot back up into \(target.path): it is a file") }
            guard ((try? fileManager.contentsOfDirectory(atPath: target.path)) ?? []).isEmpty else {
                throw CLIError.failed("\(target.path) is not empty: back up into a new folder (an older backup is never overwritten)")
            }
        }
        guard target.path != folder.standardizedFileURL.path else { throw CLIError.usage("the backup folder cannot be the store folder") }
        let present = RestoreCommand.storeFiles.filter { fileManager.fileExists(atPath: folder.appendingPathComponent($0).path) }
        guard !present.isEmpty else { throw CLIError.failed("no stores in \(folder.path) to back up") }
        do {
            try fileManager.createDirectory(at: target, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw CLIError.io("cannot create \(target.path): \(error.localizedDescription)")
        }
        let takenAt = Date()
        var stores: [BackupManifest.Store] = []
        do {
            for file in present {
                let destination = target.appendingPathComponent(file).path
                try StoreBackup.copy(from: folder.appendingPathComponent(file).path, to: destination)
                let bytes = (try? FileManager.default.attributesOfItem(atPath: destination)[.size] as? NSNumber)?.intValue ?? 0
                stores.append(BackupManifest.Store(file: file, bytes: bytes))
            }
        } catch let failure {
            for store in stores { StoreBackup.remove(target.appendingPathComponent(store.file).path) }
            throw CLIError.io(StoreError(failure).description)
        }
        // The files the bundle store's copy refers to, from the store folder's attachments.
        var attachments: [BackupManifest.Attachment] = []
        if stores.contains(where: { $0.file == BundleStore.fileName }) {
            let copy = target.appendingPathComponent(BundleStore.fileName).path
            do {
                let names = try BundleStore.storedFileNames(inStoreAt: copy)
                if !names.isEmpty {
                    let (copied, missing) = try BundleStore.copyStoredFiles(
                        names, from: BundleStore.attachmentFolder(ofStoreAt: folder.appendingPathComponent(BundleStore.fileName).path),
                        to: target.appendingPathComponent(BackupManifest.attachmentFolder).path)
                    attachments = copied.map { BackupManifest.Attachment(file: BackupManifest.attachmentFolder + "/" + $0.name, bytes: $0.bytes) }
                    if !missing.isEmpty {
                        Terminal.printError("suite: warning: \(missing.count) attached file\(missing.count == 1 ? " is" : "s are") missing from \(folder.path)/attachments "
                            + "(\(missing.prefix(3).joined(separator: ", "))\(missing.count > 3 ? ", …" : "")): the backup keeps their todos' records only")
                    }
                }
            } catch {
                for store in stores { StoreBackup.remove(target.appendingPathComponent(store.file).path) }
                try? FileManager.default.removeItem(at: target.appendingPathComponent(BackupManifest.attachmentFolder))
                throw CLIError.io("cannot back up the attached files: \(ErrorReport.classify(error)?.1 ?? "\(error)")")
            }
        }
        // The manifest last: a folder without one is an interrupted backup, which restore refuses.
        let manifest = BackupManifest(format: BackupManifest.format, takenAt: takenAt, stores: stores, attachments: attachments.isEmpty ? nil : attachments)
        let manifestPath = target.appendingPathComponent(BackupManifest.fileName).path
        do {
            try AtomicFile.write(try BackupManifest.encoder.encode(manifest), to: manifestPath)
        } catch let error as CLIError {
            throw error
        } catch {
            throw CLIError.io("cannot write \(manifestPath): \(error)")
        }
        for store in stores { print("\(store.file): \(store.bytes) bytes") }
        if !attachments.isEmpty {
            print("attachments: \(attachments.count) file\(attachments.count == 1 ? "" : "s"), \(attachments.reduce(0) { $0 + $1.bytes }) bytes")
        }
        print("Backed up \(stores.count) store\(stores.count == 1 ? "" : "s") to \(target.path) (suite restore \(target.path) puts them back).")
    }
}

/// `suite restore DIR [--force]`.
struct RestoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Put back the stores of a backup made by 'suite backup'.",
        discussion: """
            Every copy is checked first (integrity, that it is the right kind of store, and that its \
            schema is the one suite makes: a copy with a trigger, view, table or index suite does \
            not make is refused, naming it; an older one is brought up to date), and only then \
            written into the stores, through \
            SQLite's backup API: suite processes running meanwhile see the old content or the \
            restored one. A store that changed after the backup was taken is not overwritten \
            unless --force (nothing is restored then); a store identical to its copy is left as it \
            is. A damaged store is moved aside (NAME.damaged-TIME) with --force, never written into. \
            Attached files go into the store folder's attachments/ first, and the todos point there.

            Examples:
              suite restore ~/backups/suite-2026-11-24
              suite restore ~/backups/suite-2026-11-24 --force
            """)

    /// The store files, in the order they are copied.
    static let storeFiles = SyncCommand.stores.map(\.fileName)

    @OptionGroup var options: TextOptions
    @Argument(help: ArgumentHelp("A folder written by 'suite backup'.", valueName: "dir")) var directory: String
    @Flag(help: "Overwrite stores that changed after the backup was taken, and move damaged stores aside.") var force = false

    func run() throws {
        let folder = try options.storeFolder()
        let source = URL(fileURLWithPath: directory).standardizedFileURL
        let manifestURL = source.appendingPathComponent(BackupManifest.fileName)
        guard FileManager.default.fileExists(atPath: manifestURL.path) else {
            throw CLIError.missingFile("\(source.path) holds no \(BackupManifest.fileName): not a suite backup, or one that was interrupted")
        }
        let manifest: BackupManifest
        do {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            manifest = try decoder.decode(BackupManifest.self, from: try Terminal.readFile(manifestURL.path, limit: 1 << 20))
        } catch let error as CLIError {
            throw error
        } catch {
            throw CLIError.badInput("\(manifestURL.path) is not a suite backup manifest")
        }
        guard manifest.format == BackupManifest.format else { throw CLIError.badInput("\(manifestURL.path) is a backup format this suite does not know (\(manifest.format))") }
        let known = Dictionary(uniqueKeysWithValues: SyncCommand.stores.map { ($0.fileName, $0) })
        guard !manifest.stores.isEmpty, manifest.stores.allSatisfy({ known[$0.file] != nil }), Set(manifest.stores.map(\.file)).count == manifest.stores.count else {
            throw CLIError.badInput("\(manifestURL.path) names stores suite does not have")
        }
        // Attached files: only copies a store makes, present in the backup, with a bundle store.
        let attached = manifest.attachments ?? []
        var attachedNames: [String] = []
        for attachment in attached {
            let name = String(attachment.file.dropFirst(BackupManifest.attachmentFolder.count + 1))
            guard attachment.file.hasPrefix(BackupManifest.attachmentFolder + "/"), BundleStore.isStoredCopyName(name),
                  manifest.stores.contains(where: { $0.file == BundleStore.fileName }) else {
                throw CLIError.badInput("\(manifestURL.path) names an attached file suite does not make: \("'" + VisibleText.visible(String(attachment.file.prefix(200)), oneLine: true) + "'")")
            }
            var info = stat()
            guard lstat(source.appendingPathComponent(attachment.file).path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
                throw CLIError.badInput("the backup's \("'" + VisibleText.visible(String(attachment.file.prefix(200)), oneLine: true) + "'") is missing: the backup is incomplete")
            }
            attachedNames.append(name)
        }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])

        // First every check, for every store; only then any write.
        struct Plan { var file: String; var staged: String; var live: String; var action: Action }
        enum Action { case create, replace, unchanged, moveAsideAndCreate }
        var plans: [Plan] = []
        var refusals: [String] = []
        defer { for plan in plans { StoreBackup.remove(plan.staged) } }
        for entry in manifest.stores {
            let copy = source.appendingPathComponent(entry.file).path
            let live = folder.appendingPathComponent(entry.file).path
            let staged = folder.appendingPathComponent(".restore-\(entry.file)").path
            StoreBackup.remove(staged)
            do {
                try StoreBackup.copy(from: copy, to: staged)
            } catch {
                StoreBackup.remove(staged)
                throw CLIError.badInput("the backup's \(entry.file) cannot be restored: \(ErrorReport.classify(error)?.1 ?? "\(error)")")
            }
            // Only the schema suite makes (a trigger, a cascade or a view in a copy would act in
            // the live store), checked before the copy is opened (at its own version) and after.
            // A check that cannot run refuses too.
            func requireSuiteSchema() throws {
                guard let check = CheckCommand.stores.first(where: { $0.fileName == entry.file })?.check else { return }
                let problems: [String]
                do {
                    problems = try check(URL(fileURLWithPath: staged))
                } catch {
                    problems = [ErrorReport.classify(error)?.1 ?? "\(error)"]
                }
                guard problems.isEmpty else {
                    StoreBackup.remove(staged)
                    let shown = problems.prefix(3).map { $0.hasPrefix(StoreCheck.schemaPrefix) ? String($0.dropFirst(StoreCheck.schemaPrefix.count)) : $0 }
                    throw CLIError.badInput("the backup's \(entry.file) cannot be restored: its schema is not the one suite makes: "
                        + shown.joined(separator: "; ") + (problems.count > 3 ? "; and \(problems.count - 3) more" : ""))
                }
            }
            try requireSuiteSchema()
            do {
                // Opening it as its store checks its kind and version, and updates an older one.
                if let store = known[entry.file] { _ = try store.open(URL(fileURLWithPath: staged)) }
                // Its todos point at the attached files where this restore puts them.
                if entry.file == BundleStore.fileName { try BundleStore(url: URL(fileURLWithPath: staged)).relocateStoredFiles() }
            } catch {
                StoreBackup.remove(staged)
                throw CLIError.badInput("the backup's \(entry.file) cannot be restored: \(ErrorReport.classify(error)?.1 ?? "\(error)")")
            }
            try requireSuiteSchema()
            var action = Action.create
            if FileManager.default.fileExists(atPath: live) {
                let current = folder.appendingPathComponent(".current-\(entry.file)").path
                StoreBackup.remove(current)
                defer { StoreBackup.remove(current) }
                do {
                    try StoreBackup.copy(from: live, to: current)
                    if StoreBackup.samePages(current, copy) || StoreBackup.samePages(current, staged) {
                        action = .unchanged
                    } else if let changed = StoreBackup.lastModified(live), changed > manifest.takenAt, !force {
                        refusals.append("\(live) changed at \(PeopleTime.stamp(changed)), after the backup was taken (\(PeopleTime.stamp(manifest.takenAt)))")
                    } else {
                        action = .replace
                    }
                } catch {
                    if force {
                        action = .moveAsideAndCreate
                    } else {
                        refusals.append("\(live) cannot be read (\(ErrorReport.classify(error)?.1 ?? "\(error)")); --force moves it aside")
                    }
                }
            }
            plans.append(Plan(file: entry.file, staged: staged, live: live, action: action))
        }
        guard refusals.isEmpty else {
            throw CLIError.failed("nothing restored: " + refusals.joined(separator: "; ") + "; use --force to overwrite")
        }
        // The attached files first: once the bundle store is back, its todos point at them.
        if !attachedNames.isEmpty {
            do {
                _ = try BundleStore.copyStoredFiles(attachedNames, from: source.appendingPathComponent(BackupManifest.attachmentFolder).path,
                                                    to: BundleStore.attachmentFolder(ofStoreAt: folder.appendingPathComponent(BundleStore.fileName).path))
            } catch {
                throw CLIError.io("no store restored: the attached files cannot all be put back (those copied are in \(folder.path)/attachments): "
                                  + (ErrorReport.classify(error)?.1 ?? "\(error)"))
            }
            print("attachments: \(attachedNames.count) file\(attachedNames.count == 1 ? "" : "s") in \(folder.path)/attachments")
        }
        for plan in plans {
            do {
                switch plan.action {
                case .unchanged:
                    print("\(plan.file): unchanged since the backup")
                    continue
                case .create:
                    try StoreBackup.copy(from: plan.staged, to: plan.live)
                case .moveAsideAndCreate:
                    let aside = plan.live + ".damaged-" + String(Int(Date().timeIntervalSince1970))
                    guard rename(plan.live, aside) == 0 else { throw CLIError.io("cannot move \(plan.live) aside: \(String(cString: strerror(errno)))") }
                    for suffix in ["-wal", "-shm"] { _ = rename(plan.live + suffix, aside + suffix) }
                    print("\(plan.file): the damaged store is now \(aside)")
                    try StoreBackup.copy(from: plan.staged, to: plan.live)
                case .replace:
                    try StoreBackup.replace(plan.live, with: plan.staged)
                }
            } catch let failure as StoreFailure {
                throw CLIError.io(StoreError(failure).description)
            }
            print("\(plan.file): restored")
        }
        print("Restored from \(source.path), taken \(PeopleTime.stamp(manifest.takenAt)).")
    }
}
