import Bridge
import MirrorStore

/// How a failure is told, decided in one place for every front end: a stable reason a program can
/// match, the message, and how to fix it with these programs. oa-repl prints the message and the
/// hint; JSON lines answers the message with the reason and the hint as the error's `data`; the MCP
/// server chooses its advice to the model by the reason.
public struct FailurePresentation: Sendable, Equatable {
    /// What kind of failure it is, by a name that never changes.
    public var reason: FailureReason
    /// What went wrong, for people (after `mirror: ` or `bridge: ` when a command failed).
    public var message: String
    /// How to fix it with oa-sync and oa-repl (their options, their commands), if they offer a way.
    public var hint: String?

    public init(reason: FailureReason, message: String, hint: String? = nil) {
        self.reason = reason
        self.message = message
        self.hint = hint
    }

    /// The message, then the hint in parentheses: what oa-repl and oa-sync print.
    public var text: String {
        hint.map { "\(message) (\($0))" } ?? message
    }

    /// An error of a lower layer as the programs tell it (without naming the layer).
    public init(describing error: any Error) {
        switch error {
        case let error as MirrorStoreError: self.init(error)
        case let error as SQLiteError: self.init(error)
        case let error as BridgeError: self.init(error)
        case let error as CommandError: self = error.presentation
        case let error as MirrorLockError: self.init(reason: .mirrorLocked, message: error.description)
        case let error as CredentialsError: self.init(reason: .bridgeCredentials, message: error.description)
        case let error as BridgeTokenError: self.init(reason: .bridgeCredentials, message: error.description)
        default: self.init(reason: .mirrorFailed, message: "\(error)")
        }
    }

    init(_ error: MirrorStoreError) {
        switch error {
        case .notADatabase: self.init(reason: .notADatabase, message: error.description, hint: "--db chooses the mirror file")
        case .notAMirror: self.init(reason: .notAMirror, message: error.description, hint: "--db chooses the mirror file")
        case .schemaTooNew: self.init(reason: .schemaTooNew, message: error.description, hint: "--db chooses the mirror file")
        case .schemaTooOld: self.init(reason: .schemaTooOld, message: error.description, hint: "run oa-sync once")
        case .mirrorNotFound:
            self.init(reason: .mirrorNotFound, message: error.description, hint: "run oa-sync or the sync command first, or pass --db")
        case .migrationFailed: self.init(reason: .migrationFailed, message: error.description, hint: "--db chooses another mirror file")
        case .unknownOutboxItem, .invalidOutboxTransition, .outboxItemInFlight: self.init(reason: .outbox, message: error.description)
        case .unknownSession: self.init(reason: .unknownSession, message: error.description)
        case .unknownHistory, .historyRequired: self.init(reason: .mirrorFailed, message: error.description)
        case .checkpointIncomplete: self.init(reason: .mirrorBusy, message: error.description)
        }
    }

    init(_ error: SQLiteError) {
        if error.isDiskFull {
            self.init(reason: .diskFull, message: error.description, hint: "free space on the disk that holds the mirror, then try again")
        } else if error.isBusy {
            self.init(reason: .mirrorBusy, message: error.description, hint: "another program is writing to the mirror: try again in a moment")
        } else if error.isReadOnly {
            self.init(reason: .mirrorReadOnly, message: error.description,
                      hint: "the mirror file or its directory cannot be written: check their permissions, or pass --db")
        } else if error.isCorrupt {
            self.init(reason: .mirrorCorrupt, message: error.description,
                      hint: "the mirror file is damaged: move it aside and run oa-sync to mirror the history again")
        } else {
            self.init(reason: .mirrorFailed, message: error.description)
        }
    }

    init(_ error: BridgeError) {
        switch error {
        case .certificateMismatch(_, _, let presented):
            self.init(reason: .certificateMismatch, message: error.description,
                      hint: "if the bridge's certificate changed on purpose (check its fingerprint on the desktop), accept it once with "
                          + "--tls-pin \(presented.hex) or OA_TLS_PIN; it is then remembered")
        case .tokenRequired: self.init(reason: .tokenRequired, message: error.description, hint: "give it with --token-file PATH, OA_TOKEN_FILE or OA_TOKEN")
        case .tokenRefused: self.init(reason: .tokenRefused, message: error.description, hint: "check the token in --token-file, OA_TOKEN_FILE or OA_TOKEN")
        case .invalidURL, .connectionFailed, .handshakeTimedOut, .connectionClosed, .upgradeRefused:
            self.init(reason: .bridgeUnreachable, message: error.description)
        case .unsupportedProtocol, .timedOut, .messageTooLarge, .eventTooLarge, .server, .unexpectedResult:
            self.init(reason: .bridgeFailed, message: error.description)
        }
    }
}

