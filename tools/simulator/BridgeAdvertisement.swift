import CAvahi
import Bridge
import Synchronization

/// Advertises a bridge by DNS-SD: publishes `_openagents._tcp` with a port and TXT record through
/// the system's avahi-daemon, for as long as it is kept (or until `stop`).
///
/// Avahi's threaded poll runs the client on a thread of its own. Every Avahi call is made either
/// before that thread starts, or on it (the callbacks), or after it was stopped and joined, so
/// the C objects are never used from two threads at once; only `phase` is read from elsewhere,
/// under its mutex.
final class BridgeAdvertisement {
    /// The instance name published.
    let instanceName: String
    private let registration: Registration
    private let poll: OpaquePointer
    private var client: OpaquePointer?

    /// Starts publishing `name` on `port` with the TXT entries `txt` (for instance `proto`, `path`,
    /// `history_cursor`, `tls_sha256`: protocol Part 4). `waitUntilPublished` tells whether it worked.
    init(name: String, port: Int, txt: [String: String]) throws(DNSSDError) {
        guard let poll = avahi_threaded_poll_new() else { throw .avahi(operation: "start", reason: "out of memory") }
        instanceName = name
        self.poll = poll
        registration = Registration(name: name, port: UInt16(clamping: port), txt: txt)
        var error: Int32 = 0
        let userData = Unmanaged.passUnretained(registration).toOpaque()
        guard let client = avahi_client_new(avahi_threaded_poll_get(poll), AvahiClientFlags(0), Registration.clientCallback, userData, &error) else {
            avahi_threaded_poll_free(poll)
            throw error == Int32(AVAHI_ERR_NO_DAEMON) || error == Int32(AVAHI_ERR_DBUS_ERROR)
                ? .noDaemon(bus: BridgeDiscovery.systemBusAddress, reason: String(cString: avahi_strerror(error)))
                : .avahi(operation: "start a client", reason: String(cString: avahi_strerror(error)))
        }
        self.client = client
        guard avahi_threaded_poll_start(poll) == 0 else {
            avahi_client_free(client)
            avahi_threaded_poll_free(poll)
            throw .avahi(operation: "start", reason: "cannot start Avahi's poll thread")
        }
    }

    deinit {
        stop()
        avahi_threaded_poll_free(poll)
    }

    /// Waits until avahi-daemon has established the record, checking every 20 ms for at most
    /// `timeout`; throws why it was not (a name already taken, no daemon, time out).
    func waitUntilPublished(timeout: Duration) async throws {
        let deadline = ContinuousClock.now + timeout
        while true {
            switch registration.phase.withLock({ $0 }) {
            case .published: return
            case .failed(let error): throw error
            case .registering:
                guard ContinuousClock.now < deadline else {
                    throw DNSSDError.avahi(operation: "publish \"\(instanceName)\"", reason: "not established within \(timeout)")
                }
                try await Task.sleep(for: .milliseconds(20))
            }
        }
    }

    /// Withdraws the advertisement (idempotent).
    func stop() {
        guard let client else { return }
        avahi_threaded_poll_stop(poll)
        avahi_client_free(client)  // also frees the entry group
        self.client = nil
    }
}

/// What is published, and how far it got; the Avahi callbacks' user data.
private final class Registration {
    enum Phase: Sendable {
        case registering, published
        case failed(DNSSDError)
    }

    let name: String
    let port: UInt16
    let txt: [String: String]
    /// Set on Avahi's thread, read by `waitUntilPublished`.
    let phase = Mutex<Phase>(.registering)
    /// The entry group, made once the client runs; only touched on Avahi's thread.
    private var group: OpaquePointer?

    init(name: String, port: UInt16, txt: [String: String]) {
        self.name = name
        self.port = port
        self.txt = txt
    }

    private func fail(operation: String, _ error: Int32) {
        phase.withLock { $0 = .failed(.avahi(operation: operation, reason: String(cString: avahi_strerror(error)))) }
    }

    /// Adds the service to a new entry group and commits it.
    private func publish(client: OpaquePointer) {
        guard group == nil else { return }
        guard let group = avahi_entry_group_new(client, Self.groupCallback, Unmanaged.passUnretained(self).toOpaque()) else {
            return fail(operation: "publish \"\(name)\"", avahi_client_errno(client))
        }
        self.group = group
        var list: UnsafeMutablePointer<AvahiStringList>?
        for (key, value) in txt.sorted(by: { $0.key < $1.key }) {
            list = avahi_string_list_add_pair(list, key, value)
        }
        defer { avahi_string_list_free(list) }
        let added = avahi_entry_group_add_service_strlst(group, AvahiIfIndex(AVAHI_IF_UNSPEC), AvahiProtocol(AVAHI_PROTO_UNSPEC), AvahiPublishFlags(0), name,
                                                         DiscoveredBridge.serviceType, nil, nil, port, list)
        guard added == 0 else { return fail(operation: "publish \"\(name)\"", added) }
        let committed = avahi_entry_group_commit(group)
        if committed != 0 { fail(operation: "publish \"\(name)\"", committed) }
    }

    private static func registration(_ userData: UnsafeMutableRawPointer?) -> Registration? {
        userData.map { Unmanaged<Registration>.fromOpaque($0).takeUnretainedValue() }
    }

    static let clientCallback: AvahiClientCallback = { client, state, userData in
        guard let client, let registration = registration(userData) else { return }
        switch state {
        case AVAHI_CLIENT_S_RUNNING:
            registration.publish(client: client)
        case AVAHI_CLIENT_FAILURE:
            registration.phase.withLock {
                $0 = .failed(.noDaemon(bus: BridgeDiscovery.systemBusAddress, reason: String(cString: avahi_strerror(avahi_client_errno(client)))))
            }
        default:
            break
        }
    }

    static let groupCallback: AvahiEntryGroupCallback = { group, state, userData in
        guard let registration = registration(userData) else { return }
        switch state {
        case AVAHI_ENTRY_GROUP_ESTABLISHED:
            registration.phase.withLock { $0 = .published }
        case AVAHI_ENTRY_GROUP_COLLISION:
            registration.phase.withLock {
                $0 = .failed(.avahi(operation: "publish \"\(registration.name)\"", reason: "the name is already taken on this network"))
            }
        case AVAHI_ENTRY_GROUP_FAILURE:
            registration.fail(operation: "publish \"\(registration.name)\"", avahi_client_errno(avahi_entry_group_get_client(group)))
        default:
            break
        }
    }
}
