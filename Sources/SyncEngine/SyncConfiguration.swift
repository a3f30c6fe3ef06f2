import Bridge
import Foundation
import MirrorStore
import Primitives

/// How long to wait before reconnecting: exponential backoff with full jitter.
///
/// Attempt `n` (from 0) waits a uniformly random time in `0…min(cap, initial × multiplierⁿ)`, so
/// that many clients losing one bridge do not come back in step. A connection that stayed up for
/// `healthyAfter`, or that moved the mirror forward, resets the count (`attempt(after:lasted:madeProgress:)`).
public struct BackoffPolicy: Sendable, Equatable {
    public var initial: Duration
    public var multiplier: Double
    public var cap: Duration
    public var healthyAfter: Duration

    public init(initial: Duration = .milliseconds(500), multiplier: Double = 2, cap: Duration = .seconds(30),
                healthyAfter: Duration = .seconds(30)) {
        self.initial = initial
        self.multiplier = multiplier
        self.cap = cap
        self.healthyAfter = healthyAfter
    }

    /// The longest wait before attempt `attempt`.
    public func ceiling(forAttempt attempt: Int) -> Duration {
        let initialSeconds = initial.seconds
        let grown = initialSeconds * pow(multiplier, Double(min(attempt, 64)))
        return .seconds(min(cap.seconds, grown.isFinite ? grown : cap.seconds))
    }

    /// The attempt that follows a lost connection, the one before being `attempt`: 0 again after a
    /// connection that lasted `healthyAfter` or wrote to the mirror, so that a bridge that drops
    /// every few frames, each connection bringing some of a long catch-up, is not waited on for
    /// up to `cap` between pieces; else one more.
    public func attempt(after attempt: Int, lasted: Duration, madeProgress: Bool) -> Int {
        lasted >= healthyAfter || madeProgress ? 0 : attempt + 1
    }

    /// A random wait before attempt `attempt`.
    public func delay(forAttempt attempt: Int, using random: inout some RandomNumberGenerator) -> Duration {
        .seconds(Double.random(in: 0...ceiling(forAttempt: attempt).seconds, using: &random))
    }
}

/// Everything the sync engine needs to know besides the mirror.
public struct SyncConfiguration: Sendable {
    /// `ws://HOST:PORT` of the bridge.
    public var bridgeURL: String
    /// The desktop's short name (`DesktopName`): shown beside its sessions, and how a bridge that
    /// does not name its history is found again.
    public var desktopName: String
    public var clientOptions: BridgeClientOptions
    public var backoff: BackoffPolicy
    /// Events asked for by the first `tinyvex/history.changes` page (1…5000); later pages adapt to
    /// the bytes they hold (`PageSizer`).
    public var changesPageSize: Int
    /// Pages are committed together until a transaction holds about this many events (each
    /// transaction still holds the cursor that covers its events). A commit writes to the log
    /// every page of the indexes its events touched: events spread over many sessions touch most
    /// of them, so fewer, larger transactions write the log less (`docs/benchmarks.md`, issue 34).
    /// Two batches of this size are in memory during a catch-up: 36,000 small events keep a
    /// million of them under 150 MiB.
    public var eventsPerTransaction: Int
    /// …or about this many bytes of kinds, texts and updates, whichever comes first.
    public var bytesPerTransaction: Int
    /// A stock session with live updates is fetched again once it was quiet this long, to confirm them.
    public var refetchAfterQuiet: Duration
    /// How often the engine looks for prompts queued by other processes.
    public var outboxPollInterval: Duration
    /// The most live updates committed in one transaction (all that are waiting, up to this).
    public var liveBatchLimit: Int
    /// How often, at most, a history-cursor bridge's whole list of sessions is read again after a
    /// catch-up (to learn what the desktop no longer has), besides its first catch-up and when
    /// new sessions appeared.
    public var sessionsListInterval: Duration
    /// A session whose timeline could not be mirrored is tried again after this long, doubling
    /// with each failure in a row up to `failedSessionRetryCap`.
    public var failedSessionRetry: Duration = .seconds(60)
    public var failedSessionRetryCap: Duration = .seconds(6 * 3600)

    public init(
        bridgeURL: String,
        desktopName: String? = nil,
        clientOptions: BridgeClientOptions = BridgeClientOptions(),
        backoff: BackoffPolicy = BackoffPolicy(),
        changesPageSize: Int = 2000,
        eventsPerTransaction: Int = 36_000,
        bytesPerTransaction: Int = 8 << 20,
        refetchAfterQuiet: Duration = .seconds(2),
        outboxPollInterval: Duration = .milliseconds(250),
        liveBatchLimit: Int = 4096,
        sessionsListInterval: Duration = .seconds(300)
    ) {
        self.bridgeURL = bridgeURL
        self.desktopName = desktopName ?? DesktopName.default(forBridge: bridgeURL)
        self.clientOptions = clientOptions
        self.backoff = backoff
        self.changesPageSize = changesPageSize
        self.eventsPerTransaction = eventsPerTransaction
        self.bytesPerTransaction = bytesPerTransaction
        self.refetchAfterQuiet = refetchAfterQuiet
        self.outboxPollInterval = outboxPollInterval
        self.liveBatchLimit = liveBatchLimit
        self.sessionsListInterval = sessionsListInterval
    }
}
