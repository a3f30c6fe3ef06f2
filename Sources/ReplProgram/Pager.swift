import Foundation
import Primitives

/// Output taller than the terminal shown through a pager, as psql and git do: `$PAGER` (run by
/// `/bin/sh`), else `less -RFX` when it is installed (it quits at once when the text fits, keeps
/// colours and leaves the text on the screen).
package struct Pager {
    /// The shell command that pages.
    let command: String

    /// `$PAGER` when set and not empty, else `less -RFX` when `less` is on the `PATH`; nil: none.
    static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> Pager? {
        if let command = environment["PAGER"], !command.trimmingCharacters(in: .whitespaces).isEmpty {
            return Pager(command: command)
        }
        let directories = (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        guard directories.contains(where: { FileManager.default.isExecutableFile(atPath: "\($0)/less") }) else { return nil }
        return Pager(command: "less -RFX")
    }

    /// Writes `text` and a newline through the pager, and returns once it exits; false when it
    /// could not start or exited with a failure status, so that the caller prints the text itself.
    ///
    /// The pager shares the terminal (and its process group), so Ctrl-C reaches it: oa-repl
    /// ignores SIGINT and SIGQUIT until the pager is gone, and the pager starts with them ignored
    /// too (`less` catches them itself), so that Ctrl-C cannot end the `sh` running it and leave
    /// the pager on the screen with the prompt. SIGPIPE is ignored while writing, so that a pager
    /// quit before reading everything ends the writing rather than oa-repl; the pager gets its
    /// usual effect back.
    func page(_ text: String) -> Bool {
        let previous = [SIGINT, SIGQUIT, SIGPIPE].map { ($0, signal($0, SIG_IGN)) }
        defer { for (number, handler) in previous { signal(number, handler) } }
        var descriptors: [Int32] = [0, 0]
        guard pipe(&descriptors) == 0 else { return false }
        let (reading, writing) = (descriptors[0], descriptors[1])
        guard let pid = spawn(standardInput: reading, closing: writing) else {
            close(reading)
            close(writing)
            return false
        }
        close(reading)
        // Until done, or until the pager stops reading (EPIPE): a pager quit early is no failure.
        _ = DescriptorWriting.writeLine(text, to: writing)
        close(writing)
        return Self.exitStatus(of: pid).map { $0 == 0 } ?? true
    }

    /// Starts `/bin/sh -c command` reading `standardInput`, with the default SIGPIPE, no signal
    /// blocked and `LESS=FRX` unless `LESS` is set; its pid, or nil when it could not start.
    private func spawn(standardInput: Int32, closing other: Int32) -> pid_t? {
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawnattr_init(&attributes)
        defer {
            posix_spawn_file_actions_destroy(&actions)
            posix_spawnattr_destroy(&attributes)
        }
        posix_spawn_file_actions_adddup2(&actions, standardInput, STDIN_FILENO)
        posix_spawn_file_actions_addclose(&actions, standardInput)
        posix_spawn_file_actions_addclose(&actions, other)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &unblocked)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        let words: [String] = ["/bin/sh", "-c", command]
        let arguments: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        // As git does: a $PAGER that is less keeps colours and quits on short output too.
        let variables = ProcessInfo.processInfo.environment.merging(["LESS": "FRX"]) { current, _ in current }
        let environment: [UnsafeMutablePointer<CChar>?] = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in arguments + environment { free(pointer) } }
        var pid = pid_t()
        guard posix_spawn(&pid, "/bin/sh", &actions, &attributes, arguments, environment) == 0 else { return nil }
        return pid
    }

    /// Waits for `pid` to end: its exit status, or nil when a signal ended it (Ctrl-C in a pager
    /// that does not catch it is the person's choice, not a failure).
    private static func exitStatus(of pid: pid_t) -> Int32? {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { return 1 }
        }
        return status & 0x7F == 0 ? (status >> 8) & 0xFF : nil
    }
}
