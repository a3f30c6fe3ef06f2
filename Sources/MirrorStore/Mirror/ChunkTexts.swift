/// The texts of a message's chunks, in order, kept as one run of UTF-8 bytes with the offset at
/// which each chunk ends: a message streamed in n pieces of a few bytes costs its bytes and 4 n
/// more, not n strings (a piece of over 15 bytes is an object of its own, with a header of 32
/// bytes, and each string takes 16 more in an array).
///
/// The offsets are 32-bit: a message part is under twice `EntryWriter.partLength` but for its
/// last chunk, itself under a bridge message's limit, far below 4 GiB.
struct ChunkTexts: Equatable {
    private var bytes: [UInt8] = []
    private var ends: [UInt32] = []

    /// What a value holds besides its buffers' capacities: the two buffers' headers and itself.
    static let overheadBytes = 2 * 32 + 16

    init() {}

    init(_ texts: some Sequence<String>) {
        for text in texts { append(text) }
    }

    /// The number of chunks.
    var count: Int { ends.count }

    mutating func append(_ text: String) {
        bytes.append(contentsOf: text.utf8)
        ends.append(UInt32(bytes.count))
    }

    /// Every chunk's text, joined.
    var joined: String { String(decoding: bytes, as: UTF8.self) }

    /// The texts of the first `count` chunks (all of them if there are fewer), joined.
    func joined(first count: Int) -> String {
        guard count > 0, !ends.isEmpty else { return "" }
        return String(decoding: bytes[..<Int(ends[min(count, ends.count) - 1])], as: UTF8.self)
    }

    /// The memory it holds, in bytes: its buffers as allocated (capacity, not length) and
    /// `overheadBytes`.
    var memoryBytes: Int { bytes.capacity + ends.capacity * MemoryLayout<UInt32>.stride + Self.overheadBytes }
}
