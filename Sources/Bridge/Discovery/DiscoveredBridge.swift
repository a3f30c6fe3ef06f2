/// A bridge found by DNS-SD (`_openagents._tcp`), resolved to an address and port, with what its
/// TXT record says (protocol Part 4).
public struct DiscoveredBridge: Sendable, Equatable {
    /// The service type bridges advertise.
    public static let serviceType = "_openagents._tcp"

    /// The instance name, free text shown to the user.
    public let instanceName: String
    /// The browse domain it was found in (`local` for mDNS).
    public let domain: String
    /// The host name of its SRV record (`HOST.local`).
    public let hostName: String
    /// The address the host name resolved to: IPv4 dotted, or IPv6 without brackets.
    public let address: String
    public let port: Int
    /// The TXT record's keys (lowercased) and values; unknown keys are kept here and ignored.
    public let txt: [String: String]

    /// - Parameter txt: the TXT record's entries; keys are compared without case.
    public init(instanceName: String, domain: String, hostName: String, address: String, port: Int, txt: [String: String]) {
        self.instanceName = instanceName
        self.domain = domain
        self.hostName = hostName
        self.address = address
        self.port = port
        self.txt = Dictionary(txt.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
    }

    /// `wss` when the TXT record says `proto=wss`, else `ws` (the default, also for an unknown value).
    public var scheme: String { txt["proto"]?.lowercased() == "wss" ? "wss" : "ws" }

    /// The WebSocket path: the TXT `path` when it starts with `/`, else `/`.
    public var path: String {
        guard let path = txt["path"], path.hasPrefix("/") else { return "/" }
        return path
    }

    /// The advertised pin: SHA-256 of the leaf certificate's DER, 64 lowercase hex digits, when the
    /// TXT `tls_sha256` holds exactly that (any case); nil when absent or malformed.
    public var tlsSHA256: String? {
        guard let value = txt["tls_sha256"]?.lowercased(), value.utf8.count == 64,
              value.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
        else { return nil }
        return value
    }

    /// Whether it says it speaks the history-cursor extension (TXT `history_cursor=1`); nil when it
    /// does not say (the `initialize` answer decides).
    public var historyCursor: Bool? { txt["history_cursor"].map { $0 == "1" } }

    /// Whether `address` is an IPv6 address.
    public var isIPv6: Bool { address.contains(":") }

    /// The URL a client connects to: `ws://ADDRESS:PORT/path` (or `wss://`), an IPv6 address in brackets.
    public var url: String {
        let host = isIPv6 ? "[\(address)]" : address
        return "\(scheme)://\(host):\(port)\(path)"
    }
}
