import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import SuiteHTTP

/// `URLSession` as an `HTTPClient`, for apps: what WorkplaceCore's providers fetch
/// through and what SuiteSync's `SyncClient` talks to a sync server through.
///
/// It lives in its own module so that a program which never fetches (or brings its own client,
/// as the `suite` tool does) does not link `FoundationNetworking` on Linux, whose libcurl and
/// its thirty libraries cost every process start-up several milliseconds.
///
/// ```swift
/// import WorkplaceCore
/// import WorkplaceURLSession   // re-exports this module
///
/// let osm = OverpassProvider(userAgent: "MyApp/1.0 (me@example.com)", client: URLSessionHTTPClient())
///
/// import SuiteSync
/// import SuiteURLSession
///
/// let sync = SyncClient(folder: folder, stores: [todos], http: URLSessionHTTPClient())
/// ```
public struct URLSessionHTTPClient: HTTPClient {
    private let session: URLSession

    /// Creates a client with its own ephemeral session (no cache, no cookies kept).
    public init() {
        session = URLSession(configuration: Self.configuration)
    }

    private static var configuration: URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        return configuration
    }

    /// A session that answers a redirect as it is (``HTTPRequest/followsRedirects`` false).
    private static let unredirected = URLSession(configuration: configuration, delegate: RedirectRefusal(), delegateQueue: nil)

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        var urlRequest = URLRequest(url: request.url, timeoutInterval: request.timeout)
        urlRequest.httpMethod = request.method
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        urlRequest.httpBody = request.body
        let data: Data, response: URLResponse
        do {
            (data, response) = try await (request.followsRedirects ? session : Self.unredirected).data(for: urlRequest)
        } catch let error as URLError where error.code == .timedOut {
            throw HTTPClientError.timedOut
        } catch {
            throw HTTPClientError.failed(error.localizedDescription)
        }
        guard let http = response as? HTTPURLResponse else { throw HTTPClientError.failed("not an HTTP answer") }
        var headers: [String: String] = [:]
        for case let (name as String, value as String) in http.allHeaderFields { headers[name] = value }
        return HTTPResponse(status: http.statusCode, headers: headers, body: data)
    }
}

/// Hands a redirect back to the caller instead of following it.
private final class RedirectRefusal: NSObject, URLSessionTaskDelegate, Sendable {
    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
        completionHandler(nil)
    }
}
