import BundleCore
import Foundation
import QuoteCore
import ServiceLifecycle
import SuitePush

/// `suite-web --deliver`: the web app as the timer of a machine without one (a home server).
/// Every minute it delivers what `suite quotes tick` and `suite bundle remind send` would — the
/// quote the schedule has due, the todos due within a day, the calendar events starting within a
/// day that have todos — to every subscribed browser. The stores record each delivery, so a timer
/// running beside it never delivers one twice. While no browser is subscribed it takes nothing,
/// leaving every delivery to the timer and its desktop notifications.
struct WebDeliveries: Service {
    let app: WebApp
    var every: Duration = .seconds(60)

    func run() async throws {
        try await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await app.deliverDue(now: Date())
                try await Task.sleep(for: every)
            }
        }
    }
}

extension WebApp {
    /// Delivers what is due at `now` to the subscribed browsers (none taken while there are none).
    ///
    /// - Returns: What was sent.
    @discardableResult
    func deliverDue(now: Date) async -> [PushNotification] {
        guard let entries = try? push.entries(), !entries.isEmpty else { return [] }
        var notifications: [PushNotification] = []
        do {
            if let delivery = try await quotes.run({ [user] in try $0.deliverDue(now: now, user: user, channel: "web-push") }) {
                notifications.append(PushNotification(
                    title: QuoteExport.attribution(delivery.quote) ?? "Quote",
                    body: delivery.quote.text + (delivery.reminder.map { "\n\nNot to do: \($0.text)" } ?? ""),
                    url: "/quotes/quote/\(delivery.quote.id.rawValue)", tag: "quote"))
            }
        } catch {
            Self.report("the quote that is due could not be delivered: \(error)")
        }
        do {
            for event in try await bundles.run({ try $0.takeEventReminders(within: 86_400) }) {
                let count = event.todos.count
                notifications.append(PushNotification(
                    title: "Before \(event.eventName): \(count) todo\(count == 1 ? "" : "s")",
                    body: event.todos.map(\.text).joined(separator: "\n"), url: "/bundle", tag: "event-\(event.eventID.rawValue)"))
            }
            for todo in try await bundles.run({ try $0.takeReminders(within: 86_400, timeZone: .current) }) {
                notifications.append(PushNotification(
                    title: "Due soon", body: todo.text + (todo.eventName.map { " (\(todo.preposition == .none ? "" : todo.preposition.rawValue + " ")\($0))" } ?? ""),
                    url: "/bundle", tag: "todo-\(todo.id.rawValue)"))
            }
        } catch {
            Self.report("the due todos could not be delivered: \(error)")
        }
        for notification in notifications {
            do {
                for case .failed(let reason) in try await pushSender.send(notification, store: push).values {
                    Self.report("a push notification was not delivered: \(reason)")
                }
            } catch {
                Self.report("push notifications: \(error)")
            }
        }
        return notifications
    }

    private static func report(_ line: String) {
        FileHandle.standardError.write(Data("suite-web: \(line)\n".utf8))
    }
}
