import Foundation
import Hummingbird
import Prometheus

/// What `GET /metrics` shows, in Prometheus's text format: requests by route and status, their
/// latency, open connections and event streams, operations stored and removed by compactions.
/// Routes are named by their pattern (`/v1/logs/{log}/push`), never by a value; nothing holds a
/// token, a secret, an account name or a payload.
package final class ServerMetrics: Sendable {
    package let registry = PrometheusCollectorRegistry()
    private let operationsStored: Counter
    private let operationsRemoved: Counter
    private let connections: Gauge
    private let streams: Gauge

    package init() {
        operationsStored = registry.makeCounter(descriptor: MetricNameDescriptor(
            namespace: "suite", metricName: "operations_stored", unitName: "total", helpText: "Operations pushes stored."))
        operationsRemoved = registry.makeCounter(descriptor: MetricNameDescriptor(
            namespace: "suite", metricName: "operations_compacted", unitName: "total", helpText: "Operations compactions removed."))
        connections = registry.makeGauge(descriptor: MetricNameDescriptor(
            namespace: "suite", metricName: "connections_open", unitName: "", helpText: "Client connections open."))
        streams = registry.makeGauge(descriptor: MetricNameDescriptor(
            namespace: "suite", metricName: "event_streams_open", unitName: "", helpText: "Event streams open."))
    }

    /// Records one answered request.
    func request(route: String, method: String, status: Int, duration: Duration) {
        let labels = [("route", route), ("method", method), ("status", String(status))]
        registry.makeCounter(descriptor: MetricNameDescriptor(
            namespace: "suite", metricName: "http_requests", unitName: "total", helpText: "HTTP requests answered."), labels: labels).increment()
        registry.makeDurationHistogram(descriptor: MetricNameDescriptor(
            namespace: "suite", metricName: "http_request_duration", unitName: "seconds", helpText: "Time to answer (until the body starts for a stream)."),
            labels: [("route", route)], buckets: Self.buckets).record(duration)
    }

    static let buckets: [Duration] = [.milliseconds(1), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
                                      .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2.5), .seconds(5), .seconds(10)]

    func stored(_ count: Int) {
        if count > 0 { operationsStored.increment(by: Int64(count)) }
    }

    func compacted(_ count: Int64) {
        if count > 0 { operationsRemoved.increment(by: count) }
    }

    /// The text of `/metrics`, with the gauges read now.
    func text(connections open: Int, streams subscribers: Int) -> [UInt8] {
        connections.set(to: Double(open))
        streams.set(to: Double(subscribers))
        return registry.emitToBuffer()
    }
}

/// Times every request, counts it by route and status, and logs it with its request id (never
/// a header, a query or a body).
package struct MetricsMiddleware: RouterMiddleware {
    package typealias Context = ServerRequestContext
    let metrics: ServerMetrics

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let started = ContinuousClock.now
        let response = try await next(request, context)
        let route = context.endpointPath ?? "unmatched"
        let duration = ContinuousClock.now - started
        metrics.request(route: route, method: request.method.rawValue, status: response.status.code, duration: duration)
        context.logger.info("answered", metadata: [
            "method": .string(request.method.rawValue), "route": .string(route), "status": .stringConvertible(response.status.code),
            "ms": .stringConvertible((Double(duration.components.attoseconds) / 1e15 + Double(duration.components.seconds) * 1000).rounded()),
        ])
        return response
    }
}
