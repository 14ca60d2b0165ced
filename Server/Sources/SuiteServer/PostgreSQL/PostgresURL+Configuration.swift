import PostgresNIO

extension PostgresURL {
    /// The configuration of a single connection (migrations, the notification listener).
    package var connectionConfiguration: PostgresConnection.Configuration {
        switch endpoint {
        case .tcp(let host, let port):
            PostgresConnection.Configuration(host: host, port: port, username: user, password: password, database: database, tls: .disable)
        case .unixSocket(let path):
            PostgresConnection.Configuration(unixSocketPath: path, username: user, password: password, database: database)
        }
    }

    /// The configuration of the connection pool that serves requests.
    var clientConfiguration: PostgresClient.Configuration {
        switch endpoint {
        case .tcp(let host, let port):
            PostgresClient.Configuration(host: host, port: port, username: user, password: password, database: database, tls: .disable)
        case .unixSocket(let path):
            PostgresClient.Configuration(unixSocketPath: path, username: user, password: password, database: database)
        }
    }
}
