import Foundation

/// The URLs a bridge is reached at: `ws://HOST:PORT/…`, or `wss://` for one behind TLS.
public enum BridgeURL {
    /// Whether `url` is one: a `ws` or `wss` scheme and a host.
    public static func isValid(_ url: String) -> Bool {
        guard let components = URLComponents(string: url), let scheme = components.scheme,
              scheme == "ws" || scheme == "wss", let host = components.host, !host.isEmpty
        else { return false }
        return true
    }
}
