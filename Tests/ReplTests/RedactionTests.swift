import Bridge
import Commands
import Foundation
import FrontEndSupport
import Testing
import TestSupport
import ToolSupport

/// Secrets leave the mirror redacted by every way out, unless asked (`--no-redact`): oa-repl's
/// shell run in process on a mirror of planted secrets (`PlantedSecretsSession`); the real
/// program for `--jsonl` and `--mcp`.
@Suite("secrets are redacted wherever history leaves the mirror", .startsPrograms(endsWithin: .seconds(300)))
struct RedactionTests {
    let directory: TemporaryDirectory
    let mirror: String
    /// No secrets file of the user's: an empty XDG configuration directory.
    let environment: [String: String]

    init() throws {
        directory = try TemporaryDirectory()
        mirror = try PlantedSecretsSession.mirror(in: directory)
        environment = ["XDG_CONFIG_HOME": directory.path("config")]
    }

    /// As `oa-repl --db MIRROR [--mode MODE] [--no-redact] -c COMMAND…` with `input` on standard input, in process.
    func run(_ commands: [String], mode: OutputMode = .table, redacts: Bool = true, input: String = "") async throws -> ProgramRun.Outcome {
        try await InProcessShell.run(mirror: mirror, commands: commands, mode: mode, redacts: redacts, environment: environment, input: input)
    }

    func expectRedacted(_ text: String, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(PlantedSecretsSession.leaks(in: text).isEmpty, "\(what) leaks \(PlantedSecretsSession.leaks(in: text))", sourceLocation: sourceLocation)
    }

    @Test("show, show --raw, show --at, search and sessions, in every output mode")
    func browsing() async throws {
        let words = ["keychain", "gitlab", "deploys", "notebook", "rotated", "registry", "Bearer", "deploy_key", "DATABASE_URL", "password",
                     "AWS_ACCESS_KEY_ID", "Stripe", "Found"]
        let commands = ["show 5ec2", "show 5ec2 --raw", "show 5ec2 --at 20", "show 5ec2 --raw --at 20", "sessions"] + words.map { "search \($0)" }
        for mode in OutputMode.allCases {
            let outcome = try await run(commands, mode: mode)
            for kind in Set(PlantedSecretsSession.secrets.map(\.kind)) {
                #expect(outcome.standardOutput.contains("[REDACTED:\(kind)#"), "\(mode): no \(kind) tag")
            }
        }
        let show = try await run(["show 5ec2"]).standardOutput
        // The same value keeps its tag: the GitHub token of the user's message, the tool call and the split message.
        #expect(show.components(separatedBy: "[REDACTED:github_token#1]").count - 1 >= 3)
        let plain = try await run(["show 5ec2"], redacts: false).standardOutput
        // Every kind shows with --no-redact (the PEM key's lines are indented in the conversation).
        #expect(Set(PlantedSecretsSession.leaks(in: plain)) == Set(PlantedSecretsSession.secrets.map(\.kind)).subtracting(["private_key"]))
        let toggledRun = try await run([".redact off", "show 5ec2", ".redact on", "show 5ec2"])
        let toggled = toggledRun.standardOutput
        #expect(toggledRun.standardError.contains("redaction is off"), "the shell says so: \(toggledRun.standardError)")
        #expect(toggled.contains(PlantedSecretsSession.secrets[1].value))
        #expect(toggled.components(separatedBy: PlantedSecretsSession.secrets[1].value).count == plain.components(separatedBy: PlantedSecretsSession.secrets[1].value).count)
    }

    @Test("export as Markdown, HTML and JSON lines, one and --all; --no-redact says so in the header")
    func exports() async throws {
        for format in ["md", "html", "json"] {
            let out = try await run(["export 5ec2 --format \(format)"])
            #expect(out.status == 0, "\(out.standardError)")
            expectRedacted(out.standardOutput, "export --format \(format)")
            let all = directory.path("all-\(format)")
            await #expect(try run(["export --all \(all) --format \(format)"]).status == 0)
            for file in try FileManager.default.contentsOfDirectory(atPath: all) {
                expectRedacted(try String(contentsOfFile: all + "/" + file, encoding: .utf8), "export --all --format \(format): \(file)")
            }
        }
        let json = try await run(["export 5ec2 --format json"]).standardOutput
        for line in json.split(separator: "\n") {
            #expect((try? JSONParser.parse(String(line))) != nil, "each line is JSON still")
        }
        #expect(json.contains("[REDACTED:github_token#1]"))
        let markdown = try await run(["export 5ec2"]).standardOutput
        #expect(markdown.contains("- Redacted: "))
        let plain = try await run(["export 5ec2"], redacts: false).standardOutput
        #expect(plain.contains("- Not redacted (--no-redact)"))
        #expect(plain.contains(PlantedSecretsSession.secrets[2].value))
    }

