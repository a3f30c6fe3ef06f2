#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes to a file descriptor with `write(2)` directly, the text's own bytes: a result of
/// hundreds of MB (`show` of a long session) is not copied into `Data` on its way out, and a
/// write that fails is told, not a trap (Foundation's `FileHandle.write(_:)` stops the process
/// when the reader of a pipe is gone and SIGPIPE is ignored, as SwiftNIO sets it: a log line
/// written after the program that read standard error ended took oa-sync down).
public enum DescriptorWriting {
    /// Writes `buffer` until done; false when an error stopped it (`errno` says which: EPIPE
    /// when the reader is gone and SIGPIPE is ignored, ENOSPC on a full disk).
    public static func writeAll(_ buffer: UnsafeRawBufferPointer, to descriptor: Int32) -> Bool {
        guard let start = buffer.baseAddress else { return true }
        var offset = 0
        while offset < buffer.count {
            let written = write(descriptor, start + offset, buffer.count - offset)
            if written > 0 {
                offset += written
            } else if !(written < 0 && errno == EINTR) {
                return false
            }
        }
        return true
    }

    /// Writes `text`, and a line break after it; false when an error stopped it.
    public static func writeLine(_ text: String, to descriptor: Int32) -> Bool {
        var lineBreak: UInt8 = 0x0A
        return writeText(text, to: descriptor) && withUnsafeBytes(of: &lineBreak) { writeAll($0, to: descriptor) }
    }

    /// Writes `text`; false when an error stopped it.
    public static func writeText(_ text: String, to descriptor: Int32) -> Bool {
        var text = text
        return text.withUTF8 { writeAll(UnsafeRawBufferPointer($0), to: descriptor) }
    }

    /// Writes a line to standard error, or loses it when standard error cannot take it (its
    /// reader gone, a full disk): a message is not worth stopping the program for.
    public static func writeErrorLine(_ text: String) {
        _ = writeLine(text, to: STDERR_FILENO)
    }
}
