import Foundation
import MirrorStore
import Primitives

/// Where a JSON-lines session reads its requests, a line at a time: standard input, or a test's
/// lines.
public protocol LineInput: Sendable {
    /// The next line without its newline, or nil at the end of input.
    func nextLine() async -> String?
}

/// Where a JSON-lines session writes its answers and notifications, a whole line per call:
/// standard output, or a test's record of them.
public protocol LineOutput: Sendable {
    /// Writes `text`, then a newline unless `newline` is false.
    func write(_ text: String, newline: Bool) async
}

extension LineOutput {
    /// Writes `text` and a newline.
    func write(_ text: String) async {
        await write(text, newline: true)
    }
}

/// Standard input, read a line at a time on a thread of its own: a front end that waits for the
/// next request never holds a thread of the cooperative pool, which its feeds need meanwhile.
public actor StandardInput: LineInput {
    private let executor = ThreadExecutor(name: "oa-stdin")
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// Standard input, as the process has it.
    public init() {}

    /// The next line without its newline, or nil at the end of input.
    public func nextLine() -> String? {
        readLine(strippingNewline: true)
    }
}

/// Standard output, written on a thread of its own, a whole line per call: lines from several
/// tasks (answers, notifications) never interleave, and a reader that does not keep up makes
/// the writers wait (the pipe is full) without holding the cooperative pool.
public actor StandardOutput: LineOutput {
    private let executor = ThreadExecutor(name: "oa-stdout")
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
    /// Held while a line is written: `exitBetweenLines` takes it so as not to cut one.
    private nonisolated let writing = NSLock()

    /// Standard output, as the process has it.
    public init() {}

    /// Writes `text`, then a newline unless `newline` is false.
    public func write(_ text: String, newline: Bool = true) {
        var bytes = Array(text.utf8)
        if newline { bytes.append(0x0A) }
        writing.lock()
        defer { writing.unlock() }
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Foundation.write(STDOUT_FILENO, $0.baseAddress, $0.count) }
            if written >= 0 {
                offset += written
            } else if errno == EAGAIN {
                // A standard output left non-blocking by whoever gave it: wait until it takes more.
                var ready = pollfd(fd: STDOUT_FILENO, events: Int16(POLLOUT), revents: 0)
                _ = poll(&ready, 1, 1000)
            } else if errno != EINTR {
                return
            }
        }
    }

    /// Ends the process with `status` once the line being written, if any, is whole (waiting
    /// for that at most `patience`: a reader that stopped reading does not hold the exit up).
    public nonisolated func exitBetweenLines(status: Int32, patience: Duration = .seconds(2)) -> Never {
        _ = writing.lock(before: Date(timeIntervalSinceNow: patience.seconds))
        exit(status)
    }
}
