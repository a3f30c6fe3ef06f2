import Foundation

/// Where a bridge URL points: host, port, path, and whether it is `wss://`.
struct BridgeEndpoint: Sendable {
    var host: String
    var port: Int
    /// The path (and query) of the WebSocket URL; `/` when it has none.
    var path: String
    var usesTLS: Bool

    /// Nil for a URL that `BridgeURL.isValid` refuses.
    init?(url: String) {
        guard BridgeURL.isValid(url), let components = URLComponents(string: url), let host = components.host else { return nil }
        self.host = host
        usesTLS = components.scheme == "wss"
        port = components.port ?? (usesTLS ? 443 : 80)
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        self.path = path + (components.percentEncodedQuery.map { "?\($0)" } ?? "")
    }

    /// True when the host is an IPv4 address (which SNI cannot carry).
    var hostIsAddress: Bool {
        host.split(separator: ".").count == 4 && host.split(separator: ".").allSatisfy { UInt8($0) != nil }
    }
}
