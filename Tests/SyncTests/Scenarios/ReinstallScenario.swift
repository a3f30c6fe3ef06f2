import MirrorStore
import TestSupport
import Testing

/// A reinstalled desktop (a new history, seqs from 1) is mirrored whole, and so is what comes
/// after; the earlier history stays, marked gone from the desktop when the bridge cannot say it is
/// another history (version 1 of the history cursor, which names none; a stock bridge, whose
/// sessions are then no longer listed). Written once, run where `place` says.
func reinstallScenario(_ place: DesktopPlace, _ flavor: ScriptedDesktop.Flavor) async throws {
    let directory = try TemporaryDirectory()
    let mirror = directory.path("mirror.sqlite")
    let desktop = try await place.desktop("desk", flavor, in: directory)
    let namesHistory = flavor == .cursor(version: 2)
    for session in 0..<4 { try await desktop.store(session: "before-\(session)", texts: (0..<225).map { "before \(session) \($0) " }) }
    #expect(try await desktop.syncOnce(mirror: mirror, name: "desk").eventsWritten == 900)
    let before = try await desktop.history()

    try await desktop.reinstall()
    for session in 0..<2 { try await desktop.store(session: "after-\(session)", texts: (0..<60).map { "after \(session) \($0) " }) }
    let second = try await desktop.syncOnce(mirror: mirror, name: "desk")
    #expect(second.eventsWritten == 120)
    #expect(second.saidHistoryStartedAgain == (flavor == .cursor(version: 1)), "said once, by a bridge that names no history")
    if flavor == .stock { #expect(second.sessionsGone == 4, "the sessions no longer listed: \(second)") }
    try await desktop.store(session: "after-reinstall", texts: (0..<5).map { "after the reinstall \($0) " })
    let third = try await desktop.syncOnce(mirror: mirror, name: "desk")
    #expect(third.eventsWritten == 5)
    #expect(!third.saidHistoryStartedAgain)
    let after = try await desktop.finalHistory()

    let store = try MirrorStore(path: mirror, mode: .readOnly)
    #expect(try store.counts().events == before.count + after.count, "nothing of either history lost, nothing twice")
    let sessions = try store.sessions()
    #expect(sessions.count == 7)
    let earlier = sessions.filter { $0.sessionID.hasPrefix("before-") }
    #expect(earlier.count == 4 && earlier.map(\.localEventCount).reduce(0, +) == 900)
    #expect(earlier.allSatisfy { ($0.goneAt != nil) == !namesHistory }, "its sessions are kept, marked unless the bridge names its history")
    #expect(sessions.filter { !$0.sessionID.hasPrefix("before-") }.allSatisfy { $0.goneAt == nil && $0.goneEventCount == 0 },
            "the reinstalled desktop's sessions are on it")
    guard case .cursor = flavor else { return }
    try expectMirrorHolds(before, mirror: mirror, onDesktop: namesHistory)
    try expectMirrorHolds(after, mirror: mirror)
    let histories = try store.histories()
    #expect(histories.count == 2 && histories.allSatisfy { $0.desktop == "desk" })
    #expect(histories.map(\.identity) == (namesHistory ? [.bridge, .bridge] : [.mirror, .mirror]))
    #expect((histories.first?.goneAt != nil) == !namesHistory, "the earlier history is gone from the desktop (version 1)")
}
