import Crypto
import Foundation

/// A bearer token for a bridge that asks for one: sent as `Authorization: Bearer …` on the
/// WebSocket upgrade, and nowhere else.
///
/// A secret: it describes itself as `<token>` in every string, dump and log, so that it cannot
/// reach a log line, an error message or the mirror by accident.
public struct BridgeToken: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The token itself; read it only to send it.
    let secret: String

    /// A token given as text: surrounding white space (a file's final newline) is not part of it.
    /// Nil when nothing is left, or when it holds characters an HTTP header cannot carry.
    public init?(_ text: String) {
        let token = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !token.isEmpty, token.unicodeScalars.allSatisfy({ (0x21...0x7E).contains($0.value) }) else { return nil }
        secret = token
    }

    /// Reads a token from a file that only its owner may read (as SSH insists for a private key).
    ///
    /// - Throws: `BridgeTokenError`.
    public init(contentsOfFile path: String) throws(BridgeTokenError) {
        let attributes: [FileAttributeKey: Any]
        do {
            attributes = try FileManager.default.attributesOfItem(atPath: path)
        } catch {
            throw .unreadable(path: path)
        }
        let mode = (attributes[.posixPermissions] as? NSNumber)?.intValue ?? 0
        guard mode & 0o077 == 0 else { throw .tooOpen(path: path, mode: mode) }
        guard let data = FileManager.default.contents(atPath: path) else { throw .unreadable(path: path) }
        guard let token = BridgeToken(String(decoding: data, as: UTF8.self)) else { throw .empty(path: path) }
        self = token
    }

    /// Whether `candidate` is this token, compared in a time that tells nothing of where they
    /// differ or how long the token is (both are hashed first): for a server that takes a token
    /// from its clients, such as the web viewer's sign-in.
    package func matches(_ candidate: String) -> Bool {
        let left = Array(SHA256.hash(data: Array(candidate.utf8))), right = Array(SHA256.hash(data: Array(secret.utf8)))
        var difference: UInt8 = 0
        for index in left.indices { difference |= left[index] ^ right[index] }
        return difference == 0
    }

    /// The `Authorization` header's value.
    var authorization: String { "Bearer \(secret)" }

    public var description: String { "<token>" }
    public var debugDescription: String { "<token>" }
    public var customMirror: Mirror { Mirror(self, children: []) }
}

/// Why a token file cannot be used.
public enum BridgeTokenError: Error, Equatable, Sendable, CustomStringConvertible {
    case unreadable(path: String)
    /// Readable by group or others.
    case tooOpen(path: String, mode: Int)
    /// No token in it (or characters a header cannot carry).
    case empty(path: String)

    public var description: String {
        switch self {
        case .unreadable(let path):
            "cannot read the token file \(path)"
        case .tooOpen(let path, let mode):
            "the token file \(path) may be read by others (mode \(String(mode, radix: 8))): make it private (chmod 600)"
        case .empty(let path):
            "the token file \(path) holds no token (one line of printable characters)"
        }
    }
}
