import Bridge
import Foundation
import Logging
import MCP
import MirrorMCP
import Primitives
import TestSupport

/// `oa-repl --db MIRROR --mcp` run in process: the program's server over the MCP SDK's in-memory
/// transport, spoken to in JSON-RPC messages as a client speaks to the program over its standard
/// input and output. The program itself is started by the tests of what only it does (standard
/// output holding nothing but messages).
public final class InProcessMCP: JSONRPCPeer, Sendable {
    private let outgoing: AsyncStream<Data>.Continuation
    private let incoming: BoundedBuffer<JSONValue>
    private let serving: Task<Int32, Never>

    /// Starts the server on `mirror`, connected: `allowsPrompts` is `--mcp-allow-prompts`,
    /// `redacts: false` is `--no-redact`.
    public init(mirror: String, allowsPrompts: Bool = false, redacts: Bool = true) async throws {
        let (client, server) = await InMemoryTransport.createConnectedPair()
        // Both ends connected before anything is sent: a message to an end not yet connected is dropped.
        try await client.connect()
        try await server.connect()
        let program = MirrorMCPServer(mirrorPath: mirror, bridgeURL: "ws://127.0.0.1:9", allowsPrompts: allowsPrompts, redacts: redacts,
                                      logger: Logger(label: "oa-tests.mcp", factory: { _ in SwiftLogNoOpLogHandler() }))
        serving = Task {
            do {
                try await program.run(transport: server)
                return 0
            } catch {
                return 1
            }
        }
        let incoming = BoundedBuffer<JSONValue>(elementLimit: 10_000)
        self.incoming = incoming
        Task {
            do {
                for try await data in await client.receive() {
                    if let message = try? JSONParser.parse(Array(data)) { _ = await incoming.send(message) }
                }
            } catch {
                // The server went away: what it sent is all there is.
            }
            incoming.finish()
        }
        let (messages, outgoing) = AsyncStream.makeStream(of: Data.self)
        self.outgoing = outgoing
        // Sent in order, one at a time; the end of them is the end of the server's input.
        Task {
            for await message in messages { try? await client.send(message) }
            await client.disconnect()
        }
    }

    public func send(_ line: String) throws {
        outgoing.yield(Data(line.utf8))
    }

    public func nextJSON(timeout: Duration = .seconds(60)) async throws -> JSONValue {
        guard let message = try await incoming.next(within: timeout, awaiting: "a message from the MCP server") else {
            throw WaitTimedOut(awaited: "a message from the MCP server", timeout: timeout, seen: "the server ended")
        }
        return message
    }

    public func closeInput() {
        outgoing.finish()
    }

    public func waitForExit(timeout: Duration = .seconds(60)) async -> Int32 {
        (try? await serving.value(within: timeout, awaiting: "the MCP server's end")) ?? -1
    }
}
