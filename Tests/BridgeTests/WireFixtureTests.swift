import Foundation
import TestSupport
import Testing
@testable import Bridge

/// Every frame of `shared/fixtures/stock` (copied into Tests/Fixtures/stock) decodes.
@Suite("Stock frames", .endsWithin(.seconds(120)))
struct WireFixtureTests {
    static let fixtureNames: [String] = (try? FileManager.default.contentsOfDirectory(atPath: Repository.stockFixtures.path))?
        .filter { $0.hasSuffix(".json") }.sorted() ?? []

    func frame(_ name: String) throws -> Frame {
        try Frame(bytes: Array(try Data(contentsOf: Repository.stockFixtures.appending(path: name))))
    }

    @Test("every fixture is a JSON-RPC message", arguments: fixtureNames)
    func decodes(name: String) throws {
        _ = try frame(name).message()
    }

    @Test("the fixtures are all there")
    func fixturesPresent() {
        #expect(Self.fixtureNames.count == 25)
    }

    @Test("every session/update fixture gives its kind and text, and its exact bytes", arguments: [
        ("session-update-00-current_mode_update.json", "current_mode_update", "claude-code"),
        ("session-update-01-user_message_chunk.json", "user_message_chunk", "Fix the failing test in Parser.swift"),
        ("session-update-02-agent_thought_chunk.json", "agent_thought_chunk", "Look at the test first.\nThen the parser."),
        ("session-update-03-plan.json", "plan", "Read the test\nFix the parser"),
        ("session-update-04-tool_call.json", "tool_call", "Bash swift test --filter ParserTests"),
        ("session-update-05-tool_call_update.json", "tool_call_update", "error exit 1 1 test failed"),
        ("session-update-06-agent_message_chunk.json", "agent_message_chunk", "The parser drops "),
        ("session-update-07-agent_message_chunk.json", "agent_message_chunk", "the last token; **fixed** it."),
        ("session-update-08-available_commands_update.json", "available_commands_update", "review: Review the diff"),
        ("session-update-externally-tagged.json", "agent_message_chunk", "Let me list the files..."),
        ("session-update-image-block.json", "user_message_chunk", "[image image/png]"),
        ("session-update-old-image-url.json", "user_message_chunk", "[image: screenshot file:///tmp/shot.png]"),
        ("session-update-old-plan-steps.json", "plan", "Read code\nFix bug"),
        ("session-update-unknown-variant.json", "usage_update", ""),
    ])
    func sessionUpdates(name: String, tag: String, text: String) throws {
        let frame = try frame(name)
        guard case .notification(let method, let params) = try frame.message(),
              case .sessionUpdate(let notification) = WireDecoding.notification(method: method, params: params, frame: frame)
        else {
            Issue.record("\(name) is not a session/update")
            return
        }
        #expect(notification.update.summary.tag == tag)
        #expect(notification.update.summary.text == text)
        let file = String(decoding: frame.bytes, as: UTF8.self)
        let update = String(decoding: notification.update.rawBytes, as: UTF8.self)
        #expect(file.contains(#""update":"# + update + "}}"), "the update's bytes are a slice of the frame")
        #expect(notification.seq == nil)
    }

