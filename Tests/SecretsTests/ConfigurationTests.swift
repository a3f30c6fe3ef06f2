import Foundation
import Secrets
import Testing
import TestSupport

@Suite(.endsWithin(.seconds(120))) struct ConfigurationTests {
    @Test func theFileLivesUnderTheXDGConfigDirectory() {
        #expect(SecretsConfiguration.path(environment: ["XDG_CONFIG_HOME": "/x/config", "HOME": "/home/u"]) == "/x/config/openagents/secrets.json")
        #expect(SecretsConfiguration.path(environment: ["HOME": "/home/u"]) == "/home/u/.config/openagents/secrets.json")
        #expect(SecretsConfiguration.path(environment: ["XDG_CONFIG_HOME": "relative", "HOME": "/home/u"]) == "/home/u/.config/openagents/secrets.json")
    }

    @Test func aMissingFileIsTheEmptyConfiguration() throws {
        let directory = try TemporaryDirectory()
        #expect(try SecretsConfiguration.load(path: directory.path("secrets.json")) == SecretsConfiguration())
    }

    @Test func rulesAllowListAndDisabledKindsAreRead() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("secrets.json")
        let aws = try #require(PlantedSecrets.all.first { $0.kind == "aws_access_key" }).value
        let json = """
            {"rules": [{"kind": "acme_key", "pattern": "\\\\bacme_[a-z0-9]{24}\\\\b", "keywords": ["acme_"], "confidence": "high"}],
             "allow": ["\(aws)"], "disable": ["password"]}
            """
        try Data(json.utf8).write(to: URL(fileURLWithPath: path))
        let detector = try SecretsConfiguration.load(path: path).detector()
        let acme = "acme_" + String(repeating: "k3q9", count: 6)
        #expect(detector.findings(in: "key \(acme) here").map(\.kind) == ["acme_key"])
        #expect(detector.findings(in: "key \(acme) here").first?.confidence == .high)
        #expect(detector.findings(in: aws).isEmpty)
        #expect(detector.findings(in: "password = \"Xq7#pL2v9Rt4Zw\"").isEmpty)
        #expect(!detector.kinds.contains("password") && detector.kinds.contains("acme_key"))
    }

    @Test func errorsSayWhereNeverWhat() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("secrets.json")
        let cases: [(String, String)] = [
            (#"{"rules": [{"kind": "x", "pattern": "(unclosed-hunter2"}]}"#, "secret rule"),
            (#"{"rules": [{"pattern": "abc-hunter2"}]}"#, "rules[0] lacks \"kind\""),
            (#"{"allow": "hunter2"}"#, "allow has the wrong type"),
            ("hunter2 is not json", "it is not JSON"),
        ]
        for (json, expected) in cases {
            try Data(json.utf8).write(to: URL(fileURLWithPath: path))
            do {
                _ = try SecretsConfiguration.load(path: path).detector()
                Issue.record("\(expected): no error")
            } catch {
                #expect(error.description.contains(expected), "\(error)")
                #expect(!error.description.contains("hunter2"), "\(error)")
            }
        }
    }
}
