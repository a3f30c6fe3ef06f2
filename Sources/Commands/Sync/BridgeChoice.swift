import Bridge
import Logging

/// How a bridge given as text (`--bridge`, `$OA_BRIDGE`) is reached: a `ws://` or `wss://` URL,
/// or `dnssd` / `dnssd:NAME`, a bridge found by DNS-SD before each connection attempt.
public enum BridgeChoice {
    /// How long a DNS-SD resolution browses by default.
    public static let defaultDiscoveryTimeout: Duration = .milliseconds(3000)

    /// Whether `bridge` is a URL the client can dial or a DNS-SD target.
    public static func isValid(_ bridge: String) -> Bool {
        BridgeURL.isValid(bridge) || DNSSDBridgeTarget(parsing: bridge) != nil
    }

    /// The connector for `bridge`: a `DNSSDBridgeConnector` for `dnssd[:NAME]`; nil for a URL, which
    /// the sync engine connects to over WebSocket itself.
    public static func connector(for bridge: String, options: BridgeClientOptions, discoveryTimeout: Duration,
                                 logger: Logger) -> (any BridgeConnector)? {
        DNSSDBridgeTarget(parsing: bridge).map {
            DNSSDBridgeConnector(target: $0, resolveTimeout: discoveryTimeout, options: options, logger: logger)
        }
    }
}
