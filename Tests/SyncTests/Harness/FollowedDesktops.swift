import SyncEngine
import TestSupport
import Testing

/// Desktops followed at once by one engine in this process, or by one `oa-sync`, for the scope of
/// a body: the engine's run (on a `TestClock` that passes time whenever the engine sleeps on it) is
/// a child task of the scope, cancelled and finished at its end;
/// `oa-sync` is told to end (and must end well) or, when the body throws, ended.
enum FollowedDesktops {
    static func following<T>(_ desktops: [(name: String, desktop: any DesktopUnderTest)], mirror: String,
                             _ body: () async throws -> T) async throws -> T {
        let scripted = desktops.compactMap { named in
            (named.desktop as? ScriptedDesktopUnderTest).map { (name: named.name, desktop: $0.desktop) }
        }
        guard scripted.count == desktops.count else {
            let bridges = desktops.map { "\($0.name)=\(($0.desktop as? SimulatedDesktopUnderTest)?.url ?? "")" }
            let sync = try OASyncProcess(bridge: bridges[0], database: mirror, extraArguments: bridges.dropFirst().flatMap { ["--bridge", $0] })
            do {
                let result = try await body()
                #expect(await sync.terminate() == 0)
                return result
            } catch {
                _ = await sync.terminate()
                throw error
            }
        }
        // The engine's time is a test clock that moves whenever the engine sleeps on it: its
        // default backoff (0.5 s to 30 s) and its ticks take no wall time.
        let clock = TestClock()
        let engine = try SyncEngine(mirrorPath: mirror, bridges: scripted.map { named in
            BridgeTarget(configuration: SyncConfiguration(bridgeURL: "scripted:", desktopName: named.name),
                         connector: ScriptedConnector(desktop: named.desktop))
        }, clock: clock)
        let result = try await clock.passingTime {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await engine.run() }
                defer { group.cancelAll() }
                return try await body()
            }
        }
        await engine.finish()
        return result
    }
}
