import Bridge
import MirrorStore

/// Why a command failed, with the JSON-RPC code the JSON-lines mode answers with.
public enum CommandError: Error, Equatable, CustomStringConvertible {
    /// The line was not JSON (-32700).
    case parseError(String)
    /// The JSON was not a request (-32600).
    case invalidRequest(String)
    /// No such command or method (-32601).
    case unknownCommand(String)
    /// Missing, extra or ill-typed arguments (-32602).
    case badArguments(String)
    /// No mirrored session starts with this (-32000).
    case unknownSession(String)
    /// More than one mirrored session starts with this (-32001).
    case ambiguousSession(prefix: String, candidates: [String])
    /// The mirror failed (-32002).
    case store(String)
    /// The bridge could not be reached or failed (-32003).
    case bridge(String)
    /// No outbox item with this id, or not in a state that allows the change (-32004).
    case outbox(String)
    /// The export's file exists and `force` was not given (-32005).
    case fileExists(String)
    /// A file could not be written (-32006).
    case io(String)
    /// Some of the files of `export --all` could not be written, the others were (-32006, as
    /// `io`): the summary with a line per failure, and the command's result (the files written,
    /// the ones that failed and why) as the error's data.
    case filesFailed(String, result: JSONValue)
    /// No subscription with this number in this session (-32007).
    case unknownSubscription(Int)
    /// The secrets file cannot be used (-32008): where and why, never what it holds.
    case secretsFile(String)

    /// The JSON-RPC error code.
    public var code: Int {
        switch self {
        case .parseError: -32700
        case .invalidRequest: -32600
        case .unknownCommand: -32601
        case .badArguments: -32602
        case .unknownSession: -32000
        case .ambiguousSession: -32001
        case .store: -32002
        case .bridge: -32003
        case .outbox: -32004
        case .fileExists: -32005
        case .io, .filesFailed: -32006
        case .unknownSubscription: -32007
        case .secretsFile: -32008
        }
    }

    public var description: String {
        switch self {
        case .parseError(let message): "not JSON: \(message)"
        case .invalidRequest(let message): "not a JSON-RPC request: \(message)"
        case .unknownCommand(let name): "unknown command or method \(name); help lists the commands, methods the methods"
        case .badArguments(let message): message
        case .unknownSession(let prefix): "no mirrored session starts with \(prefix)"
        case .ambiguousSession(let prefix, let candidates):
            "\(prefix) is ambiguous: \(candidates.joined(separator: ", "))\(candidates.count > 9 ? ", …" : "")"
        case .store(let message): "mirror: \(message)"
        case .bridge(let message): "bridge: \(message)"
        case .outbox(let message): message
        case .fileExists(let path): "\(path) exists: pass --force (force: true) to overwrite it"
        case .io(let message): message
        case .filesFailed(let summary, _): summary
        case .unknownSubscription(let number): "no subscription \(number) here (events.subscribe answers with the number)"
        case .secretsFile(let message): message
        }
    }

    /// What the JSON-lines mode answers as the error's `data`, if anything.
    public var data: JSONValue? {
        guard case .filesFailed(_, let result) = self else { return nil }
        return result
    }

    /// Wraps what the lower layers throw.
    static func wrapping(_ error: any Error) -> CommandError {
        switch error {
        case let error as CommandError: return error
        case MirrorStoreError.unknownOutboxItem, MirrorStoreError.invalidOutboxTransition, MirrorStoreError.outboxItemInFlight:
            return .outbox("\(error)")
        case MirrorStoreError.unknownSession(let id): return .unknownSession(id)
        case let error as BridgeError: return .bridge(message(for: error))
        default: return .store(message(for: error))
        }
    }

    /// An error of a lower layer as the programs print it: a mirror error's description, then how
    /// to fix it with these programs (`--db`, oa-sync); anything else as it describes itself.
    public static func message(for error: any Error) -> String {
        let hint = (error as? MirrorStoreError)?.programHint ?? (error as? BridgeError)?.programHint
        return hint.map { "\(error) (\($0))" } ?? "\(error)"
    }
}

extension BridgeError {
    /// How to answer a bridge's refusal with oa-sync's options, where there is a way.
    var programHint: String? {
        switch self {
        case .certificateMismatch(_, _, let presented):
            "if the bridge's certificate changed on purpose (check its fingerprint on the desktop), accept it once with "
                + "--tls-pin \(presented.hex) or OA_TLS_PIN; it is then remembered"
        case .tokenRequired: "give it with --token-file PATH, OA_TOKEN_FILE or OA_TOKEN"
        case .tokenRefused: "check the token in --token-file, OA_TOKEN_FILE or OA_TOKEN"
        default: nil
        }
    }
}

extension MirrorStoreError {
    /// How to fix the error with oa-sync and oa-repl (the store does not know its programs), if
    /// they offer a way.
    var programHint: String? {
        switch self {
        case .notADatabase, .notAMirror, .schemaTooNew: "--db chooses the mirror file"
        case .schemaTooOld: "run oa-sync once"
        case .mirrorNotFound: "run oa-sync or the sync command first, or pass --db"
        case .migrationFailed: "--db chooses another mirror file"
        case .unknownOutboxItem, .invalidOutboxTransition, .outboxItemInFlight, .unknownSession, .unknownHistory,
             .historyRequired: nil
        }
    }
}
