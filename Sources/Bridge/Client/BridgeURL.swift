import Foundation

/// The URLs a bridge is reached at: `ws://HOST:PORT/…`, or `wss://` for one behind TLS.
public enum BridgeURL {
    /// Whether `url` is one the client can dial: a lowercase `ws` or `wss` scheme, a host name or
    /// IPv4 address (the WebSocket library does not take IPv6 literals), no user or password, and
    /// a port in 1…65535 if any.
    public static func isValid(_ url: String) -> Bool {
        guard let components = URLComponents(string: url), let scheme = components.scheme,
              scheme == "ws" || scheme == "wss",
              let host = components.host, !host.isEmpty, !host.contains(":"), !host.contains("["),
              components.user == nil, components.password == nil
        else { return false }
        return components.port.map { (1...65_535).contains($0) } ?? true
    }
}
