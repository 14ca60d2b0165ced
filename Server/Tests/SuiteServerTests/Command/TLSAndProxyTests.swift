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

    @Test(.enabled(if: (FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl") && FileManager.default.isExecutableFile(atPath: "/usr/bin/curl"))
                       || TestBackend.inCI, "openssl and curl are needed (.ci/run installs them)"))
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

    /// README's nginx configuration (`Server/Scripts/nginx/suite-server.conf`), run by a real
    /// nginx with a certificate made here: sign-up, a push and its event on an open stream go
    /// through it over HTTPS, and the server counts the address nginx forwards.
    @Test(.enabled(if: ["/usr/sbin/nginx", "/usr/bin/openssl", "/usr/bin/curl"].allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }
                       || TestBackend.inCI, "nginx, openssl and curl are needed (Debian: nginx-light, openssl, curl; .ci/run installs them)"))
    func readmesNginxConfigurationCarriesSyncAndEvents() async throws {
        let folder = ServerBinaryTests.temporaryFolder()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let cert = folder.appendingPathComponent("cert.pem").path, key = folder.appendingPathComponent("key.pem").path
        #expect(try await Self.run("/usr/bin/openssl", [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key, "-out", cert,
            "-days", "2", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"]).status == 0)
        let server = try await ServerProcess(["--data-dir", folder.appendingPathComponent("data").path, "--behind-proxy"])

        // The shipped site, with this test's address, certificate and server port.
        let shipped = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Scripts/nginx/suite-server.conf")
        let site = try String(contentsOf: shipped, encoding: .utf8)
        #expect(site.contains("listen 443 ssl;") && site.contains("proxy_pass http://127.0.0.1:8421;") && site.contains("proxy_buffering off;"))
        var nginx: Process?
        var port = 0
        for attempt in 0..<5 {
            port = Int.random(in: 30_000..<60_000)
            let prefix = folder.appendingPathComponent("nginx-\(attempt)")
            try FileManager.default.createDirectory(at: prefix, withIntermediateDirectories: true)
            let adapted = site
                .replacingOccurrences(of: "listen 443 ssl;", with: "listen 127.0.0.1:\(port) ssl;")
                .replacingOccurrences(of: "/etc/letsencrypt/live/sync.example.org/fullchain.pem", with: cert)
                .replacingOccurrences(of: "/etc/letsencrypt/live/sync.example.org/privkey.pem", with: key)
                .replacingOccurrences(of: "127.0.0.1:8421", with: "127.0.0.1:\(server.port)")
            try adapted.write(to: prefix.appendingPathComponent("site.conf"), atomically: true, encoding: .utf8)
            let temporary = ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"].map { "\($0)_temp_path \(prefix.path)/\($0);" }.joined(separator: " ")
            try """
                \(getuid() == 0 ? "user root;" : "")
                worker_processes 1;
                pid \(prefix.path)/nginx.pid;
                error_log \(prefix.path)/error.log;
                events { worker_connections 64; }
                http { access_log off; \(temporary) include \(prefix.path)/site.conf; }
                """.write(to: prefix.appendingPathComponent("nginx.conf"), atomically: true, encoding: .utf8)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/sbin/nginx")
            process.arguments = ["-e", "\(prefix.path)/error.log", "-p", prefix.path, "-c", "\(prefix.path)/nginx.conf", "-g", "daemon off;"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            for _ in 0..<100 where process.isRunning {
                if try await Self.run("/usr/bin/curl", ["-sS", "--max-time", "2", "--cacert", cert, "https://127.0.0.1:\(port)/v1/health"]).output == "ok" {
                    nginx = process
                    break
                }
                try await Task.sleep(for: .milliseconds(100))
            }
            if nginx != nil { break }
            if process.isRunning { process.terminate() }
        }
        let proxy = try #require(nginx, "nginx did not start")
        defer { proxy.terminate() }
        let base = "https://127.0.0.1:\(port)"

        let signup = Fixtures.signup()
        let body = folder.appendingPathComponent("signup.json")
        try SyncProtocol.encoder.encode(signup).write(to: body)
        let created = try await Self.run("/usr/bin/curl", ["-sS", "--max-time", "10", "--cacert", cert, "-H", "Content-Type: application/json",
                                                           "--data-binary", "@\(body.path)", "\(base)/v1/signup"])
        let token = try SyncProtocol.decoder.decode(SessionReply.self, from: Data(created.output.utf8)).token

        // An event stream through nginx, then a push: the event arrives while the stream is open.
        let stream = Process()
        stream.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        stream.arguments = ["-sSN", "--max-time", "20", "--cacert", cert, "-H", "Authorization: Bearer \(token)", "\(base)/v1/events"]
        let events = Pipe()
        stream.standardOutput = events
        stream.standardError = FileHandle.nullDevice
        try stream.run()
        defer { if stream.isRunning { stream.terminate() } }
        try await Task.sleep(for: .milliseconds(500))
        let push = folder.appendingPathComponent("push.json")
        try SyncProtocol.encoder.encode(SyncPushRequest(operations: Fixtures.operations("n", count: 3))).write(to: push)
        let pushed = try await Self.run("/usr/bin/curl", ["-sS", "--max-time", "10", "--cacert", cert, "-H", "Content-Type: application/json",
                                                          "-H", "Authorization: Bearer \(token)", "--data-binary", "@\(push.path)", "\(base)/v1/logs/notes/push"])
        #expect(pushed.status == 0)
        #expect(try SyncProtocol.decoder.decode(SyncPushReply.self, from: Data(pushed.output.utf8)).head == 3, "\(pushed.output)")
        let heard = try await blocking { () -> String in
            var text = ""
            while !text.contains("data: notes") {
                let chunk = events.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                text += String(decoding: chunk, as: UTF8.self)
            }
            return text
        }
        #expect(heard.contains("data: notes"), "the event went through nginx as it was written: \(heard)")
        stream.terminate()

        // A client cannot dodge the per-address limit with an X-Forwarded-For of its own: nginx
        // adds the address it sees, which the server counts. Ten wrong sign-ins, each claiming
        // another address, then the right password is refused too (429).
        let wrong = folder.appendingPathComponent("wrong.json")
        try SyncProtocol.encoder.encode(LoginRequest(account: signup.account, authenticationSecret: Data("guess".utf8), device: "x")).write(to: wrong)
        for attempt in 0..<10 {
            _ = try await Self.run("/usr/bin/curl", ["-sS", "--max-time", "10", "--cacert", cert, "-H", "Content-Type: application/json",
                                                     "-H", "X-Forwarded-For: 203.0.113.\(attempt)", "--data-binary", "@\(wrong.path)", "\(base)/v1/login"])
        }
        let right = folder.appendingPathComponent("right.json")
        try SyncProtocol.encoder.encode(LoginRequest(account: signup.account, authenticationSecret: signup.authenticationSecret, device: "x")).write(to: right)
        let limited = try await Self.run("/usr/bin/curl", ["-sS", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "10", "--cacert", cert,
                                                           "-H", "Content-Type: application/json", "--data-binary", "@\(right.path)", "\(base)/v1/login"])
        #expect(limited.output == "429")
        _ = try await server.stop()
    }
}
