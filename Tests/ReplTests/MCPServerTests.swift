import Bridge
import Foundation
import FrontEndSupport
import Testing
import TestSupport

/// `oa-repl --mcp` as an MCP client sees it: its server, spoken to in JSON-RPC messages, in
/// process (`InProcessMCP`) on mirrors made by the real oa-sync from the simulator; the real
/// program for what its standard output carries.
@Suite("oa-repl --mcp", .startsPrograms(endsWithin: .seconds(180)))
struct MCPServerTests {
    static let session = "798C06FE-0494-B6D2-EC70-38C908FB09A0"

    /// `oa-repl --db MIRROR --mcp [--mcp-allow-prompts]`, in process, initialized.
    static func server(_ mirror: String, allowsPrompts: Bool = false) async throws -> InProcessMCP {
        let server = try await InProcessMCP(mirror: mirror, allowsPrompts: allowsPrompts)
        try server.request(0, "initialize", [
            "protocolVersion": "2025-06-18", "capabilities": [:], "clientInfo": ["name": "oa-tests", "version": "1"],
        ])
        let answer = try await server.answer(to: 0).answer
        #expect(answer["result"]?["serverInfo"]?["name"]?.stringValue == "openagents-mirror")
        #expect(answer["result"]?["capabilities"]?["resources"]?["subscribe"]?.boolValue == true)
        try server.send(#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
        return server
    }

    /// Calls a tool; its result.
    static func call(_ server: any JSONRPCPeer, _ id: Int, _ tool: String, _ arguments: JSONValue) async throws -> JSONValue {
        try server.request(id, "tools/call", ["name": .string(tool), "arguments": arguments])
        let answer = try await server.answer(to: id).answer
        #expect(answer["error"] == nil, "\(tool): \(answer)")
        return answer["result"] ?? .null
    }

    static func text(_ result: JSONValue) -> String {
        result["content"]?.arrayValue?.first?["text"]?.stringValue ?? ""
    }

    @Test("tools/list: three read tools; enqueue_prompt only with --mcp-allow-prompts; each with a schema")
    func toolsList() async throws {
        let directory = try TemporaryDirectory()
        let mirror = try await SampleMirror.copy(in: directory)
        for (allowsPrompts, expected) in [(false, ["list_sessions", "read_session", "search_sessions"]),
                                          (true, ["enqueue_prompt", "list_sessions", "read_session", "search_sessions"])] {
            let server = try await Self.server(mirror, allowsPrompts: allowsPrompts)
            try server.request(1, "tools/list")
            let tools = try await server.answer(to: 1).answer["result"]?["tools"]?.arrayValue ?? []
            #expect(tools.compactMap { $0["name"]?.stringValue }.sorted() == expected)
            for tool in tools {
                #expect((tool["description"]?.stringValue?.count ?? 0) > 100)
                #expect(tool["inputSchema"]?["type"]?.stringValue == "object")
            }
            server.closeInput()
            #expect(await server.waitForExit() == 0, "the end of input ends it")
        }
    }

    @Test("search_sessions, list_sessions, read_session and enqueue_prompt on the sample mirror")
    func tools() async throws {
        let directory = try TemporaryDirectory()
        let mirror = try await SampleMirror.copy(in: directory)
        let server = try await Self.server(mirror, allowsPrompts: true)

        let search = try await Self.call(server, 1, "search_sessions", ["query": "flaky", "limit": 3])
        #expect(search["isError"]?.boolValue == false)
        let hits = search["structuredContent"]?["hits"]?.arrayValue ?? []
        #expect(!hits.isEmpty && hits.count <= 3)
        let hit = try #require(hits.first)
        #expect(hit["session_short_id"]?.stringValue == hit["session_id"]?.stringValue.map { String($0.prefix(8)) })
        #expect(hit["snippet"]?.stringValue?.contains("[") == true)
        #expect(hit["title"]?.stringValue?.isEmpty == false)
        #expect(Self.text(search).contains("read_session"))

        let scoped = try await Self.call(server, 2, "search_sessions", ["query": "the", "session_id": "798c"])
        #expect((scoped["structuredContent"]?["hits"]?.arrayValue ?? []).allSatisfy { $0["session_id"]?.stringValue == Self.session })

        let list = try await Self.call(server, 3, "list_sessions", ["limit": 5])
        let sessions = list["structuredContent"]?["sessions"]?.arrayValue ?? []
        #expect(sessions.count == 5)
        #expect(sessions.first?["title"]?.stringValue == "Draft release notes")
        #expect(sessions.allSatisfy { ($0["desktop"]?.stringValue ?? "").hasPrefix("127.0.0.1:") && $0["gone_from_desktop"]?.boolValue == false },
                "each session says which desktop it came from")
        #expect(Self.text(list).contains("offset: 5"))
        let filtered = try await Self.call(server, 4, "list_sessions", ["query": "flaky"])
        #expect((filtered["structuredContent"]?["sessions"]?.arrayValue ?? []).contains { $0["title"]?.stringValue == "Fix the flaky reconnect " })

        let whole = try await Self.call(server, 5, "read_session", ["session_id": "798c"])
        #expect(Self.text(whole).hasPrefix("# Write a README for the bridge"))
        #expect(Self.text(whole).contains("## User"))
        #expect(Self.text(whole).hasSuffix("_End of the session._\n"))
        let part = try await Self.call(server, 6, "read_session", ["session_id": "798c", "at": 12, "context": 1, "max_chars": 1000])
        let next = try #require(part["structuredContent"]?["next_at"]?.int64Value)
        #expect(next > 12)
        #expect(Self.text(part).contains("earlier event(s) not shown"))
        #expect(Self.text(part).contains("at: \(next), context: 0"))
        #expect(Self.text(part).count < 1300)

        let queued = try await Self.call(server, 7, "enqueue_prompt", ["session_id": "909c", "text": "Run the tests again"])
        #expect(queued["structuredContent"]?["state"]?.stringValue == "queued")
        #expect(queued["structuredContent"]?["prompt_id"]?.int64Value == 1)
        server.closeInput()
        #expect(await server.waitForExit() == 0)
    }

