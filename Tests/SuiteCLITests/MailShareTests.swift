import Foundation
import Testing

/// SHARE by e-mail (seed 000): a .eml message read back by Python's `email` package, the desktop's
/// mail program (xdg-email) given the document as an attachment, and exit 69 without either.
@Suite struct MailShareTests {
    func model() throws -> Suite {
        let suite = try Suite()
        #expect(try suite.run("bmm", "new", "Bäckerei Müller").status == 0)
        #expect(try suite.run("bmm", "set", "vp", "--text", "Fresh bread by 7 am — two streets from you.").status == 0)
        return suite
    }

    @Test func aMessageFileThatPythonsEmailPackageReadsBack() throws {
        let suite = try model()
        let eml = suite.path("share.eml")
        let result = try suite.run("bmm", "export", "--format", "markdown", "--mail", "partner@example.org", "-o", eml)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "Wrote \(eml), a message to partner@example.org with b-ckerei-m-ller.md attached (open it in your mail program).\n")
        let document = try suite.run("bmm", "export", "--format", "markdown").stdout
        let check = """
            import email, email.policy, sys
            message = email.message_from_binary_file(open(sys.argv[1], "rb"), policy=email.policy.default)
            assert message["To"] == "partner@example.org", message["To"]
            assert str(message["Subject"]) == "Business model: Bäckerei Müller", str(message["Subject"])
            assert message["X-Unsent"] == "1"
            assert message.get_content_type() == "multipart/mixed"
            parts = list(message.iter_attachments())
            assert len(parts) == 1, parts
            attachment = parts[0]
            assert attachment.get_filename() == "b-ckerei-m-ller.md", attachment.get_filename()
            assert attachment.get_content_type() == "text/markdown"
            sys.stdout.write(attachment.get_payload(decode=True).decode("utf-8"))
            body = message.get_body(preferencelist=("plain",)).get_content()
            assert "1 of 10 sections written" in body, body
            """
        let python = try suite.run(["exec python3 -c \"$1\" \"$2\"", "sh", check, eml], viaShell: true)
        #expect(python.status == 0, "\(python.stderr)")
        #expect(python.stdout == document)
        // A refused address changes nothing and names the problem.
        for bad in ["not-an-address", "a@b.org, c@d.org", "a@b.org\nBcc: x@y.org", "-x@example.org", "a@b.org?attach=/etc/passwd",
                    "a@b.org&bcc=x@y.org", "a%b@example.org", "a@exa_mple.org", "a@example", "a..b@example.org", "a@-x.org", "a\u{85}@example.org",
                    "ä@example.org"] {
            let refused = try suite.run("bmm", "export", "--mail", bad, "-o", suite.path("bad.eml"))
            #expect(refused.status == 64, "\(bad): \(refused.stderr)")
            #expect(!FileManager.default.fileExists(atPath: suite.path("bad.eml")))
        }
    }

    @Test func theDesktopMailProgramGetsTheDocumentAsAnAttachment() throws {
        let suite = try model()
        let bin = suite.path("bin")
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        // A stand-in for xdg-email that records its arguments and the attachment as it was.
        let fake = bin + "/xdg-email"
        try """
            #!/bin/sh
            printf '%s\\n' "$@" > "\(suite.path("args.txt"))"
            while [ $# -gt 0 ]; do
              if [ "$1" = "--attach" ]; then cp "$2" "\(suite.path("attached.html"))"; fi
              shift
            done
            """.write(toFile: fake, atomically: true, encoding: .utf8)
        chmod(fake, 0o755)
        let path = bin + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        let handed = try suite.run(["bmm", "export", "--format", "html", "--mail", "partner@example.org"],
                                   environment: ["PATH": path, "DISPLAY": ":0", "XDG_CACHE_HOME": suite.path("cache")])
        #expect(handed.status == 0, "\(handed.stderr)")
        #expect(handed.stdout.contains("Handed a message to partner@example.org"))
        let args = try String(contentsOfFile: suite.path("args.txt"), encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(args.first == "--utf8")
        #expect(args.contains("Business model: Bäckerei Müller"))
        #expect(args.last == "partner@example.org")
        let attached = try String(contentsOfFile: suite.path("attached.html"), encoding: .utf8)
        #expect(attached == (try suite.run("bmm", "export", "--format", "html").stdout))
        #expect(args.contains(suite.path("cache") + "/suite/mail/b-ckerei-m-ller.html"))

        // No desktop session (or no xdg-email): exit 69, saying what to do instead.
        let none = try suite.run(["bmm", "export", "--mail", "partner@example.org"], environment: ["PATH": path, "DISPLAY": nil, "WAYLAND_DISPLAY": nil])
        #expect(none.status == 69)
        #expect(none.stderr.contains("write the message with -o FILE.eml"))
    }
}
