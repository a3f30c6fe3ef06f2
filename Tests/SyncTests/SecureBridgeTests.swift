import Bridge
import Foundation
import FrontEndSupport
import MirrorStore
import Testing
import TestSupport
import ToolSupport

/// `wss://` with certificate pins and bearer tokens, with the real binaries: the simulator serving
/// TLS with certificates made here by `openssl`, oa-sync connecting to 127.0.0.1 (an IP literal,
/// so no SNI).
@Suite("TLS pins and tokens", .startsPrograms(endsWithin: .seconds(120)))
struct SecureBridgeTests {
    /// A self-signed certificate and its key, made by `openssl`, and the certificate's pin.
    struct Certificate {
        let certificate: String
        let key: String
        let pin: CertificatePin

        init(named name: String, in directory: TemporaryDirectory) async throws {
            certificate = directory.path("\(name).pem")
            key = directory.path("\(name)-key.pem")
            let made = try await ProgramRun.run(URL(fileURLWithPath: "/usr/bin/openssl"), [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
                "-subj", "/CN=\(name)", "-keyout", key, "-out", certificate,
            ])
            try #require(made.status == 0, "openssl could not make a certificate: \(made.standardError)")
            let fingerprint = try await ProgramRun.run(URL(fileURLWithPath: "/usr/bin/openssl"),
                                                 ["x509", "-noout", "-fingerprint", "-sha256", "-in", certificate])
            pin = try #require(CertificatePin(parsing: fingerprint.standardOutput), "openssl's fingerprint reads as a pin")
        }
    }

    func simulator(_ history: String, certificate: Certificate? = nil, token: String? = nil, port: Int = 0) async throws -> SimulatorProcess {
        var arguments: [String] = []
        if let certificate { arguments += ["--tls-cert", certificate.certificate, "--tls-key", certificate.key] }
        if let token { arguments += ["--token", token] }
        return try await SimulatorProcess(flavor: "cursor", database: history, port: port, extraArguments: arguments)
    }

    func mirrored(_ mirror: String) throws -> (events: Int, pin: String?) {
        let store = try MirrorStore(path: mirror, mode: .readOnly)
        let bridge = try #require(try store.lastBridgeURL())
        return (try store.counts().events, try store.rememberedPin(forBridge: bridge))
    }