    @Test("mistakes are tool results with isError and what to do; no protocol error, no crash")
    func mistakes() async throws {
        let directory = try TemporaryDirectory()
        let mirror = try await SampleMirror.copy(in: directory)
        let server = try await Self.server(mirror)
        let cases: [(String, JSONValue, String)] = [
            ("read_session", ["session_id": "zzzz"], "list_sessions"),
            ("read_session", ["session_id": "9"], "several session ids"),
            ("read_session", ["session_id": "798c", "at": 999], "no event at ordinal 999"),
            ("search_sessions", ["query": "  "], "required"),
            ("search_sessions", ["query": "***"], "no words"),
            ("search_sessions", ["query": "x", "colour": "red"], "Unknown argument"),
            ("list_sessions", ["limit": 0], "limit must be a whole number"),
            ("enqueue_prompt", ["session_id": "909c", "text": "hi"], "no tool"),
        ]
        for (index, (tool, arguments, advice)) in cases.enumerated() {
            let result = try await Self.call(server, index + 1, tool, arguments)
            #expect(result["isError"]?.boolValue == true, "\(tool) \(arguments)")
            #expect(Self.text(result).contains(advice), "\(tool) \(arguments): \(Self.text(result))")
        }
        server.closeInput()
        #expect(await server.waitForExit() == 0)

        let missing = directory.path("not-yet.sqlite")
        let early = try await Self.server(missing)
        let result = try await Self.call(early, 1, "search_sessions", ["query": "flaky"])
        #expect(result["isError"]?.boolValue == true)
        #expect(Self.text(result).contains("run oa-sync"))
        early.closeInput()
        #expect(await early.waitForExit() == 0)
        #expect(!FileManager.default.fileExists(atPath: missing), "nothing was created")
    }

    @Test("standard output carries MCP messages only, one per line; logs and nothing else go to standard error")
    func onlyMessagesOnStandardOutput() async throws {
        let directory = try TemporaryDirectory()
        let mirror = try await SampleMirror.copy(in: directory)
        let requests = [
            #"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
            #"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            #"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_session","arguments":{"session_id":"zzzz"}}}"#,
            #"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_sessions","arguments":{}}}"#,
            #"{"jsonrpc":"2.0","id":3,"method":"no/such/method"}"#,
            #"{"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":"file:///etc/passwd"}}"#,
        ]
        let outcome = try await ReplProcess.run(["--db", mirror, "--mcp"], input: Data((requests.joined(separator: "\n") + "\n").utf8))
        #expect(outcome.status == 0)
        let lines = outcome.standardOutput.split(separator: "\n")
        #expect(lines.count == 5, "an answer to each request, nothing for the notification")
        for line in lines {
            let message = try JSONParser.parse(String(line))
            #expect(message["jsonrpc"]?.stringValue == "2.0", "\(line)")
        }
        #expect(outcome.standardOutput.contains(#""isError":true"#))
        #expect(outcome.standardOutput.contains("-32601"), "an unknown method is the protocol's error")
    }

    @Test("resources: recent sessions listed, read as Markdown, updated notifications while oa-sync mirrors live events")
    func resources() async throws {
        let live = try await LiveSampleSync(flavor: "cursor")
        let server = try await Self.server(live.mirror)
        try server.request(1, "resources/list")
        let resources = try await server.answer(to: 1).answer["result"]?["resources"]?.arrayValue ?? []
        #expect(resources.count == 12)
        let uri = "openagents://session/\(Self.session)"
        #expect(resources.contains { $0["uri"]?.stringValue == uri && $0["mimeType"]?.stringValue == "text/markdown" })

        try server.request(2, "resources/read", ["uri": .string(uri)])
        let contents = try await server.answer(to: 2).answer["result"]?["contents"]?.arrayValue ?? []
        #expect(contents.first?["text"]?.stringValue?.hasPrefix("# Write a README for the bridge") == true)
        try server.request(3, "resources/read", ["uri": "openagents://session/zzzz"])
        #expect(try await server.answer(to: 3).answer["error"]?["message"]?.stringValue?.contains("list_sessions") == true)

        try server.request(4, "resources/subscribe", ["uri": "openagents://session/798c"])
        #expect(try await server.answer(to: 4).answer["result"] != nil)
        try await SimulatorControl.withConnection(to: live.simulator.url) { control in
            try await control.append("909CA87E-B99E-8C2C-AF5E-B4919C1C6A5E", [SimulatorControl.chunk("elsewhere")])
            try await control.append(Self.session, [SimulatorControl.chunk("a live reply")])
        }
        let deadline = ContinuousClock.now + .seconds(60)
        var notification: JSONValue?
        while notification == nil {
            let line = try await server.nextJSON(timeout: deadline - .now)
            if line["method"]?.stringValue == "notifications/resources/updated" { notification = line }
        }
        #expect(notification?["params"]?["uri"]?.stringValue == "openagents://session/798c", "the URI subscribed to, and only it")
        try server.request(5, "resources/read", ["uri": .string(uri)])
        let updated = try await server.answer(to: 5).answer["result"]?["contents"]?.arrayValue?.first?["text"]?.stringValue ?? ""
        #expect(updated.contains("a live reply"))
        server.closeInput()
        #expect(await server.waitForExit() == 0)
        #expect(await live.sync.terminate() == 0)
    }
}
