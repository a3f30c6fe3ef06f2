import Testing

/// Each scenario of `Scenarios/`, run in-process: a scripted desktop and the engine in this process.
@Suite("Scenarios, in-process", .endsWithin(.seconds(180)))
struct InProcessScenarioTests {
    @Test("a reinstalled desktop is mirrored whole; the earlier history is kept (version 1: marked gone)", arguments: [1, 2])
    func reinstall(version: Int) async throws {
        try await reinstallScenario(.inProcess, cursorVersion: version)
    }

    @Test("a pruned prefix and a deleted session are kept and marked, while new events still arrive")
    func prune() async throws {
        try await pruneScenario(.inProcess)
    }

    @Test("two desktops synced in turns into one mirror: every event of each exactly once", arguments: [1, 2])
    func twoDesktopsInTurns(version: Int) async throws {
        try await twoDesktopsInTurnsScenario(.inProcess, cursorVersion: version)
    }

    @Test("two desktops followed at once through dropped connections: every event of each exactly once")
    func followedAtOnce() async throws {
        try await followedAtOnceScenario(.inProcess)
    }
}

/// The smoke set of `Scenarios/`, end to end: the bridge simulator over loopback and `oa-sync`.
@Suite("Scenarios, end to end", .startsPrograms(endsWithin: .seconds(300)))
struct EndToEndScenarioTests {
    @Test("a reinstalled desktop is mirrored whole; the earlier history is kept (version 1: marked gone)", arguments: [1, 2])
    func reinstall(version: Int) async throws {
        try await reinstallScenario(.simulator, cursorVersion: version)
    }

    @Test("a pruned prefix and a deleted session are kept and marked, while new events still arrive")
    func prune() async throws {
        try await pruneScenario(.simulator)
    }

    @Test("two desktops synced in turns into one mirror: every event of each exactly once", arguments: [1, 2])
    func twoDesktopsInTurns(version: Int) async throws {
        try await twoDesktopsInTurnsScenario(.simulator, cursorVersion: version)
    }

    @Test("two desktops followed at once through dropped connections: every event of each exactly once")
    func followedAtOnce() async throws {
        try await followedAtOnceScenario(.simulator)
    }
}
