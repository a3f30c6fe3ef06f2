import Bridge
import Commands
import Foundation
import Synchronization
import SyncEngine
import TestSupport
import Testing

/// A scripted desktop, followed by an engine in this process; a sync once runs on a `TestClock`
/// that passes time whenever the engine sleeps on it.
struct ScriptedDesktopUnderTest: DesktopUnderTest {
    let desktop: ScriptedDesktop

    /// A certificate's pin, as if one were made anew.
    static func madeCertificate() -> CertificatePin? {
        CertificatePin(parsing: (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined())
    }

    func store(session: String, texts: [String]) async throws {
        for text in texts { await desktop.store(session: session, text: text) }
    }

    func reinstall() async throws {
        await desktop.reinstall()
    }

    func prune(session: String, oldest count: Int) async throws {
        await desktop.prune(session: session, oldest: count)
    }

    func delete(session: String) async throws {
        await desktop.delete(session: session)
    }

    func dropConnections() async throws {
        await desktop.dropConnections()
    }

    func dropBeforeAnsweringPrompts(_ drops: Bool) async throws {
        await desktop.dropBeforeAnsweringPrompts(drops)
    }

    func prompts() async throws -> [ReceivedPrompt] {
        await desktop.prompts.map { ReceivedPrompt(sessionID: $0.sessionID, text: $0.text) }
    }

    var certificate: CertificatePin? {
        get async { await desktop.certificate }
    }

    func presentAnotherCertificate() async throws -> CertificatePin {
        let pin = try #require(Self.madeCertificate())
        await desktop.present(certificate: pin)
        return pin
    }

    func sync(mirror: String, name: String, pin: CertificatePin?) async throws -> SyncOnceOutcome {
        let clock = TestClock()
        let said = Mutex((startedAgain: false, trusted: CertificatePin?.none))
        var options = BridgeClientOptions()
        options.pin = pin
        let engine = try SyncEngine(
            mirrorPath: mirror,
            configuration: SyncConfiguration(bridgeURL: "scripted:", desktopName: name, clientOptions: options),
            clock: clock,
            connector: ScriptedConnector(desktop: desktop),
            observer: { _, event in
                switch event {
                case .historyStartedAgain: said.withLock { $0.startedAgain = true }
                case .certificateTrusted(let pin): said.withLock { $0.trusted = pin }
                default: break
                }
            }
        )
        var outcome = SyncOnceOutcome()
        do {
            let report = try await clock.passingTime { try await engine.syncOnce() }
            outcome.eventsWritten = report.eventsWritten
            outcome.sessionsGone = report.sessionsGone
            outcome.eventsGone = report.eventsGone
            outcome.sessionsFailed = report.failedSessions.count
            outcome.promptsSent = report.promptsSent
            outcome.promptsRefused = report.promptsFailed
            outcome.promptsUnconfirmed = report.promptsUnconfirmed
        } catch {
            let said = CommandError.message(for: error)
            if case BridgeError.certificateMismatch = error { outcome.failure = .certificateMismatch(said: said) } else { outcome.failure = .other(said: said) }
        }
        await engine.finish()
        (outcome.saidHistoryStartedAgain, outcome.trustedOnFirstUse) = said.withLock { ($0.startedAgain, $0.trusted) }
        return outcome
    }

    func history() async throws -> [HistoryRow] {
        await desktop.historyRows
    }

    func stop() async throws {}
}

extension ScriptedDesktop {
    /// Its events as history rows, in seq order.
    var historyRows: [HistoryRow] {
        get async { events.map { HistoryRow(seq: $0.seq, sessionID: $0.sessionID, updateJSON: $0.update.rawBytes) } }
    }
}
