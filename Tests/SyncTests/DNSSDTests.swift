import Foundation
import FrontEndSupport
import Testing
import TestSupport
import ToolSupport

/// DNS-SD with the real binaries, each test in a network namespace of its own with a private
/// avahi-daemon (`AvahiNamespace`): nothing is multicast outside it.
@Suite("DNS-SD discovery and dnssd bridges", .serialized, .startsPrograms(endsWithin: .seconds(180)), .enabled {
    if let reason = AvahiNamespace.skipReason { print("DNS-SD tests skipped: \(reason)") }
    return AvahiNamespace.skipReason == nil
})
struct DNSSDTests {
    @Test("--discover lists an advertised simulator: its name and URL; its TXT record says proto and history_cursor")
    func discoversAdvertisedSimulator() async throws {
        let namespace = try await AvahiNamespace()
        let simulator = try await SimulatorProcess(flavor: "cursor", database: namespace.directory.path("history.sqlite"), seed: (2, 20),
                                             extraArguments: ["--advertise", "Test Desktop"], namespace: namespace)
        let outcome = try await OASyncProcess.run(["--discover", "--discover-timeout-ms", "1500"], namespace: namespace)
        #expect(outcome.status == 0, "\(outcome.standardError)")
        #expect(outcome.standardOutput == "Test Desktop\tws://127.0.0.1:\(simulator.port)/\n")
        let browsed = try await runInNamespace(namespace, "/usr/bin/avahi-browse", ["-rtp", "_openagents._tcp"])
        let record = browsed.split(separator: "\n").first { $0.hasPrefix("=") } ?? ""
        #expect(record.contains("\"proto=ws\"") && record.contains("\"history_cursor=1\"") && !record.contains("path="), "\(browsed)")
    }

    @Test("the TXT keys proto, path and tls_sha256 make the URL and the pin printed; unknown keys are ignored")
    func txtKeysAreHonoured() async throws {
        let namespace = try await AvahiNamespace()
        let pin = String(repeating: "ab", count: 32)
        let outcome = try await whileRunning(in: namespace, "/usr/bin/avahi-publish",
                                             ["-s", "Pinned Desktop", "_openagents._tcp", "9443", "proto=wss", "path=/bridge",
                                              "tls_sha256=\(pin.uppercased())", "colour=blue"]) {
            try await OASyncProcess.run(["--discover", "--discover-timeout-ms", "2500"], namespace: namespace)
        }
        #expect(outcome.status == 0, "\(outcome.standardError)")
        #expect(outcome.standardOutput == "Pinned Desktop\twss://127.0.0.1:9443/bridge\ttls_sha256=\(pin)\n")
    }

    @Test("a wss:// simulator advertises its pin: discovered with it, synced with over TLS, the pin checked and remembered")
    func advertisedTLSBridge() async throws {
        let namespace = try await AvahiNamespace()
        let certificate = try await TestCertificate(named: "advertised", in: namespace.directory)
        let simulator = try await SimulatorProcess(flavor: "cursor", database: SimulatorProcess.sampleDatabase(in: namespace.directory),
                                             extraArguments: ["--advertise", "TLS Desktop", "--tls-cert", certificate.certificate,
                                                              "--tls-key", certificate.key], namespace: namespace)
        let listed = try await OASyncProcess.run(["--discover", "--discover-timeout-ms", "2500"], namespace: namespace)
        #expect(listed.status == 0, "\(listed.standardError)")
        #expect(listed.standardOutput == "TLS Desktop\twss://127.0.0.1:\(simulator.port)/\ttls_sha256=\(certificate.pin.hex)\n")
        let mirror = namespace.directory.path("mirror.sqlite")
        let synced = try await OASyncProcess.run(["--bridge", "dnssd:TLS Desktop", "--db", mirror, "--once", "--discover-timeout-ms", "5000"],
                                           namespace: namespace)
        #expect(synced.status == 0, "\(synced.standardError)")
        #expect(!synced.standardError.contains("on first use"), "the advertised pin was checked, not trusted on first use")
        let status = try await InProcessShell.run(mirror: mirror, commands: ["status"])
        #expect(status.standardOutput.contains(certificate.pin.description), "the pin is remembered for dnssd:TLS Desktop")
    }

