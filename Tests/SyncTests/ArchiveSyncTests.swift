import Bridge
import Commands
import Foundation
import FrontEndSupport
import MirrorStore
import Testing
import TestSupport

/// The mirror as an archive of every desktop it has seen (protocol Part 3): histories kept apart
/// by identity, nothing deleted because a bridge stopped returning it.
@Suite("The mirror as an archive", .startsPrograms(endsWithin: .seconds(300)))
struct ArchiveSyncTests {
    @Test("stock: a reinstalled desktop's new sessions are mirrored; the earlier ones stay, marked gone")
    func stockReinstall() async throws {
        let directory = try TemporaryDirectory()
        let mirror = directory.path("mirror.sqlite")
        let before = try await SimulatorProcess(flavor: "stock", database: directory.path("before.sqlite"), seed: (4, 200))
        #expect(try await OASyncProcess.run(["--bridge", before.url, "--db", mirror, "--name", "desk", "--once"]).status == 0)
        let mirroredBefore = try MirrorStore(path: mirror, mode: .readOnly).counts().events
        try await before.stop()
        let after = try await SimulatorProcess(flavor: "stock", database: directory.path("after.sqlite"), seed: (2, 80),
                                         extraArguments: ["--seed", "7"])
        let second = try await OASyncProcess.run(["--bridge", after.url, "--db", mirror, "--name", "desk", "--once"])
        #expect(second.status == 0, "\(second.standardError)")
        #expect(second.standardOutput.contains("no longer on the desktop, kept and marked: 4 session(s)"), "\(second.standardOutput)")
        let store = try MirrorStore(path: mirror, mode: .readOnly)
        let sessions = try store.sessions()
        #expect(sessions.count == 6)
        let gone = sessions.filter { $0.goneAt != nil }
        #expect(gone.count == 4)
        #expect(gone.map(\.localEventCount).reduce(0, +) == Int64(mirroredBefore), "nothing of the earlier history lost")
    }

    @Test("stock: a pruned prefix and a deleted session are kept and marked, while new events still arrive")
    func stockPrunedAndDeleted() async throws {
        let directory = try TemporaryDirectory()
        let mirror = try await pruneAndDelete(in: directory)

        let store = try MirrorStore(path: mirror, mode: .readOnly)
        let pruned = try store.timeline(sessionID: "PRUNED")
        #expect(pruned.map(\.text).sorted() == (1...64).map { "event \($0) " }.sorted(), "all 64, each once")
        #expect(Set(pruned.filter { $0.goneAt != nil }.map(\.text)) == Set((1...25).map { "event \($0) " }))
        // (A stock bridge serves events of one millisecond in any order.)
        #expect(Set(pruned.suffix(4).map(\.text)) == Set((61...64).map { "event \($0) " }), "new events after the kept ones")
        #expect(try store.session(id: "PRUNED")?.goneEventCount == 25)
        // The bridge lists fewer than 10 sessions, so that list is all it has.
        let deleted = try #require(try store.session(id: "DELETED"))
        #expect(deleted.goneAt != nil && deleted.localEventCount == 5, "kept, marked gone")
        let listed = try await InProcessJSONLines.run(mirror: mirror, input: #"{"jsonrpc":"2.0","id":1,"method":"sessions.list","params":{}}"#)
        #expect(listed.standardOutput.contains(#""events_gone_from_desktop":25"#), "\(listed.standardOutput)")
        #expect(listed.standardOutput.contains(#""sync_state":"gone""#), "\(listed.standardOutput)")
    }
}

/// A session of 60 events and one of 5 mirrored from a stock simulator; then the desktop drops
/// the first's 25 oldest events and adds 4, and deletes the second, and oa-sync runs again.
/// Returns the mirror. (The history-cursor case is a scenario: `Scenarios/PruneScenario.swift`.)
private func pruneAndDelete(in directory: TemporaryDirectory) async throws -> String {
    let mirror = directory.path("mirror.sqlite")
    let simulator = try await SimulatorProcess(flavor: "stock", database: directory.path("stock.sqlite"))
    try await SimulatorControl.withConnection(to: simulator.url) { control in
        try await control.append("PRUNED", (1...60).map { SimulatorControl.chunk("event \($0) ") })
        try await control.append("DELETED", (1...5).map { SimulatorControl.chunk("doomed \($0) ") })
    }
    #expect(try await OASyncProcess.run(["--bridge", simulator.url, "--db", mirror, "--once"]).status == 0)
    try await SimulatorControl.withConnection(to: simulator.url) { control in
        _ = try await control.call("prune", ["session_id": "PRUNED", "count": 25])
        try await control.append("PRUNED", (61...64).map { SimulatorControl.chunk("event \($0) ") })
        _ = try await control.call("delete_session", ["session_id": "DELETED"])
    }
    let second = try await OASyncProcess.run(["--bridge", simulator.url, "--db", mirror, "--once"])
    #expect(second.status == 0, "\(second.standardError)")
    try await simulator.stop()
    return mirror
}
