import Foundation
import SyncEngine

/// One bridge as given to `oa-sync` (`--bridge`, repeatable, or `$OA_BRIDGE`, a list): the bridge
/// (`ws://` or `wss://` URL, `dnssd`, `dnssd:NAME`), optionally after `NAME=`, the desktop's
/// short name.
public struct BridgeEntry: Sendable, Equatable {
    /// The desktop's name given with it, if any.
    public var name: String?
    public var bridge: String

    public init(name: String? = nil, bridge: String) {
        self.name = name
        self.bridge = bridge
    }

    /// Reads `[NAME=]BRIDGE`: a `NAME=` prefix is one without `:` or `/` before its `=`.
    public init(parsing text: String) {
        if let equals = text.firstIndex(of: "="), !text[..<equals].contains(where: { $0 == ":" || $0 == "/" }),
           equals != text.startIndex {
            name = String(text[..<equals])
            bridge = String(text[text.index(after: equals)...])
        } else {
            name = nil
            bridge = text
        }
    }

    /// `dnssd:*`: every bridge DNS-SD finds when oa-sync starts.
    public var isEveryAdvertisedBridge: Bool { bridge == "dnssd:*" }

    /// The desktop's short name: the one given, else `DesktopName`'s default for the bridge.
    public var desktopName: String { name ?? DesktopName.default(forBridge: bridge) }

    /// The bridges given: `options` (each `--bridge`), else `$OA_BRIDGE` split at commas and white
    /// space, else the default bridge.
    public static func entries(options: [String], environment: [String: String] = ProcessInfo.processInfo.environment) -> [BridgeEntry] {
        let given = options.filter { !$0.isEmpty }
        if !given.isEmpty { return given.map(BridgeEntry.init(parsing:)) }
        let listed = (environment["OA_BRIDGE"] ?? "").split { $0 == "," || $0.isWhitespace }.map(String.init)
        if !listed.isEmpty { return listed.map(BridgeEntry.init(parsing:)) }
        return [BridgeEntry(bridge: MirrorLocation.defaultBridgeURL)]
    }
}
