/// A bridge given as `dnssd` (the only one DNS-SD finds) or `dnssd:NAME` (the instance named NAME)
/// instead of a URL.
public struct DNSSDBridgeTarget: Sendable, Equatable, CustomStringConvertible {
    /// The instance asked for; nil for the only one found.
    public let instance: String?

    /// Reads `dnssd` or `dnssd:NAME` (NAME not empty); nil for anything else, such as a URL.
    public init?(parsing text: String) {
        if text == "dnssd" {
            instance = nil
        } else if text.hasPrefix("dnssd:"), text.count > "dnssd:".count {
            instance = String(text.dropFirst("dnssd:".count))
        } else {
            return nil
        }
    }

    public var description: String { instance.map { "dnssd:\($0)" } ?? "dnssd" }
}
