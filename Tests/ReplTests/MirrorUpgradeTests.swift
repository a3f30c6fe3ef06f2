@testable import Commands
@testable import MirrorStore
import Testing
import TestSupport

@Suite("A mirror an older build made, opened by a command", .endsWithin(.seconds(60)))
struct MirrorUpgradeTests {
    @Test("its migrations' steps are told where the front end shows progress, the last as finished")
    func migrationProgress() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("mirror.sqlite")
        _ = try MirrorStore(path: path, mode: .readWrite, clock: .system, migratingTo: Migration.latestVersion - 2)
        let context = CommandContext(mirrorPath: path, bridgeURL: "ws://127.0.0.1:9")
        var reports: [CommandProgress] = []
        context.progress = { reports.append($0) }
        #expect(try context.store().schemaVersion() == Migration.latestVersion)
        #expect(reports.map(\.text) == ["updating the mirror's format: 0/2 steps", "updating the mirror's format: 1/2 steps",
                                        "updating the mirror's format: 2/2 steps"])
        #expect(reports.map(\.finished) == [false, false, true])
    }
}