    @Test("--bridge 'dnssd:*' follows every advertised bridge, each under its instance name, into one mirror")
    func followsEveryAdvertisedBridge() async throws {
        let namespace = try await AvahiNamespace()
        let mirror = namespace.directory.path("mirror.sqlite")
        let work = try await SimulatorProcess(flavor: "cursor", database: namespace.directory.path("work.sqlite"), seed: (3, 60),
                                        extraArguments: ["--advertise", "Work Mac"], namespace: namespace)
        let home = try await SimulatorProcess(flavor: "cursor", database: namespace.directory.path("home.sqlite"), seed: (2, 40),
                                        extraArguments: ["--advertise", "Home Mac", "--seed", "11"], namespace: namespace)
        let outcome = try await OASyncProcess.run(["--bridge", "dnssd:*", "--db", mirror, "--once", "--discover-timeout-ms", "5000"],
                                                  namespace: namespace)
        #expect(outcome.status == 0, "\(outcome.standardError)")
        #expect(outcome.standardOutput.contains("synced with Work Mac at dnssd:Work Mac"), "\(outcome.standardOutput)")
        #expect(outcome.standardOutput.contains("synced with Home Mac at dnssd:Home Mac"), "\(outcome.standardOutput)")
        try expectMirrorHolds(try simulatorHistory(work.databasePath), mirror: mirror)
        try expectMirrorHolds(try simulatorHistory(home.databasePath), mirror: mirror)
    }

    @Test("--bridge dnssd syncs with the only bridge found")
    func syncsWithOnlyBridge() async throws {
        let namespace = try await AvahiNamespace()
        let mirror = namespace.directory.path("mirror.sqlite")
        let simulator = try await SimulatorProcess(flavor: "cursor", database: namespace.directory.path("history.sqlite"), seed: (3, 60),
                                             extraArguments: ["--advertise", "Only Desktop"], namespace: namespace)
        let outcome = try await OASyncProcess.run(["--bridge", "dnssd", "--db", mirror, "--once", "--discover-timeout-ms", "5000"], namespace: namespace)
        #expect(outcome.status == 0, "\(outcome.standardError)")
        try expectMirrorHolds(try simulatorHistory(simulator.databasePath), mirror: mirror, nothingElse: true)
    }

    @Test("--bridge dnssd:NAME resolves again before reconnecting: a simulator moved to another port is found and caught up with")
    func followsMovedBridge() async throws {
        let namespace = try await AvahiNamespace()
        let mirror = namespace.directory.path("mirror.sqlite")
        let history = namespace.directory.path("history.sqlite")
        let first = try await SimulatorProcess(flavor: "cursor", database: history, seed: (3, 40),
                                         extraArguments: ["--advertise", "Moving Desktop"], namespace: namespace)
        let sync = try OASyncProcess(bridge: "dnssd:Moving Desktop", database: mirror, extraArguments: ["--discover-timeout-ms", "1000"],
                                     namespace: namespace)
        try await sync.waitForLog("resolved to the first simulator") { $0["message"]?.stringValue == "resolved" && $0["url"]?.stringValue == "ws://127.0.0.1:\(first.port)/" }
        try await sync.waitForState("live")
        try await first.stop()

        // While it is away, its history grows (through a simulator outside the namespace, on the same file).
        let offline = try await SimulatorProcess(flavor: "cursor", database: history)
        _ = try await SimulatorControl.withConnection(to: offline.url) { control in
            try await control.append("moved-session", [SimulatorControl.chunk("written while away"), SimulatorControl.chunk("and more")])
        }
        try await offline.stop()

        let second = try await SimulatorProcess(flavor: "cursor", database: history, port: first.port == 65_535 ? 20_000 : first.port + 1,
                                          extraArguments: ["--advertise", "Moving Desktop"], namespace: namespace)
        try await sync.waitForLog("resolved to the second simulator") { $0["message"]?.stringValue == "resolved" && $0["url"]?.stringValue == "ws://127.0.0.1:\(second.port)/" }
        try await sync.waitForState("live")
        #expect(await sync.terminate() == 0)
        try expectMirrorHolds(try simulatorHistory(history), mirror: mirror, nothingElse: true)
    }

