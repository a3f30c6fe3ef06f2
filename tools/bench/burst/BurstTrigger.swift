import Bridge
import Foundation
import Logging
import ToolSupport

/// A burst asked of the simulator, on a control connection of its own.
struct FiredBurst {
    let firstSeq: Int64
    let lastSeq: Int64
    /// When `_sim/burst` was sent.
    let triggered: ContinuousClock.Instant
    /// When its answer arrived: every update is stored, the broadcast starts.
    let answered: ContinuousClock.Instant
}

enum BurstTrigger {
    /// Connects, asks for a burst of `count` updates of about `bytes` bytes in the simulator's most
    /// recent session, and closes the connection once answered (so that the broadcast soon stops
    /// going to it).
    static func fire(url: String, count: Int, bytes: Int, deadline: Deadline) async throws -> FiredBurst {
        try await BridgeClient.withConnection(to: url, options: clientOptions, logger: quietLogger) { control in
            let session = try await control.recentSessions().first?.sessionID ?? "BURST"
            let params: JSONValue = ["session_id": .string(session), "count": .number(Int64(count)), "bytes": .number(Int64(bytes))]
            let triggered = ContinuousClock.now
            let (result, _) = try await control.call("_sim/burst", params: params, timeout: max(deadline.remaining, .seconds(1)))
            let answered = ContinuousClock.now
            guard let first = result["first_seq"]?.int64Value, let last = result["last_seq"]?.int64Value, last - first + 1 == Int64(count) else {
                throw BenchmarkFailure("\(deadline.phase): unexpected answer to _sim/burst: \(String(decoding: JSONWriter.bytes(of: result), as: UTF8.self))")
            }
            return FiredBurst(firstSeq: first, lastSeq: last, triggered: triggered, answered: answered)
        }
    }

    /// The benchmark's connections: closing one waits at most a few seconds for the close
    /// handshake (the bridge may still be sending it a burst).
    static var clientOptions: BridgeClientOptions {
        BridgeClientOptions(closeTimeout: .seconds(5))
    }

    /// The bridge client's logger: warnings and errors only, so that connections do not print.
    static var quietLogger: Logger {
        var logger = Logger(label: "oa-burst-bench")
        logger.logLevel = .warning
        return logger
    }
}
