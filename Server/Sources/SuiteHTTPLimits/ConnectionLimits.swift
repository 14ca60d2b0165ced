import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTPTypes

/// What one connection may hold: how many connections are open at once, in all and per client
/// address, and how long a client may take to send a request.
///
/// - A new connection must send its first request head within ``headTimeout``; a request's
///   body must arrive within ``bodyTimeout`` of its head; a connection idle between requests is
///   closed after ``idleTimeout``. Responses are never timed (an event stream lasts).
/// - At ``maximumConnections`` the server stops accepting (new connections wait in the
///   kernel's queue) until one closes, so it never runs out of descriptors.
/// - Past ``perAddress`` connections from one address (an IPv6 address by its /64), a new one
///   from there is closed at once, so one client cannot take every slot.
public struct ConnectionLimits: Sendable {
    public var maximumConnections: Int
    public var perAddress: Int?
    public var headTimeout: Duration
    public var bodyTimeout: Duration
    public var idleTimeout: Duration

    public init(maximumConnections: Int = ConnectionLimits.defaultMaximum(), perAddress: Int? = 128,
                 headTimeout: Duration = .seconds(10), bodyTimeout: Duration = .seconds(60), idleTimeout: Duration = .seconds(60)) {
        self.maximumConnections = maximumConnections
        self.perAddress = perAddress
        self.headTimeout = headTimeout
        self.bodyTimeout = bodyTimeout
        self.idleTimeout = idleTimeout
    }

    /// Descriptors kept for everything that is not a client connection (the database, files,
    /// the listening socket).
    public static let reservedDescriptors = 128

    /// The process's descriptor limit less ``reservedDescriptors``, at most 16,384.
    public static func defaultMaximum() -> Int {
        var limit = rlimit()
        #if canImport(Glibc)
        let status = getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        #else
        let status = getrlimit(RLIMIT_NOFILE, &limit)
        #endif
        guard status == 0 else { return 1024 - reservedDescriptors }
        let soft = Int(clamping: min(limit.rlim_cur, 1 << 20))
        return max(16, min(16_384, soft - reservedDescriptors))
    }

    /// The HTTP/1 server with these limits, over TLS when a configuration is given.
    public func server(gate: AddressGate, tls: TLSConfiguration? = nil) throws -> HTTPServerBuilder {
        let head = TimeAmount(headTimeout), body = TimeAmount(bodyTimeout)
        let http: HTTPServerBuilder = .http1(configuration: .init(
            additionalChannelHandlers: [AddressGateHandler(gate: gate), RequestTimeoutHandler(headTimeout: head, bodyTimeout: body)],
            idleTimeout: TimeAmount(idleTimeout)))
        guard let tls else { return http }
        return try .tls(http, tlsConfiguration: tls)
    }
}

/// The open connections, in all and per client address.
public final class AddressGate: Sendable {
    private let limit: Int?
    private let open = NIOLockedValueBox([String: Int]())
    private let total = NIOLockedValueBox(0)

    public init(limit: Int?) {
        self.limit = limit
    }

    /// Counts a connection in, unless its address has as many as allowed.
    func enter(_ address: String) -> Bool {
        if let limit {
            let admitted = open.withLockedValue { open in
                let count = open[address, default: 0]
                guard count < limit else { return false }
                open[address] = count + 1
                return true
            }
            guard admitted else { return false }
        }
        total.withLockedValue { $0 += 1 }
        return true
    }

    func leave(_ address: String) {
        total.withLockedValue { $0 -= 1 }
        guard limit != nil else { return }
        open.withLockedValue { open in
            let count = open[address, default: 1] - 1
            open[address] = count > 0 ? count : nil
        }
    }

    /// Connections open now.
    public var openCount: Int {
        total.withLockedValue { $0 }
    }
}

/// Closes a connection at once when its address already has as many as allowed.
final class AddressGateHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    private let gate: AddressGate
    private var admitted: String?

    init(gate: AddressGate) {
        self.gate = gate
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let address = ClientAddress(context.channel.remoteAddress).key
        if gate.enter(address) {
            admitted = address
        } else {
            context.close(promise: nil)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        if let admitted { gate.leave(admitted) }
        admitted = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard admitted != nil else { return }
        context.fireChannelRead(data)
    }
}

/// Closes a connection whose first request head has not fully arrived ``headTimeout`` after it
/// opened, or whose request body has not fully arrived ``bodyTimeout`` after its head. Later
/// heads are bounded by the server's idle timeout; responses are never timed.
final class RequestTimeoutHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let headTimeout: TimeAmount
    private let bodyTimeout: TimeAmount
    private var timer: Scheduled<Void>?
    private var sawHead = false

    init(headTimeout: TimeAmount, bodyTimeout: TimeAmount) {
        self.headTimeout = headTimeout
        self.bodyTimeout = bodyTimeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { arm(headTimeout, context: context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        disarm()
    }

    func channelActive(context: ChannelHandlerContext) {
        if timer == nil && !sawHead { arm(headTimeout, context: context) }
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        disarm()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            sawHead = true
            arm(bodyTimeout, context: context)
        case .body:
            break
        case .end:
            disarm()
        }
        context.fireChannelRead(data)
    }

    private func arm(_ delay: TimeAmount, context: ChannelHandlerContext) {
        disarm()
        timer = context.eventLoop.assumeIsolated().scheduleTask(in: delay) {
            self.timer = nil
            context.close(promise: nil)
        }
    }

    private func disarm() {
        timer?.cancel()
        timer = nil
    }
}
