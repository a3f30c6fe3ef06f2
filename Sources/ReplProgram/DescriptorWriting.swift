import Foundation

/// Writes to a file descriptor with `write(2)` directly, the text's own bytes: a result of
/// hundreds of MB (`show` of a long session) is not copied into `Data` on its way out.
enum DescriptorWriting {
    /// Writes `buffer` until done; false when an error stopped it (`errno` says which: EPIPE
    /// when the reader is gone and SIGPIPE is ignored, ENOSPC on a full disk).
    static func writeAll(_ buffer: UnsafeRawBufferPointer, to descriptor: Int32) -> Bool {
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
    static func writeLine(_ text: String, to descriptor: Int32) -> Bool {
        var text = text
        var lineBreak: UInt8 = 0x0A
        return text.withUTF8 { writeAll(UnsafeRawBufferPointer($0), to: descriptor) }
            && withUnsafeBytes(of: &lineBreak) { writeAll($0, to: descriptor) }
    }
}
