import Synchronization

/// The sessions a client subscribed to (`resources/subscribe`), by full id, with the URIs it
/// subscribed with (an id prefix in a URI is allowed: notifications use the client's URI).
final class ResourceSubscriptions: Sendable {
    private let uris = Mutex<[String: Set<String>]>([:])

    func add(_ uri: String, sessionID: String) {
        uris.withLock { _ = $0[sessionID, default: []].insert(uri) }
    }

    func remove(_ uri: String) {
        uris.withLock { uris in
            for sessionID in Array(uris.keys) {
                uris[sessionID]?.remove(uri)
                if uris[sessionID]?.isEmpty == true { uris[sessionID] = nil }
            }
        }
    }

    /// The URIs subscribed to for any of `sessionIDs`.
    func uris(for sessionIDs: Set<String>) -> [String] {
        uris.withLock { uris in sessionIDs.flatMap { uris[$0] ?? [] }.sorted() }
    }

    var isEmpty: Bool { uris.withLock { $0.isEmpty } }
}
