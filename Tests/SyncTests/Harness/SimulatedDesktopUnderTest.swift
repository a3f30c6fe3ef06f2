import Bridge
import TestSupport
import Testing

/// The bridge simulator over loopback, followed by the `oa-sync` program; a reinstall is a
/// simulator started anew on a history of its own, a new certificate one started anew on the same
/// port and history.
final class SimulatedDesktopUnderTest: DesktopUnderTest {
    private let label: String
    private let flavor: ScriptedDesktop.Flavor
    private let directory: TemporaryDirectory
    private var simulator: SimulatorProcess
    private var installs = 1
    private var certificatesMade = 0
    private var tls: TestCertificate?

    init(_ label: String, _ flavor: ScriptedDesktop.Flavor, presentsCertificate: Bool, directory: TemporaryDirectory) async throws {
        self.label = label
        self.flavor = flavor
        self.directory = directory
        if presentsCertificate {
            certificatesMade = 1
            tls = try await TestCertificate(named: "\(label)-certificate-1", in: directory)
        }
        simulator = try await Self.start(flavor, database: directory.path("\(label)-1.sqlite"), certificate: tls)
    }

    private static func start(_ flavor: ScriptedDesktop.Flavor, database: String, certificate: TestCertificate?,
                              port: Int = 0) async throws -> SimulatorProcess {
        var arguments = certificate?.simulatorArguments ?? []
        let started: SimulatorProcess
        switch flavor {
        case .stock:
            started = try await SimulatorProcess(flavor: "stock", database: database, port: port, extraArguments: arguments)
        case .cursor(let version):
            arguments += ["--history-cursor-version", String(version)]
            started = try await SimulatorProcess(flavor: "cursor", database: database, port: port, extraArguments: arguments)
        }
        if let certificate {
            #expect(started.url.hasPrefix("wss://127.0.0.1:"), "\(started.url)")
            #expect(started.readyLine.contains(certificate.pin.description), "the simulator shows its pin: \(started.readyLine)")
        }
        return started
    }

    @discardableResult
    private func control<T>(_ body: (SimulatorControl) async throws -> T) async throws -> T {
        try await SimulatorControl.withConnection(to: simulator.url) { try await body($0) }
    }

    func store(session: String, texts: [String]) async throws {
        try await control { try await $0.append(session, texts.map { SimulatorControl.chunk($0) }) }
    }

    func reinstall() async throws {
        try await simulator.stop()
        installs += 1
        simulator = try await Self.start(flavor, database: directory.path("\(label)-\(installs).sqlite"), certificate: tls)
    }

    func prune(session: String, oldest count: Int) async throws {
        try await control { try await $0.call("prune", ["session_id": .string(session), "count": .number(count)]) }
    }

    func delete(session: String) async throws {
        try await control { try await $0.call("delete_session", ["session_id": .string(session)]) }
    }

    func dropConnections() async throws {
        try await control { try await $0.call("drop_connections") }
    }

    func dropBeforeAnsweringPrompts(_ drops: Bool) async throws {
        try await control { try await $0.call("drop_before_answering_prompts", ["drops": .bool(drops)]) }
    }

    func prompts() async throws -> [ReceivedPrompt] {
        try await control { control in
            (try await control.call("prompts")["prompts"]?.arrayValue ?? []).map {
                ReceivedPrompt(sessionID: $0["session_id"]?.stringValue ?? "", text: $0["text"]?.stringValue ?? "")
            }
        }
    }

    var certificate: CertificatePin? {
        get async { tls?.pin }
    }

    func presentAnotherCertificate() async throws -> CertificatePin {
        let port = simulator.port
        try await simulator.stop()
        certificatesMade += 1
        let made = try await TestCertificate(named: "\(label)-certificate-\(certificatesMade)", in: directory)
        tls = made
        simulator = try await Self.start(flavor, database: simulator.databasePath, certificate: made, port: port)
        return made.pin
    }

    /// The bridge's address.
    var url: String { simulator.url }

    func sync(mirror: String, name: String, pin: CertificatePin?) async throws -> SyncOnceOutcome {
        // The colon form, as openssl prints a fingerprint.
        let pinArguments = pin.map { ["--tls-pin", "sha256:\($0)"] } ?? []
        let run = try await OASyncProcess.run(["--bridge", simulator.url, "--db", mirror, "--name", name, "--once"] + pinArguments)
        var outcome = SyncOnceOutcome(saidHistoryStartedAgain: run.standardError.contains("started again"))
        if run.standardError.contains("trusting \(simulator.url) on first use"), let presented = tls?.pin,
           run.standardError.contains(presented.description) {
            outcome.trustedOnFirstUse = presented
        }
        func count(_ pattern: Regex<(Substring, Substring)>, in text: String) -> Int {
            text.firstMatch(of: pattern).flatMap { Int($0.1) } ?? 0
        }
        let summary = run.standardOutput
        outcome.eventsWritten = count(/(\d+) event\(s\) written/, in: summary)
        outcome.promptsSent = count(/(\d+) prompt\(s\) sent/, in: summary)
        outcome.sessionsGone = count(/kept and marked: (\d+) session\(s\)/, in: summary)
        outcome.eventsGone = count(/kept and marked: \d+ session\(s\), (\d+) event\(s\)/, in: summary)
        switch run.status {
        case 0:
            break
        case 4:  // synced, with prompts refused or unconfirmed
            outcome.promptsRefused = count(/(\d+) prompt\(s\) refused/, in: run.standardError)
            outcome.promptsUnconfirmed = count(/(\d+) unconfirmed/, in: run.standardError)
        case 7:  // synced, but for sessions that could not be mirrored
            outcome.sessionsFailed = count(/(\d+) session\(s\) could not be mirrored/, in: run.standardError)
        case 5:
            outcome.failure = .certificateMismatch(said: run.standardError)
        default:
            outcome.failure = .other(said: "exit \(run.status): \(run.standardError)")
        }
        return outcome
    }

    func history() async throws -> [HistoryRow] {
        try simulatorHistory(simulator.databasePath)
    }

    func stop() async throws {
        try await simulator.stop()
    }
}
