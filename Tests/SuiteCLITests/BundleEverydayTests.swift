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

    /// §3: a todo has one number: the check-in lists todos by their `#id` and `--pick` takes it,
    /// whatever the order of the listing.
    @Test func pickTakesTheTodoNumberTheListingShows() throws {
        let suite = try Suite()
        try suite.run("bundle", "add", "Water the plant", "--when", "come back from work")
        try suite.run("bundle", "add", "Pay the rent", "--before", "go to the bank")
        try suite.run("bundle", "add", "Ask about the card", "--before", "go to the bank", "--deadline", "2020-01-01")
        let checkin = ["bundle", "checkin", "go to the bank", "--about-to"]
        let listing = try suite.run(checkin)
        let lines = listing.stdout.split(separator: "\n").dropFirst().map(String.init)
        // Overdue first: #3 is listed first, shown as #3.
        #expect(lines.count == 2 && lines[0].hasPrefix("  #3 Ask about the card") && lines[1].hasPrefix("  #2 Pay the rent"), "\(listing.stdout)")
        let picked = try suite.run(checkin + ["--pick", "2"])
        #expect(picked.status == 0, "\(picked.stderr)")
        #expect(picked.stdout.contains("#2 Pay the rent") && !picked.stdout.contains("Ask about the card"), "\(picked.stdout)")
        // The listing keeps #2, marked; picking it again is refused; #1 is not offered here.
        let again = try suite.run(checkin)
        #expect(again.stdout.contains("  (in bundle #1) #2 Pay the rent"), "\(again.stdout)")
        let before = try suite.dump("bundle.sqlite")
        expectFailure(try suite.run(checkin + ["--pick", "#2"]), status: 1, "todo #2 is already in bundle #1; pick from the unmarked ones")
        expectFailure(try suite.run(checkin + ["--pick", "1"]), status: 1, "todo #1 is not offered when you are about to go to the bank")
        expectFailure(try suite.run(checkin + ["--pick", "9"]), status: 1, "no todo #9")
        expectFailure(try suite.run(checkin + ["--pick", "5-9"]), status: 64, "--pick 5-9 takes no todo of the list")
        #expect(try suite.dump("bundle.sqlite") == before)
        let range = try suite.run(checkin + ["--pick", "3-3"])
        #expect(range.status == 0 && range.stdout.contains("#3 Ask about the card"), "\(range.stderr)")
    }

    /// §3: `done` on a todo in no open bundle says so.
    @Test func doneOutsideABundleSaysSo() throws {
        let suite = try Suite()
        try suite.run("bundle", "add", "Water the plant", "--when", "come back from work")
        let done = try suite.run("bundle", "done", "1")
        #expect(done.status == 0, "\(done.stderr)")
        #expect(done.stdout == "Done: #1 'Water the plant' (not in a bundle)\n", "\(done.stdout)")
    }

    /// §4: "I just finished", not "I'm just finished".
    @Test func justFinishedReadsAsEnglish() throws {
        let suite = try Suite()
        try suite.run("bundle", "add", "Send the boss a summary", "--after", "go to Eastern branch")
        let listing = try suite.run("bundle", "checkin", "go to Eastern branch", "--just-finished")
        #expect(listing.stdout.hasPrefix("I just finished go to Eastern branch. Choose"), "\(listing.stdout)")
        try suite.run("bundle", "checkin", "go to Eastern branch", "--just-finished", "--all")
        expectFailure(try suite.run("bundle", "checkin", "go to Eastern branch", "--just-finished", "--all"), status: 1,
                      "nothing is offered when you have just finished go to Eastern branch")
    }

    /// §5: a deadline with a time prints as local time for people (`Thu 2026-12-03 17:00` in
    /// Berlin for 16:00 UTC) in every human output; `--json` keeps RFC 3339.
    @Test func deadlinesPrintAsLocalTimeForPeople() async throws {
        let suite = try Suite()
        let utc = ["TZ": "UTC"], berlin = ["TZ": "Europe/Berlin"]
        #expect(try await suite.runProcessAsync(["bundle", "add", "Sign it", "--before", "go to the bank", "--deadline", "2026-12-03T16:00"], environment: utc).status == 0)
        try await suite.runProcessAsync(["bundle", "add", "Pay", "--before", "go to the bank", "--deadline", "2026-12-01"], environment: utc)
        let people = "Thu 2026-12-03 17:00"
        let outputs = [
            try await suite.runProcessAsync(["bundle", "list"], environment: berlin),
            try await suite.runProcessAsync(["bundle", "checkin", "go to the bank", "--about-to"], environment: berlin),
            try await suite.runProcessAsync(["bundle", "checkin", "go to the bank", "--about-to", "--all"], environment: berlin),
            try await suite.runProcessAsync(["bundle", "show"], environment: berlin),
            try await suite.runProcessAsync(["bundle", "current"], environment: berlin),
            try await suite.runProcessAsync(["bundle", "due", "--within", "36500d"], environment: berlin),
            try await suite.runProcessAsync(["bundle", "remind", "--stdout", "--within", "36500d"], environment: berlin),
        ]
        for output in outputs {
            #expect(output.status == 0, "\(output.stderr)")
            #expect(output.stdout.contains(people), "\(output.stdout)")
            #expect(!output.stdout.contains("T16:00") && !output.stdout.contains(":00Z"), "\(output.stdout)")
            #expect(output.stdout.contains("2026-12-01"), "a day stays a day: \(output.stdout)")
        }
        let json = try await suite.runProcessAsync(["bundle", "show", "--json"], environment: berlin)
        #expect(json.stdout.contains("2026-12-03T16:00:00Z"), "\(json.stdout)")
    }
}

