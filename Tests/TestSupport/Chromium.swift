import Foundation
import ToolSupport

/// Debian's headless Chromium (tools/scripts/install-deps installs it), run on a local file or a
/// page on 127.0.0.1 for a bounded time: under `timeout`, which kills the browser's whole process
/// group when it overruns.
public enum Chromium {
    public struct Missing: Error, CustomStringConvertible {
        public var description: String { "chromium is not installed (/usr/bin/chromium): run tools/scripts/install-deps" }
    }

    public struct Failed: Error, CustomStringConvertible {
        public var description: String

        public init(description: String) {
            self.description = description
        }
    }

    /// The DOM of `file` once loaded and its scripts run (`--dump-dom`), and what the browser logged.
    public static func dumpDOM(_ file: String, profile: TemporaryDirectory) async throws -> (dom: String, log: String) {
        try await dumpDOM(url: URL(fileURLWithPath: file).absoluteString, profile: profile)
    }

    /// The DOM of the page at `url` once loaded and its scripts run, and what the browser logged.
    /// With `virtualTime` off, it is dumped at the load event: a page that keeps a connection
    /// open (server-sent events) would hold virtual time back forever.
    public static func dumpDOM(url: String, virtualTime: Bool = true, profile: TemporaryDirectory) async throws -> (dom: String, log: String) {
        let outcome = try await run(["--dump-dom", url], virtualTime: virtualTime, profile: profile)
        return (outcome.standardOutput, outcome.standardError)
    }

    /// A PNG of `file` as a window of `width` × `height` shows it.
    public static func screenshot(_ file: String, to png: String, width: Int = 1100, height: Int = 1400, dark: Bool = false,
                                  profile: TemporaryDirectory) async throws {
        try await screenshot(url: URL(fileURLWithPath: file).absoluteString, to: png, width: width, height: height, dark: dark, profile: profile)
    }

    /// A PNG of the page at `url` as a window of `width` × `height` shows it (at its load event).
    public static func screenshot(url: String, to png: String, width: Int = 1100, height: Int = 1400, dark: Bool = false,
                                  virtualTime: Bool = true, profile: TemporaryDirectory) async throws {
        var arguments = ["--screenshot=\(png)", "--window-size=\(width),\(height)", "--hide-scrollbars"]
        if dark { arguments.append("--force-dark-mode") }
        _ = try await run(arguments + [url], virtualTime: virtualTime, profile: profile)
        guard FileManager.default.fileExists(atPath: png) else { throw Failed(description: "chromium wrote no screenshot to \(png)") }
    }

    /// The flags of every run: as root the sandbox cannot start; the profile is the test's own;
    /// nothing of Chromium's own (updates, sync, metrics) goes out.
    public static func flags(profile: TemporaryDirectory) -> [String] {
        ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
         "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-extensions",
         "--user-data-dir=\(profile.path("chromium-profile"))", "--enable-logging=stderr", "--v=0"]
    }

    private static func run(_ arguments: [String], virtualTime: Bool, profile: TemporaryDirectory) async throws -> ProgramRun.Outcome {
        let chromium = "/usr/bin/chromium"
        guard FileManager.default.isExecutableFile(atPath: chromium) else { throw Missing() }
        let flags = flags(profile: profile) + (virtualTime ? ["--virtual-time-budget=3000"] : [])
        let outcome = try await ProgramRun.run(URL(fileURLWithPath: "/usr/bin/timeout"), ["--kill-after=5", "60", chromium] + flags + arguments,
                                         timeout: .seconds(90))
        guard outcome.status == 0 else {
            throw Failed(description: "chromium exited \(outcome.status) (124: it ran past 60 s): \(outcome.standardError.suffix(2_000))")
        }
        return outcome
    }
}

/// A TCP port on 127.0.0.1 that listens and never accepts: a connection the browser attempts to
/// it stays in its queue, where `connectionAttempted` finds it afterwards.
public final class ListeningPort {
    public let port: Int
    private let socket: Int32

    public init() throws {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.socket = socket
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(socket, address, length) == 0 && listen(socket, 16) == 0 && getsockname(socket, address, &length) == 0
            }
        }
        guard socket >= 0, bound else { throw Chromium.Failed(description: "cannot listen on 127.0.0.1: errno \(errno)") }
        port = Int(UInt16(bigEndian: address.sin_port))
        _ = fcntl(socket, F_SETFL, fcntl(socket, F_GETFL) | O_NONBLOCK)
    }

    /// True when a connection came (taken from the queue without waiting).
    public var connectionAttempted: Bool {
        let connection = accept(socket, nil, nil)
        if connection >= 0 { close(connection) }
        return connection >= 0
    }

    deinit { close(socket) }
}
