import Foundation
import MirrorStore
import Secrets
import ReadModel

/// What commands work on: the mirror (opened on first use) and the bridge `sync` talks to.
///
/// One front end owns a context and runs its commands one after another.
public final class CommandContext {
    public let mirrorPath: String
    public let bridgeURL: String
    let clock: MirrorClock
    private var openedStore: MirrorStore?
    /// Where long commands (`export --all`) report how far they have got; nil (the default) for
    /// no reports. A front end sets it only where it can show them without mixing them into its
    /// output: oa-repl in text mode, when standard error is a terminal; never in JSON-lines mode.
    public var progress: ((CommandProgress) -> Void)?
    /// Where a command may write a long text as it makes it (`show` of a session), a piece at
    /// a time, each followed by a line break, so that it starts showing before the whole is read;
    /// nil (the default) where a result must come whole: JSON, a pager, JSON lines. A command
    /// that wrote its text returns a result without it.
    public var textOutput: (@Sendable (String) -> Void)?
    /// How commands style the text and tables they make for people (the conversation's roles,
    /// states, search hits); `.plain` (the default) for everything but a terminal's table mode,
    /// which a front end sets, and never in JSON.
    public var palette: Palette = .plain
    /// Whether history leaving the mirror (exports, `show`, `search`, JSON lines, MCP) has its
    /// secrets replaced by `[REDACTED:<kind>#<n>]` tags: true unless a front end is told
    /// `--no-redact` (or `.redact off`).
    public var redacts = true
    /// The user's secrets file (extra rules, values never to flag): `SecretsConfiguration.path()`
    /// unless a front end says otherwise.
    public var secretsFilePath = SecretsConfiguration.path()
    private var loadedDetector: SecretDetector?
    /// Reads one secret from standard input for `secrets --check -` (without echo on a terminal);
    /// nil where standard input is not the user's (JSON-lines mode).
    public var readSecret: (() -> String?)?
    /// How `sync` starts the engine: the name the client announces (the front end's program) and
    /// the pin and token options it was given.
    public var launcher = EngineLauncher(clientName: "openagents-mirror")

    public init(mirrorPath: String, bridgeURL: String, clock: MirrorClock = .system) {
        self.mirrorPath = mirrorPath
        self.bridgeURL = bridgeURL
        self.clock = clock
    }

    /// The mirror; a missing one is an error (nothing was ever synced into it).
    package func store() throws(CommandError) -> MirrorStore {
        if let openedStore { return openedStore }
        guard FileManager.default.fileExists(atPath: mirrorPath) else {
            throw .mirror(.mirrorNotFound(path: mirrorPath))
        }
        do {
            let store = try MirrorStore(path: mirrorPath, clock: clock, migrating: progress.map { report in
                { done, total in
                    report(CommandProgress(activity: "updating the mirror's format", done: done, total: total, unit: "steps", finished: done == total))
                }
            })
            try store.mapForReading()
            openedStore = store
            return store
        } catch {
            throw CommandError.wrapping(error)
        }
    }

    /// The detector of secrets: the built-in rules with the secrets file's, read once.
    package func secretDetector() throws(CommandError) -> SecretDetector {
        if let loadedDetector { return loadedDetector }
        do {
            let detector = try SecretsConfiguration.load(path: secretsFilePath).detector()
            loadedDetector = detector
            return detector
        } catch {
            throw .secretsFile(error.description)
        }
    }

    /// Whether what leaves the mirror is redacted: by the secrets file's rules, unless the person
    /// asked otherwise (`redacts` off).
    package func redactionPolicy() throws(CommandError) -> RedactionPolicy {
        redacts ? .redacted(try secretDetector()) : .none
    }

    /// The views of the mirror (`MirrorViews`), redacted unless the person asked otherwise.
    package func views() throws(CommandError) -> MirrorViews {
        MirrorViews(store: try store(), redaction: try redactionPolicy())
    }

    /// The redaction of live feeds: none when `redacts` is off; else the secrets file's rules, or
    /// the built-in ones when the file cannot be used (the command that starts the feed reports it).
    package func feedRedaction() -> FeedRedaction {
        guard redacts else { return FeedRedaction(.none) }
        guard let detector = (try? secretDetector()) ?? (try? SecretDetector()) else { return FeedRedaction(.none) }
        return FeedRedaction(.redacted(detector))
    }

    /// Closes the mirror, so that another writer (a sync) may take it.
    func closeStore() {
        openedStore = nil
    }

    /// The ids Tab completes (`LineCompletion`): every session's and outbox item's; none when the
    /// mirror cannot be read.
    public func completionIDs() -> CompletionIDs {
        guard let store = try? store() else { return CompletionIDs() }
        return CompletionIDs(sessions: (try? store.sessionIDs(withPrefix: "", limit: 100_000)) ?? [],
                             outboxItems: ((try? store.outboxItems()) ?? []).map { String($0.id) })
    }

    /// The one session `prefix` names: an exact id, or the only id starting with it.
    package func resolveSession(_ prefix: String) throws(CommandError) -> SessionSummary {
        let store = try store()
        do {
            if let exact = try store.session(id: prefix) { return exact }
            let candidates = try store.sessionIDs(withPrefix: prefix, limit: 10)
            guard let only = candidates.first else { throw CommandError.unknownSession(prefix) }
            guard candidates.count == 1 else { throw CommandError.ambiguousSession(prefix: prefix, candidates: candidates) }
            guard let session = try store.session(id: only) else { throw CommandError.unknownSession(prefix) }
            return session
        } catch {
            throw CommandError.wrapping(error)
        }
    }
}
