import Bridge
@testable import Commands
import Foundation
import FrontEndSupport
@testable import MirrorMCP
import MirrorStore
import Testing
import TestSupport

/// Errors keep their types up to the front ends, which each choose their words by the reason:
/// the REPL prints the message and the hint, JSON lines answers them with the reason as the
/// error's data, MCP advises the model.
@Suite("failures told by their type", .startsPrograms(endsWithin: .seconds(120)))
struct FailurePresentationTests {
    static let schemaTooOld = MirrorStoreError.schemaTooOld(path: "/m.sqlite", found: 3, required: 11)
    static let diskFull = SQLiteError(extendedCode: 13, message: "database or disk is full", sql: "INSERT INTO outbox …")

    @Test("the lower layers' errors keep their types, each with its reason, message and hint")
    func wrapping() {
        let tooOld = CommandError.wrapping(Self.schemaTooOld)
        #expect(tooOld == .mirror(Self.schemaTooOld))
        #expect(tooOld.presentation.reason == .schemaTooOld)
        #expect(tooOld.presentation.hint == "run oa-sync once")
        #expect(tooOld.description == "mirror: \(Self.schemaTooOld) (run oa-sync once)", "the message a user saw before")
        #expect(tooOld.code == -32002)

        let full = CommandError.wrapping(Self.diskFull)
        #expect(full == .sqlite(Self.diskFull))
        #expect(full.presentation.reason == .diskFull)
        #expect(full.presentation.hint?.contains("free space") == true)
        #expect(full.code == -32002)

        let refused = CommandError.wrapping(BridgeError.tokenRefused(url: "ws://127.0.0.1:9", status: 401))
        #expect(refused.presentation.reason == .tokenRefused)
        #expect(refused.code == -32003)
        #expect(CommandError.wrapping(BridgeTokenError.empty(path: "/t")).presentation.reason == .bridgeCredentials)
        #expect(CommandError.wrapping(CredentialsError.invalidToken).description.hasPrefix("bridge: "))
        #expect(Set(FailureReason.allCases.map(\.rawValue)).count == FailureReason.allCases.count, "each reason its own name")
    }

    @Test("a file that cannot be written for lack of space is a full disk; for lack of permission, says where to look")
    func fileSystemFailures() {
        // What Foundation throws for a write that meets ENOSPC, and EACCES.
        let full = CocoaError(.fileWriteOutOfSpace, userInfo: [NSUnderlyingErrorKey: NSError(domain: NSPOSIXErrorDomain, code: Int(ENOSPC))])
        #expect(FileSystemFailure(full) == FileSystemFailure(code: .fileWriteOutOfSpace, number: ENOSPC))
        let outOfSpace = CommandError.io("cannot write /x/a.md: there isn't enough space", FileSystemFailure(full))
        #expect(outOfSpace.presentation.reason == .diskFull)
        #expect(outOfSpace.code == -32006, "the JSON-RPC code stays the one of files")
        #expect(outOfSpace.description == "cannot write /x/a.md: there isn't enough space (free space on that disk, then try again)")
        let refused = CommandError.io("cannot write /x/a.md", FileSystemFailure(POSIXError(.EACCES)))
        #expect(refused.presentation.reason == .ioFailed)
        #expect(refused.presentation.hint?.contains("permissions") == true)
        #expect(CommandError.io("/x is not a directory").presentation == FailurePresentation(reason: .ioFailed, message: "/x is not a directory"))
    }

    @Test("MCP tells a schema too old from a full disk: different advice for the model")
    func mcpAdvice() {
        let tooOld = ToolFailure(.mirror(Self.schemaTooOld), mirrorPath: "/m.sqlite").message
        let full = ToolFailure(.sqlite(Self.diskFull), mirrorPath: "/m.sqlite").message
        #expect(tooOld.contains("run oa-sync once"), "\(tooOld)")
        #expect(full.contains("disk holding the mirror at /m.sqlite is full"), "\(full)")
        #expect(full.contains("free some space"), "\(full)")
        #expect(!full.contains("oa-sync"), "\(full)")
        #expect(ToolFailure(.mirror(.mirrorNotFound(path: "/m.sqlite")), mirrorPath: "/m.sqlite") == .noMirror("/m.sqlite"))
    }

    /// A copy of the sample mirror marked as written by a newer build.
    static func newerMirror(in directory: TemporaryDirectory) async throws -> String {
        let mirror = try await SampleMirror.copy(in: directory)
        let database = try Database(path: mirror)
        try database.execute("PRAGMA user_version = 9999")
        return mirror
    }

    @Test("JSON lines answers a mirror's failure with its reason and hint as the error's data")
    func jsonLinesReason() async throws {
        let directory = try TemporaryDirectory()
        let newer = try await Self.newerMirror(in: directory)
        let request = #"{"jsonrpc":"2.0","id":1,"method":"sessions.list"}"# + "\n"
        for (mirror, reason, hint) in [(newer, "schema_too_new", "--db chooses the mirror file"),
                                       (directory.path("none.sqlite"), "mirror_not_found", "run oa-sync or the sync command first, or pass --db")] {
            let outcome = try await InProcessJSONLines.run(mirror: mirror, input: request)
            let answer = try JSONParser.parse(outcome.standardOutput.trimmingCharacters(in: .newlines))
            #expect(answer["error"]?["code"]?.int64Value == -32002, "\(outcome.standardOutput)")
            #expect(answer["error"]?["data"]?["reason"]?.stringValue == reason, "\(outcome.standardOutput)")
            #expect(answer["error"]?["data"]?["hint"]?.stringValue == hint, "\(outcome.standardOutput)")
            #expect(answer["error"]?["message"]?.stringValue?.hasSuffix("(\(hint))") == true, "the message as before")
        }
    }

    @Test("the REPL prints the message, then the hint")
    func replMessage() async throws {
        let directory = try TemporaryDirectory()
        let newer = try await Self.newerMirror(in: directory)
        let outcome = try await InProcessShell.run(mirror: newer, commands: ["sessions"])
        #expect(outcome.status == 1)
        #expect(outcome.standardError.contains("mirror: \(newer) was written by a newer OpenAgents Mirror"), "\(outcome.standardError)")
        #expect(outcome.standardError.contains("use another mirror file (--db chooses the mirror file)"), "\(outcome.standardError)")
    }

    @Test("oa-repl --mcp advises upgrading for a mirror written by a newer build, and running oa-sync for none")
    func mcpServer() async throws {
        let directory = try TemporaryDirectory()
        let newer = try await Self.newerMirror(in: directory)
        let server = try await MCPServerTests.server(newer)
        let result = try await MCPServerTests.call(server, 1, "list_sessions", [:])
        #expect(result["isError"]?.boolValue == true)
        let text = MCPServerTests.text(result)
        #expect(text.contains("newer OpenAgents Mirror") && text.contains("upgrade oa-repl"), "\(text)")
        #expect(!text.contains("run oa-sync"), "\(text)")
        server.closeInput()
        #expect(await server.waitForExit() == 0)
    }
}
