import Foundation
import SuiteStorage

// The store's reads and writes for async callers: each runs the synchronous method of the same
// name on a background thread (SQLite calls, fsync and waiting on another process block), so a
// screen's actor is never blocked. Same parameters, results and errors.

extension BusinessModelStore {
    /// `create(name:makeCurrent:)`, run off the caller's thread.
    @discardableResult
    public func create(name: String, makeCurrent: Bool = true) async throws(MotivationError) -> BusinessModel {
        try await Background.run { [self] () throws(MotivationError) in try create(name: name, makeCurrent: makeCurrent) }
    }

    /// `models()`, run off the caller's thread.
    public func models() async throws(MotivationError) -> [BusinessModelSummary] {
        try await Background.run { [self] () throws(MotivationError) in try models() }
    }

    /// `model(named:)`, run off the caller's thread.
    public func model(named name: String) async throws(MotivationError) -> BusinessModel {
        try await Background.run { [self] () throws(MotivationError) in try model(named: name) }
    }

    /// `model(_:)`, run off the caller's thread.
    public func model(_ id: BusinessModel.ID) async throws(MotivationError) -> BusinessModel {
        try await Background.run { [self] () throws(MotivationError) in try model(id) }
    }

    /// `current()`, run off the caller's thread.
    public func current() async throws(MotivationError) -> BusinessModel {
        try await Background.run { [self] () throws(MotivationError) in try current() }
    }

    /// `currentIfAny()`, run off the caller's thread.
    public func currentIfAny() async throws(MotivationError) -> BusinessModel? {
        try await Background.run { [self] () throws(MotivationError) in try currentIfAny() }
    }

    /// `use(named:)`, run off the caller's thread.
    @discardableResult
    public func use(named name: String) async throws(MotivationError) -> BusinessModel {
        try await Background.run { [self] () throws(MotivationError) in try use(named: name) }
    }

    /// `use(_:)`, run off the caller's thread.
    @discardableResult
    public func use(_ id: BusinessModel.ID) async throws(MotivationError) -> BusinessModel {
        try await Background.run { [self] () throws(MotivationError) in try use(id) }
    }

    /// `rename(_:to:)`, run off the caller's thread.
    @discardableResult
    public func rename(_ id: BusinessModel.ID, to newName: String) async throws(MotivationError) -> BusinessModel {
        try await Background.run { [self] () throws(MotivationError) in try rename(id, to: newName) }
    }

    /// `duplicate(_:as:)`, run off the caller's thread.
    @discardableResult
    public func duplicate(_ id: BusinessModel.ID, as newName: String) async throws(MotivationError) -> BusinessModel {
        try await Background.run { [self] () throws(MotivationError) in try duplicate(id, as: newName) }
    }

    /// `delete(named:)`, run off the caller's thread.
    public func delete(named name: String) async throws(MotivationError) {
        try await Background.run { [self] () throws(MotivationError) in try delete(named: name) }
    }

    /// `delete(_:)`, run off the caller's thread.
    public func delete(_ id: BusinessModel.ID) async throws(MotivationError) {
        try await Background.run { [self] () throws(MotivationError) in try delete(id) }
    }

    /// `save(text:confidence:section:in:)`, run off the caller's thread.
    @discardableResult
    public func save(
        text: String, confidence: Confidence? = nil, section: SectionID, in id: BusinessModel.ID
    ) async throws(MotivationError) -> BusinessModel {
        try await Background.run { [self] () throws(MotivationError) in try save(text: text, confidence: confidence, section: section, in: id) }
    }

    /// `setConfidence(_:section:in:)`, run off the caller's thread.
    @discardableResult
    public func setConfidence(_ confidence: Confidence?, section: SectionID, in id: BusinessModel.ID) async throws(MotivationError) -> BusinessModel {
        try await Background.run { [self] () throws(MotivationError) in try setConfidence(confidence, section: section, in: id) }
    }

    /// `history(of:in:)`, run off the caller's thread.
    public func history(of section: SectionID, in id: BusinessModel.ID) async throws(MotivationError) -> [SectionVersion] {
        try await Background.run { [self] () throws(MotivationError) in try history(of: section, in: id) }
    }

    /// `heads(of:in:)`, run off the caller's thread.
    public func heads(of section: SectionID, in id: BusinessModel.ID) async throws(MotivationError) -> [SectionVersion] {
        try await Background.run { [self] () throws(MotivationError) in try heads(of: section, in: id) }
    }

    /// `disagreements(in:)`, run off the caller's thread.
    public func disagreements(in id: BusinessModel.ID) async throws(MotivationError) -> [SectionID: [SectionVersion]] {
        try await Background.run { [self] () throws(MotivationError) in try disagreements(in: id) }
    }

    /// `restore(section:version:in:)`, run off the caller's thread.
    @discardableResult
    public func restore(section: SectionID, version: Int, in id: BusinessModel.ID) async throws(MotivationError) -> BusinessModel {
        try await Background.run { [self] () throws(MotivationError) in try restore(section: section, version: version, in: id) }
    }

    /// `document(for:)`, run off the caller's thread.
    public func document(for id: BusinessModel.ID) async throws(MotivationError) -> BusinessModelDocument {
        try await Background.run { [self] () throws(MotivationError) in try document(for: id) }
    }

    /// `importDocument(_:as:)`, run off the caller's thread.
    @discardableResult
    public func importDocument(_ document: BusinessModelDocument, as newName: String? = nil) async throws(MotivationError) -> BusinessModel {
        try await Background.run { [self] () throws(MotivationError) in try importDocument(document, as: newName) }
    }
}
