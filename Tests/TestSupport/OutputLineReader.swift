import Foundation

/// Reads the lines a process writes, as they come, from a file it writes to or from the read end
/// of its pipe: what is there is read without blocking, and when nothing is, it looks again every
/// 10 ms until a line is there or the deadline passes. Its output in a file, the process never
/// waits for the test to read, and no process left behind can keep a read from ending.
final class OutputLineReader {
    private let descriptor: Int32
    private var buffer: [UInt8] = []
    /// How much of `buffer` is known to hold no newline.
    private var scanned = 0

    /// The process ended before the awaited line.
    struct ProcessEnded: Error, CustomStringConvertible {
        let program: String
        var description: String { "\(program) ended before the awaited line" }
    }

    /// The awaited line did not come in time.
    struct TimedOut: Error, CustomStringConvertible {
        let program: String
        var description: String { "\(program) did not write the awaited line in time" }
    }

    /// Reads the file at `path`.
    convenience init(path: String) throws {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw CocoaError(.fileReadNoPermission, userInfo: [NSFilePathErrorKey: path]) }
        self.init(descriptor: descriptor)
    }

    /// Reads `descriptor` (a pipe's read end, or a file), which it closes when done.
    init(descriptor: Int32) {
        self.descriptor = descriptor
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
    }

    deinit {
        close(descriptor)
    }

    /// The next whole line, waiting for it until `deadline`; `isRunning` says whether more can come.
    func nextLine(before deadline: ContinuousClock.Instant, program: String, isRunning: () -> Bool) throws -> String {
        try waitFor(before: deadline, program: program, isRunning: isRunning) { buffer in
            guard let newline = buffer[scanned...].firstIndex(of: 0x0A) else {
                scanned = buffer.count
                return nil
            }
            defer {
                buffer.removeSubrange(...newline)
                scanned = 0
            }
            return String(decoding: buffer[..<newline], as: UTF8.self)
        }
    }

    /// Everything not read as a line yet, once `done` holds for it (it may end mid-line); it is
    /// not taken.
    func unreadText(before deadline: ContinuousClock.Instant, program: String, isRunning: () -> Bool,
                    until done: (String) -> Bool) throws -> String {
        try waitFor(before: deadline, program: program, isRunning: isRunning) { buffer in
            let text = String(decoding: buffer, as: UTF8.self)
            return done(text) ? text : nil
        }
    }

    /// Reads until `take` finds what it wants in the buffer, or the deadline passes.
    private func waitFor<T>(before deadline: ContinuousClock.Instant, program: String, isRunning: () -> Bool,
                            _ take: (inout [UInt8]) -> T?) throws -> T {
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            if let found = take(&buffer) { return found }
            let wasRunning = isRunning()
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                buffer += chunk[..<count]
                continue
            }
            guard wasRunning else { throw ProcessEnded(program: program) }
            guard ContinuousClock.now < deadline else { throw TimedOut(program: program) }
            Thread.sleep(forTimeInterval: 0.01)
        }
    }

    /// How many bytes wait in the pipe, unread (FIONREAD).
    var bytesWaiting: Int {
        var count: Int32 = 0
        return ioctl(descriptor, UInt(FIONREAD), &count) == 0 ? Int(count) : 0
    }
}
