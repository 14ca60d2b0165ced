import Foundation
import Testing
@testable import WorkplaceCore

/// Notes follow the one text rule for text that may span lines, as every other such field does:
/// a CR (alone or before LF), U+2028 and U+2029 are line breaks, kept as LF, not refused.
@Suite struct PlaceNoteTextRuleTests {
    @Test(arguments: [("one\rtwo", "one\ntwo"), ("one\r\ntwo", "one\ntwo"), ("one\u{2028}two\u{2029}three", "one\ntwo\nthree"),
                      ("  tab\there\r\n", "tab\there")])
    func lineBreaksInNotesAreKeptAsLF(notes: String, stored: String) throws {
        let store = try freshPlaceStore()
        let place = try store.add(PlaceRecord(name: "Desk", type: .other, coordinate: berlin, origin: .user))
        #expect(try store.rate(place.id, RatingChange(notes: notes)).rating?.notes == stored)
        #expect(try store.place(place.id).rating?.notes == stored)
        try Rating(notes: notes).validate()
    }

    @Test func notesWithACarriageReturnImportFromGeoJSON() throws {
        let store = try freshPlaceStore()
        let file = """
            {"type": "FeatureCollection", "features": [{"type": "Feature", "geometry": {"type": "Point", "coordinates": [13.405, 52.52]},
             "properties": {"name": "Desk", "type": "library", "rating": {"notes": "quiet\\r\\nupstairs\\rwindow"}}}]}
            """
        #expect(try store.importFile(Data(file.utf8), name: "notes.geojson").added == 1)
        #expect(try store.allPlaces().first?.rating?.notes == "quiet\nupstairs\nwindow")
    }
}
