import Bridge
import MirrorStore
import TestSupport
import Testing

/// A desktop a sync scenario runs against. A scenario is written once, against this: in-process
/// by default (`ScriptedDesktop`, followed by the engine in this process: no socket, no program),
/// or end to end for the smoke set (the bridge simulator over loopback, followed by `oa-sync`).
///
/// Used by the one task that runs the scenario (the simulator's process handle is not `Sendable`).
protocol DesktopUnderTest {
    /// Stores `texts` in `session` as an agent's message chunks, and announces them live. (A
    /// desktop may add updates of its own after a prompt: the simulator's scripted agent replies.)
    func store(session: String, texts: [String]) async throws
    /// Forgets its history, as a reinstalled desktop does: seqs start again from 1, under a new
    /// history id (version 2) or none (version 1).
    func reinstall() async throws
    /// Forgets the session's `count` oldest events, as an app pruning old transcripts does.
    func prune(session: String, oldest count: Int) async throws
    /// Forgets a session and its events.
    func delete(session: String) async throws
    /// Ends every open connection at once.
    func dropConnections() async throws
    /// From now on, takes each prompt and then drops its connection before answering (`true`), as
    /// a desktop that loses the link mid-prompt does; or answers (`false`).
    func dropBeforeAnsweringPrompts(_ drops: Bool) async throws
    /// The prompts it took, in order (a resend it knew by its client message id not again).
    func prompts() async throws -> [ReceivedPrompt]
    /// The certificate it presents (`wss://`), if it was made with one.
    var certificate: CertificatePin? { get async }
    /// Presents a certificate made anew from now on; returns its pin.
    func presentAnotherCertificate() async throws -> CertificatePin
    /// Syncs `mirror` with it once, naming it `name`; with `pin`, given deliberately, as
    /// `--tls-pin` gives it.
    func sync(mirror: String, name: String, pin: CertificatePin?) async throws -> SyncOnceOutcome
    /// Every event it holds now, in seq order: what the mirror must hold of it.
    func history() async throws -> [HistoryRow]
    /// Ends what runs for it.
    func stop() async throws
}

extension DesktopUnderTest {
    /// Syncs `mirror` with it once, which must succeed.
    func syncOnce(mirror: String, name: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> SyncOnceOutcome {
        let outcome = try await sync(mirror: mirror, name: name, pin: nil)
        #expect(outcome.failure == nil, sourceLocation: sourceLocation)
        return outcome
    }

    /// Its history as the scenario ends, after which what runs for it is ended.
    func finalHistory() async throws -> [HistoryRow] {
        let history = try await history()
        try await stop()
        return history
    }
}

/// A prompt a desktop took.
struct ReceivedPrompt: Equatable {
    var sessionID: String
    var text: String
}

/// What one sync with a desktop under test did, as its report (in-process) or its output and
/// exit code (`oa-sync --once`) say.
struct SyncOnceOutcome: CustomStringConvertible {
    var eventsWritten = 0
    var sessionsGone = 0
    var eventsGone = 0
    /// Sessions that could not be mirrored (the others were).
    var sessionsFailed = 0
    var promptsSent = 0
    var promptsRefused = 0
    var promptsUnconfirmed = 0
    /// It was told that the desktop's history started again.
    var saidHistoryStartedAgain = false
    /// The certificate it said it trusted on first use, naming the bridge.
    var trustedOnFirstUse: CertificatePin?
    /// Why it failed, if it did.
    var failure: SyncOnceFailure?

    var description: String {
        "\(eventsWritten) written, gone \(sessionsGone)/\(eventsGone), \(sessionsFailed) failed sessions, prompts "
            + "\(promptsSent)/\(promptsRefused)/\(promptsUnconfirmed), failure: \(failure.map { "\($0)" } ?? "none")"
    }
}

/// Why a sync with a desktop under test failed, with what it said: `oa-sync`'s standard error, or
/// the message the programs print for the engine's error.
enum SyncOnceFailure: Equatable {
    /// The certificate presented is not the one pinned.
    case certificateMismatch(said: String)
    /// Anything else.
    case other(said: String)

    var said: String {
        switch self {
        case .certificateMismatch(let said), .other(let said): said
        }
    }
}

/// Where a scenario's desktop runs.
enum DesktopPlace: String, CaseIterable, CustomTestStringConvertible {
    /// `ScriptedDesktop` and the engine, in this process.
    case inProcess
    /// The bridge simulator over loopback, and the `oa-sync` program.
    case simulator

    var testDescription: String { rawValue }

    /// A desktop of `flavor`, here, serving `wss://` with a certificate of its own when
    /// `presentsCertificate`; its files in `directory`, named after `label`.
    func desktop(_ label: String, _ flavor: ScriptedDesktop.Flavor, presentsCertificate: Bool = false,
                 in directory: TemporaryDirectory) async throws -> any DesktopUnderTest {
        switch self {
        case .inProcess:
            let desktop = ScriptedDesktop(flavor: flavor)
            if presentsCertificate { await desktop.present(certificate: ScriptedDesktopUnderTest.madeCertificate()) }
            return ScriptedDesktopUnderTest(desktop: desktop)
        case .simulator:
            return try await SimulatedDesktopUnderTest(label, flavor, presentsCertificate: presentsCertificate, directory: directory)
        }
    }
}
