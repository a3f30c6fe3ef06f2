import Commands
import Logging

/// The live updates of every open page, from one follower of the mirror's change log: oa-sync's
/// commits wake it (`MirrorChangeSignal`, no polling), it reads what they changed once, and tells
/// each page that shows a changed session, or the sessions list, to fetch what changed. Pages
/// never poll the database; an idle page costs a heartbeat every `heartbeatInterval`.
///
/// Each page's stream holds at most one message waiting: a page that does not keep up is told
/// once that something changed, however much did, and fetches it all.
actor LiveHub {
    /// What a page's stream is told.
    enum Message: Sendable, Equatable {
        /// What the page shows changed: fetch it again.
        case change
        /// Nothing changed: a comment that keeps the connection open through proxies.
        case heartbeat
    }

    /// How often an idle stream gets a heartbeat.
    static let heartbeatInterval = Duration.seconds(30)
    /// At most this many streams at once: a page beyond them loads, without live updates.
    static let maximumStreams = 512

    private struct Stream {
        /// The session it follows; nil: the sessions list (every session).
        var sessionID: String?
        var continuation: AsyncStream<Message>.Continuation
    }

    private var streams: [Int: Stream] = [:]
    private var nextID = 0
    private var finished = false

    /// A stream of the changes of `sessionID` (nil: of every session), or nil when there are too
    /// many already or the hub has finished.
    func subscribe(session sessionID: String?) -> AsyncStream<Message>? {
        guard !finished, streams.count < Self.maximumStreams else { return nil }
        let id = nextID
        nextID += 1
        let (stream, continuation) = AsyncStream.makeStream(of: Message.self, bufferingPolicy: .bufferingNewest(1))
        continuation.onTermination = { _ in Task { await self.unsubscribe(id) } }
        streams[id] = Stream(sessionID: sessionID, continuation: continuation)
        return stream
    }

    /// How many streams are open.
    var streamCount: Int { streams.count }

    private func unsubscribe(_ id: Int) {
        streams[id] = nil
    }

    /// Tells the streams that follow one of `sessions`, or every session, that it changed.
    func publish(changed sessions: Set<String>) {
        guard !sessions.isEmpty else { return }
        for stream in streams.values where stream.sessionID.map(sessions.contains) ?? true {
            stream.continuation.yield(.change)
        }
    }

    func heartbeat() {
        for stream in streams.values { stream.continuation.yield(.heartbeat) }
    }

    /// Ends every stream, and refuses new ones: the server is stopping.
    func finish() {
        finished = true
        for stream in streams.values { stream.continuation.finish() }
        streams = [:]
    }

    /// Follows the mirror at `mirrorPath` and publishes what its commits change, with a heartbeat
    /// every `heartbeatInterval`, until cancelled.
    func follow(mirrorPath: String, logger: Logger) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                while (try? await Task.sleep(for: Self.heartbeatInterval)) != nil {
                    await self.heartbeat()
                }
            }
            group.addTask {
                await ChangedSessions.follow(mirrorPath: mirrorPath) { error in
                    logger.warning("following the mirror for live updates failed", metadata: ["error": "\(error)"])
                } changed: { sessions in
                    await self.publish(changed: sessions)
                }
            }
            await group.next()
            group.cancelAll()
        }
    }
}