    @Test("JSON lines: sessions.show (raw too), search, sessions.list, export.markdown")
    func jsonLines() async throws {
        let requests = [
            #"{"jsonrpc":"2.0","id":1,"method":"sessions.show","params":{"session_id":"5ec2"}}"#,
            #"{"jsonrpc":"2.0","id":2,"method":"sessions.show","params":{"session_id":"5ec2","raw":true}}"#,
            #"{"jsonrpc":"2.0","id":3,"method":"search","params":{"query":"keychain"}}"#,
            #"{"jsonrpc":"2.0","id":4,"method":"sessions.list","params":{}}"#,
            #"{"jsonrpc":"2.0","id":5,"method":"export.markdown","params":{"session_id":"5ec2","format":"json"}}"#,
            #"{"jsonrpc":"2.0","id":6,"method":"secrets.list","params":{}}"#,
            #"{"jsonrpc":"2.0","id":7,"method":"events.subscribe","params":{"session_id":"5ec2","after":"start","until_idle_ms":300}}"#,
        ]
        let outcome = try await ReplProcess.run(["--db", mirror, "--jsonl"], input: Data((requests.joined(separator: "\n") + "\n").utf8), environment: environment)
        #expect(outcome.status == 0)
        #expect(outcome.standardOutput.contains(#""method":"events.appended""#), "the subscription's events came")
        for line in outcome.standardOutput.split(separator: "\n") { expectRedacted(String(line), "--jsonl: \(line.prefix(30))") }
        let plain = try await InProcessJSONLines.run(mirror: mirror, input: requests[0] + "\n", redacts: false, environment: environment)
        #expect(plain.standardOutput.contains(PlantedSecretsSession.secrets[3].value))
    }