    @Test("trust on first use, then a changed certificate refused with exit 5 and the mirror kept; an explicit pin accepted")
    func pinning() async throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl") else {
            Issue.record("openssl is not installed (tools/scripts/install-deps installs it): the certificates cannot be made")
            return
        }
        let directory = try TemporaryDirectory()
        let history = try SimulatorProcess.sampleDatabase(in: directory)
        let mirror = directory.path("mirror.sqlite")
        let first = try await Certificate(named: "first", in: directory)
        let second = try await Certificate(named: "second", in: directory)

        let bridge = try await simulator(history, certificate: first)
        #expect(bridge.url.hasPrefix("wss://127.0.0.1:"))
        #expect(bridge.readyLine.contains(first.pin.description), "the simulator shows its pin")
        let trusted = try await OASyncProcess.run(["--bridge", bridge.url, "--db", mirror, "--once"])
        #expect(trusted.status == 0, "\(trusted.standardError)")
        #expect(trusted.standardError.contains("trusting \(bridge.url) on first use"))
        #expect(trusted.standardError.contains(first.pin.description))
        let before = try mirrored(mirror)
        #expect(before.events == 299)
        #expect(before.pin == first.pin.hex)
        let status = try await InProcessShell.run(mirror: mirror, commands: ["status"])
        #expect(status.standardOutput.contains(first.pin.description), "status shows the pin in force")

        // The same bridge (same URL) with another certificate: refused before anything is sent.
        let port = bridge.port
        try await bridge.stop()
        let impostor = try await simulator(history, certificate: second, port: port)
        _ = try await impostorAppends(impostor)
        let refused = try await OASyncProcess.run(["--bridge", impostor.url, "--db", mirror, "--once"])
        #expect(refused.status == 5, "\(refused.standardError)")
        #expect(refused.standardError.contains(first.pin.description) && refused.standardError.contains(second.pin.description),
                "both fingerprints are shown: \(refused.standardError)")
        #expect(refused.standardError.contains("--tls-pin \(second.pin.hex)"), "how to accept it deliberately")
        let after = try mirrored(mirror)
        #expect(after.events == before.events && after.pin == first.pin.hex, "the mirror is unchanged")

        // Accepted deliberately (the colon form, as openssl prints it), then remembered.
        let accepted = try await OASyncProcess.run(["--bridge", impostor.url, "--db", mirror, "--once", "--tls-pin", "sha256:\(second.pin)"])
        #expect(accepted.status == 0, "\(accepted.standardError)")
        #expect(try mirrored(mirror).pin == second.pin.hex)
        #expect(try mirrored(mirror).events == 300)
        let again = try await OASyncProcess.run(["--bridge", impostor.url, "--db", mirror, "--once"])
        #expect(again.status == 0, "\(again.standardError)")
        #expect(!again.standardError.contains("on first use"))
    }

    /// One event more in the impostor's history: a sync that got through would mirror it.
    func impostorAppends(_ simulator: SimulatorProcess) async throws -> [Int64] {
        try await SimulatorControl.withConnection(to: simulator.url) { control in
            try await control.append("6410FF87-53AA-F3B7-18C2-3EF0C3C4B8A0", [SimulatorControl.chunk("from the impostor")])
        }
    }

    @Test("a token required, refused, accepted; never in logs, the mirror or status")
    func tokens() async throws {
        let directory = try TemporaryDirectory()
        let history = try SimulatorProcess.sampleDatabase(in: directory)
        let mirror = directory.path("mirror.sqlite")
        let secret = "s3cret-\(UUID().uuidString)"
        let bridge = try await simulator(history, token: secret)

        let missing = try await OASyncProcess.run(["--bridge", bridge.url, "--db", mirror, "--once"])
        #expect(missing.status == 6, "\(missing.standardError)")
        #expect(missing.standardError.contains("needs a token"))

        let tokenFile = directory.path("token")
        #expect(FileManager.default.createFile(atPath: tokenFile, contents: Data("wrong-token\n".utf8),
                                               attributes: [.posixPermissions: 0o644]))
        let open = try await OASyncProcess.run(["--bridge", bridge.url, "--db", mirror, "--once", "--token-file", tokenFile])
        #expect(open.status == 1)
        #expect(open.standardError.contains("may be read by others"), "\(open.standardError)")

        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: tokenFile)
        let wrong = try await OASyncProcess.run(["--bridge", bridge.url, "--db", mirror, "--once", "--token-file", tokenFile])
        #expect(wrong.status == 6, "\(wrong.standardError)")
        #expect(wrong.standardError.contains("refused the token"))

        try Data("\(secret)\n".utf8).write(to: URL(fileURLWithPath: tokenFile))
        let accepted = try await OASyncProcess.run(["--bridge", bridge.url, "--db", mirror, "--once", "--verbose", "--log-format", "json"],
                                             environment: ["OA_TOKEN_FILE": tokenFile])
        #expect(accepted.status == 0, "\(accepted.standardError)")
        let fromEnvironment = try await OASyncProcess.run(["--bridge", bridge.url, "--db", mirror, "--once", "--verbose"],
                                                    environment: ["OA_TOKEN": secret])
        #expect(fromEnvironment.status == 0, "\(fromEnvironment.standardError)")

        let status = try await InProcessJSONLines.run(mirror: mirror, input: #"{"jsonrpc":"2.0","id":1,"method":"status"}"#)
        var mirrorBytes = Data()
        for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: mirror + suffix) {
            mirrorBytes += try Data(contentsOf: URL(fileURLWithPath: mirror + suffix))
        }
        for (place, text) in [("logs", missing.standardError + wrong.standardError + accepted.standardError + fromEnvironment.standardError),
                              ("output", accepted.standardOutput), ("status", status.standardOutput)] {
            #expect(!text.contains(secret), "the token is not in the \(place)")
        }
        #expect(mirrorBytes.range(of: Data(secret.utf8)) == nil, "the token is not in the mirror's bytes")
    }
}
