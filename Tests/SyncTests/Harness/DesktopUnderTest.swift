import Bridge
import Foundation
import MirrorStore
import Synchronization
import SyncEngine
import TestSupport
import Testing

/// A desktop a sync scenario runs against. A scenario is written once, against this: in-process
/// by default (`ScriptedDesktop`, followed by the engine in this process: no socket, no program),
/// or end to end for the smoke set (the bridge simulator over loopback, followed by `oa-sync`).
///
/// Used by the one task that runs the scenario (the simulator's process handle is not `Sendable`).
protocol DesktopUnderTest {
    /// Stores `texts` in `session` as an agent's message chunks, and announces them live.
    func store(session: String, texts: [String]) async throws
    /// Forgets its history, as a reinstalled desktop does: seqs start again from 1, under a new
    /// history id (version 2) or none (version 1).
    func reinstall() async throws
    /// Forgets the session's `count` oldest events, as an app pruning old transcripts does.
    func prune(session: String, oldest count: Int) async throws
    /// Forgets a session and its events.
    func delete(session: String) async throws
    /// Ends every open connection at once.
    func dropConnections() async throws
    /// Syncs `mirror` with it once, naming it `name`.
    func syncOnce(mirror: String, name: String) async throws -> SyncOnceOutcome
    /// Every event it holds now, in seq order: what the mirror must hold of it.
    func history() async throws -> [HistoryRow]
    /// Ends what runs for it.
    func stop() async throws
}

extension DesktopUnderTest {
    /// Its history as the scenario ends, after which what runs for it is ended.
    func finalHistory() async throws -> [HistoryRow] {
        let history = try await history()
        try await stop()
        return history
    }
}

/// What one sync with a desktop under test did.
struct SyncOnceOutcome {
    var eventsWritten: Int
    /// It was told that the desktop's history started again.
    var saidHistoryStartedAgain: Bool
}

/// Where a scenario's desktop runs.
enum DesktopPlace: String, CaseIterable, CustomTestStringConvertible {
    /// `ScriptedDesktop` and the engine, in this process.
    case inProcess
    /// The bridge simulator over loopback, and the `oa-sync` program.
    case simulator

    var testDescription: String { rawValue }

    /// A history-cursor desktop of protocol `version`, here; its files in `directory`, named
    /// after `label`.
    func desktop(_ label: String, cursorVersion version: Int, in directory: TemporaryDirectory) async throws -> any DesktopUnderTest {
        switch self {
        case .inProcess: ScriptedDesktopUnderTest(desktop: ScriptedDesktop(flavor: .cursor(version: version)))
        case .simulator: try await SimulatedDesktopUnderTest(label, cursorVersion: version, directory: directory)
        }
    }
}

/// A scripted desktop, followed by an engine in this process.
struct ScriptedDesktopUnderTest: DesktopUnderTest {
    let desktop: ScriptedDesktop

    func store(session: String, texts: [String]) async throws {
        for text in texts { await desktop.store(session: session, text: text) }
    }

    func reinstall() async throws {
        await desktop.reinstall()
    }

    func prune(session: String, oldest count: Int) async throws {
        await desktop.prune(session: session, oldest: count)
    }

    func delete(session: String) async throws {
        await desktop.delete(session: session)
    }

    func dropConnections() async throws {
        await desktop.dropConnections()
    }

    func syncOnce(mirror: String, name: String) async throws -> SyncOnceOutcome {
        let saidStartedAgain = Mutex(false)
        let engine = try SyncEngine(
            mirrorPath: mirror,
            configuration: SyncConfiguration(bridgeURL: "scripted:", desktopName: name),
            connector: ScriptedConnector(desktop: desktop),
            observer: { _, event in
                if case .historyStartedAgain = event { saidStartedAgain.withLock { $0 = true } }
            }
        )
        let report = try await engine.syncOnce()
        await engine.finish()
        return SyncOnceOutcome(eventsWritten: report.eventsWritten, saidHistoryStartedAgain: saidStartedAgain.withLock { $0 })
    }

