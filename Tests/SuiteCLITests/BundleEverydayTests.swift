import Foundation
import Testing
@testable import SuiteCLI

/// Everyday seams of `suite bundle` a new user found (issue 38).
@Suite struct BundleEverydayTests {
    /// The number of todos in the store, whatever their status.
    static func todoCount(_ suite: Suite) throws -> Int {
        let listed = try suite.run("bundle", "list", "--all", "--json")
        return (try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [Any])?.count ?? -1
    }

    /// §1: a routine brings back its own todos (pending ones as they are, done ones reopened),
    /// never copies, however often it is used; while one is still in an open bundle it is refused.
    @Test func aRoutineBringsBackItsOwnTodosEveryTime() throws {
        let suite = try Suite()
        try suite.run("bundle", "add", "Pack a towel", "--before", "go to the gym")
        try suite.run("bundle", "add", "Pack the shoes", "--before", "go to the gym")
        #expect(try suite.run("bundle", "checkin", "go to the gym", "--about-to", "--all").status == 0)
        try suite.run("bundle", "done", "1")
        try suite.run("bundle", "done", "2")
        try suite.run("bundle", "complete")
        #expect(try suite.run("bundle", "routine", "save", "Gym bag", "--bundle", "1").status == 0)
        let checkin = ["bundle", "checkin", "go to the gym", "--about-to", "--routine", "Gym bag"]

        // Both done: both reopened, in bundle #2.
        let second = try suite.run(checkin)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stdout.contains("[ ] #1 Pack a towel") && second.stdout.contains("[ ] #2 Pack the shoes"), "\(second.stdout)")
        #expect(try Self.todoCount(suite) == 2)
        // One done, one thrown back (pending): the same two again.
        try suite.run("bundle", "done", "1")
        try suite.run("bundle", "throwback", "2")
        try suite.run("bundle", "complete")
        let third = try suite.run(checkin)
        #expect(third.status == 0, "\(third.stderr)")
        #expect(third.stdout.contains("[ ] #1 Pack a towel") && third.stdout.contains("[ ] #2 Pack the shoes"), "\(third.stdout)")
        #expect(try Self.todoCount(suite) == 2)
        // Abandoned, not completed: the same two again.
        try suite.run("bundle", "abandon")
        #expect(try suite.run(checkin).status == 0)
        #expect(try Self.todoCount(suite) == 2)
        // Left open: refused, and nothing changes.
        let before = try suite.dump("bundle.sqlite")
        expectFailure(try suite.run(checkin), status: 1, "todo #1 of the routine 'Gym bag' is still in the open bundle #4")
        #expect(try suite.dump("bundle.sqlite") == before)
        #expect(try Self.todoCount(suite) == 2)
        let pending = try suite.run("bundle", "list", "--json")
        #expect(pending.stdout.components(separatedBy: "\"Pack a towel\"").count == 2, "\(pending.stdout)")
    }

}
