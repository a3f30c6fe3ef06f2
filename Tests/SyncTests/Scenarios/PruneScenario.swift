import FrontEndSupport
import MirrorStore
import TestSupport
import Testing

/// A desktop that drops a session's oldest events and deletes another session: the mirror keeps
/// both, marked gone from the desktop, and new events still arrive after the kept ones; every
/// front end says so. A history-cursor desktop says what it forgot in its sessions' list; a stock
/// one by serving less when a timeline is fetched again. Written once, run where `place` says.
func pruneScenario(_ place: DesktopPlace, _ flavor: ScriptedDesktop.Flavor) async throws {
    let directory = try TemporaryDirectory()
    let mirror = directory.path("mirror.sqlite")
    let desktop = try await place.desktop("desk", flavor, in: directory)
    try await desktop.store(session: "PRUNED", texts: (1...60).map { "event \($0) " })
    try await desktop.store(session: "DELETED", texts: (1...5).map { "doomed \($0) " })
    #expect(try await desktop.syncOnce(mirror: mirror, name: "desk").eventsWritten == 65)
    try await desktop.prune(session: "PRUNED", oldest: 25)
    try await desktop.store(session: "PRUNED", texts: (61...64).map { "event \($0) " })
    try await desktop.delete(session: "DELETED")
    let second = try await desktop.syncOnce(mirror: mirror, name: "desk")
    #expect(second.eventsWritten == 4 && second.eventsGone == 25 && second.sessionsGone == 1, "\(second)")
    let now = try await desktop.finalHistory()

    if flavor != .stock { try expectMirrorHolds(now, mirror: mirror) }
    let store = try MirrorStore(path: mirror, mode: .readOnly)
    let pruned = try store.timeline(sessionID: "PRUNED")
    // A stock bridge serves the events of one millisecond in any order: its timeline's order is
    // the one it served.
    let order: ([String]) -> [String] = flavor == .stock ? { $0.sorted() } : { $0 }
    #expect(order(pruned.map(\.text)) == order((1...64).map { "event \($0) " }), "all 64, each once")
    #expect(order(pruned.filter { $0.goneAt != nil }.map(\.text)) == order((1...25).map { "event \($0) " }))
    #expect(Set(pruned.suffix(4).map(\.text)) == Set((61...64).map { "event \($0) " }), "new events after the kept ones")
    let prunedSession = try #require(try store.session(id: "PRUNED"))
    #expect(prunedSession.goneAt == nil && prunedSession.goneEventCount == 25)
    let deleted = try #require(try store.session(id: "DELETED"))
    #expect(deleted.goneAt != nil && deleted.localEventCount == 5, "kept, marked gone")
    let shown = try await InProcessShell.run(mirror: mirror, commands: ["sessions"])
    #expect(shown.standardOutput.contains("gone"), "\(shown.standardOutput)")
    let show = try await InProcessShell.run(mirror: mirror, commands: ["show PRUNED"])
    #expect(show.standardOutput.hasPrefix(flavor == .stock ? "(25 of its events (#"
                                              : "(25 of its events (#0–#24) are no longer on its desktop desk: kept in the mirror.)"),
            "\(show.standardOutput.prefix(200))")
    let exported = try await InProcessShell.run(mirror: mirror, commands: ["export DELETED"])
    #expect(exported.standardOutput.contains("- No longer on its desktop desk (noticed "), "\(exported.standardOutput.prefix(300))")
    let listed = try await InProcessJSONLines.run(mirror: mirror, input: #"{"jsonrpc":"2.0","id":1,"method":"sessions.list","params":{}}"#)
    #expect(listed.standardOutput.contains(#""events_gone_from_desktop":25"#), "\(listed.standardOutput)")
    #expect(listed.standardOutput.contains(#""sync_state":"gone""#), "\(listed.standardOutput)")
    let raw = try await InProcessShell.run(mirror: mirror, commands: ["show PRUNED --raw"], mode: .json)
    #expect(raw.standardOutput.components(separatedBy: #""gone_from_desktop_at":"20"#).count - 1 == 25, "each gone event says when")
}