    func history() async throws -> [HistoryRow] {
        await desktop.historyRows
    }

    func stop() async throws {}
}

/// The bridge simulator over loopback, followed by the `oa-sync` program; a reinstall is a
/// simulator started anew on a history of its own.
final class SimulatedDesktopUnderTest: DesktopUnderTest {
    private let label: String
    private let cursorVersion: Int
    private let directory: TemporaryDirectory
    private var simulator: SimulatorProcess
    private var installs = 1

    init(_ label: String, cursorVersion: Int, directory: TemporaryDirectory) async throws {
        self.label = label
        self.cursorVersion = cursorVersion
        self.directory = directory
        simulator = try await Self.start(cursorVersion: cursorVersion, database: directory.path("\(label)-1.sqlite"))
    }

    private static func start(cursorVersion: Int, database: String) async throws -> SimulatorProcess {
        try await SimulatorProcess(flavor: "cursor", database: database, extraArguments: ["--history-cursor-version", String(cursorVersion)])
    }

    func store(session: String, texts: [String]) async throws {
        try await SimulatorControl.withConnection(to: simulator.url) { control in
            try await control.append(session, texts.map { SimulatorControl.chunk($0) })
        }
    }

    func reinstall() async throws {
        try await simulator.stop()
        installs += 1
        simulator = try await Self.start(cursorVersion: cursorVersion, database: directory.path("\(label)-\(installs).sqlite"))
    }

    func prune(session: String, oldest count: Int) async throws {
        try await SimulatorControl.withConnection(to: simulator.url) { control in
            try await control.call("prune", ["session_id": .string(session), "count": .number(count)])
        }
    }

    func delete(session: String) async throws {
        try await SimulatorControl.withConnection(to: simulator.url) { control in
            try await control.call("delete_session", ["session_id": .string(session)])
        }
    }

    func dropConnections() async throws {
        try await SimulatorControl.withConnection(to: simulator.url) { control in
            try await control.call("drop_connections")
        }
    }

    /// The bridge's address.
    var url: String { simulator.url }

    func syncOnce(mirror: String, name: String) async throws -> SyncOnceOutcome {
        let run = try await OASyncProcess.run(["--bridge", simulator.url, "--db", mirror, "--name", name, "--once"])
        #expect(run.status == 0, "\(run.standardError)")
        let written = run.standardOutput.firstMatch(of: /(\d+) event\(s\) written/).flatMap { Int($0.1) }
        return SyncOnceOutcome(eventsWritten: try #require(written, "\(run.standardOutput)"),
                               saidHistoryStartedAgain: run.standardError.contains("started again"))
    }

    func history() async throws -> [HistoryRow] {
        try simulatorHistory(simulator.databasePath)
    }

    func stop() async throws {
        try await simulator.stop()
    }
}

extension ScriptedDesktop {
    /// Its events as history rows, in seq order.
    var historyRows: [HistoryRow] {
        get async { await events.map { HistoryRow(seq: $0.seq, sessionID: $0.sessionID, updateJSON: $0.update.rawBytes) } }
    }
}

/// Desktops followed at once by one engine in this process, or by one `oa-sync`, for the scope of
/// a body: the engine's run is a child task of the scope, cancelled and finished at its end;
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
        let engine = try SyncEngine(mirrorPath: mirror, bridges: scripted.map { named in
            BridgeTarget(configuration: SyncConfiguration(bridgeURL: "scripted:", desktopName: named.name,
                                                          backoff: BackoffPolicy(initial: .milliseconds(5), cap: .milliseconds(50))),
                         connector: ScriptedConnector(desktop: named.desktop))
        })
        let result = try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await engine.run() }
            defer { group.cancelAll() }
            return try await body()
        }
        await engine.finish()
        return result
    }
}
