import Commands
import Logging
import MCP
import ReadModel

/// The mirror as an MCP server on standard input and output (`oa-repl --mcp`): tools to search,
/// list and read sessions (and, when allowed, to queue prompts), and each recent session as a
/// resource a client may subscribe to. Standard output carries MCP messages only; logs go to
/// standard error.
public struct MirrorMCPServer: Sendable {
    /// The mirror's file.
    public let mirrorPath: String
    /// The bridge (unused by the tools; the context commands share takes it).
    public let bridgeURL: String
    /// Whether `enqueue_prompt` is offered.
    public let allowsPrompts: Bool
    /// Whether secrets in what the tools and resources answer are replaced by
    /// `[REDACTED:<kind>#<n>]` tags (the default; `oa-repl --mcp --no-redact` turns it off, and
    /// the server's instructions say so).
    public let redacts: Bool
    let logger: Logger

    /// How many recent sessions `resources/list` offers.
    static let listedResources = 50

    public init(mirrorPath: String, bridgeURL: String, allowsPrompts: Bool, redacts: Bool = true, logger: Logger) {
        self.mirrorPath = mirrorPath
        self.bridgeURL = bridgeURL
        self.allowsPrompts = allowsPrompts
        self.redacts = redacts
        self.logger = logger
    }

    /// Serves until standard input ends (or, with `transport`, until its peer disconnects) or the
    /// task is cancelled.
    public func run(transport: (any Transport)? = nil) async throws {
        let mirror = MirrorQueries(mirrorPath: mirrorPath, bridgeURL: bridgeURL, redacts: redacts)
        let subscriptions = ResourceSubscriptions()
        let server = Server(
            name: "openagents-mirror", version: "1.0.0", title: "OpenAgents mirror",
            instructions: """
                The user's coding-agent sessions, mirrored offline. Find things with search_sessions (or list_sessions), \
                then read the conversation around a hit with read_session (session_id and at: the hit's ordinal).
                """ + (redacts
                    ? " Secrets (keys, tokens, passwords) in the sessions are shown as [REDACTED:<kind>#<n>]; the same value keeps its tag within an answer."
                    : " This server was started with --no-redact: secrets in the sessions appear as they were received."),
            capabilities: .init(resources: .init(subscribe: true, listChanged: false), tools: .init(listChanged: false))
        )
        await register(on: server, mirror: mirror, subscriptions: subscriptions)
        try await server.start(transport: transport ?? AnsweringStdioTransport(logger: logger))
        logger.info("serving the mirror over MCP", metadata: ["mirror": "\(mirrorPath)", "prompts": "\(allowsPrompts)", "redacts": "\(redacts)"])
        await withTaskGroup { group in
            group.addTask { [mirrorPath, logger] in
                await SessionChangeWatch.run(mirrorPath: mirrorPath, subscriptions: subscriptions, server: server, logger: logger)
            }
            await server.waitUntilCompleted()
            group.cancelAll()
        }
        await server.stop()
    }

    private func register(on server: Server, mirror: MirrorQueries, subscriptions: ResourceSubscriptions) async {
        let tools = ToolCalls(mirror: mirror, allowsPrompts: allowsPrompts)
        let listed = ToolDefinitions.all(allowingPrompts: allowsPrompts)
        await server.withMethodHandler(ListTools.self) { _ in ListTools.Result(tools: listed) }
        await server.withMethodHandler(CallTool.self) { params in await tools.call(params.name, params.arguments) }
        await server.withMethodHandler(ListResources.self) { _ in
            // No mirror yet, or unreadable: no resources (the tools say why).
            let sessions = (try? await mirror.recentSessions(limit: Self.listedResources)) ?? []
            return ListResources.Result(resources: sessions.map { row in
                Resource(name: row.title ?? "Session \(row.sessionID)", uri: SessionURI.uri(for: row.sessionID),
                         description: "The session's conversation as Markdown (\(row.eventCount) events; "
                             + "last activity \(row.lastActivity?.iso8601 ?? "unknown")).",
                         mimeType: "text/markdown")
            }, nextCursor: nil)
        }
        await server.withMethodHandler(ReadResource.self) { params in
            let prefix = try Self.sessionID(in: params.uri)
            let document = try await Self.protocolError { () async throws(ToolFailure) in try await mirror.document(session: prefix) }
            return ReadResource.Result(contents: [.text(document.markdown, uri: params.uri, mimeType: "text/markdown")])
        }
        await server.withMethodHandler(ResourceSubscribe.self) { params in
            let prefix = try Self.sessionID(in: params.uri)
            let sessionID = try await Self.protocolError { () async throws(ToolFailure) in try await mirror.resolve(prefix) }
            subscriptions.add(params.uri, sessionID: sessionID)
            return Empty()
        }
        await server.withMethodHandler(ResourceUnsubscribe.self) { params in
            subscriptions.remove(params.uri)
            return Empty()
        }
    }

    private static func sessionID(in uri: String) throws -> String {
        guard let id = SessionURI.sessionID(in: uri) else {
            throw MCPError.invalidParams("\(uri) is not a session of this server: its resources are \(SessionURI.prefix)<session id>")
        }
        return id
    }

    /// A resource request's failure as the protocol's error (resources have no `isError` result).
    private static func protocolError<T>(_ body: () async throws(ToolFailure) -> T) async throws -> T {
        do {
            return try await body()
        } catch {
            throw MCPError.invalidParams(error.message)
        }
    }
}
