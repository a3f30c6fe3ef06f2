import Bridge
import Foundation
import Logging
import ToolSupport

/// What the sender handed the simulator: the seqs it answered with, and the cuts.
struct SentUpdates: Sendable {
    var count: Int64 = 0
    var firstSeq: Int64 = .max
    var lastSeq: Int64 = .min
    var cuts = 0
    /// The bytes of text in the chunks of the reply that never ends.
    var endlessReplyBytes = 0
}

/// Hands the simulator live updates at a steady rate over a control connection of its own
/// (`_sim/append`, which stores and broadcasts them), the updates of each pacing tick one call
/// per session, and cuts every other connection (`_sim/drop_connections`) at an interval.
struct LiveSender {
    let url: String
    /// Updates a second, over every session.
    let rate: Int
    /// Sessions with turns that end; one more streams a reply that never ends.
    let endingSessions: Int
    let cutEvery: Duration?
    let duration: Duration

    /// The sessions' ids: the ending ones, then the endless one.
    var sessionIDs: [String] { (0...endingSessions).map { "soak-session-\($0)" } }

    /// Sends until `duration` has passed, calling `progress` after each tick with what was sent.
    func run(progress: @Sendable (SentUpdates) -> Void) async throws -> SentUpdates {
        try await BridgeClient.withConnection(to: url, options: BridgeClientOptions(closeTimeout: .seconds(5)).discardingNotifications,
                                              logger: Self.quietLogger) { control in
            var streams = (0..<endingSessions).map { LiveTurns(.endingTurns, seed: 0x50AC + UInt64($0)) }
            streams.append(LiveTurns(.endlessReply, seed: 0xE17D))
            let ids = sessionIDs
            var sent = SentUpdates()
            let start = ContinuousClock.now
            var nextCut = cutEvery.map { start + $0 }
            while ContinuousClock.now - start < duration {
                try Task.checkCancellation()
                let due = Int64((ContinuousClock.now - start).seconds * Double(rate))
                var bySession = Array(repeating: [JSONValue](), count: streams.count)
                var queued = sent.count
                while queued < due {
                    // Each session in turn: the endless reply takes one update in `streams.count`.
                    let index = Int(queued % Int64(streams.count))
                    let update = streams[index].next()
                    if index == endingSessions { sent.endlessReplyBytes += update["content"]?["content"]?["text"]?.stringValue?.utf8.count ?? 0 }
                    bySession[index].append(update)
                    queued += 1
                }
                for (index, updates) in bySession.enumerated() where !updates.isEmpty {
                    let (result, _) = try await control.call("_sim/append", params: ["session_id": .string(ids[index]), "updates": .array(updates)],
                                                             timeout: .seconds(30))
                    guard let seqs = result["seqs"]?.arrayValue?.compactMap(\.int64Value), seqs.count == updates.count else {
                        throw BenchmarkFailure("unexpected answer to _sim/append: \(String(decoding: JSONWriter.bytes(of: result), as: UTF8.self))")
                    }
                    sent.count += Int64(seqs.count)
                    sent.firstSeq = min(sent.firstSeq, seqs.min() ?? .max)
                    sent.lastSeq = max(sent.lastSeq, seqs.max() ?? .min)
                }
                if let cut = nextCut, ContinuousClock.now >= cut, let every = cutEvery {
                    _ = try await control.call("_sim/drop_connections", params: [:], timeout: .seconds(30))
                    sent.cuts += 1
                    nextCut = cut + every
                }
                progress(sent)
                try await Task.sleep(for: .milliseconds(50))
            }
            return sent
        }
    }

    /// Warnings and errors only, so that the control connection does not print.
    static var quietLogger: Logger {
        var logger = Logger(label: "oa-soak-bench")
        logger.logLevel = .warning
        return logger
    }
}
