/// Why DNS-SD discovery found no bridge to use.
public enum DNSSDError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No avahi-daemon answered on the D-Bus system bus (`bus` names it).
    case noDaemon(bus: String, reason: String)
    /// Avahi failed otherwise (`operation` is what was asked).
    case avahi(operation: String, reason: String)
    /// No bridge was found within the time allowed (`instance`: the one asked for, if any;
    /// `found`: the other instances seen).
    case notFound(instance: String?, found: [String], after: Duration)
    /// Several bridges were found where one was wanted.
    case ambiguous(found: [String])

    public var description: String {
        switch self {
        case .noDaemon(let bus, let reason):
            "no avahi-daemon is running: \(reason) (asked on the D-Bus system bus at \(bus))"
        case .avahi(let operation, let reason):
            "avahi-daemon could not \(operation): \(reason)"
        case .notFound(let instance?, let found, let after):
            "no bridge named \"\(instance)\" was found by DNS-SD within \(after.formattedSeconds)"
                + (found.isEmpty ? "" : "; found: " + found.map { "\"\($0)\"" }.joined(separator: ", "))
        case .notFound(nil, _, let after):
            "no bridge (\(DiscoveredBridge.serviceType)) was found by DNS-SD within \(after.formattedSeconds)"
        case .ambiguous(let found):
            "several bridges were found by DNS-SD: " + found.map { "\"\($0)\"" }.joined(separator: ", ")
                + "; choose one with dnssd:NAME"
        }
    }
}
