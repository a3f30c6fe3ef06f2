import ArgumentParser
import Bridge
import Commands

/// Which bridge a program syncs with and how it trusts it (`--bridge`, `--tls-pin`,
/// `--token-file`): one declaration, one help text, for oa-sync and oa-repl.
public struct BridgeSecurityOptions: ParsableArguments {
    /// `--bridge`, each `[NAME=]BRIDGE` as given.
    @Option(name: .customLong("bridge"), help: ArgumentHelp("A bridge to sync with, repeatable for oa-sync: its WebSocket URL, or dnssd (the only bridge DNS-SD finds), dnssd:NAME (the instance NAME) or dnssd:* (oa-sync: every bridge DNS-SD finds at start), optionally after NAME= (the desktop's short name) (default: $OA_BRIDGE, a list separated by commas or spaces, else ws://127.0.0.1:9099).", valueName: "bridge"))
    public var bridges: [String] = []

    /// `--tls-pin`, as given.
    @Option(help: ArgumentHelp("The SHA-256 fingerprint a wss:// bridge's certificate must have (default: $OA_TLS_PIN, else the pin remembered for the bridge, else the tls_sha256 TXT key of a bridge found by DNS-SD, else trust on first use).", valueName: "sha256"))
    public var tlsPin: String?

    /// `--token-file`: the path, never the token.
    @Option(help: ArgumentHelp("A file holding the bridge's bearer token, readable by its owner only (default: $OA_TOKEN_FILE, else the token in $OA_TOKEN).", valueName: "path"))
    public var tokenFile: String?

    public init() {}

    /// The bridges given on the command line, else in `$OA_BRIDGE`, else the default.
    public var entries: [BridgeEntry] { BridgeEntry.entries(options: bridges) }

    /// Checks the bridges given on the command line (`validate(_:)`) and the pin's form. A
    /// program that follows `$OA_BRIDGE` too checks `entries` itself: one that syncs only on
    /// request (oa-repl) still starts when it is wrong.
    public func validate() throws {
        try Self.validate(bridges.filter { !$0.isEmpty }.map(BridgeEntry.init(parsing:)))
        if let tlsPin, CertificatePin(parsing: tlsPin) == nil {
            throw ValidationError("--tls-pin must be the certificate's SHA-256 fingerprint: 64 hex digits in any case, with or without colons, optionally after sha256: (as openssl x509 -noout -fingerprint -sha256 -in CERT.pem prints it)")
        }
    }

    /// The launcher of the engine for the program `clientName`, with these pin and token options.
    public func launcher(clientName: String) -> EngineLauncher {
        EngineLauncher(clientName: clientName, pinOption: tlsPin, tokenFileOption: tokenFile)
    }

    /// Checks that each of `entries` is a URL or a DNS-SD target, and that their desktop names differ.
    public static func validate(_ entries: [BridgeEntry]) throws {
        for entry in entries where !entry.isEveryAdvertisedBridge {
            guard BridgeChoice.isValid(entry.bridge) else {
                throw ValidationError("\(entry.bridge) is not a bridge: expected ws://HOST:PORT or wss://HOST:PORT (HOST a name or an IPv4 address), dnssd, dnssd:NAME or dnssd:*, optionally after NAME=")
            }
        }
        let names = entries.map(\.desktopName)
        if Set(names).count < names.count {
            throw ValidationError("two bridges have the same desktop name (\(names.joined(separator: ", "))): give each its own as --bridge NAME=URL")
        }
    }
}
