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
    /// The mirror refused or could not be opened (-32002): not there, not a mirror, a schema this
    /// build cannot read.
    case mirror(MirrorStoreError)
    /// SQLite failed under the mirror (-32002): a full disk, a busy or read-only file, an I/O error.
    case sqlite(SQLiteError)
    /// Another oa-sync is syncing into the mirror, or its lock cannot be taken (-32002).
    case mirrorLocked(MirrorLockError)
    /// The mirror failed in a way no lower layer's type describes (-32002): the file followed was
    /// replaced, its directory could not be made.
    case store(String)
    /// The bridge could not be reached, refused, or failed (-32003).
    case bridge(BridgeError)
    /// The certificate pin or the token given for the bridge cannot be used (-32003); neither is
    /// ever repeated in the message.
    case credentials(CredentialsError)
    /// The bridge's token file cannot be used (-32003).
    case tokenFile(BridgeTokenError)
    /// No outbox item with this id, or not in a state that allows the change (-32004).
    case outbox(String)
    /// The export's file exists and `force` was not given (-32005).
    case fileExists(String)
    /// A file could not be written (-32006): what failed, and the file system's error when there
    /// was one.
    case io(String, FileSystemFailure? = nil)
    /// Some of the files of `export --all` could not be written, the others were (-32006, as
    /// `io`): the summary with a line per failure, and the command's result (the files written,
    /// the ones that failed and why) as the error's data.
    case filesFailed(String, result: JSONValue)
    /// No subscription with this number in this session (-32007).
    case unknownSubscription(Int)
    /// The secrets file cannot be used (-32008): where and why, never what it holds.
    case secretsFile(String)
    /// A fault of this program (a template of the HTML export missing): never the input's.
    case internalError(String)

    /// The JSON-RPC error code.
    public var code: Int {
        switch self {
        case .parseError: -32700
        case .invalidRequest: -32600
        case .unknownCommand: -32601
        case .badArguments: -32602
        case .unknownSession: -32000
        case .ambiguousSession: -32001
        case .mirror, .sqlite, .mirrorLocked, .store: -32002
        case .bridge, .credentials, .tokenFile: -32003
        case .outbox: -32004
        case .fileExists: -32005
        case .io, .filesFailed: -32006
        case .unknownSubscription: -32007
        case .secretsFile: -32008
        case .internalError: -32603
        }
    }

    /// The message and, in parentheses, the hint (`presentation`).
    public var description: String { presentation.text }

    /// What the JSON-lines mode answers as the error's `data`: the stable `reason` and the `hint`
    /// if any, with, for `filesFailed`, the command's result.
    public var data: JSONValue {
        let presentation = presentation
        var members = [JSONMember("reason", .string(presentation.reason.rawValue))]
        if let hint = presentation.hint { members.append(JSONMember("hint", .string(hint))) }
        if case .filesFailed(_, let result) = self, case .object(let resultMembers) = result.kind { members += resultMembers }
        return .object(members)
    }

    /// Wraps what the lower layers throw, keeping their types.
    public static func wrapping(_ error: any Error) -> CommandError {
        switch error {
        case let error as CommandError: error
        case MirrorStoreError.unknownOutboxItem, MirrorStoreError.invalidOutboxTransition, MirrorStoreError.outboxItemInFlight:
            .outbox("\(error)")
        case MirrorStoreError.unknownSession(let id): .unknownSession(id)
        case let error as MirrorStoreError: .mirror(error)
        case let error as SQLiteError: .sqlite(error)
        case let error as MirrorLockError: .mirrorLocked(error)
        case let error as BridgeError: .bridge(error)
        case let error as CredentialsError: .credentials(error)
        case let error as BridgeTokenError: .tokenFile(error)
        default: .store("\(error)")
        }
    }

    /// An error of a lower layer as the programs print it: its description, then how to fix it
    /// with these programs (`--db`, oa-sync) in parentheses, where there is a way.
    public static func message(for error: any Error) -> String {
        FailurePresentation(describing: error).text
    }
}
