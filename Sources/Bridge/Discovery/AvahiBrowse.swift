import CAvahi
import Foundation
import Primitives

/// One browse of `_openagents._tcp` through avahi-daemon, run on the calling thread with Avahi's
/// simple poll until its stop condition holds or its deadline passes.
///
/// Every resolved instance is kept; the callbacks Avahi makes (only from inside
/// `avahi_simple_poll_iterate`, so on this thread) reach the session through their user data, an
/// unretained pointer that stays valid because the session outlives its client.
final class AvahiBrowse {
    /// When a browse may end before its deadline.
    enum StopCondition {
        /// Not before the deadline: see everything that answers in time.
        case deadline
        /// Once Avahi said it has nothing more for now and every instance seen is resolved to an
        /// IPv4 address, if any was (an IPv6 one alone is not dialled: it waits for the deadline).
        case allResolved
        /// Once the named instance resolved to an IPv4 address (at the deadline, any address found).
        case instance(String)
    }

    private let stopCondition: StopCondition
    private var resolved: [DiscoveredBridge] = []
    private var browsedNames: [String] = []
    private var pendingResolvers = 0
    private var allForNow = false
    private var failure: DNSSDError?

    private init(stopCondition: StopCondition) {
        self.stopCondition = stopCondition
    }

    /// Browses until `stopCondition` holds or `timeout` passed, or `isCancelled()`; returns what
    /// resolved, in the order found (several entries for one instance when it has several addresses).
    static func run(timeout: Duration, until stopCondition: StopCondition, isCancelled: () -> Bool) throws(DNSSDError) -> [DiscoveredBridge] {
        let session = AvahiBrowse(stopCondition: stopCondition)
        try withExtendedLifetime(session) { () throws(DNSSDError) in try session.browse(timeout: timeout, isCancelled: isCancelled) }
        return session.resolved
    }

    /// The D-Bus system bus avahi clients use: `$DBUS_SYSTEM_BUS_ADDRESS`, else D-Bus's default.
    static var systemBusAddress: String {
        ProcessInfo.processInfo.environment["DBUS_SYSTEM_BUS_ADDRESS"].flatMap { $0.isEmpty ? nil : $0 }
            ?? "unix:path=/run/dbus/system_bus_socket"
    }

    private func browse(timeout: Duration, isCancelled: () -> Bool) throws(DNSSDError) {
        guard let poll = avahi_simple_poll_new() else { throw .avahi(operation: "start", reason: "out of memory") }
        defer { avahi_simple_poll_free(poll) }
        let userData = Unmanaged.passUnretained(self).toOpaque()
        var error: Int32 = 0
        guard let client = avahi_client_new(avahi_simple_poll_get(poll), AvahiClientFlags(0), Self.clientCallback, userData, &error) else {
            throw Self.clientError(error)
        }
        defer { avahi_client_free(client) }  // frees the browser and any resolver still running
        guard avahi_service_browser_new(client, AvahiIfIndex(AVAHI_IF_UNSPEC), AvahiProtocol(AVAHI_PROTO_UNSPEC), DiscoveredBridge.serviceType, nil,
                                        AvahiLookupFlags(0), Self.browserCallback, userData) != nil
        else {
            throw .avahi(operation: "browse \(DiscoveredBridge.serviceType)", reason: String(cString: avahi_strerror(avahi_client_errno(client))))
        }
        let deadline = ContinuousClock.now + timeout
        while failure == nil, !shouldStop, !isCancelled() {
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else { break }
            let waitMilliseconds = Int32(clamping: min(remaining.milliseconds + 1, 100))
            if avahi_simple_poll_iterate(poll, waitMilliseconds) != 0 { break }
        }
        if let failure { throw failure }
    }

    private var shouldStop: Bool {
        switch stopCondition {
        case .deadline:
            return false
        case .allResolved:
            // An IPv6 literal is not dialled: an instance found only at one so far is waited for.
            return allForNow && pendingResolvers == 0 && !resolved.isEmpty
                && browsedNames.allSatisfy { name in resolved.contains { $0.instanceName == name && !$0.isIPv6 } }
        case .instance(let name):
            return resolved.contains { $0.instanceName == name && !$0.isIPv6 }
        }
    }