    @Test("--discover without an avahi-daemon says so, naming the bus it asked, and exits 1")
    func discoverWithoutDaemon() async throws {
        let namespace = try await AvahiNamespace(withAvahi: false)
        let outcome = try await OASyncProcess.run(["--discover", "--discover-timeout-ms", "1000"], namespace: namespace)
        #expect(outcome.status == 1)
        #expect(outcome.standardOutput.isEmpty)
        let last = outcome.standardError.split(separator: "\n").last.map(String.init) ?? ""
        #expect(last.hasPrefix("oa-sync: no avahi-daemon is running: "), "\(last)")
        #expect(last.hasSuffix("(asked on the D-Bus system bus at \(namespace.busAddress))"), "\(last)")
    }

    @Test("--discover with a daemon but no bridge exits 1 and says which daemon it asked")
    func discoverNothing() async throws {
        let namespace = try await AvahiNamespace()
        let outcome = try await OASyncProcess.run(["--discover", "--discover-timeout-ms", "1000"], namespace: namespace)
        #expect(outcome.status == 1)
        let last = outcome.standardError.split(separator: "\n").last.map(String.init) ?? ""
        #expect(last == "oa-sync: no bridge (_openagents._tcp) was found by DNS-SD within 1 s (asked avahi-daemon on the D-Bus system bus at \(namespace.busAddress))",
                "\(last)")
    }

    @Test("a stock-style advertisement (no TXT record) is found and synced with over ws://")
    func stockAdvertisement() async throws {
        let namespace = try await AvahiNamespace()
        let mirror = namespace.directory.path("mirror.sqlite")
        let history = try SimulatorProcess.sampleDatabase(in: namespace.directory)
        let simulator = try await SimulatorProcess(flavor: "stock", database: history, namespace: namespace)
        try await whileRunning(in: namespace, "/usr/bin/avahi-publish", ["-s", "Stock Desktop", "_openagents._tcp", String(simulator.port)]) {
            let synced = try await OASyncProcess.run(["--bridge", "dnssd:Stock Desktop", "--db", mirror, "--once", "--discover-timeout-ms", "5000"],
                                                     namespace: namespace)
            #expect(synced.status == 0, "\(synced.standardError)")
            // A stock bridge lists its 10 most recent sessions: their timelines are fetched.
            #expect(synced.standardOutput.hasPrefix("synced with dnssd:Stock Desktop (10 timeline(s) fetched)"), "\(synced.standardOutput)")
            let listed = try await OASyncProcess.run(["--discover", "--discover-timeout-ms", "4000"], namespace: namespace)
            #expect(listed.standardOutput == "Stock Desktop\tws://127.0.0.1:\(simulator.port)/\n")
        }
    }

    /// Runs `body` while `path arguments` runs inside `namespace` (output discarded), then kills
    /// it, its end awaited (`ProcessEnd`): SIGKILL, as the processes a test starts inherit a signal
    /// mask in which SIGTERM is blocked (`AvahiNamespace.stop`).
    private func whileRunning<T>(in namespace: AvahiNamespace, _ path: String, _ arguments: [String],
                                 _ body: () async throws -> T) async throws -> T {
        let (executable, wrapped) = namespace.wrap(URL(fileURLWithPath: path), arguments)
        let process = Process()
        process.executableURL = executable
        process.arguments = wrapped
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let end = try ProcessEnd(running: process)
        let result: Result<T, any Error>
        do {
            result = .success(try await body())
        } catch {
            result = .failure(error)
        }
        if await !end.kill() { Issue.record("\(path) did not end within 10 s of SIGKILL") }
        return try result.get()
    }

    /// Runs `path arguments` inside `namespace` for at most 10 s (waiting off the pool); what it printed.
    private func runInNamespace(_ namespace: AvahiNamespace, _ path: String, _ arguments: [String]) async throws -> String {
        let (executable, wrapped) = namespace.wrap(URL(fileURLWithPath: path), arguments)
        return try await ProgramRun.run(executable, wrapped, timeout: .seconds(10)).standardOutput
    }
}
