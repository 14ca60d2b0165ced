import SuiteServer
import Testing

@Suite("PostgreSQL URLs")
struct PostgresURLTests {
    @Test(arguments: [
        (text: "postgres://postgres@/postgres?host=/tmp/pg", endpoint: PostgresURL.Endpoint.unixSocket(path: "/tmp/pg/.s.PGSQL.5432"), user: "postgres", password: nil as String?, database: "postgres"),
        ("postgresql://me@/suite?host=%2Fvar%2Frun%2Fpostgresql&port=5433", .unixSocket(path: "/var/run/postgresql/.s.PGSQL.5433"), "me", nil, "suite"),
        ("postgres://me@:6000/suite?host=/run/pg/", .unixSocket(path: "/run/pg/.s.PGSQL.6000"), "me", nil, "suite"),
        ("postgres://user:p%40ss@db.example:6543/suite", .tcp(host: "db.example", port: 6543), "user", "p@ss", "suite"),
        ("postgres://user@localhost/suite", .tcp(host: "localhost", port: 5432), "user", nil, "suite"),
        ("postgres://user@[::1]:5433", .tcp(host: "::1", port: 5433), "user", nil, "user"),
        ("postgres://localhost/x?user=u&password=pw", .tcp(host: "localhost", port: 5432), "u", "pw", "x"),
    ])
    func parses(example: (text: String, endpoint: PostgresURL.Endpoint, user: String, password: String?, database: String)) throws {
        let (text, endpoint, user, password, database) = example
        let url = try PostgresURL(text)
        #expect(url.endpoint == endpoint)
        #expect(url.user == user)
        #expect(url.password == password)
        #expect(url.database == database)
        #expect(!url.description.contains("p@ss") && !url.description.contains("pw"))
    }

    /// What pg_dump and pg_restore get: the socket's folder and port, never the password.
    @Test func libpqURLs() throws {
        #expect(try PostgresURL("postgres://postgres@/postgres?host=/tmp/pg").libpqURL == "postgresql://postgres@/postgres?host=%2Ftmp%2Fpg&port=5432")
        #expect(try PostgresURL("postgres://user:p%40ss@db.example:6543/suite").libpqURL == "postgresql://user@db.example:6543/suite")
        #expect(try PostgresURL("postgres://user@[::1]:5433").libpqURL == "postgresql://user@[::1]:5433/user")
    }

    @Test(arguments: [
        "mysql://u@h/db",
        "postgres://u@h:port/db",
        "postgres://@h/db",
        "postgres://h/db",
        "postgres://u@/db",
        "postgres://u@h/db?sslmode=require",
        "postgres://u@h:70000/db",
        "postgres://u@[::1/db",
    ])
    func refuses(text: String) {
        #expect(throws: PostgresURL.ParseError.self) { try PostgresURL(text) }
    }
}