    @Test("MCP: tools and resources redacted; with --no-redact the client sees the values and is told")
    func mcp() async throws {
        for redacting in [true, false] {
            // The real program redacting; the server in process with --no-redact.
            let server: any JSONRPCPeer = redacting ? try ReplSession(["--db", mirror, "--mcp"], environment: environment)
                : try await InProcessMCP(mirror: mirror, redacts: false)
            try server.request(0, "initialize", [
                "protocolVersion": "2025-06-18", "capabilities": [:], "clientInfo": ["name": "oa-tests", "version": "1"],
            ])
            let instructions = try await server.answer(to: 0).answer["result"]?["instructions"]?.stringValue ?? ""
            #expect(instructions.contains(redacting ? "[REDACTED:<kind>#<n>]" : "--no-redact"), "\(instructions)")
            try server.send(#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
            var seen = ""
            let calls: [(String, JSONValue)] = [("search_sessions", ["query": "keychain"]), ("search_sessions", ["query": "Found"]),
                                                ("list_sessions", [:]), ("read_session", ["session_id": "5ec2"]),
                                                ("read_session", ["session_id": "5ec2", "at": 20, "context": 2])]
            for (index, call) in calls.enumerated() {
                let result = try await MCPServerTests.call(server, index + 1, call.0, call.1)
                seen += result.description
            }
            try server.request(10, "resources/list")
            let listed = try await server.answer(to: 10).answer
            seen += listed.description
            try server.request(11, "resources/read", ["uri": .string("openagents://session/\(PlantedSecretsSession.sessionID)")])
            seen += try await server.answer(to: 11).answer.description
            server.closeInput()
            #expect(await server.waitForExit(timeout: .seconds(60)) == 0)
            if redacting {
                expectRedacted(seen, "MCP")
                #expect(seen.contains("[REDACTED:jwt#1]"))
            } else {
                // JSON-escaped in the answers: compare the values that need no escaping.
                for secret in PlantedSecretsSession.secrets where secret.kind != "private_key" {
                    #expect(seen.contains(secret.value), "--no-redact: \(secret.kind) shown")
                }
            }
        }
    }

    @Test("the secrets report: each secret by fingerprint, where it occurs, whether an export held it; --check - reads stdin")
    func report() async throws {
        let report = try await run(["secrets"])
        #expect(report.status == 0, "\(report.standardError)")
        expectRedacted(report.standardOutput + report.standardError, "secrets")
        for kind in Set(PlantedSecretsSession.secrets.map(\.kind)) { #expect(report.standardOutput.contains(kind), "\(kind) reported") }
        #expect(!report.standardOutput.contains("YES"))

        let json = try await run(["secrets --session 5ec2"], mode: .json).standardOutput
        let secrets = try #require(try JSONParser.parse(json).arrayValue)
        #expect(secrets.count == PlantedSecretsSession.secrets.count, "each secret once, no part of a split one counted apart")
        let github = try #require(secrets.first { $0["kind"]?.stringValue == "github_token" && $0["fingerprint"]?.stringValue?.hasPrefix("ghp_") == true })
        #expect((github["occurrences"]?.arrayValue?.count ?? 0) >= 3, "message, tool call, output, split message")

        // An export without redaction: the report says the secrets reached it.
        await #expect(try run(["export 5ec2 \(directory.path("plain.md"))"], redacts: false).status == 0)
        let value = PlantedSecretsSession.secrets[5].value
        let check = try await run(["secrets --check -"], input: value + "\n")
        #expect(check.status == 0, "\(check.standardError)")
        #expect(check.standardOutput.contains("stripe_key") && check.standardOutput.contains("YES, unredacted"))
        expectRedacted(check.standardOutput + check.standardError, "secrets --check -")
        let unknown = try await run(["secrets --check -"], input: "not-a-secret-at-all\n")
        #expect(unknown.standardOutput.contains("not found"))
        #expect(!unknown.standardOutput.contains("not-a-secret-at-all"))
        let argument = try await run(["secrets --check \(value)"])
        #expect(argument.status != 0)
        expectRedacted(argument.standardOutput + argument.standardError, "secrets --check VALUE refused")
    }

    @Test("a secrets file: a user's rule redacts, the allow list keeps a value; a broken file is an error that quotes nothing")
    func secretsFile() async throws {
        let config = directory.path("config/openagents")
        try FileManager.default.createDirectory(atPath: config, withIntermediateDirectories: true)
        let aws = PlantedSecretsSession.secrets[0].value
        try Data(#"{"rules": [{"kind": "rotate_word", "pattern": "\\brotate\\b", "keywords": ["rotate"], "min_length": 3}], "allow": ["\#(aws)"]}"#.utf8)
            .write(to: URL(fileURLWithPath: config + "/secrets.json"))
        let show = try await run(["show 5ec2"]).standardOutput
        #expect(show.contains("[REDACTED:rotate_word#1]"))
        #expect(show.contains(aws))
        try Data(#"{"rules": [{"kind": "x", "pattern": "(hunter2"}]}"#.utf8).write(to: URL(fileURLWithPath: config + "/secrets.json"))
        let broken = try await run(["show 5ec2"])
        #expect(broken.status == 1)
        #expect(broken.standardError.contains("secret rule") && !broken.standardError.contains("hunter2"))
        expectRedacted(broken.standardOutput + broken.standardError, "a broken secrets file")
    }
}

/// What oa-sync writes about the events it mirrors, at its most verbose, never holds their text.
@Suite("oa-sync --verbose logs no secret", .startsPrograms(endsWithin: .seconds(180)))
struct SyncLogTests {
    @Test("secrets streamed by the desktop, split across chunks, never reach oa-sync's log; show redacts them")
    func verboseSync() async throws {
        let directory = try TemporaryDirectory()
        let simulator = try await SimulatorProcess(flavor: "cursor", database: try SimulatorProcess.sampleDatabase(in: directory))
        let mirror = directory.path("mirror.sqlite")
        var updates: [JSONValue] = []
        for secret in PlantedSecrets.all {
            let cut = secret.line.index(secret.line.range(of: secret.value)?.lowerBound ?? secret.line.startIndex, offsetBy: secret.value.count / 2)
            updates += [SimulatorControl.chunk(String(secret.line[..<cut])), SimulatorControl.chunk(String(secret.line[cut...]) + "\n")]
        }
        _ = try await SimulatorControl.withConnection(to: simulator.url) { control in try await control.append(FollowTests.session, updates) }
        let sync = try await ProgramRun.run(BuildProducts.executable("oa-sync"), ["--bridge", simulator.url, "--db", mirror, "--once", "--verbose"])
        #expect(sync.status == 0, "\(sync.standardError)")
        #expect(!sync.standardError.isEmpty, "--verbose logs what it does")
        #expect(PlantedSecretsSession.leaks(in: sync.standardOutput + sync.standardError).isEmpty)
        let show = try await InProcessShell.run(mirror: mirror, commands: ["show 798c"], environment: ["XDG_CONFIG_HOME": directory.path("config")])
        #expect(show.status == 0)
        #expect(PlantedSecretsSession.leaks(in: show.standardOutput + show.standardError).isEmpty)
        #expect(show.standardOutput.contains("[REDACTED:jwt#1]"))
    }
}
