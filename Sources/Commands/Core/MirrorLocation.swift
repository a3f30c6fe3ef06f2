import Foundation

/// Where the mirror and the bridge are, found the same way by every program:
/// the command-line option, then the environment (`OA_DB`, `OA_BRIDGE`), then the default.
public enum MirrorLocation {
    /// The bridge when nothing says otherwise: a desktop on this machine.
    public static let defaultBridgeURL = "ws://127.0.0.1:9099"

    /// The mirror file: `option`, else `$OA_DB`, else `$XDG_DATA_HOME/openagents/mirror.sqlite`
    /// (`~/.local/share/openagents/mirror.sqlite` without XDG_DATA_HOME).
    public static func mirrorPath(option: String?, environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let option, !option.isEmpty { return option }
        if let path = environment["OA_DB"], !path.isEmpty { return path }
        return defaultMirrorDirectory(environment: environment).appending(path: "mirror.sqlite").path
    }

    /// The bridge URL: `option`, else `$OA_BRIDGE`, else `ws://127.0.0.1:9099`.
    public static func bridgeURL(option: String?, environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let option, !option.isEmpty { return option }
        if let url = environment["OA_BRIDGE"], !url.isEmpty { return url }
        return defaultBridgeURL
    }

    /// `$XDG_DATA_HOME/openagents`, or `~/.local/share/openagents`.
    public static func defaultMirrorDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        let base = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
            ?? URL(fileURLWithPath: environment["HOME"] ?? NSHomeDirectory()).appending(path: ".local/share")
        return base.appending(path: "openagents")
    }

    /// Creates the directory that will hold `mirrorPath` (mode 0700 for new directories).
    public static func prepareDirectory(for mirrorPath: String) throws {
        let directory = URL(fileURLWithPath: mirrorPath).deletingLastPathComponent()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
    }
}