/// §6: README's tour of `suite bundle` runs as written, top to bottom, against a fresh store:
/// every command exits 0. Lines piping another program's output in are left out.
@Suite struct BundleTourTests {
    /// The commands of the tour's shell block, in order (``ReadmeTour``).
    static func tourCommands() throws -> (commands: [String], skipped: [String]) {
        try ReadmeTour.commands(of: "suite bundle")
    }

    @Test func theBundleTourRunsAsWritten() async throws {
        let (commands, skipped) = try Self.tourCommands()
        #expect(commands.count >= 25 && commands.allSatisfy { $0.hasPrefix("suite bundle ") }, "\(commands)")
        #expect(skipped == ["task export | suite bundle import - --format taskwarrior"])
        let suite = try Suite()
        // The files the tour names, in the folder it runs in (its $HOME).
        try Data("%PDF-1.4 lease\n".utf8).write(to: URL(fileURLWithPath: suite.path("lease.pdf")))
        try Data("%PDF-1.4 form\n".utf8).write(to: URL(fileURLWithPath: suite.path("form.pdf")))
        let start = Date().addingTimeInterval(3 * 3600)
        let stamp = ISO8601DateFormatter.string(from: start, timeZone: TimeZone(identifier: "UTC")!, formatOptions: [.withYear, .withMonth, .withDay, .withTime, .withTimeZone])
            .replacingOccurrences(of: "-", with: "").replacingOccurrences(of: ":", with: "")
        try Data("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Suite tests//EN\r\nBEGIN:VEVENT\r\nUID:dentist@example.org\r\nDTSTAMP:\(stamp)\r\nDTSTART:\(stamp)\r\nSUMMARY:Dentist\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n".utf8)
            .write(to: URL(fileURLWithPath: suite.path("calendar.ics")))
        for command in commands {
            // As a shell runs it, in $HOME, `suite` being the binary under test.
            let result = try await ReadmeTour.runAsync(command, in: suite)
            #expect(result.status == 0, "\(command): exit \(result.status), \(result.stderr)")
        }
        #expect(FileManager.default.fileExists(atPath: suite.path("todos.json")))
    }
}
