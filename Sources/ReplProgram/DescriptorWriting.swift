import Foundation

/// Writes to a file descriptor with `write(2)` directly, the text's own bytes: a result of
/// hundreds of MB (`show` of a long session) is not copied into `Data` on its way out.
enum DescriptorWriting {
    /// Writes `buffer` until done, or until the reader is gone (EPIPE, where SIGPIPE is ignored)
    /// or another error stops it.
    static func writeAll(_ buffer: UnsafeRawBufferPointer, to descriptor: Int32) {
        guard let start = buffer.baseAddress else { return }
        var offset = 0
        while offset < buffer.count {
            let written = write(descriptor, start + offset, buffer.count - offset)
            if written > 0 {
                offset += written
            } else if written < 0 && errno == EINTR {
                continue
            } else {
                return
            }
        }
    }

    /// Writes `text`, and a line break after it.
    static func writeLine(_ text: String, to descriptor: Int32) {
        var text = text
        text.withUTF8 { writeAll(UnsafeRawBufferPointer($0), to: descriptor) }
        var lineBreak: UInt8 = 0x0A
        withUnsafeBytes(of: &lineBreak) { writeAll($0, to: descriptor) }
    }
}
