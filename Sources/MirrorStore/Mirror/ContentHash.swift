/// A 64-bit fingerprint of an event's content (FNV-1a), used to tell whether a refetched event is
/// the one already mirrored at that position.
///
/// The store hashes whatever bytes it is given. Callers that receive the same event re-encoded
/// (a stock bridge's key order is not fixed) hash a canonical form instead and pass it in.
public struct ContentHash: Hashable, Sendable, CustomStringConvertible {
    /// The hash's bits, as SQLite stores them.
    public let rawValue: Int64

    public init(rawValue: Int64) {
        self.rawValue = rawValue
    }

    /// Hashes `bytes`.
    public init(of bytes: [UInt8]) {
        var hasher = Hasher()
        bytes.withUnsafeBytes { hasher.combine($0) }
        self.rawValue = hasher.value
    }

    /// FNV-1a over bytes given in parts.
    struct Hasher {
        private var hash: UInt64 = 0xcbf2_9ce4_8422_2325

        mutating func combine(_ bytes: some Sequence<UInt8>) {
            var hash = self.hash
            // A string's UTF-8 in one piece, read as a buffer: a byte at a time through the view's
            // iterator cost several times as much.
            let readAsBuffer: Void? = bytes.withContiguousStorageIfAvailable { buffer in
                for byte in buffer { hash = Self.step(hash, byte) }
            }
            if readAsBuffer == nil {
                for byte in bytes { hash = Self.step(hash, byte) }
            }
            self.hash = hash
        }

        private static func step(_ hash: UInt64, _ byte: UInt8) -> UInt64 {
            (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }

        var value: Int64 { Int64(bitPattern: hash) }
    }

    public var description: String {
        let hex = String(UInt64(bitPattern: rawValue), radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
