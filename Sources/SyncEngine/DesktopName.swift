/// The short name a desktop is shown by and, for a bridge that does not name its history, found
/// again by: the name given (`--name`), else the DNS-SD instance of a `dnssd:NAME` bridge, else the
/// URL's host (with its port when not the bridge's default, 9099).
public enum DesktopName {
    /// The name of the desktop at `bridge` (a URL or `dnssd[:NAME]`).
    public static func `default`(forBridge bridge: String) -> String {
        if bridge.hasPrefix("dnssd:") { return String(bridge.dropFirst("dnssd:".count)) }
        if bridge == "dnssd" { return "dnssd" }
        var rest = Substring(bridge)
        if let scheme = rest.range(of: "://") { rest = rest[scheme.upperBound...] }
        if let slash = rest.firstIndex(of: "/") { rest = rest[..<slash] }
        if let at = rest.lastIndex(of: "@") { rest = rest[rest.index(after: at)...] }
        if rest.hasSuffix(":9099") { rest = rest.dropLast(":9099".count) }
        return rest.isEmpty ? bridge : String(rest)
    }
}
