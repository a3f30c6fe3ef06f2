import Bridge
import Foundation
import ToolSupport

/// A running `oa-bridge-sim` on 127.0.0.1 and a free port, stopped when released.
public final class SimulatorProcess {
    /// `ws://127.0.0.1:PORT` (`wss://` with a certificate).
    public let url: String
    /// The line it printed once ready.
    public let readyLine: String
    /// The simulator's history file.
    public let databasePath: String
    private let process: Process
    private let end: ProcessEnd

    /// The sample desktop history (12 sessions, 299 events), copied into `directory`.
    public static func sampleDatabase(in directory: TemporaryDirectory) throws -> String {
        let path = directory.path("history-\(UUID().uuidString).sqlite")
        try FileManager.default.copyItem(at: Repository.stockFixtures.appending(path: "tinyvex-sample.sqlite"),
                                         to: URL(fileURLWithPath: path))
        return path
    }

    /// Starts the simulator and waits for its ready line.
    ///
    /// - Parameters:
    ///   - database: the history file; `seed` fills it when it is new.
    ///   - seed: (sessions, events) of a synthetic history.
    ///   - port: 0 for any free port.
    ///   - extraArguments: more options (`--tls-cert`, `--token`, `--advertise NAME`, …).
    ///   - namespace: where to run it (its 127.0.0.1 is then the namespace's); nil: here.
    public init(flavor: String, database: String, seed: (sessions: Int, events: Int)? = nil, port: Int = 0,
                extraArguments: [String] = [], namespace: AvahiNamespace? = nil) async throws {
        ProgramGate.checkPlaceHeld(toStart: "oa-bridge-sim")
        databasePath = database
        var arguments = ["--flavor", flavor, "--port", String(port), "--db", database] + extraArguments
        if let seed { arguments += ["--sessions", String(seed.sessions), "--events", String(seed.events)] }
        let executable = BuildProducts.executable("oa-bridge-sim")
        let command = namespace?.wrap(executable, arguments) ?? (executable: executable, arguments: arguments)
        let started = try await SimulatorLauncher.start(executable: command.executable, arguments: command.arguments, timeout: .seconds(120))
        process = started.process
        end = ProcessEnd(watching: started.process)
        url = started.url
        readyLine = started.readyLine
    }

    /// Released, it is killed (SIGKILL) and not waited for: `stop()` or `kill()` wait.
    deinit {
        if !end.hasEnded { Foundation.kill(end.processIdentifier, SIGKILL) }
    }

    /// The port the simulator listens on.
    public var port: Int { Int(url.split(separator: ":").last ?? "") ?? 0 }

    /// Stops the simulator (SIGTERM) and waits for it to exit, at most 30 s (then SIGKILL, and
    /// `ProcessEnd.DidNotEnd`).
    public func stop() async throws {
        try await end.stop(within: .seconds(30), program: "oa-bridge-sim")
    }

    /// Freezes the simulator (SIGSTOP): its sockets stay open but nothing answers, not even pings.
    /// Returns once every thread of it has stopped: a thread stops only when it next runs, and
    /// until then it may still answer what it has read.
    public func freeze() async throws {
        let pid = process.processIdentifier
        Foundation.kill(pid, SIGSTOP)
        try await waitFor("every thread of oa-bridge-sim to stop", timeout: .seconds(30), look: { Self.threadStates(of: pid) },
                          until: { states in !states.isEmpty && states.allSatisfy { $0 == "T" } })
    }

    /// The state letter of each thread of `pid` (`R`, `S`, `T`, …), as Linux lists them.
    private static func threadStates(of pid: Int32) -> [String] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.compactMap { task in
            // The state follows the command's closing parenthesis: "PID (COMMAND) STATE …".
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return nil }
            return stat[stat.index(after: close)...].split(separator: " ").first.map(String.init)
        }
    }

    /// Lets a frozen simulator run again (SIGCONT).
    public func thaw() {
        Foundation.kill(process.processIdentifier, SIGCONT)
    }

    /// Kills the simulator with SIGKILL (no chance to finish anything) and waits for its end, at most 10 s.
    public func kill() async {
        await end.kill()
    }

}

/// A connection that drives the simulator through its `_sim/*` methods (it discards the
/// notifications the simulator broadcasts to it), for the length of a scope.
public struct SimulatorControl: Sendable {
    private let client: BridgeClient

    /// Connects a control connection to the simulator at `url`, runs `body` with it (on the
    /// caller's actor, by default), and closes it. Most scopes only drive the simulator: what
    /// `body` returns may be left unused.
    @discardableResult
    public static func withConnection<T>(
        to url: String,
        isolation: isolated (any Actor)? = #isolation,
        _ body: (SimulatorControl) async throws -> T
    ) async throws -> T {
        try await BridgeClient.withConnection(to: url, options: BridgeClientOptions.forTests.discardingNotifications, isolation: isolation) { client in
            try await body(SimulatorControl(client: client))
        }
    }

    /// Persists `updates` to `sessionID` and broadcasts them; returns their seqs.
    @discardableResult
    public func append(_ sessionID: String, _ updates: [JSONValue], delivery: String = "normal") async throws -> [Int64] {
        let (result, _) = try await client.call(
            "_sim/append",
            params: ["session_id": .string(sessionID), "updates": .array(updates), "delivery": .string(delivery)]
        )
        return (result["seqs"]?.arrayValue ?? []).compactMap(\.int64Value)
    }

    /// Calls any `_sim/*` method.
    @discardableResult
    public func call(_ method: String, _ params: JSONValue = [:]) async throws -> JSONValue {
        try await client.call("_sim/" + method, params: params).result
    }

    /// An agent message chunk update.
    public static func chunk(_ text: String, kind: UpdateKind = .agentMessageChunk) -> JSONValue {
        ["sessionUpdate": .string(kind.rawValue), "content": ["content": ["type": "text", "text": .string(text)]]]
    }
}

extension BridgeClientOptions {
    /// Defaults with timeouts long enough for a loaded test machine, and well within the tests'
    /// limits (`TestBound`), so that a wedged client fails as what it is (a handshake or a request
    /// timed out), not as a test past its limit; tests about timeouts pass their own short ones.
    public static let forTests = BridgeClientOptions(
        firstHandshakeTimeout: .seconds(30), retryHandshakeTimeout: .seconds(30), requestTimeout: .seconds(60))
}