    private static func clientError(_ error: Int32) -> DNSSDError {
        let reason = String(cString: avahi_strerror(error))
        return error == Int32(AVAHI_ERR_NO_DAEMON) || error == Int32(AVAHI_ERR_DBUS_ERROR)
            ? .noDaemon(bus: systemBusAddress, reason: reason)
            : .avahi(operation: "start a client", reason: reason)
    }

    private static func session(_ userData: UnsafeMutableRawPointer?) -> AvahiBrowse? {
        userData.map { Unmanaged<AvahiBrowse>.fromOpaque($0).takeUnretainedValue() }
    }

    private static let clientCallback: AvahiClientCallback = { client, state, userData in
        guard state == AVAHI_CLIENT_FAILURE, let session = session(userData) else { return }
        session.failure = clientError(avahi_client_errno(client))
    }

    private static let browserCallback: AvahiServiceBrowserCallback = { browser, interface, proto, event, name, type, domain, _, userData in
        guard let session = session(userData) else { return }
        switch event {
        case AVAHI_BROWSER_NEW:
            guard let name, let type, let domain else { return }
            let instance = String(cString: name)
            if !session.browsedNames.contains(instance) { session.browsedNames.append(instance) }
            let client = avahi_service_browser_get_client(browser)
            // The host's IPv4 address, asked for as such (the one dialled), and whatever address
            // it has (an IPv6-only bridge is listed too): an instance announced over IPv6 may
            // otherwise resolve to its IPv6 address alone.
            for addressProtocol in [AVAHI_PROTO_INET, AVAHI_PROTO_UNSPEC] {
                if avahi_service_resolver_new(client, interface, proto, name, type, domain, AvahiProtocol(addressProtocol), AvahiLookupFlags(0),
                                              resolverCallback, userData) != nil {
                    session.pendingResolvers += 1
                }
            }
        case AVAHI_BROWSER_REMOVE:
            guard let name else { return }
            let instance = String(cString: name)
            session.resolved.removeAll { $0.instanceName == instance }
            session.browsedNames.removeAll { $0 == instance }
        case AVAHI_BROWSER_ALL_FOR_NOW:
            session.allForNow = true
        case AVAHI_BROWSER_FAILURE:
            let client = avahi_service_browser_get_client(browser)
            session.failure = .avahi(operation: "browse \(DiscoveredBridge.serviceType)",
                                     reason: String(cString: avahi_strerror(avahi_client_errno(client))))
        default:
            break
        }
    }

    private static let resolverCallback: AvahiServiceResolverCallback = { resolver, _, _, event, name, _, domain, hostName, address, port, txt, _, userData in
        defer { avahi_service_resolver_free(resolver) }
        guard let session = session(userData) else { return }
        session.pendingResolvers -= 1
        guard event == AVAHI_RESOLVER_FOUND, let name, let address else { return }
        var text = [CChar](repeating: 0, count: Int(AVAHI_ADDRESS_STR_MAX))
        avahi_address_snprint(&text, text.count, address)
        let bridge = DiscoveredBridge(
            instanceName: String(cString: name), domain: domain.map { String(cString: $0) } ?? "local",
            hostName: hostName.map { String(cString: $0) } ?? "",
            address: String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self), port: Int(port),
            txt: txtEntries(txt)
        )
        if !session.resolved.contains(bridge) { session.resolved.append(bridge) }
    }

    /// The TXT record's `key=value` entries (a key without `=` has an empty value).
    private static func txtEntries(_ list: UnsafeMutablePointer<AvahiStringList>?) -> [String: String] {
        var entries: [String: String] = [:]
        var item = list
        while let current = item {
            let bytes = UnsafeBufferPointer(start: avahi_string_list_get_text(current), count: avahi_string_list_get_size(current))
            let entry = String(decoding: bytes, as: UTF8.self)
            let parts = entry.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            if let key = parts.first, !key.isEmpty {
                entries[String(key).lowercased()] = parts.count > 1 ? String(parts[1]) : ""
            }
            item = avahi_string_list_get_next(current)
        }
        return entries
    }
}
