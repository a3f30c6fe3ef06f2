import Foundation

/// Reads the lines a process writes, as they come, from a file it writes to or from the read end
/// of its pipe: what is there is read without blocking, and when nothing is, it looks again every
/// 10 ms until a line is there or the deadline passes (sleeping the task, not the thread). Its output in a file, the process never
/// waits for the test to read, and no process left behind can keep a read from ending.
public final class OutputLineReader {
    private let descriptor: Int32
    private var buffer: [UInt8] = []
    /// How much of `buffer` is known to hold no newline.
    private var scanned = 0
    /// The last whole line taken, for the errors to tell what came before the awaited one.
    private var lastLine: String?
    private var chunk = [UInt8](repeating: 0, count: 64 * 1024)

    /// The process ended before the awaited line.
    public struct ProcessEnded: Error, CustomStringConvertible {
        public let program: String
        /// What it wrote last (`OutputLineReader.lastWords`).
        public let seen: String
        public var description: String { "\(program) ended before the awaited line; \(seen)" }
    }

    /// The awaited line did not come in time.
    public struct TimedOut: Error, CustomStringConvertible {
        public let program: String
        /// What it wrote last (`OutputLineReader.lastWords`).
        public let seen: String
        public var description: String { "\(program) did not write the awaited line in time; \(seen)" }
    }

    /// What the process wrote last: its last whole line read and what it wrote after it, shortened.
    public var lastWords: String {
        let unfinished = String(decoding: buffer.suffix(300), as: UTF8.self)
        return "its last line read: \(lastLine.map { String($0.prefix(300)) } ?? "none")"
            + (unfinished.isEmpty ? "" : "; then, unfinished: \(unfinished)")
    }

    /// Reads the file at `path`.
    public convenience init(path: String) throws {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw CocoaError(.fileReadNoPermission, userInfo: [NSFilePathErrorKey: path]) }
        self.init(descriptor: descriptor)
    }

    /// Reads `descriptor` (a pipe's read end, or a file), which it closes when done.
    public init(descriptor: Int32) {
        self.descriptor = descriptor
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
    }

    deinit {
        close(descriptor)
    }

    /// The next whole line, waiting for it until `deadline` without holding a thread (the tests
    /// share the cooperative pool's few); `isRunning` says whether more can come.
    public func nextLine(before deadline: ContinuousClock.Instant, program: String, isRunning: () -> Bool) async throws -> String {
        while true {
            if let line = try step(takeLine, before: deadline, program: program, isRunning: isRunning) { return line }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Everything not read as a line yet, once `done` holds for it (it may end mid-line); it is
    /// not taken.
    public func unreadText(before deadline: ContinuousClock.Instant, program: String, isRunning: () -> Bool,
                    until done: (String) -> Bool) async throws -> String {
        let take = { (buffer: inout [UInt8]) -> String? in
            let text = String(decoding: buffer, as: UTF8.self)
            return done(text) ? text : nil
        }
        while true {
            if let text = try step(take, before: deadline, program: program, isRunning: isRunning) { return text }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// The first whole line in `buffer`, taken out of it.
    private func takeLine(_ buffer: inout [UInt8]) -> String? {
        guard let newline = buffer[scanned...].firstIndex(of: 0x0A) else {
            scanned = buffer.count
            return nil
        }
        defer {
            buffer.removeSubrange(...newline)
            scanned = 0
        }
        let line = String(decoding: buffer[..<newline], as: UTF8.self)
        lastLine = line
        return line
    }

    /// Reads what is there until `take` finds what it wants; nil when it needs more and more may
    /// come before the deadline.
    private func step<T>(_ take: (inout [UInt8]) -> T?, before deadline: ContinuousClock.Instant, program: String,
                         isRunning: () -> Bool) throws -> T? {
        while true {
            if let found = take(&buffer) { return found }
            let wasRunning = isRunning()
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                buffer += chunk[..<count]
                continue
            }
            guard wasRunning else { throw ProcessEnded(program: program, seen: lastWords) }
            guard ContinuousClock.now < deadline else { throw TimedOut(program: program, seen: lastWords) }
            return nil
        }
    }

    /// How many bytes wait in the pipe, unread (FIONREAD).
    public var bytesWaiting: Int {
        var count: Int32 = 0
        return ioctl(descriptor, UInt(FIONREAD), &count) == 0 ? Int(count) : 0
    }
}
