import ArgumentParser
import Bridge
import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import HummingbirdWebSocket
import Logging
import NIOSSL

/// `oa-bridge-sim`: a stand-in for the OpenAgents desktop bridge, on 127.0.0.1.
@main
struct BridgeSimulatorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "oa-bridge-sim",
        abstract: "Simulate the OpenAgents desktop bridge (JSON-RPC 2.0 over WebSocket) on 127.0.0.1.",
        discussion: """
            Serves a history kept in a SQLite file in the desktop's acp_events layout: a real desktop database, or a synthetic one seeded when the file is new (--sessions, --events, --seed). The simulator writes to that file (new sessions, prompts' replies): give it a copy.

            --advertise NAME publishes the simulator by DNS-SD as _openagents._tcp (through avahi-daemon), with the TXT keys proto, path and history_cursor (cursor flavour); the ready line then comes once the advertisement is established.

            --flavor stock behaves as the desktop bridge does today, quirks included; --flavor cursor adds the history-cursor extension. Tests drive it with _sim/* methods (see docs). Prints one line, "oa-bridge-sim ready on ws://127.0.0.1:PORT ...", once it accepts connections.

            With --tls-cert and --tls-key it serves wss:// (the ready line then shows wss:// and the certificate's SHA-256 pin); with --token it answers an upgrade without "Authorization: Bearer TOKEN" with HTTP 401.

            Example: oa-bridge-sim --flavor stock --db /tmp/history.sqlite --sessions 20 --events 2000
            """
    )

    @Option(help: ArgumentHelp("stock or cursor.", valueName: "flavor"))
    var flavor: String = "cursor"

    @Option(help: ArgumentHelp("The history-cursor extension's version the cursor flavour speaks: 2 names the history (history_id, made when the history file is created), 1 does not.", valueName: "version"))
    var historyCursorVersion = 2

    @Flag(inversion: .prefixedNo, help: "Offer the page byte budget of history.changes (history_max_bytes; a page stops once its updates reach max_bytes). --no-max-bytes serves pages as a bridge without it, ignoring max_bytes.")
    var maxBytes = true

    @Option(help: ArgumentHelp("Port on 127.0.0.1 (0: any free port, printed when ready).", valueName: "port"))
    var port: Int = 9099

    @Option(help: ArgumentHelp("The history file (created if missing).", valueName: "path"))
    var db: String

    @Option(help: ArgumentHelp("Sessions to seed a new, empty history with.", valueName: "count"))
    var sessions: Int = 0

    @Option(help: ArgumentHelp("Events to seed a new, empty history with.", valueName: "count"))
    var events: Int = 0

    @Option(help: ArgumentHelp("Seed of the synthetic history.", valueName: "number"))
    var seed: UInt64 = 1

    @Option(help: ArgumentHelp("The synthetic history's shape: uniform (events of about 150 bytes), realistic (tiny chunks with tool outputs from 10 KB to 8 MB on a long tail, a few huge sessions), runs (realistic, with eight outputs of 6 MB in a row at a third of the events and thirty of 1 MB at two thirds, beyond the count) or streamed (small events only: each session's turns streamed in pieces of a few characters, sessions interleaved at random).", valueName: "shape"))
    var shape: String = "uniform"

    @Option(help: ArgumentHelp("Advertise the simulator by DNS-SD (_openagents._tcp) under this instance name.", valueName: "name"))
    var advertise: String?

    @Flag(help: "Log every connection and request.")
    var verbose = false

    @Option(help: ArgumentHelp("PEM certificate to serve wss:// with (with --tls-key).", valueName: "path"))
    var tlsCert: String?

    @Option(help: ArgumentHelp("PEM private key of --tls-cert.", valueName: "path"))
    var tlsKey: String?

    @Option(help: ArgumentHelp("A bearer token the WebSocket upgrade must carry (a test tool: real secrets do not go on a command line).", valueName: "token"))
    var token: String?

    func validate() throws {
        guard Flavor(rawValue: flavor) != nil else { throw ValidationError("--flavor must be stock or cursor") }
        guard HistoryShape(rawValue: shape) != nil else { throw ValidationError("--shape must be uniform, realistic, runs or streamed") }
        guard (1...2).contains(historyCursorVersion) else { throw ValidationError("--history-cursor-version must be 1 or 2") }
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0…65535") }
        guard sessions >= 0, events >= 0 else { throw ValidationError("--sessions and --events cannot be negative") }
        guard (sessions == 0) == (events == 0) else { throw ValidationError("give --sessions and --events together") }
        guard (tlsCert == nil) == (tlsKey == nil) else { throw ValidationError("give --tls-cert and --tls-key together") }
    }

    func run() async throws {
        var configuredLogger = Logger(label: "oa-bridge-sim")
        configuredLogger.logLevel = verbose ? .debug : .warning
        let logger = configuredLogger
        let history = try SimulatorHistory(path: db)
        if history.eventCount == 0, events > 0 {
            try SyntheticHistory(sessions: sessions, events: events, seed: seed, shape: HistoryShape(rawValue: shape) ?? .uniform).generate { batch in
                _ = try history.append(batch)
            }
        }
        let simulator = BridgeSimulator(flavor: Flavor(rawValue: flavor) ?? .cursor, history: history,
                                        historyCursorVersion: historyCursorVersion, offersMaxBytes: maxBytes, logger: logger)
        let summary = await simulator.summary
        let flavorName = flavor
        let tls = try serverTLS()
        let readyLine: @Sendable (Int) -> String = { port in
            let scheme = tls == nil ? "ws" : "wss"
            let pin = tls.map { ", tls sha256 \($0.pin)" } ?? ""
            return "oa-bridge-sim ready on \(scheme)://127.0.0.1:\(port) (flavor \(flavorName), \(summary)\(pin))"
        }
        let advertisedName = advertise
        let (boundPorts, boundPort) = AsyncStream.makeStream(of: Int.self)
        let expectedAuthorization = token.map { "Bearer \($0)" }
        let webSocketServer = HTTPServerBuilder.http1WebSocketUpgrade(configuration: .init(ws: .init(maxFrameSize: 256 << 20))) { request, channel, _ in
            guard expectedAuthorization == nil || request.headerFields[.authorization] == expectedAuthorization else {
                try await channel.pipeline.addHandler(UnauthorizedAnswer(), position: .first).get()
                return .dontUpgrade
            }
            guard await simulator.acceptsConnections() else { return .dontUpgrade }
            return .upgrade([:]) { inbound, outbound, _ in
                let (connection, closeAfterFrames) = await simulator.register { SimulatorConnection(id: $0, channel: channel, largeMessages: $1) }
                await withTaskGroup(of: Void.self) { group in
                    group.addTask { await connection.runWriter(outbound, closeAfterFrames: closeAfterFrames) }
                    do {
                        for try await message in inbound.messages(maxSize: 256 << 20) {
                            switch message {
                            case .text(let text): await simulator.receive(Array(text.utf8), from: connection)
                            case .binary(let buffer): await simulator.receive(Array(buffer: buffer), from: connection)
                            }
                        }
                    } catch {
                        logger.debug("connection ended", metadata: ["error": "\(error)"])
                    }
                    await simulator.unregister(connection)
                }
            }
        }
        let app = Application(
            router: Router(),
            server: try tls.map { try .tls(webSocketServer, tlsConfiguration: $0.configuration) } ?? webSocketServer,
            configuration: .init(address: .hostname("127.0.0.1", port: port), serverName: "oa-bridge-sim"),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                if advertisedName == nil {
                    FileHandle.standardOutput.write(Data((readyLine(port) + "\n").utf8))
                }
                boundPort.yield(port)
                boundPort.finish()
            },
            logger: logger
        )
        let txt = advertisedName.map { _ in
            SimulatorAdvertisement.txtRecord(flavor: Flavor(rawValue: flavor) ?? .cursor, scheme: tls == nil ? "ws" : "wss", tlsSHA256: tls?.pin.hex)
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            if let advertisedName, let txt {
                group.addTask {
                    try await SimulatorAdvertisement.advertise(name: advertisedName, txt: txt, boundPorts: boundPorts, readyLine: readyLine)
                }
            }
            group.addTask { try await app.runService() }
            // What the simulator starts (requests, broadcasts) lives as long as the server.
            group.addTask { await simulator.runTasks() }
            // Either ending (SIGTERM stops the server; a failed advertisement throws) ends all.
            try await group.next()
            group.cancelAll()
        }
    }

    /// The TLS server configuration of --tls-cert and --tls-key, and the certificate's pin.
    private func serverTLS() throws -> (configuration: TLSConfiguration, pin: CertificatePin)? {
        guard let tlsCert, let tlsKey else { return nil }
        let chain = try NIOSSLCertificate.fromPEMFile(tlsCert)
        guard let leaf = chain.first else { throw ValidationError("\(tlsCert) holds no certificate") }
        let configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) },
            privateKey: .privateKey(try NIOSSLPrivateKey(file: tlsKey, format: .pem))
        )
        return (configuration, CertificatePin(certificateDER: try leaf.toDERBytes()))
    }
}
