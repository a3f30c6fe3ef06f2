import Foundation

/// A network namespace made for one test, whose only interface is its own loopback (multicast on),
/// with a private D-Bus system bus and, unless asked not to, a private avahi-daemon: DNS-SD works
/// inside it and no packet leaves it (`../shared/dns-sd-testing.md`). Processes join it through
/// `wrap`. Everything it started is killed by pid when it is released.
public final class AvahiNamespace {
    /// Why the tests that need a namespace are skipped here (nil when they run): only where one
    /// cannot be created, without root. As root a missing tool is no reason to skip: `init` fails.
    public static let skipReason: String? = getuid() == 0 ? nil : "DNS-SD tests need root, to create a network namespace"

    /// The programs a namespace runs that are not installed here.
    private static let missingTools: [String] = {
        let tools = ["/usr/bin/unshare", "/usr/bin/nsenter", "/usr/sbin/ip", "/usr/bin/dbus-daemon", "/usr/sbin/avahi-daemon"]
        return tools.filter { !FileManager.default.isExecutableFile(atPath: $0) }
    }()

    public let directory: TemporaryDirectory
    /// The private bus, as `DBUS_SYSTEM_BUS_ADDRESS` gives it.
    public let busAddress: String
    /// Holds the namespace (`unshare`, then `sleep`): its pid names the namespace.
    private let holder: Process
    private var daemons: [Process] = []

    /// Creates the namespace and starts its bus and, if `withAvahi`, its avahi-daemon; waits (at
    /// most 20 s each, sleeping the task, not a thread) until they answer.
    ///
    /// - Throws: `NamespaceError` naming the programs that are missing, or what did not come up.
    public init(withAvahi: Bool = true) async throws {
        ProgramGate.checkPlaceHeld(toStart: "a network namespace with avahi-daemon")
        guard Self.missingTools.isEmpty else {
            throw NamespaceError(description: "a DNS-SD test's namespace needs \(Self.missingTools.joined(separator: ", ")), "
                + "which are not installed: run tools/scripts/install-deps")
        }
        directory = try TemporaryDirectory()
        let busSocket = directory.path("bus.sock")
        busAddress = "unix:path=\(busSocket)"
        let readyFile = directory.path("namespace-ready")
        // A private mount namespace too, so that avahi-daemon's pid file (/run/avahi-daemon) is its own.
        holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        holder.arguments = ["--net", "--mount", "--propagation", "private", "--", "/bin/sh", "-c", """
            set -e
            mkdir -p /run/avahi-daemon && mount -t tmpfs tmpfs /run/avahi-daemon
            ip link set lo up && ip link set lo multicast on && ip route add 224.0.0.0/4 dev lo
            touch '\(readyFile)'
            exec sleep 600
            """]
        try holder.run()
        do {
            try await Self.wait(for: "the network namespace", timeout: .seconds(20)) { FileManager.default.fileExists(atPath: readyFile) }
            try Data(Self.busConfiguration(socket: busSocket).utf8).write(to: URL(fileURLWithPath: directory.path("bus.conf")))
            try startDaemon("/usr/bin/dbus-daemon", ["--config-file=\(directory.path("bus.conf"))", "--nofork", "--nopidfile"], log: "dbus.log")
            try await Self.wait(for: "dbus-daemon", timeout: .seconds(20)) { FileManager.default.fileExists(atPath: busSocket) }
            if withAvahi {
                let configuration = "[server]\nallow-interfaces=lo\nuse-ipv6=no\n[publish]\npublish-hinfo=no\npublish-workstation=no\n"
                try Data(configuration.utf8).write(to: URL(fileURLWithPath: directory.path("avahi.conf")))
                try startDaemon("/usr/sbin/avahi-daemon", ["--no-drop-root", "--no-chroot", "--no-rlimits", "-f", directory.path("avahi.conf")],
                                log: "avahi.log")
                try await Self.wait(for: "avahi-daemon", timeout: .seconds(20)) {
                    (try? String(contentsOfFile: directory.path("avahi.log"), encoding: .utf8))?.contains("Server startup complete") == true
                }
            }
        } catch {
            await stop()
            throw error
        }
    }

    /// Released, it kills what it started (SIGKILL), without waiting: `stop()` waits.
    deinit {
        for process in daemons.reversed() + [holder] {
            let pid = process.processIdentifier
            guard pid > 0, kill(pid, 0) == 0 else { continue }
            for child in Self.children(of: pid) { kill(child, SIGKILL) }
            kill(pid, SIGKILL)
        }
    }

