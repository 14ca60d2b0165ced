import Foundation
import SuiteEnvironment
import Testing

/// The one reading of the environment that the `suite` command and the web app share.
@Suite struct SuiteEnvironmentTests {
    @Test func theStoreFolderFollowsItsPrecedence() throws {
        let all = SuiteEnvironment(["HOME": "/home/ada", "SUITE_HOME": "/srv/suite", "XDG_DATA_HOME": "/data"])
        #expect(try all.storeFolderPath(option: "/given") == "/given")
        #expect(try all.storeFolderPath(option: nil) == "/srv/suite")
        #expect(try all.storeFolderPath(option: "") == "/srv/suite")
        #expect(try SuiteEnvironment(["HOME": "/home/ada", "SUITE_HOME": "", "XDG_DATA_HOME": "/data"]).storeFolderPath(option: nil) == "/data/suite")
        // A relative XDG_DATA_HOME is ignored, as the XDG spec says.
        #expect(try SuiteEnvironment(["HOME": "/home/ada", "XDG_DATA_HOME": "data"]).storeFolderPath(option: nil) == "/home/ada/.local/share/suite")
        #expect(try SuiteEnvironment(["HOME": "/home/ada/"]).storeFolderPath(option: nil) == "/home/ada/.local/share/suite")
        #expect(try all.storeFolder(option: nil) == URL(fileURLWithPath: "/srv/suite"))
    }

    @Test func aTildeIsTheHomeFolder() throws {
        let environment = SuiteEnvironment(["HOME": "/home/ada", "SUITE_HOME": "~/suite"])
        #expect(try environment.storeFolderPath(option: "~/notes") == "/home/ada/notes")
        #expect(try environment.storeFolderPath(option: "~") == "/home/ada")
        #expect(try environment.storeFolderPath(option: nil) == "/home/ada/suite")
        // Only a leading "~" or "~/": another user's "~bob" and a "~" inside stay as written.
        #expect(try environment.storeFolderPath(option: "~bob/x") == "~bob/x")
        #expect(try environment.storeFolderPath(option: "a/~/b") == "a/~/b")
        #expect(try SuiteEnvironment([:]).storeFolderPath(option: "~/x") == "~/x")
    }

    @Test func withoutAnyFolderItSaysWhatToSet() {
        #expect(throws: SuiteEnvironmentError.noStoreFolder) { try SuiteEnvironment(["HOME": ""]).storeFolderPath(option: nil) }
        #expect(SuiteEnvironmentError.noStoreFolder.description == "cannot find the store folder: set --store-dir, SUITE_HOME or HOME")
    }

    @Test func theUserIsTheOptionThenTheLoginName() {
        #expect(SuiteEnvironment(["USER": "ada", "LOGNAME": "lovelace"]).user(option: "bob") == "bob")
        #expect(SuiteEnvironment(["USER": "ada", "LOGNAME": "lovelace"]).user() == "ada")
        #expect(SuiteEnvironment(["USER": "", "LOGNAME": "lovelace"]).user(option: "") == "lovelace")
        #expect(SuiteEnvironment([:]).user() == "default")
    }

    @Test func providersAreTheOptionThenTheVariableThenTheRealService() throws {
        let environment = SuiteEnvironment(["SUITE_OVERPASS_URL": "http://127.0.0.1:9/api", "YELP_API_KEY": "k"])
        #expect(try environment.url(of: .overpass).absoluteString == "http://127.0.0.1:9/api")
        #expect(try environment.url(of: .overpass, option: "https://mirror.example/api").absoluteString == "https://mirror.example/api")
        #expect(try environment.url(of: .nominatim).absoluteString == "https://nominatim.openstreetmap.org")
        #expect(try environment.url(of: .openLibrary).absoluteString == "https://openlibrary.org")
        #expect(environment.yelpAPIKey == "k" && SuiteEnvironment([:]).yelpAPIKey == "")
        #expect(Set(SuiteEnvironment.Provider.allCases.map(\.variable)).count == SuiteEnvironment.Provider.allCases.count)
    }

    @Test func aProviderAddressThatIsNotHTTPIsRefusedNamingWhereItCameFrom() {
        let environment = SuiteEnvironment(["SUITE_YELP_URL": "ftp://x"])
        #expect(throws: SuiteEnvironmentError.notHTTP("SUITE_YELP_URL", "ftp://x")) { try environment.url(of: .yelp) }
        #expect(throws: SuiteEnvironmentError.notHTTP(nil, "file:///etc")) { try environment.url(of: .yelp, option: "file:///etc") }
        #expect(throws: SuiteEnvironmentError.notHTTP(nil, "http:nohost")) { try environment.url(of: .overpass, option: "http:nohost") }
        #expect(SuiteEnvironmentError.notHTTP("SUITE_YELP_URL", "ftp://x").description == "SUITE_YELP_URL 'ftp://x' is not an http(s) URL")
    }

    @Test func theUserAgentNamesTheAppAndVersion() {
        #expect(SuiteEnvironment.userAgent("places") == "suite-places/\(SuiteEnvironment.version) (Suite personal productivity tools; https://github.com/suite)")
    }
}
