import ArgumentParser
import Bridge
import Foundation
import Logging
import NIOSSL
import Primitives
import ProgramOptions
import ServiceLifecycle
import WebViewer

/// `oa-repl serve` (and `oa serve`): the mirror in a browser, read-only, on 127.0.0.1.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve a read-only web viewer of the mirror on 127.0.0.1, live as oa-sync commits.",
        discussion: """
            Prints the viewer's URL, then serves until Ctrl-C or SIGTERM (exit 0). Pages: the sessions (filters, paging), a session (opened a screen at a time, more loaded as it is scrolled; thinking, tool calls and long outputs folded), search (the query language of search; each hit opens at its entry), status (each desktop, the outbox) and secrets (fingerprints only). They work with JavaScript off; with it, open pages follow oa-sync's commits, and / searches, j and k move, Enter opens.

            What a session holds is shown as untrusted text: escaped, or rendered by cmark-gfm with raw HTML left out and no link but http(s) and anchors; each page forbids every other script, fetch and frame (Content-Security-Policy). Secrets are redacted unless --no-redact (every page then says so). A request whose Host is not the viewer's gets 421, whatever its path.

            --listen beyond loopback needs --tls-cert, --tls-key and --token-file: a browser signs in once with the token and keeps an HttpOnly, Secure, SameSite=Strict cookie.

            Exit codes: 0 stopped by a signal; 1 the server failed (the port is taken, say); 64 bad usage.

            Examples:
              oa-repl serve
              oa serve --port 0 --db ~/mirror.sqlite
              oa serve --listen 0.0.0.0 --host-name desk.example --tls-cert cert.pem --tls-key key.pem --token-file ~/.config/openagents/viewer.token
            """
    )

    @OptionGroup var mirror: MirrorOptions

    @Option(help: ArgumentHelp("The port to listen on (0: one the system picks; the URL printed names it).", valueName: "port"))
    var port: Int = ViewerServer.defaultPort

    @Option(help: ArgumentHelp("The address to listen on (default 127.0.0.1); beyond loopback, with TLS and a token.", valueName: "address"))
    var listen: String = "127.0.0.1"

    @Option(help: ArgumentHelp("A name the viewer is reached by besides loopback's, accepted as the Host of a request (repeatable).", valueName: "name"))
    var hostName: [String] = []

    @Option(help: ArgumentHelp("The TLS certificate chain (PEM) to serve with.", valueName: "path"))
    var tlsCert: String?

    @Option(help: ArgumentHelp("The TLS private key (PEM) of --tls-cert.", valueName: "path"))
    var tlsKey: String?

    @Option(help: ArgumentHelp("A file (chmod 600) holding the token a browser signs in with.", valueName: "path"))
    var tokenFile: String?

    @Flag(help: "Show secrets as they were received (every page says so).")
    var noRedact = false

    func validate() throws {
        guard (0...65_535).contains(port) else { throw ValidationError("--port takes 0 to 65535") }
        if (tlsCert == nil) != (tlsKey == nil) { throw ValidationError("--tls-cert and --tls-key go together") }
        if !ViewerServer.isLoopback(listen) && (tlsCert == nil || tokenFile == nil) {
            throw ValidationError("--listen \(listen) is beyond loopback: it needs --tls-cert, --tls-key and --token-file")
        }
    }

    func run() async throws {
        LoggingSystem.bootstrap { label in StandardErrorLogHandler(label: label, format: .text, level: .warning) }
        var configuration = ViewerServer.Configuration(mirrorPath: mirror.mirrorPath, address: listen, port: port, redacts: !noRedact,
                                                       hostNames: hostName)
        do {
            configuration.token = try tokenFile.map { path throws(BridgeTokenError) in try BridgeToken(contentsOfFile: path) }
        } catch {
            throw ValidationError(error.description)
        }
        if let tlsCert, let tlsKey {
            do {
                let chain = try NIOSSLCertificate.fromPEMFile(tlsCert)
                configuration.tls = TLSConfiguration.makeServerConfiguration(
                    certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(try NIOSSLPrivateKey(file: tlsKey, format: .pem)))
            } catch {
                throw ValidationError("cannot use --tls-cert \(tlsCert) with --tls-key \(tlsKey): \(error)")
            }
        }
        if noRedact { DescriptorWriting.writeErrorLine(ScriptShell.redactionOffNotice) }
        let logger = Logger(label: "oa-serve")
        // SIGINT and SIGTERM shut the server down gracefully: live streams end, requests under way finish.
        let services = ServiceGroup(services: [ViewerServer(configuration: configuration, logger: logger)],
                                    gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        do {
            try await services.run()
        } catch {
            DescriptorWriting.writeErrorLine("oa serve: \(error)")
            throw ExitCode(1)
        }
    }
}
