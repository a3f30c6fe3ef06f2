/// The `Host` a request must name for the viewer to answer it (anything else gets 421): the
/// name it was reached by, with the port it listens on. A page of another site that a DNS
/// rebinding points at 127.0.0.1 names that site, and is refused before any route.
struct AllowedHosts: Sendable {
    /// Lowercased names without a port: `127.0.0.1`, `localhost`, `[::1]`, or the configured ones.
    var names: Set<String>
    var port: Int
    /// The port a browser leaves out of `Host` (80, or 443 with TLS).
    var defaultPort: Int

    /// The loopback names, and `extra` (`--host-name`).
    static func loopback(port: Int, tls: Bool, extra: [String] = []) -> AllowedHosts {
        AllowedHosts(names: Set(["127.0.0.1", "localhost", "[::1]"] + extra.map { $0.lowercased() }), port: port, defaultPort: tls ? 443 : 80)
    }

    /// Whether `host` (a `Host` header's value, or nil when there was none) is allowed.
    func allows(_ host: String?) -> Bool {
        guard let host = host?.lowercased(), !host.isEmpty else { return false }
        let name: Substring
        let port: Int
        if let colon = host.lastIndex(of: ":"), !host[colon...].contains("]") {
            name = host[..<colon]
            guard let number = Int(host[host.index(after: colon)...]) else { return false }
            port = number
        } else {
            name = host[...]
            port = defaultPort
        }
        return port == self.port && names.contains(String(name))
    }
}
