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
}
