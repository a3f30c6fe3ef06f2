import Bridge
import Foundation
import MirrorStore
import TestSupport
import Testing
import ToolSupport

/// oa-sync as a program: exit codes, the lock, signals, defaults.
@Suite("oa-sync, the program", .startsPrograms(endsWithin: .seconds(120)))
struct OASyncCommandTests {
    @Test("an unreachable bridge fails --once with exit 1 and a one-line reason")
    func unreachable() async throws {
        let directory = try TemporaryDirectory()
        let outcome = try await OASyncProcess.run(["--bridge", "ws://127.0.0.1:9", "--db", directory.path("m.sqlite"), "--once", "--quiet"])
        #expect(outcome.status == 1)
        let lines = outcome.standardError.split(separator: "\n")
        #expect(lines.last == "oa-sync: cannot connect to ws://127.0.0.1:9: connection refused")
        #expect(outcome.standardOutput.isEmpty)
    }

    @Test("standard error's reader gone: its log lines are lost, not the program (exit 1 as usual, no trap)")
    func standardErrorReaderGone() async throws {
        let directory = try TemporaryDirectory()
        let process = Process()
        process.executableURL = BuildProducts.executable("oa-sync")
        process.arguments = ["--bridge", "ws://127.0.0.1:9", "--db", directory.path("m.sqlite"), "--once"]
        let standardError = Pipe()
        try standardError.fileHandleForReading.close()
        process.standardError = standardError
        process.standardOutput = FileHandle.nullDevice
        let end = try ProcessEnd(running: process)
        try standardError.fileHandleForWriting.close()
        let status = await end.status(within: .seconds(60))
        #expect(process.terminationReason == .exit && status == 1, "status \(status.map(String.init) ?? "none"), \(process.terminationReason)")
    }