    @Test("an update's kind is its tag; a tag this version does not know reads as unknown and is kept as sent")
    func updateKinds() {
        #expect(UpdateKind.allCases.map(\.rawValue) == [
            "user_message_chunk", "agent_message_chunk", "agent_thought_chunk", "plan", "tool_call", "tool_call_update",
            "available_commands_update", "current_mode_update", "session_info_update", "unknown",
        ])
        #expect(UpdateKind(tag: "tool_call") == .toolCall)
        #expect(UpdateKind(tag: "usage_update") == .unknown)
        let summary = SessionUpdate(rawBytes: Array(#"{"sessionUpdate":"usage_update","used":3}"#.utf8)).summary
        #expect(summary.kind == .unknown)
        #expect(summary.tag == "usage_update")
        #expect(UpdateSummary(kind: .plan, text: "").tag == "plan")
    }

    @Test("typed variants")
    func variants() throws {
        func variant(_ name: String) throws -> SessionUpdateVariant {
            let frame = try frame(name)
            let update = try #require(frame.json["params"]?["update"])
            return SessionUpdateVariant(update)
        }
        #expect(try variant("session-update-03-plan.json") == .plan([
            PlanEntry(content: "Read the test", priority: "high", status: "completed"),
            PlanEntry(content: "Fix the parser", priority: "medium", status: "in_progress"),
        ]))
        guard case .toolCallUpdate(let update) = try variant("session-update-05-tool_call_update.json") else {
            Issue.record("not a tool call update")
            return
        }
        #expect(update.callID == "call-1")
        #expect(update.status == "error")
        #expect(update.error == "exit 1")
        #expect(try variant("session-update-unknown-variant.json") == .unknown(kind: "usage_update"))
        #expect(try variant("session-update-00-current_mode_update.json") == .currentModeUpdate(modeID: "claude-code"))
    }

    @Test("results decode: initialize (both shapes), recent sessions, timeline, threads, session/new")
    func results() throws {
        func result(_ name: String) throws -> (JSONValue, Frame) {
            let frame = try frame(name)
            guard case .response(_, let result) = try frame.message() else { throw MalformedFrame(reason: "not a result") }
            return (result, frame)
        }
        let capabilities = try BridgeCapabilities(result: try result("initialize-response.json").0)
        #expect(capabilities.protocolVersion == "0.2.2")
        #expect(!capabilities.hasHistoryCursor)
        #expect(!capabilities.pipelining)
        #expect(capabilities.workingDirectory == "/Users/me/code/project")
        #expect(try BridgeCapabilities(result: try result("initialize-response-old.json").0).agentName == "openagents-mac")

        let recent = try WireDecoding.recentSessions(try result("recent-sessions-response.json").0)
        #expect(recent.map(\.messageCount) == [9, 3])

        let (timelineResult, timelineFrame) = try result("session-timeline-response.json")
        let timeline = try WireDecoding.timeline(timelineResult, frame: timelineFrame)
        #expect(timeline.count == 9)
        #expect(timeline.map(\.update.summary.kind).first == .currentModeUpdate)

        let (threadsResult, threadsFrame) = try result("threads-list-response.json")
        let threads = try WireDecoding.threads(threadsResult, frame: threadsFrame)
        #expect(threads.map(\.id) == ["rollout-2025-11-04T10-12-33-8f1e", "2b7f-claude"])
        #expect(threads[1].title == nil)
        #expect(String(decoding: threads[1].rawBytes, as: UTF8.self) == #"{"id":"2b7f-claude","source":"claude_code","updated_at":1730700000000}"#)

        #expect(try WireDecoding.string(try result("session-new-response.json").0, "session_id", "session/new") == "9D3A6C1E-55B0-4F7A-A2C4-1E0F8B6D3C55")
    }

    @Test("a numeric id echo reads as the string that was sent")
    func numericEcho() throws {
        guard case .failure(let id, let error) = try frame("error-numeric-id-echo.json").message() else {
            Issue.record("not an error")
            return
        }
        #expect(id == RequestID("42"))
        #expect(error.code == -32603)
        #expect(RequestID(json: try JSONParser.parse("7.0")) == RequestID("7"))
    }

    @Test("a version other than 0.2.x is refused")
    func unsupportedVersion() {
        #expect(throws: BridgeError.unsupportedProtocol(version: "0.3.0")) {
            try BridgeCapabilities(result: ["protocol_version": "0.3.0"])
        }
    }

    @Test("malformed frames are named, not fatal", arguments: [
        "not json", "[1,2]", "42", #"{"jsonrpc":"2.0"}"#, #"{"id":{"x":1},"result":1}"#, #"{"method":12}"#,
        #"{"id":"a","error":{"code":"x"}}"#,
    ])
    func malformed(text: String) {
        #expect(throws: MalformedFrame.self) { try Frame(bytes: Array(text.utf8)).message() }
    }
}
