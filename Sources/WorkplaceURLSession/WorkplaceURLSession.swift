// `URLSessionHTTPClient` for WorkplaceCore's providers: the same client SuiteSync uses, kept in
// `SuiteURLSession` so that a program which never fetches does not link FoundationNetworking.
@_exported import SuiteURLSession
