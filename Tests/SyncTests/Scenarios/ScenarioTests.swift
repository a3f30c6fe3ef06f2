import TestSupport
import Testing

/// Each scenario of `Scenarios/`, run in-process: a scripted desktop and the engine in this process.
@Suite("Scenarios, in-process", .endsWithin(.seconds(180)))
struct InProcessScenarioTests {
    @Test("a reinstalled desktop is mirrored whole; the earlier history is kept (marked gone unless the bridge names it)",
          arguments: InProcessScenarioTests.allFlavors)
    func reinstall(flavor: ScriptedDesktop.Flavor) async throws {
        try await reinstallScenario(.inProcess, flavor)
    }

    @Test("a pruned prefix and a deleted session are kept and marked, while new events still arrive", arguments: Self.flavors)
    func prune(flavor: ScriptedDesktop.Flavor) async throws {
        try await pruneScenario(.inProcess, flavor)
    }

    @Test("prompts: a refused one is marked failed and holds back its session; one whose answer is lost is sent again (cursor) or waits unconfirmed (stock)",
          arguments: Self.flavors)
    func outbox(flavor: ScriptedDesktop.Flavor) async throws {
        try await outboxScenario(.inProcess, flavor)
    }

    @Test("a certificate trusted on first use and remembered; another refused before anything is written, accepted when pinned")
    func certificatePins() async throws {
        try await certificatePinScenario(.inProcess)
    }

    static let flavors: [ScriptedDesktop.Flavor] = [.stock, .cursor(version: 2)]
    static let allFlavors: [ScriptedDesktop.Flavor] = [.stock, .cursor(version: 1), .cursor(version: 2)]

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
    @Test("a reinstalled desktop is mirrored whole; the earlier history is kept (marked gone unless the bridge names it)",
          arguments: InProcessScenarioTests.allFlavors)
    func reinstall(flavor: ScriptedDesktop.Flavor) async throws {
        try await reinstallScenario(.simulator, flavor)
    }

    @Test("a pruned prefix and a deleted session are kept and marked, while new events still arrive", arguments: InProcessScenarioTests.flavors)
    func prune(flavor: ScriptedDesktop.Flavor) async throws {
        try await pruneScenario(.simulator, flavor)
    }

    @Test("prompts: a refused one is marked failed and holds back its session; one whose answer is lost is sent again (cursor) or waits unconfirmed (stock)",
          arguments: InProcessScenarioTests.flavors)
    func outbox(flavor: ScriptedDesktop.Flavor) async throws {
        try await outboxScenario(.simulator, flavor)
    }

    @Test("a certificate trusted on first use and remembered; another refused before anything is written, accepted when pinned")
    func certificatePins() async throws {
        try await certificatePinScenario(.simulator)
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
