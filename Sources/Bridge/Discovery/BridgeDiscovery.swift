import Foundation
import Synchronization

/// Finds bridges by DNS-SD: browses `_openagents._tcp` through the system's avahi-daemon (over
/// D-Bus, with Avahi's client library) for a bounded time.
///
/// Each browse runs on a thread of its own, since Avahi's poll loop blocks; the calling task waits
/// for it without blocking, and cancelling the task ends the browse within 100 ms.
public enum BridgeDiscovery {
    /// Every bridge that answers within `timeout`, one per instance name (its IPv4 address when it
    /// has one), sorted by name.
    public static func browse(timeout: Duration) async throws(DNSSDError) -> [DiscoveredBridge] {
        preferred(try await run(timeout: timeout, until: .deadline))
    }

    /// The bridge named `instance`, or the only one found when `instance` is nil.
    ///
    /// Ends as soon as the answer is known (the named instance resolved; or Avahi has nothing more
    /// for now), else after `timeout`. Throws `.notFound` when none answered, `.ambiguous` naming
    /// them all when `instance` is nil and several did.
    public static func resolve(instance: String?, timeout: Duration) async throws(DNSSDError) -> DiscoveredBridge {
        let found = preferred(try await run(timeout: timeout, until: instance.map { .instance($0) } ?? .allResolved))
        if let instance {
            guard let bridge = found.first(where: { $0.instanceName == instance }) else {
                throw .notFound(instance: instance, found: found.map(\.instanceName), after: timeout)
            }
            return bridge
        }
        guard let only = found.first else { throw .notFound(instance: nil, found: [], after: timeout) }
        guard found.count == 1 else { throw .ambiguous(found: found.map(\.instanceName)) }
        return only
    }

    /// The D-Bus system bus through which avahi-daemon is asked: `$DBUS_SYSTEM_BUS_ADDRESS`, else D-Bus's default.
    public static var systemBusAddress: String { AvahiBrowse.systemBusAddress }

    /// One entry per instance name, sorted by name: the first IPv4 one, else the first.
    static func preferred(_ resolved: [DiscoveredBridge]) -> [DiscoveredBridge] {
        Dictionary(grouping: resolved, by: \.instanceName)
            .map { $0.value.first { !$0.isIPv6 } ?? $0.value[0] }
            .sorted { $0.instanceName < $1.instanceName }
    }

    /// Runs an `AvahiBrowse` on a new thread; the task's cancellation stops it.
    private static func run(timeout: Duration, until stopCondition: AvahiBrowse.StopCondition) async throws(DNSSDError) -> [DiscoveredBridge] {
        let cancelled = CancellationFlag()
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<[DiscoveredBridge], DNSSDError>, Never>) in
                Thread {
                    continuation.resume(returning: Result { () throws(DNSSDError) in
                        try AvahiBrowse.run(timeout: timeout, until: stopCondition, isCancelled: cancelled.isSet)
                    })
                }.start()
            }
        } onCancel: {
            cancelled.set()
        }
        return try result.get()
    }
}

/// Set once, from any thread, when the task that waits for a browse is cancelled.
private final class CancellationFlag: Sendable {
    private let value = Atomic<Bool>(false)

    func set() { value.store(true, ordering: .relaxed) }

    func isSet() -> Bool { value.load(ordering: .relaxed) }
}
