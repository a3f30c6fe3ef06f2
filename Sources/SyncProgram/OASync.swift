import ArgumentParser
import Bridge
import Commands
import Dispatch
import Foundation
import Logging
import Primitives
import ProgramOptions
import SyncEngine

/// `oa-sync`: keeps a local mirror of the desktop bridge's history.
struct OASync: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "oa-sync",
        abstract: "Mirror an OpenAgents desktop bridge's threads, sessions and timelines into a local SQLite file.",
        discussion: """
            Connects to the bridge, catches up (from the mirror's history cursor when the bridge offers one, else by refetching the timelines that changed), sends prompts queued while offline, then follows live updates. When the connection is lost it reconnects, forever, with exponential backoff and jitter. SIGINT or SIGTERM finish the current transaction and exit 0.

            The mirror: --db, else $OA_DB, else $XDG_DATA_HOME/openagents/mirror.sqlite. The bridge: --bridge, else $OA_BRIDGE, else ws://127.0.0.1:9099. One oa-sync per mirror; readers such as oa-repl may run beside it.

            Several desktops, one mirror: give --bridge once per desktop (or list them in $OA_BRIDGE, separated by commas or spaces), each optionally as NAME=URL; dnssd:* follows every bridge DNS-SD finds at start. One oa-sync follows them all at once, each with its own cursor, backoff and status; every session keeps the desktop it came from, and a prompt goes to the desktop its session lives on. The mirror is an archive: what a desktop no longer has (a deleted session, pruned events, a history wiped by a reinstall) stays, marked as gone from the desktop.

            DNS-SD (Avahi on Linux: avahi-daemon must run): --discover lists the bridges advertising _openagents._tcp; --bridge dnssd connects to the only one found, --bridge dnssd:NAME to the instance NAME, resolving it again before every connection attempt so that a bridge whose address or port changed is found again.

            wss:// bridges: the certificate must match a pin: --tls-pin (or $OA_TLS_PIN), else the one this mirror remembered for the bridge, else the tls_sha256 TXT key of a bridge found by DNS-SD; else it is trusted on first use, remembered and printed. A bridge that wants a token gets it from --token-file (or $OA_TOKEN_FILE, or $OA_TOKEN), a file only its owner may read.

            Exit codes: 0 done; 1 could not sync (the reason is printed; with several bridges, any one that could not, the others synced); 3 another oa-sync holds the mirror; 4 (--once) some prompts were refused or their fate is unknown; 5 the bridge's certificate does not match the pin (nothing was sent to it; the mirror is unchanged; with several bridges the others go on, and oa-sync exits 5 when none is left); 6 (--once) the bridge refused the token or needs one; 7 (--once) some sessions could not be mirrored (named on standard error; the others were; they are retried with backoff); 64 bad usage.

            Examples:
              oa-sync --bridge ws://127.0.0.1:9099 --once
              OA_BRIDGE=ws://100.101.102.103:9099 oa-sync --log-format json
              oa-sync --discover && oa-sync --bridge "dnssd:My Desktop"
              oa-sync --bridge work=ws://10.0.0.5:9099 --bridge home=wss://100.64.0.7:9443
              systemctl --user enable --now oa-sync    # as a service: tools/packaging/systemd/oa-sync.service, docs/cli.md
            """
    )

    @OptionGroup var mirror: MirrorOptions

    @OptionGroup var bridge: BridgeSecurityOptions

    @Option(help: ArgumentHelp("The desktop's short name, shown beside its sessions; a bridge that does not name its history is found again by it (default: the DNS-SD instance, else the bridge's host, with its port unless 9099).", valueName: "name"))
    var name: String?

    @Flag(help: "Catch up and deliver queued prompts once, then exit.")
    var once = false

    @Flag(help: "List the bridges DNS-SD finds (name, URL, advertised pin), then exit: 0 if any was found, else 1.")
    var discover = false

    @Option(help: ArgumentHelp("How long DNS-SD browses, for --discover and before each connection to a dnssd bridge, in milliseconds.", valueName: "ms"))
    var discoverTimeoutMs = Int(BridgeChoice.defaultDiscoveryTimeout.milliseconds)

    @Flag(name: .shortAndLong, help: "Log warnings and errors only.")
    var quiet = false

    @Flag(name: .shortAndLong, help: "Log every step.")
    var verbose = false

    @Option(help: ArgumentHelp("Log line format on standard error: text, json or journal (default: journal under systemd, else text).", valueName: "format"))
    var logFormat: LogFormat?

    @Option(help: ArgumentHelp("First reconnect delay ceiling, in milliseconds (doubles per attempt, with full jitter).", valueName: "ms"))
    var backoffInitialMs = 500

    @Option(help: ArgumentHelp("Longest reconnect delay, in milliseconds.", valueName: "ms"))
    var backoffCapMs = 30_000

    @Option(help: ArgumentHelp("Events the first history.changes page asks for (1 to 5000); later pages adapt to the bytes they hold.", valueName: "events"))
    var changesPageSize = 2000

    @Option(help: ArgumentHelp("A stock bridge's session with live updates is fetched again after this many quiet milliseconds.", valueName: "ms"))
    var refetchAfterQuietMs = 2000

    @Option(help: ArgumentHelp("How long the first connection attempt waits for the bridge's answer to initialize, in milliseconds (later attempts wait at least 10 s).", valueName: "ms"))
    var handshakeTimeoutMs = 3000

    func validate() throws {
        if quiet && verbose { throw ValidationError("--quiet and --verbose cannot be used together") }
        if let name, name.isEmpty || name.contains(where: \.isNewline) {
            throw ValidationError("--name must be a non-empty name on one line")
        }
        if name != nil && bridge.entries.count > 1 {
            throw ValidationError("--name names the one bridge: with several, give each its name as --bridge NAME=URL")
        }
        // The bridges of $OA_BRIDGE too: oa-sync follows them.
        try BridgeSecurityOptions.validate(bridge.entries)
        guard discoverTimeoutMs > 0 else { throw ValidationError("--discover-timeout-ms must be positive") }
        guard backoffInitialMs > 0, backoffCapMs >= backoffInitialMs else {
            throw ValidationError("--backoff-initial-ms must be positive and at most --backoff-cap-ms")
        }
        guard (1...5000).contains(changesPageSize) else { throw ValidationError("--changes-page-size must be 1…5000") }
        guard refetchAfterQuietMs >= 0 else { throw ValidationError("--refetch-after-quiet-ms cannot be negative") }
        guard handshakeTimeoutMs > 0 else { throw ValidationError("--handshake-timeout-ms must be positive") }
    }

    func run() async throws {
        LargeAllocations.mapLargeBlocksAlone()
        // A reader of standard error that went away (a log pipe closed) costs its log lines, not
        // the mirror's sync: a failed write is an error to drop (`DescriptorWriting`), from the
        // first line on, as it is anyway once SwiftNIO's first connection ignores the signal.
        signal(SIGPIPE, SIG_IGN)
        StandardErrorLogHandler.bootstrap(format: resolvedLogFormat, level: quiet ? .warning : verbose ? .debug : .info)
        let logger = Logger(label: "oa-sync")
        if discover {
            try await listDiscoveredBridges()
            return
        }
        let mirrorPath = mirror.mirrorPath
        let lock: MirrorLock
        do {
            try MirrorLocation.prepareDirectory(for: mirrorPath)
            lock = try MirrorLock(mirrorPath: mirrorPath)
        } catch let error as MirrorLockError {
            throw fail("oa-sync: \(error)", code: 3)
        } catch {
            throw fail("oa-sync: cannot use \(mirrorPath): \(error)", code: 1)
        }
        defer { withExtendedLifetime(lock) {} }

        let entries = try await expandedEntries(logger: logger)
        let urls = Dictionary(entries.map { (name ?? $0.desktopName, $0.bridge) }, uniquingKeysWith: { first, _ in first })
        let progressLine = ProgressLine.isTerminal && !quiet ? ProgressLine() : nil
        var launcher = bridge.launcher(clientName: "oa-sync")
        launcher.handshakeTimeout = .milliseconds(handshakeTimeoutMs)
        launcher.backoff = BackoffPolicy(initial: .milliseconds(backoffInitialMs), cap: .milliseconds(backoffCapMs))
        launcher.changesPageSize = changesPageSize
        launcher.refetchAfterQuiet = .milliseconds(refetchAfterQuietMs)
        launcher.discoveryTimeout = .milliseconds(discoverTimeoutMs)
        MessageLimitOverrides.apply(ProcessInfo.processInfo.environment, to: &launcher)
        let engine: SyncEngine<ContinuousClock>
        do {
            engine = try launcher.engine(mirrorPath: mirrorPath, bridges: entries, desktopName: name, logger: logger) { desktop, event in
                switch event {
                case .progress(let progress): progressLine?.show(progress)
                case .stateChanged, .problem, .sessionNotMirrored: progressLine?.clear()
                case .certificateTrusted(let pin):
                    progressLine?.clear()
                    DescriptorWriting.writeErrorLine("""
                        oa-sync: trusting \(urls[desktop] ?? desktop) on first use: its certificate's SHA-256 is \(pin)
                        oa-sync: the pin is remembered in the mirror; a different certificate will be refused
                        """)
                case .historyStartedAgain(let desktop, let earlierSessions):
                    progressLine?.clear()
                    DescriptorWriting.writeErrorLine("""
                        oa-sync: the history of \(desktop) started again (the desktop was reinstalled or its history wiped): \
                        the \(earlierSessions) session(s) mirrored from the earlier one stay, marked gone from the desktop; \
                        the new history is mirrored from its start
                        """)
                }
            }
        } catch let error as CredentialsError {
            throw fail("oa-sync: \(error)", code: 1)
        } catch let error as BridgeTokenError {
            throw fail("oa-sync: \(error)", code: 1)
        } catch {
            throw fail("oa-sync: cannot open the mirror: \(CommandError.message(for: error))", code: 1)
        }
        logger.info("starting", metadata: ["mirror": "\(mirrorPath)", "bridge": "\(entries.map(\.bridge).joined(separator: ", "))",
                                           "once": "\(once)"])

        let firstDesktop = entries.first.map { name ?? $0.desktopName } ?? ""
        let once = once
        let work = Task { () -> [(desktop: String, outcome: Result<SyncReport, any Error>)]? in
            guard once else {
                do {
                    try await engine.run()
                    return nil
                } catch {
                    return [(firstDesktop, .failure(error))]
                }
            }
            return await engine.syncEachOnce()
        }
        let signals = Self.cancelOnTerminationSignals(work)
        defer { signals.forEach { $0.cancel() } }
        let outcomes = await work.value
        await engine.finish()
        progressLine?.clear()
        guard let outcomes else {
            logger.info("stopped")
            return
        }
        var failure: (desktop: String, error: any Error)?
        var promptsFailed = 0
        var promptsUnconfirmed = 0
        var failedSessions: [(desktop: String, sessionID: String, reason: String)] = []
        for (desktop, outcome) in outcomes {
            switch outcome {
            case .success(let report):
                print(Self.summary(report, several: outcomes.count > 1))
                failedSessions += report.failedSessions.map { (desktop, $0.sessionID, $0.reason) }
                promptsFailed += report.promptsFailed
                promptsUnconfirmed += report.promptsUnconfirmed
            case .failure(let error):
                if error is CancellationError || work.isCancelled { continue }
                failure = failure ?? (desktop, error)
                if outcomes.count > 1 {
                    DescriptorWriting.writeErrorLine("oa-sync: \(desktop): \(CommandError.message(for: error))")
                }
            }
        }
        if work.isCancelled {
            logger.info("stopped before finishing")
            return
        }
        if let failure {
            let prefix = outcomes.count > 1 ? "\(failure.desktop): " : ""
            throw fail("oa-sync: \(prefix)\(CommandError.message(for: failure.error))", code: Self.exitCode(for: failure.error))
        }
        if !failedSessions.isEmpty {
            for (desktop, sessionID, reason) in failedSessions {
                let prefix = outcomes.count > 1 ? "\(desktop): " : ""
                DescriptorWriting.writeErrorLine("oa-sync: \(prefix)session \(sessionID) could not be mirrored: \(reason)")
            }
            throw fail("oa-sync: \(failedSessions.count) session(s) could not be mirrored (the others were); "
                 + "they are retried with backoff: see oa-repl status", code: 7)
        }
        if promptsFailed + promptsUnconfirmed > 0 {
            throw fail("oa-sync: \(promptsFailed) prompt(s) refused, \(promptsUnconfirmed) unconfirmed: see oa-repl outbox", code: 4)
        }
    }

    /// The bridges to follow, with `dnssd:*` replaced by every bridge DNS-SD finds now (each
    /// named by its instance, and found again by name before each connection).
    func expandedEntries(logger: Logger) async throws(ExitCode) -> [BridgeEntry] {
        var expanded: [BridgeEntry] = []
        for entry in bridge.entries {
            guard entry.isEveryAdvertisedBridge else {
                expanded.append(entry)
                continue
            }
            let found = try await browseOrFail()
            // An instance with several addresses is found once per address: one bridge each.
            var names: [String] = []
            for bridge in found where !names.contains(bridge.instanceName) { names.append(bridge.instanceName) }
            logger.info("following every advertised bridge", metadata: ["found": "\(names.joined(separator: ", "))"])
            expanded += names.map { BridgeEntry(name: $0, bridge: "dnssd:\($0)") }
        }
        return expanded
    }

    /// The bridges DNS-SD finds within `--discover-timeout-ms`; exit code 1, saying why, when none is.
    func browseOrFail() async throws(ExitCode) -> [DiscoveredBridge] {
        let timeout = Duration.milliseconds(discoverTimeoutMs)
        let found: [DiscoveredBridge]
        do {
            found = try await BridgeDiscovery.browse(timeout: timeout)
        } catch {
            throw fail("oa-sync: \(error)", code: 1)
        }
        guard !found.isEmpty else {
            throw fail("oa-sync: \(DNSSDError.notFound(instance: nil, found: [], after: timeout)) "
                 + "(asked avahi-daemon on the D-Bus system bus at \(BridgeDiscovery.systemBusAddress))", code: 1)
        }
        return found
    }

    /// 5 for a certificate that does not match the pin, 6 for a token refused or missing, else 1.
    static func exitCode(for error: any Error) -> Int32 {
        switch error as? BridgeError {
        case .certificateMismatch?: 5
        case .tokenRequired?, .tokenRefused?: 6
        default: 1
        }
    }

    /// `--discover`: prints one line per bridge found (instance name, URL, and `tls_sha256=PIN`
    /// when one is advertised, tab-separated), or exit code 1, saying why none was found.
    func listDiscoveredBridges() async throws(ExitCode) {
        for bridge in try await browseOrFail() {
            print(([bridge.instanceName, bridge.url] + (bridge.tlsSHA256.map { ["tls_sha256=\($0)"] } ?? [])).joined(separator: "\t"))
        }
    }

    /// The line `--once` prints for a bridge (named by its desktop when there are several).
    static func summary(_ report: SyncReport, several: Bool) -> String {
        let how = report.historyCursor ? "history cursor" : "\(report.timelinesFetched) timeline(s) fetched"
        let who = several ? "\(report.desktop) at \(report.bridgeURL)" : report.bridgeURL
        var line = "synced with \(who) (\(how)): \(report.eventsWritten) event(s) written, "
            + "\(report.promptsSent) prompt(s) sent in \(String(format: "%.2f", report.seconds)) s"
        if report.sessionsGone + report.eventsGone > 0 {
            line += "; no longer on the desktop, kept and marked: \(report.sessionsGone) session(s), \(report.eventsGone) event(s)"
        }
        return line
    }

    /// SIGINT and SIGTERM cancel `task`; the engine then finishes its transaction and returns.
    static func cancelOnTerminationSignals<T>(_ task: Task<T, Never>) -> [any DispatchSourceSignal] {
        [SIGINT, SIGTERM].map { signalNumber in
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler { task.cancel() }
            source.resume()
            return source
        }
    }

    /// The log format asked for, else the one standard error calls for.
    var resolvedLogFormat: LogFormat { logFormat ?? .forStandardError() }

    /// Prints why oa-sync stops (as an error priority for the journal); the exit code `code` to
    /// throw, so that the `defer`s on the way out (the mirror's lock) run.
    func fail(_ message: String, code: Int32) -> ExitCode {
        let prefix = resolvedLogFormat == .journal ? "<3>" : ""
        DescriptorWriting.writeErrorLine(prefix + message)
        return ExitCode(code)
    }
}

extension LogFormat: ExpressibleByArgument {}
