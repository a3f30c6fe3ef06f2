import Foundation
import MirrorStore
import SyncEngine
import TestSupport
import Testing

/// The engine on a clock the test moves (`TestClock`): its waits take the test's time, not the
/// wall's.
@Suite("Sync engine on a test clock", .endsWithin(.seconds(120)))
struct EngineClockTests {
    @Test("a desktop off for hours: the engine backs off on its clock up to the six-hour cap, then mirrors it once it is back; the wall sees seconds")
    func backoffTakesNoWallTime() async throws {
        let directory = try TemporaryDirectory()
        let mirror = directory.path("mirror.sqlite")
        let desktop = ScriptedDesktop(flavor: .cursor(version: 2))
        await desktop.store(session: "S", text: "written while the client was away")
        await desktop.refuseConnections(true)
        let clock = TestClock()
        let backoff = BackoffPolicy(initial: .seconds(1), multiplier: 2, cap: .seconds(6 * 3600), healthyAfter: .seconds(30))
        let engine = try SyncEngine(
            mirrorPath: mirror,
            configuration: SyncConfiguration(bridgeURL: "scripted:", desktopName: "scripted", backoff: backoff),
            clock: clock, connector: ScriptedConnector(desktop: desktop)
        )
        let wallStarted = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await engine.run() }
            var waits: [Duration] = []
            for attempt in 1...30 {
                try await waitUntil("connection attempt \(attempt)") { await desktop.connectionAttempts >= attempt }
                let deadline = try await waitFor("the backoff after attempt \(attempt)", look: { clock.nextDeadline }, until: { $0 != nil })
                let wait = clock.now.duration(to: deadline ?? clock.now)
                #expect(wait <= backoff.ceiling(forAttempt: attempt - 1), "attempt \(attempt) waits within its ceiling")
                waits.append(wait)
                if attempt < 30 { clock.advance(by: wait) }
            }
            #expect(waits.reduce(.zero, +) > .seconds(6 * 3600), "thirty refusals in a row wait hours of the engine's time")
            await desktop.refuseConnections(false)
            clock.advance(by: waits.last ?? .zero)
            let reader = try MirrorStore(path: mirror, mode: .readOnly)
            try await waitFor("the mirror to hold the desktop's event", look: { try reader.counts().events }, until: { $0 == 1 })
            try await waitUntil("the engine to be live") { try reader.desktopStatuses().first?.connectionState == .live }
            group.cancelAll()
        }
        await engine.finish()
        #expect(ContinuousClock.now - wallStarted < .seconds(60))
    }

    @Test("the mirror's records are stamped by the wall clock the engine is given: sessions no longer listed, the desktop's status")
    func recordsTakeTheWallClockGiven() async throws {
        let directory = try TemporaryDirectory()
        let mirror = directory.path("mirror.sqlite")
        let desktop = ScriptedDesktop(flavor: .stock)
        await desktop.store(session: "KEPT", text: "kept ")
        await desktop.store(session: "DELETED", text: "doomed ")
        let wallNow = Int64(1_900_000_000_000)
        for round in 0..<2 {
            if round == 1 { await desktop.delete(session: "DELETED") }
            let engine = try SyncEngine(
                mirrorPath: mirror, configuration: SyncConfiguration(bridgeURL: "scripted:", desktopName: "scripted"),
                clock: TestClock(), wallClock: MirrorClock { wallNow + Int64(round) }, connector: ScriptedConnector(desktop: desktop)
            )
            _ = try await engine.syncOnce()
            await engine.finish()
        }
        let store = try MirrorStore(path: mirror, mode: .readOnly)
        #expect(try store.session(id: "DELETED")?.goneAt == wallNow + 1, "marked gone when it was found unlisted, by the clock given")
        #expect(try store.desktopStatuses().first?.lastSuccessAt == wallNow + 1)
    }
}