/// Why a command failed, as a stable name programs can match (JSON lines' `data.reason`): unlike
/// messages, these never change.
public enum FailureReason: String, Sendable, CaseIterable {
    case parseError = "parse_error"
    case invalidRequest = "invalid_request"
    case unknownCommand = "unknown_command"
    case badArguments = "bad_arguments"
    case unknownSession = "unknown_session"
    case ambiguousSession = "ambiguous_session"
    /// No mirror at the path: nothing was synced into it yet.
    case mirrorNotFound = "mirror_not_found"
    case notADatabase = "not_a_database"
    case notAMirror = "not_a_mirror"
    /// Written by a newer build: upgrade, or use another mirror.
    case schemaTooNew = "schema_too_new"
    /// Needs the upgrade a read-write open (oa-sync) makes.
    case schemaTooOld = "schema_too_old"
    case migrationFailed = "migration_failed"
    /// The disk holding the mirror is full.
    case diskFull = "disk_full"
    case mirrorBusy = "mirror_busy"
    case mirrorReadOnly = "mirror_read_only"
    case mirrorCorrupt = "mirror_corrupt"
    /// Another oa-sync holds the mirror.
    case mirrorLocked = "mirror_locked"
    /// Any other failure of the mirror.
    case mirrorFailed = "mirror_failed"
    /// No connection to the bridge, or no answer to `initialize`.
    case bridgeUnreachable = "bridge_unreachable"
    case certificateMismatch = "certificate_mismatch"
    case tokenRequired = "token_required"
    case tokenRefused = "token_refused"
    /// The pin or token given cannot be used.
    case bridgeCredentials = "bridge_credentials"
    /// Any other failure of the bridge.
    case bridgeFailed = "bridge_failed"
    case outbox
    case fileExists = "file_exists"
    case ioFailed = "io_failed"
    case filesFailed = "files_failed"
    case unknownSubscription = "unknown_subscription"
    case secretsFile = "secrets_file"
    case internalError = "internal_error"
}

extension CommandError {
    /// How this failure is told: the mirror's and the bridge's errors as their layer describes
    /// them, after `mirror: ` or `bridge: `.
    public var presentation: FailurePresentation {
        switch self {
        case .parseError(let message): FailurePresentation(reason: .parseError, message: "not JSON: \(message)")
        case .invalidRequest(let message): FailurePresentation(reason: .invalidRequest, message: "not a JSON-RPC request: \(message)")
        case .unknownCommand(let name):
            FailurePresentation(reason: .unknownCommand, message: "unknown command or method \(name); help lists the commands, methods the methods")
        case .badArguments(let message): FailurePresentation(reason: .badArguments, message: message)
        case .unknownSession(let prefix): FailurePresentation(reason: .unknownSession, message: "no mirrored session starts with \(prefix)")
        case .ambiguousSession(let prefix, let candidates):
            FailurePresentation(reason: .ambiguousSession,
                                message: "\(prefix) is ambiguous: \(candidates.joined(separator: ", "))\(candidates.count > 9 ? ", …" : "")")
        case .mirror(let error): FailurePresentation(error).prefixed("mirror: ")
        case .sqlite(let error): FailurePresentation(error).prefixed("mirror: ")
        case .mirrorLocked(let error):
            FailurePresentation(reason: .mirrorLocked, message: "mirror: \(error)", hint: "oa-sync is keeping this mirror in sync already")
        case .store(let message): FailurePresentation(reason: .mirrorFailed, message: "mirror: \(message)")
        case .bridge(let error): FailurePresentation(error).prefixed("bridge: ")
        case .credentials(let error): FailurePresentation(reason: .bridgeCredentials, message: "bridge: \(error)")
        case .tokenFile(let error): FailurePresentation(reason: .bridgeCredentials, message: "bridge: \(error)")
        case .outbox(let message): FailurePresentation(reason: .outbox, message: message)
        case .fileExists(let path): FailurePresentation(reason: .fileExists, message: "\(path) exists: pass --force (force: true) to overwrite it")
        case .io(let message, let failure?) where failure.isOutOfSpace:
            FailurePresentation(reason: .diskFull, message: message, hint: "free space on that disk, then try again")
        case .io(let message, let failure?) where failure.isPermissionDenied:
            FailurePresentation(reason: .ioFailed, message: message, hint: "check the permissions of its directory, or choose another path")
        case .io(let message, _): FailurePresentation(reason: .ioFailed, message: message)
        case .filesFailed(let summary, _): FailurePresentation(reason: .filesFailed, message: summary)
        case .unknownSubscription(let number):
            FailurePresentation(reason: .unknownSubscription, message: "no subscription \(number) here (events.subscribe answers with the number)")
        case .secretsFile(let message): FailurePresentation(reason: .secretsFile, message: message)
        case .internalError(let message): FailurePresentation(reason: .internalError, message: message)
        }
    }
}

extension FailurePresentation {
    /// This presentation with `prefix` (the layer's name) before its message.
    func prefixed(_ prefix: String) -> FailurePresentation {
        FailurePresentation(reason: reason, message: prefix + message, hint: hint)
    }
}