    @Test("--once exits 7 naming a session that could not be mirrored (its timeline over the cap); every other session is mirrored whole")
    func sessionFailedExitsSeven() async throws {
        let directory = try TemporaryDirectory()
        let simulator = try await SimulatorProcess(flavor: "stock", database: try SimulatorProcess.sampleDatabase(in: directory))
        try await SimulatorControl.withConnection(to: simulator.url) { control in
            try await control.call("create_session", ["session_id": "HUGE"])
            for call in 0..<20 {
                try await control.append("HUGE", [["sessionUpdate": "tool_call_update",
                                                   "tool_call_update": ["call_id": .string("call-\(call)"), "status": "completed",
                                                                        "output": ["stdout": .string(String(repeating: "log line \(call) ", count: 1600))]]]])
            }
            try await control.call("set_frame_size", ["bytes": 16384])
        }
        let mirror = directory.path("m.sqlite")
        // A message limit of 64 KiB (frames up to 256 KiB), and a cap of 200 KB on a timeline read
        // in parts: HUGE's answer, some 400 KB, is over it.
        let outcome = try await OASyncProcess.run(["--bridge", simulator.url, "--db", mirror, "--once", "--quiet"],
                                                  environment: ["OA_SYNC_MESSAGE_LIMIT": "65536", "OA_SYNC_TIMELINE_LIMIT": "200000"])
        #expect(outcome.status == 7, "\(outcome.standardError)")
        let lines = outcome.standardError.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("oa-sync: session HUGE could not be mirrored: ") && $0.contains("200000 bytes") }, "\(lines)")
        #expect(lines.last?.hasPrefix("oa-sync: 1 session(s) could not be mirrored (the others were)") == true, "\(lines)")
        let store = try MirrorStore(path: mirror, mode: .readOnly)
        #expect(try store.failedSessions().map(\.sessionID) == ["HUGE"])
        try await BridgeClient.withConnection(to: simulator.url, options: .forTests) { client in
            let others = try await client.recentSessions().filter { $0.sessionID != "HUGE" }
            #expect(others.count == 9)
            for session in others {
                let served = try await bridgeTimeline(client, session: session.sessionID)
                #expect(sameEvents(try mirroredTimeline(mirror, session: session.sessionID), served), "\(session.sessionID)")
            }
        }
    }

    @Test("a file that is not a mirror fails with exit 1: what is wrong, then the option that fixes it")
    func notAMirror() async throws {
        let directory = try TemporaryDirectory()
        let notes = directory.path("notes.txt")
        try Data(String(repeating: "not a database\n", count: 100).utf8).write(to: URL(fileURLWithPath: notes))
        let outcome = try await OASyncProcess.run(["--bridge", "ws://127.0.0.1:9", "--db", notes, "--once", "--quiet"])
        #expect(outcome.status == 1)
        let last = outcome.standardError.split(separator: "\n").last.map(String.init) ?? ""
        #expect(last.hasPrefix("oa-sync: cannot open the mirror: \(notes) is not a SQLite database"), "\(last)")
        #expect(last.hasSuffix("; use a mirror file or a new path (--db chooses the mirror file)"), "\(last)")
    }

    @Test("under systemd ($JOURNAL_STREAM naming standard error) log lines carry journal priorities and no time")
    func journalFormat() async throws {
        let directory = try TemporaryDirectory()
        /// Runs oa-sync against a closed port with standard error in a file; what it wrote there.
        func run(journalStream: (String) -> String?) async throws -> [String] {
            let errors = directory.path("stderr-\(UUID().uuidString)")
            #expect(FileManager.default.createFile(atPath: errors, contents: nil))
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: errors))
            defer { try? handle.close() }
            var info = stat()
            #expect(fstat(handle.fileDescriptor, &info) == 0)
            let process = Process()
            process.executableURL = BuildProducts.executable("oa-sync")
            process.arguments = ["--bridge", "ws://127.0.0.1:9", "--db", directory.path("m.sqlite"), "--once"]
            var environment = ProcessInfo.processInfo.environment
            environment["JOURNAL_STREAM"] = journalStream("\(info.st_dev):\(info.st_ino)")
            process.environment = environment
            process.standardOutput = FileHandle.nullDevice
            process.standardError = handle
            let status = try await ProcessEnd(running: process).status(within: .seconds(60))
            #expect(status == 1, "oa-sync against a closed port exits 1 within 60 s")
            return try String(contentsOfFile: errors, encoding: .utf8).split(separator: "\n").map(String.init)
        }

        let journal = try await run { $0 }
        #expect(journal.first?.hasPrefix("<6>info starting bridge=ws://127.0.0.1:9 ") == true, "\(journal)")
        #expect(journal.contains { $0.hasPrefix("<4>warning sync problem ") }, "\(journal)")
        #expect(journal.last == "<3>oa-sync: cannot connect to ws://127.0.0.1:9: connection refused")

        let elsewhere = try await run { _ in "1:1" }
        #expect(elsewhere.first?.range(of: #"^20[0-9-]{8}T[0-9:.]{12}Z info starting "#, options: .regularExpression) != nil, "\(elsewhere)")
        #expect(elsewhere.last == "oa-sync: cannot connect to ws://127.0.0.1:9: connection refused")
    }

    @Test("a second oa-sync on the same mirror is refused (exit 3); a reader is not")
    func lock() async throws {
        let directory = try TemporaryDirectory()
        let simulator = try await SimulatorProcess(flavor: "cursor", database: try SimulatorProcess.sampleDatabase(in: directory))
        let mirror = directory.path("mirror.sqlite")
        let first = try OASyncProcess(bridge: simulator.url, database: mirror)
        try await first.waitForState("live")
        let second = try await OASyncProcess.run(["--bridge", simulator.url, "--db", mirror, "--once"])
        #expect(second.status == 3)
        #expect(second.standardError.contains("another oa-sync (pid"))
        #expect(try MirrorStore(path: mirror, mode: .readOnly).counts().events == 299)
        #expect(await first.terminate() == 0, "SIGTERM: finish and exit 0")
        let third = try await OASyncProcess.run(["--bridge", simulator.url, "--db", mirror, "--once"])
        #expect(third.status == 0, "the lock went with the process")
    }

    @Test("the mirror defaults to $OA_DB, then $XDG_DATA_HOME/openagents/mirror.sqlite (mode 0600); the bridge to $OA_BRIDGE")
    func defaults() async throws {
        let directory = try TemporaryDirectory()
        let simulator = try await SimulatorProcess(flavor: "cursor", database: try SimulatorProcess.sampleDatabase(in: directory))
        let xdg = directory.path("xdg")
        let byXDG = try await OASyncProcess.run(["--once"], environment: ["XDG_DATA_HOME": xdg, "OA_BRIDGE": simulator.url, "OA_DB": ""])
        #expect(byXDG.status == 0, "\(byXDG.standardError)")
        let path = xdg + "/openagents/mirror.sqlite"
        #expect(try MirrorStore(path: path, mode: .readOnly).counts().events == 299)
        let mode = (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue
        #expect(mode == 0o600)
        let byEnvironment = try await OASyncProcess.run(["--once"], environment: ["OA_DB": directory.path("env.sqlite"), "OA_BRIDGE": simulator.url])
        #expect(byEnvironment.status == 0)
        #expect(FileManager.default.fileExists(atPath: directory.path("env.sqlite")))
    }

    @Test("bad usage exits 64 with the reason")
    func usage() async throws {
        let outcome = try await OASyncProcess.run(["--quiet", "--verbose"])
        #expect(outcome.status == 64)
        #expect(outcome.standardError.contains("--quiet and --verbose cannot be used together"))
        for url in ["http://127.0.0.1:9099", "127.0.0.1:9099", "ws://", "WS://127.0.0.1:9099", "ws://::1:9099", "ws://[::1]:9099",
                    "ws://user@127.0.0.1:9099", "ws://127.0.0.1:99999", "ws://127.0.0.1:0"] {
            let bad = try await OASyncProcess.run(["--bridge", url, "--once"])
            #expect(bad.status == 64, "\(url)")
            #expect(bad.standardError.contains("\(url) is not a bridge: expected ws://HOST:PORT or wss://HOST:PORT "
                + "(HOST a name or an IPv4 address), dnssd, dnssd:NAME or dnssd:*, optionally after NAME="), "\(bad.standardError)")
        }
        let twoNames = try await OASyncProcess.run(["--bridge", "a=ws://127.0.0.1:1", "--bridge", "a=ws://127.0.0.1:2", "--once"])
        #expect(twoNames.status == 64 && twoNames.standardError.contains("two bridges have the same desktop name"), "\(twoNames.standardError)")
        let nameWithSeveral = try await OASyncProcess.run(["--bridge", "ws://127.0.0.1:1", "--bridge", "ws://127.0.0.1:2", "--name", "x", "--once"])
        #expect(nameWithSeveral.status == 64 && nameWithSeveral.standardError.contains("--name names the one bridge"))
        for name in ["", "two\nlines"] {
            #expect(try await OASyncProcess.run(["--name", name, "--once"]).status == 64)
        }
        let badPin = try await OASyncProcess.run(["--tls-pin", "sha256:abcd", "--once"])
        #expect(badPin.status == 64)
        #expect(badPin.standardError.contains("64 hex digits in any case, with or without colons, optionally after sha256:"),
                "\(badPin.standardError)")
        let fromEnvironment = try await OASyncProcess.run(["--once"], environment: ["OA_BRIDGE": "localhost:9099"])
        #expect(fromEnvironment.status == 64)
    }

    @Test("oa-sync and the REPL's sync start the engine the same way, each announcing its own name and the one version")
    func clientNames() async throws {
        let directory = try TemporaryDirectory()
        let simulator = try await SimulatorProcess(flavor: "cursor", database: try SimulatorProcess.sampleDatabase(in: directory))
        let synced = try await OASyncProcess.run(["--bridge", simulator.url, "--db", directory.path("a.sqlite"), "--once", "--quiet"])
        #expect(synced.status == 0, "\(synced.standardError)")
        let repl = try await ReplProcess.run(["--bridge", simulator.url, "--db", directory.path("b.sqlite"), "-c", "sync"])
        #expect(repl.status == 0, "\(repl.standardError)")
        #expect(try MirrorStore(path: directory.path("b.sqlite"), mode: .readOnly).counts().events == 299)
        let clients = try await SimulatorControl.withConnection(to: simulator.url) { control in
            try await control.call("clients")["clients"]?.arrayValue ?? []
        }
        let announced = clients.prefix(2).map { [$0["name"]?.stringValue, $0["title"]?.stringValue, $0["version"]?.stringValue] }
        #expect(announced == [["oa-sync", "OpenAgents Mirror", MirrorVersion.current], ["oa-repl", "OpenAgents Mirror", MirrorVersion.current]],
                "\(clients)")
    }

    @Test("oa-repl takes the bridge's options as oa-sync does, and checks them the same way (exit 64)")
    func replBridgeOptions() async throws {
        for program in ["oa-sync", "oa-repl"] {
            let badPin = try await ProgramRun.run(BuildProducts.executable(program), ["--tls-pin", "sha256:abcd", "--db", "/nonexistent/m.sqlite"])
            #expect(badPin.status == 64, "\(program)")
            #expect(badPin.standardError.contains("--tls-pin must be the certificate's SHA-256 fingerprint"), "\(program): \(badPin.standardError)")
            let badBridge = try await ProgramRun.run(BuildProducts.executable(program), ["--bridge", "http://127.0.0.1:9", "--db", "/nonexistent/m.sqlite"])
            #expect(badBridge.status == 64, "\(program)")
            #expect(badBridge.standardError.contains("http://127.0.0.1:9 is not a bridge"), "\(program): \(badBridge.standardError)")
        }
        let two = try await ReplProcess.run(["--bridge", "ws://127.0.0.1:1", "--bridge", "ws://127.0.0.1:2", "-c", "help"])
        #expect(two.status == 64 && two.standardError.contains("give --bridge once"), "\(two.standardError)")
        let directory = try TemporaryDirectory()
        let missingToken = directory.path("no-token")
        let tokenless = try await ReplProcess.run(["--db", directory.path("m.sqlite"), "--token-file", missingToken, "-c", "sync"])
        #expect(tokenless.status == 1)
        #expect(tokenless.standardError.contains("bridge: cannot read the token file \(missingToken)"), "the REPL's sync reads --token-file: \(tokenless.standardError)")
        let offline = try await ReplProcess.run(["--db", "/nonexistent/m.sqlite", "-c", "help"], environment: ["OA_BRIDGE": "localhost:9099"])
        #expect(offline.status == 0, "a wrong $OA_BRIDGE does not keep oa-repl from browsing: \(offline.standardError)")
    }
}
