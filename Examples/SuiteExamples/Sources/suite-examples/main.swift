// Four small real tasks, one per library, each with its own store in a temporary folder; or, with
// `watch-todos STORE_DIR`, an app-shaped screen that follows a bundle store (WatchTodos.swift);
// or, with `sync-todos SERVER ACCOUNT STORE_DIR`, an app that syncs its todos (SyncTodos.swift).
import BundleCore
import Foundation
import MotivationCore
import QuoteCore
import WorkplaceCore

if CommandLine.arguments.count > 1, CommandLine.arguments[1] == "watch-todos" {
    WatchTodos.start(Array(CommandLine.arguments.dropFirst(2)))
    dispatchMain()
}
if CommandLine.arguments.count > 1, CommandLine.arguments[1] == "sync-todos" {
    SyncTodos.start(Array(CommandLine.arguments.dropFirst(2)))
}

let folder = FileManager.default.temporaryDirectory.appendingPathComponent("suite-examples-\(UUID().uuidString)")
defer { try? FileManager.default.removeItem(at: folder) }

// 1. MotivationCore: the completeness of a business model. README's snippet opens the model or
// creates it the first time; run twice on one store, as a program run twice would.
let models = try BusinessModelStore(url: folder.appendingPathComponent(BusinessModelStore.fileName))
var bakery = try (try? models.model(named: "Acme Bakery")) ?? models.create(name: "Acme Bakery")
bakery = try (try? models.model(named: "Acme Bakery")) ?? models.create(name: "Acme Bakery")
try models.save(text: "Fresh bread by 7 am, two streets from you.", section: .valueProposition, in: bakery.id)
try models.save(text: "Commuters who want breakfast to go.", confidence: .someEvidence, section: .customerType, in: bakery.id)
let completeness = try models.current().completeness
print("Business model '\(bakery.name)': \(completeness.percent)% written; core sections missing: \(completeness.missing(at: .core).map(\.title).joined(separator: ", "))")
print("Sharing allowed: \(completeness.shareCheck.isAllowed)")

// 2. WorkplaceCore: the three best-rated places near a point.
let places = try PlaceStore(url: folder.appendingPathComponent(PlaceStore.fileName))
let here = try Coordinate(latitude: 52.5200, longitude: 13.4050)
try places.upsert([
    PlaceRecord(name: "Kaffee Eck", type: .coffeeShop, coordinate: try Coordinate(latitude: 52.5203, longitude: 13.4049), origin: .openStreetMap, providerID: "node/1"),
    PlaceRecord(name: "Stadtbibliothek", type: .library, coordinate: try Coordinate(latitude: 52.5190, longitude: 13.4070), origin: .openStreetMap, providerID: "node/2"),
    PlaceRecord(name: "Cowork Hub", type: .coworkingSpace, coordinate: try Coordinate(latitude: 52.5215, longitude: 13.4030), origin: .openStreetMap, providerID: "node/3"),
    PlaceRecord(name: "Loud Bar", type: .bar, coordinate: try Coordinate(latitude: 52.5201, longitude: 13.4051), origin: .openStreetMap, providerID: "node/4"),
])
let all = try places.allPlaces()
try places.rate(all[0].id, RatingChange(values: [.wifi: 4, .outlets: 3, .noise: 2]))
try places.rate(all[1].id, RatingChange(values: [.wifi: 5, .outlets: 5, .noise: 0, .seating: 4]))
try places.rate(all[2].id, RatingChange(values: [.wifi: 5, .outlets: 4, .noise: 1]))
try places.rate(all[3].id, RatingChange(values: [.wifi: 1, .noise: 5]))
let best = try places.near(PlaceQuery(center: here, radius: 1000, limit: 3, sort: .score))
print("Best places to work nearby:")
for item in best { print(String(format: "  %@ (%@), %.0f m, score %.2f", item.place.name, item.place.type.rawValue, item.distance, item.score)) }

// 3. QuoteCore: schedule the next five quotes.
let quotes = try QuoteStore(url: folder.appendingPathComponent(QuoteStore.fileName))
try quotes.installStarterCollection()
let schedule = try Schedule(times: try Schedule.parseTimes("3 between 09:00-21:00"), weekdays: try Schedule.parseWeekdays("mon-fri"),
                            timeZoneIdentifier: "Europe/Berlin")
try quotes.setSchedule(schedule, user: "example")
let start = try Date("2026-11-20T12:00:00Z", strategy: .iso8601)
print("Next five quote deliveries:")
for slot in schedule.nextSlots(after: start, count: 5) { print("  \(slot.formatted(.iso8601))") }
print("Quote of the day: \(try quotes.quoteOfTheDay(year: 2026, month: 11, day: 20).text)")

// 4. BundleCore: check in to an event and complete a bundle.
let bundles = try BundleStore(url: folder.appendingPathComponent(BundleStore.fileName))
try bundles.addTodo("Get the payment agreement signed", event: "go to Eastern branch", preposition: .before)
try bundles.addTodo("Pick up the new badge", event: "go to Eastern branch", preposition: .before)
try bundles.addTodo("Send the boss a summary", event: "go to Eastern branch", preposition: .after)
let offer = try bundles.offer(event: "go to eastern branch", direction: .aboutTo, timeZone: .current)
var bundle = try bundles.checkIn(event: offer.event.name, direction: .aboutTo, todoIDs: offer.todos.map(\.id), icon: "🏦", timeZone: .current)
for item in bundle.items { bundle = try bundles.markDone(item.todo.id, in: bundle.id) }
bundle = try bundles.complete(bundle.id)
print("Bundle '\(bundle.title)' \(bundle.status.rawValue) with \(bundle.items.count) todos; \(try bundles.todos().count) left in the pile.")
