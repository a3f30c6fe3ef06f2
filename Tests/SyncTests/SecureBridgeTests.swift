import Bridge
import Foundation
import FrontEndSupport
import MirrorStore
import Testing
import TestSupport
import ToolSupport

/// Bearer tokens, with the real binaries. (Certificate pins are a scenario, run in-process and end
/// to end: `Scenarios/CertificatePinScenario.swift`.)
@Suite("Tokens", .startsPrograms(endsWithin: .seconds(120)))
struct SecureBridgeTests {
    func simulator(_ history: String, token: String) async throws -> SimulatorProcess {
        try await SimulatorProcess(flavor: "cursor", database: history, extraArguments: ["--token", token])
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
