import Foundation
import SuiteSyncProtocol
import Testing

/// `serve` over TLS with a certificate made here by openssl and checked by curl, behind a proxy
/// on this machine, and never in plain text on a public address by accident.
@Suite("TLS and proxy")
struct TLSAndProxyTests {
    /// Runs a program to its end; its status and standard output.
    static func run(_ program: String, _ arguments: [String]) async throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        return try await blocking {
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return (process.terminationStatus, String(decoding: data, as: UTF8.self))
        }
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl") && FileManager.default.isExecutableFile(atPath: "/usr/bin/curl"),
                   "openssl and curl are needed"))
    func servesHTTPSWithACertificateCurlAccepts() async throws {
        let folder = ServerBinaryTests.temporaryFolder()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let cert = folder.appendingPathComponent("cert.pem").path, key = folder.appendingPathComponent("key.pem").path
        let made = try await Self.run("/usr/bin/openssl", [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key, "-out", cert,
            "-days", "2", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"])
        #expect(made.status == 0)
        let server = try await ServerProcess(["--data-dir", folder.appendingPathComponent("data").path, "--tls-cert", cert, "--tls-key", key])
        let url = "https://127.0.0.1:\(server.port)/v1/health"
        let verified = try await Self.run("/usr/bin/curl", ["-sS", "--max-time", "10", "--cacert", cert, url])
        #expect(verified.status == 0)
        #expect(verified.output == "ok")
        // Without the certificate as a trust anchor curl refuses; plain HTTP gets no answer.
        #expect(try await Self.run("/usr/bin/curl", ["-sS", "--max-time", "10", url]).status != 0)
        #expect(try await Self.run("/usr/bin/curl", ["-sS", "--max-time", "10", "http://127.0.0.1:\(server.port)/v1/health"]).output != "ok")
        let end = try await server.stop()
        #expect(end.reason == .exit && end.status == 0)
    }

    @Test func plainHTTPOnAPublicAddressIsRefused() async throws {
        let refused = try await ServerBinaryTests.run(["serve", "--data-dir", "/tmp/unused", "--listen", "0.0.0.0:0"])
        #expect(refused.status == 64)
        #expect(refused.stderr.split(separator: "\n").count == 1)
        #expect(refused.stderr.contains("plain HTTP") && refused.stderr.contains("--tls-cert") && refused.stderr.contains("--behind-proxy"))
        let half = try await ServerBinaryTests.run(["serve", "--tls-cert", "/tmp/cert.pem"])
        #expect(half.status == 64)
        let missing = try await ServerBinaryTests.run(["serve", "--data-dir", "/tmp/unused", "--listen", "127.0.0.1:0",
                                                      "--tls-cert", "/nonexistent/cert.pem", "--tls-key", "/nonexistent/key.pem"])
        #expect(missing.status == 66)
        #expect(missing.stderr.split(separator: "\n").count == 1 && missing.stderr.contains("/nonexistent/cert.pem"))
    }

    /// Behind a proxy, limits count by the address the proxy forwards, and what the proxy got
    /// over plain HTTP is refused; without --behind-proxy, those headers change nothing.
    @Test(arguments: [true, false])
    func forwardedAddressesCountOnlyBehindAProxy(behindProxy: Bool) async throws {
        let folder = ServerBinaryTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try await ServerProcess(["--data-dir", folder.appendingPathComponent("data").path] + (behindProxy ? ["--behind-proxy"] : []))
        let port = server.port
        let signup = Fixtures.signup()
        let created = try await blocking {
            try LoopbackClient.request(port: port, method: "POST", path: "/v1/signup", headers: ["X-Forwarded-Proto": "https"], body: try SyncProtocol.encoder.encode(signup))
        }
        #expect(created.status == 201)
        func login(_ secret: Data, from forwarded: String) async throws -> Int {
            let body = try SyncProtocol.encoder.encode(LoginRequest(account: signup.account, authenticationSecret: secret, device: "x"))
            return try await blocking {
                try LoopbackClient.request(port: port, method: "POST", path: "/v1/login",
                                           headers: ["X-Forwarded-For": "198.51.100.1, \(forwarded)", "X-Forwarded-Proto": "https"], body: body).status
            }
        }
        for _ in 0..<10 { #expect(try await login(Data("guess".utf8), from: "203.0.113.7") == 401) }
        #expect(try await login(signup.authenticationSecret, from: "203.0.113.7") == 429)
        #expect(try await login(signup.authenticationSecret, from: "203.0.113.8") == (behindProxy ? 200 : 429))
        let plain = try await blocking {
            try LoopbackClient.request(port: port, method: "GET", path: "/v1/health", headers: ["X-Forwarded-Proto": "http"])
        }
        #expect(plain.status == (behindProxy ? 400 : 200))
        _ = try await server.stop()
    }
}
