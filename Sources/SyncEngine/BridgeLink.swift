import Bridge
import MirrorStore

/// One bridge the engine follows, as its tasks name it: its place in the engine's list, its
/// configuration and connector. A `Sendable` value; what the engine knows and decides of the
/// bridge between requests is its `LinkMachine`, kept by the engine at `id`.
struct BridgeLink: Sendable {
    /// The link's place in the engine's list.
    let id: Int
    let configuration: SyncConfiguration
    /// Opens each connection: over WebSocket, or in-process for tests.
    let connector: any BridgeConnector

    /// The desktop's short name.
    var desktop: String { configuration.desktopName }
}

/// A bridge for the engine to follow: its configuration, and how to reach it.
public struct BridgeTarget: Sendable {
    public var configuration: SyncConfiguration
    public var connector: any BridgeConnector

    public init(configuration: SyncConfiguration, connector: any BridgeConnector) {
        self.configuration = configuration
        self.connector = connector
    }
}
