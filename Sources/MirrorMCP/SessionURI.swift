import Foundation

/// `openagents://session/<id>`: a mirrored session as an MCP resource.
enum SessionURI {
    static let prefix = "openagents://session/"

    static func uri(for sessionID: String) -> String {
        prefix + sessionID
    }

    /// The session id (or prefix) a URI names; nil when it is not a session's URI.
    static func sessionID(in uri: String) -> String? {
        guard uri.hasPrefix(prefix) else { return nil }
        let id = String(uri.dropFirst(prefix.count))
        return id.isEmpty ? nil : (id.removingPercentEncoding ?? id)
    }
}
