import MirrorStore
import TestSupport
import Testing

/// A reinstalled desktop (a new history, seqs from 1) is mirrored whole, and so is what comes
/// after; the earlier history stays, marked gone from the desktop when the bridge names no
/// history (version 1). Written once, run where `place` says.
func reinstallScenario(_ place: DesktopPlace, cursorVersion version: Int) async throws {
    let directory = try TemporaryDirectory()
    let mirror = directory.path("mirror.sqlite")
    let desktop = try await place.desktop("desk", .cursor(version: version), in: directory)
    for session in 0..<4 { try await desktop.store(session: "before-\(session)", texts: (0..<225).map { "before \(session) \($0) " }) }
    #expect(try await desktop.syncOnce(mirror: mirror, name: "desk").eventsWritten == 900)
    let before = try await desktop.history()

    try await desktop.reinstall()
    for session in 0..<2 { try await desktop.store(session: "after-\(session)", texts: (0..<60).map { "after \(session) \($0) " }) }
    let second = try await desktop.syncOnce(mirror: mirror, name: "desk")
    #expect(second.eventsWritten == 120)
    #expect(second.saidHistoryStartedAgain == (version == 1), "said once, for a bridge that names no history")
    try await desktop.store(session: "after-reinstall", texts: (0..<5).map { "after the reinstall \($0) " })
    let third = try await desktop.syncOnce(mirror: mirror, name: "desk")
    #expect(third.eventsWritten == 5)
    #expect(!third.saidHistoryStartedAgain)
    let after = try await desktop.finalHistory()

    try expectMirrorHolds(before, mirror: mirror, onDesktop: version == 2)
    try expectMirrorHolds(after, mirror: mirror)
    let store = try MirrorStore(path: mirror, mode: .readOnly)
    #expect(try store.counts().events == before.count + after.count)
    let histories = try store.histories()
    #expect(histories.count == 2 && histories.allSatisfy { $0.desktop == "desk" })
    #expect(histories.map(\.identity) == (version == 2 ? [.bridge, .bridge] : [.mirror, .mirror]))
    #expect((histories.first?.goneAt != nil) == (version == 1), "the earlier history is gone from the desktop (version 1)")
    let earlier = try store.sessions().filter { $0.sessionID.hasPrefix("before-") }
    #expect(earlier.count == 4)
    #expect(earlier.allSatisfy { ($0.goneAt != nil) == (version == 1) }, "its sessions are kept, marked (version 1)")
}
