// One libFuzzer entry point; SUITE_FUZZ_TARGET picks the parser. Every parser must either
// return a value or throw its typed error: a crash, a trap or a hang is a finding.
@testable import BundleCore
import Foundation
import MotivationCore
@testable import QuoteCore
@testable import WorkplaceCore

let target = ProcessInfo.processInfo.environment["SUITE_FUZZ_TARGET"] ?? ""
let utc = TimeZone(identifier: "UTC")!

/// The names Fuzz/run accepts.
let targets: [String: @Sendable (Data) -> Void] = [
    "fortune": { _ = try? FortuneParser.parse($0, category: "fuzz", path: "fuzz") },
    "quotable-json": { _ = try? QuoteJSON.parse($0, path: "fuzz") },
    "csv": { _ = try? QuoteCSV.parse($0, path: "fuzz") },
    "schedule": { data in
        let text = String(decoding: data, as: UTF8.self)
        _ = try? Schedule.parseTimes(text)
        _ = try? Schedule.parseWeekdays(text)
        _ = try? TimeRange.parse(text)
        if let times = try? Schedule.parseTimes(text), let schedule = try? Schedule(times: times, timeZoneIdentifier: "Europe/Berlin") {
            _ = schedule.nextSlots(after: Date(timeIntervalSince1970: 1_790_000_000), count: 5)
        }
    },
    "search-query": { _ = try? SearchQuery(String(decoding: $0, as: UTF8.self)) },
    "geojson": { _ = try? PlaceFiles.parseGeoJSON($0, file: "fuzz") },
    "overpass-json": { _ = try? OverpassProvider.parse($0) },
    "yelp-json": { data in
        if let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] {
            for business in object["businesses"] as? [[String: Any]] ?? [] { _ = try? YelpProvider.record(business) }
            _ = YelpProvider.hours(object)
        }
    },
    "opening-hours": { data in
        if let hours = WeeklyHours.parseOSM(String(decoding: data, as: UTF8.self)) {
            _ = hours.isOpen(at: Date(timeIntervalSince1970: 1_790_000_000), timeZone: utc)
            _ = hours.osmString
        }
    },
    "taskwarrior-json": { _ = try? TaskwarriorFormat.decode($0) },
    "vtodo": { _ = try? ICalendarFormat.decode($0) },
    "todotxt": { _ = try? TodoTxtFormat.decode($0, timeZone: utc, now: Date(timeIntervalSince1970: 1_790_000_000)) },
    "deadline": { _ = try? Deadline.parse(String(decoding: $0, as: UTF8.self), timeZone: utc) },
    "bmm-json": { _ = try? BusinessModelDocument.decode($0) },
    "cli": { CLIFuzz.run($0) },
]

@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

/// SwiftPM links an executable's entry point under this name; it hands over to libFuzzer's driver.
@_cdecl("suite_fuzz_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments) { start, size in
        fuzz(start, size)
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start else { return 0 }
    guard let run = targets[target] else {
        FileHandle.standardError.write(Data("set SUITE_FUZZ_TARGET to one of: \(targets.keys.sorted().joined(separator: ", "))\n".utf8))
        exit(2)
    }
    run(Data(bytes: start, count: count))
    return 0
}
