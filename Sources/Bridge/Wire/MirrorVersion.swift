/// OpenAgents Mirror's version: the one every program announces to the bridge, and the `.deb`'s
/// (`tools/package-deb` reads it from this file).
public enum MirrorVersion {
    public static let current = "0.1.0"
}

extension ClientInfo {
    /// How the program `name` (`oa-sync`, `oa-repl`) introduces itself in `initialize`.
    public static func mirror(program name: String) -> ClientInfo {
        ClientInfo(name: name, title: "OpenAgents Mirror", version: MirrorVersion.current)
    }
}
