import ArgumentParser
import Foundation
import SuiteEnvironment
import QuoteCore
import SuitePush

enum Schedules {
    /// A moment typed for `option`, in every time option's forms (``TimeOption``).
    static func day(_ text: String, option: String) throws -> Date {
        try TimeOption.moment(text, option: option)
    }

    static func stamp(_ date: Date, in timeZone: TimeZone = .current) -> String { PeopleTime.stamp(date, in: timeZone) }

    static func describe(_ schedule: Schedule) -> String {
        var lines = ["times:    \(schedule.timesText)",
                     "weekdays: \(schedule.weekdaysText)",
                     "zone:     \(schedule.timeZoneIdentifier)",
                     "missed:   \(schedule.missedSlots.rawValue)"]
        if !schedule.quietHours.isEmpty { lines.append("quiet:    \(schedule.quietHours.map(\.description).joined(separator: ","))") }
        if let category = schedule.category { lines.append("category: \(category)") }
        if schedule.tailored { lines.append("picks:    tailored to your favourites, notes and skipped quotes") }
        if schedule.reminders { lines.append("reminder: one from your not-to-do list with each quote") }
        return lines.joined(separator: "\n")
    }
}

extension Schedule.MissedSlots: ExpressibleByArgument {}

extension QuotesCommand {
    struct ScheduleGroup: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "schedule",
            abstract: "When quotes are delivered: show, set, clear, the next slots, and a timer to run the ticks.",
            subcommands: [Show.self, Set.self, Next.self, Clear.self, Install.self],
            defaultSubcommand: Show.self)

        struct Show: ParsableCommand {
            static let configuration = CommandConfiguration(commandName: "show", abstract: "The current schedule.",
                                                            discussion: "Example:\n  suite quotes schedule show")
            @OptionGroup var options: QuotesOptions
            func run() throws {
                let schedule = try options.open(readOnly: true).schedule(user: options.userName)
                if options.json { try Terminal.printJSON(schedule); return }
                print(schedule.map(Schedules.describe) ?? "No schedule: 'suite quotes schedule set \"09:00,13:30\"'.")
            }
        }

        struct Set: ParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "set", abstract: "Set the schedule.",
                discussion: """
                    TIMES is a list of times (09:00,13:30) or 'N between HH:MM-HH:MM [jitter M]'.

                    Examples:
                      suite quotes schedule set "09:00,13:30"
                      suite quotes schedule set "3 between 09:00-21:00 jitter 15" --weekdays mon-fri --quiet 12:00-13:00
                      suite quotes schedule set "08:30" --tailored --nottodo
                    """)
            @OptionGroup var options: QuotesTextOptions
            @Argument(help: ArgumentHelp("Times of day, or N between a window.", valueName: "times")) var times: String
            @Option(help: ArgumentHelp("mon-fri, mon,wed,fri, weekdays, weekends or all.", valueName: "days")) var weekdays = "all"
            @Option(help: ArgumentHelp("Quiet hours (repeatable), like 22:00-07:00.", valueName: "range")) var quiet: [String] = []
            @Option(help: ArgumentHelp("An IANA time zone (default: this machine's).", valueName: "zone")) var tz: String?
            @Option(help: ArgumentHelp("Only quotes of this category.", valueName: "name")) var category: String?
            @Option(help: ArgumentHelp("latest (deliver the last missed slot once) or skip.", valueName: "policy")) var missed: Schedule.MissedSlots = .latest
            @Flag(help: "Deliver picks tailored to your favourites, notes and skipped quotes ('random --tailored').") var tailored = false
            @Flag(name: .customLong("nottodo"), help: "With each quote, a reminder from your not-to-do list (one of the quote's category first).")
            var reminders = false

            func run() throws {
                let schedule = try Schedule(
                    times: try Schedule.parseTimes(times), weekdays: try Schedule.parseWeekdays(weekdays),
                    quietHours: try quiet.map { try TimeRange.parse($0) }, timeZoneIdentifier: tz ?? TimeZone.current.identifier,
                    category: category, missedSlots: missed, tailored: tailored, reminders: reminders)
                // The store refuses a category it does not have.
                try options.open().setSchedule(schedule, user: options.userName)
                print("Schedule set:\n\(Schedules.describe(schedule))")
            }
        }

        struct Next: ParsableCommand {
            static let configuration = CommandConfiguration(commandName: "next", abstract: "The next planned deliveries.",
                                                            discussion: "Example:\n  suite quotes schedule next --count 5")
            @OptionGroup var options: QuotesOptions
            @Option(parsing: .unconditional, help: ArgumentHelp("How many (at most 64, as an iPhone keeps).", valueName: "n"), transform: NumberOption.int(1...500, "--count"))
            var count = 5

            func run() throws {
                guard let schedule = try options.open(readOnly: true).schedule(user: options.userName) else {
                    throw CLIError.failed("no schedule: set one with 'suite quotes schedule set'")
                }
                let slots = schedule.nextSlots(after: Date(), count: count)
                if options.json { try Terminal.printJSON(slots); return }
                for slot in slots { print(Schedules.stamp(slot, in: schedule.timeZone)) }
            }
        }

        struct Clear: ParsableCommand {
            static let configuration = CommandConfiguration(commandName: "clear", abstract: "Remove the schedule.",
                                                            discussion: "Example:\n  suite quotes schedule clear")
            @OptionGroup var options: QuotesTextOptions
            func run() throws {
                try options.open().setSchedule(nil, user: options.userName)
                print("Schedule removed.")
            }
        }

        struct Install: ParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "install",
                abstract: "Run 'suite quotes tick' every minute: a systemd user timer, or --cron prints a crontab line.",
                discussion: "Example:\n  suite quotes schedule install && systemctl --user enable --now suite-quotes.timer")
            @OptionGroup var options: QuotesTextOptions
            @Flag(help: "Print a crontab line instead.") var cron = false

            func run() throws {
                // The store folder in use now, absolute: the timer runs elsewhere, with another
                // environment (no $SUITE_HOME, another working folder).
                let store = try options.common.storeFolder().standardizedFileURL.path
                var arguments = [TimerScripts.binaryPath(), "quotes", "tick", "--store-dir", store]
                if let user = options.user { arguments += ["--user", user] }
                try TimerScripts.install(name: "suite-quotes", summary: "Deliver a quote when one is due (suite quotes)", arguments: arguments,
                                         calendar: "minutely", cronTimes: "* * * * *", cron: cron)
            }
        }
    }

    struct Tick: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "tick",
            abstract: "Deliver the quote that is due, if any (run every minute by a timer; safe to repeat).",
            discussion: """
                Uses notify-send when a desktop session is there, otherwise prints; every browser \
                subscribed in the web app's settings gets it as a push notification too. A slot is delivered \
                once however often tick runs; after a long gap only the latest missed slot is delivered \
                (or none, with the schedule's 'missed skip'). With --at it only tries the schedule out: \
                it prints what a tick at that time would deliver and records nothing.

                Example:
                  suite quotes tick --stdout
                  suite quotes tick --say
                  suite quotes tick --at 2026-11-23T09:00
                  suite quotes tick --at 2026-11-23T09:00:00Z
                """)
        @OptionGroup var options: QuotesOptions
        @Flag(help: "Print the quote instead of notifying.") var stdout = false
        @Flag(help: "Also speak the delivered quote (espeak-ng; exit 69 without it, and nothing is delivered).") var say = false
        @Option(help: ArgumentHelp("Try the schedule out: show what a tick at this time would deliver, recording nothing (YYYY-MM-DDTHH:MM local, or with Z or an offset).",
                                   valueName: "time")) var at: String?

        func run() async throws {
            if let at {
                try tryOut(at: try TimeOption.moment(at, option: "--at"))
                return
            }
            // After the desktop's: a slow push service never delays it.
            if let push = try deliver() { await PushDelivery.send(push, folder: try options.commonOptions.storeFolder()) }
        }

        /// Delivers the quote that is due to the desktop or standard output; what browsers get.
        private func deliver() throws -> PushNotification? {
            // No speech engine: said before anything is delivered.
            let speech = say ? try Speech.engine() : nil
            let now = Date()
            let environment = Terminal.environment
            let desktop = environment["DISPLAY"] != nil || environment["WAYLAND_DISPLAY"] != nil || environment["DBUS_SESSION_BUS_ADDRESS"] != nil
            let notifier = (stdout || !desktop) ? nil : Executables.find("notify-send")
            let store = try options.openSeeded()
            guard let delivery = try store.deliverDue(now: now, user: options.userName, channel: notifier == nil ? "stdout" : "notify-send") else {
                if options.json { try Terminal.printJSON([String]()) }
                return nil
            }
            defer {
                if let speech {
                    do {
                        try Speech.run(QuoteExport.spokenText(delivery.quote), engine: speech, voice: nil, speed: nil, wav: false)
                    } catch {
                        Terminal.printError("suite: delivered #\(delivery.quote.id.rawValue), but could not speak it: \(error)")
                    }
                }
            }
            let title = QuoteExport.attribution(delivery.quote) ?? "Quote"
            let body = delivery.quote.text + (delivery.reminder.map { "\n\nNot to do: \($0.text)" } ?? "")
            if options.json {
                try Terminal.printJSON([delivery])
            } else if !Notifier.send(title, body, with: notifier) {
                print(Quotes.render(delivery.quote, showID: true))
                if let reminder = delivery.reminder { print("Not to do: \(reminder.text)") }
            }
            return PushNotification(title: title, body: body, url: "/quotes/quote/\(delivery.quote.id.rawValue)", tag: "quote")
        }

        /// `--at`: what a tick at `time` would deliver, printed; the history and the shuffle bag stay
        /// as they are, so trying a schedule out never holds back a real delivery.
        private func tryOut(at time: Date) throws {
            let store = try options.openSeeded()
            guard let schedule = try store.schedule(user: options.userName) else {
                throw CLIError.failed("no schedule: set one with 'suite quotes schedule set'")
            }
            let preview = try store.previewDue(now: time, user: options.userName, channel: "stdout")
            if options.json { try Terminal.printJSON(preview.map { [$0] } ?? []); return }
            guard let preview else {
                print("Nothing due at \(Schedules.stamp(time, in: schedule.timeZone)) (trying out: nothing recorded).")
                return
            }
            print("Due at \(Schedules.stamp(time, in: schedule.timeZone)): the slot of \(Schedules.stamp(preview.slot, in: schedule.timeZone)) (trying out: nothing recorded).")
            print(Quotes.render(preview.quote, showID: true))
            if let reminder = preview.reminder { print("Not to do: \(reminder.text)") }
        }
    }
}