    /// `executable arguments` run inside the namespace with the private bus: an `nsenter` command
    /// line that execs it (so the process started has the program's pid).
    public func wrap(_ executable: URL, _ arguments: [String]) -> (executable: URL, arguments: [String]) {
        (URL(fileURLWithPath: "/usr/bin/nsenter"),
         ["--target", String(holder.processIdentifier), "--net", "--mount", "--", "/usr/bin/env",
          "DBUS_SYSTEM_BUS_ADDRESS=\(busAddress)", executable.path] + arguments)
    }

    /// Stops the daemons and the namespace's holder, by pid, with SIGKILL: they inherit the test
    /// thread's signal mask, in which SIGTERM is blocked, so nothing softer reaches them. A
    /// daemon's supervising shell ends once its daemon is gone. Each is reaped here with a bound,
    /// the task sleeping between looks: Foundation notices a child's end when every copy of a
    /// descriptor it gave the child is closed, and other processes of the test may hold one.
    public func stop() async {
        for process in daemons.reversed() + [holder] {
            let pid = process.processIdentifier
            guard pid > 0, kill(pid, 0) == 0 else { continue }
            let children = Self.children(of: pid)
            // A supervising shell ends by itself once its daemon is killed; the holder has no child.
            if children.isEmpty { kill(pid, SIGKILL) }
            for child in children { kill(child, SIGKILL) }
            if await !Self.reap(pid, within: .seconds(5)) {
                kill(pid, SIGKILL)
                _ = await Self.reap(pid, within: .seconds(5))
            }
        }
        daemons = []
    }

    /// The children of `pid`, as Linux lists them.
    private static func children(of pid: pid_t) -> [pid_t] {
        let list = (try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8)) ?? ""
        return list.split(separator: " ").compactMap { pid_t($0) }
    }

    /// Waits at most `limit` for child `pid` to end, and reaps it; false if it still runs. The
    /// wait runs in a task of its own, so that a cancelled test still reaps what it killed
    /// (looking every 10 ms, not spinning).
    private static func reap(_ pid: pid_t, within limit: Duration) async -> Bool {
        await Task.detached {
            let deadline = ContinuousClock.now + limit
            var status: Int32 = 0
            while ContinuousClock.now < deadline {
                let reaped = waitpid(pid, &status, WNOHANG)
                if reaped == pid || (reaped == -1 && errno == ECHILD) { return true }
                try? await Task.sleep(for: .milliseconds(10))
            }
            return false
        }.value
    }

    /// Starts a daemon in the namespace under a shell that waits for it (and passes SIGTERM on):
    /// a daemon closes every descriptor it inherited, Foundation's own among them, and Foundation
    /// would then take it for exited and wait for it, blocking the reaping of every other child.
    private func startDaemon(_ path: String, _ arguments: [String], log: String) throws {
        let logPath = directory.path(log)
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        defer { try? output.close() }
        let supervisor = #""$0" "$@" & daemon=$!; trap 'kill "$daemon"; wait "$daemon"; exit 0' TERM; wait "$daemon""#
        let (executable, wrapped) = wrap(URL(fileURLWithPath: "/bin/sh"), ["-c", supervisor, path] + arguments)
        let process = Process()
        process.executableURL = executable
        process.arguments = wrapped
        process.standardOutput = output
        process.standardError = output
        try process.run()
        daemons.append(process)
    }

    /// Checks `condition` every 10 ms for at most `timeout`; throws naming `what` past it.
    private static func wait(for what: String, timeout: Duration, _ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + timeout
        while !condition() {
            guard ContinuousClock.now < deadline else { throw NamespaceError(description: "\(what) was not ready within \(timeout)") }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    private static func busConfiguration(socket: String) -> String {
        """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig><type>system</type><listen>unix:path=\(socket)</listen><auth>EXTERNAL</auth>
        <includedir>/usr/share/dbus-1/system.d</includedir><includedir>/etc/dbus-1/system.d</includedir>
        <policy context="default"><allow user="*"/><allow own="*"/><allow send_type="method_call"/>
        <allow receive_type="method_return"/><allow receive_type="signal"/><allow send_destination="*"/>
        <allow eavesdrop="true"/></policy></busconfig>
        """
    }

    /// The namespace or a daemon in it did not come up.
    public struct NamespaceError: Error, CustomStringConvertible {
        public let description: String
    }
}
