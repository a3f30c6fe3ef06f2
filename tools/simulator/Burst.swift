import Bridge

/// A burst of live updates (`_sim/burst`): `count` `agent_message_chunk` updates of one session,
/// each about `bytes` bytes of update JSON, with a text unique to it ("burst 17 …").
///
/// An update is a function of its index, so that none has to be kept in memory: the history
/// stores each as it is made, and the broadcast makes each frame again when a socket takes it.
struct Burst: Sendable {
    /// Updates stored per transaction.
    static let transactionSize = 5000

    let sessionID: String
    let count: Int
    /// The approximate size of each update's JSON.
    let bytes: Int
    /// Whether notifications carry `_meta: {seq, ts}` (the cursor flavour).
    let withMeta: Bool
    /// The seq of update 0 once stored; update `i` has `firstSeq + i`.
    var firstSeq: Int64 = 0
    /// The time of the updates of each transaction, in order.
    var transactionTimes: [Int64] = []

    /// The seq of the last update, once stored.
    var lastSeq: Int64 { firstSeq + Int64(count) - 1 }

    private static let prefix = Array(#"{"sessionUpdate":"agent_message_chunk","content":{"content":{"type":"text","text":""#.utf8)
    private static let suffix = Array(#""}}}"#.utf8)
    /// Padding: words, as a reply has them (JSON-safe: letters and spaces only).
    private static let padding: [UInt8] = Array(
        SyntheticHistory.words.joined(separator: " ").utf8 + [UInt8(ascii: " ")]
    )

    /// The JSON of update `index`.
    func update(_ index: Int) -> [UInt8] {
        var json = Self.prefix
        json.reserveCapacity(max(bytes, Self.prefix.count + Self.suffix.count + 24))
        json += Array("burst \(index) ".utf8)
        var offset = index % Self.padding.count
        while json.count + Self.suffix.count < bytes {
            json.append(Self.padding[offset])
            offset = (offset + 1) % Self.padding.count
        }
        return json + Self.suffix
    }

    /// The time of update `index`, once stored.
    func ts(_ index: Int) -> Int64 {
        let transaction = index / Self.transactionSize
        return transaction < transactionTimes.count ? transactionTimes[transaction] : 0
    }

    /// The `session/update` notification of update `index`, once stored.
    func notification(_ index: Int) -> [UInt8] {
        var frame = Array(#"{"jsonrpc":"2.0","method":"session/update","params":{"session_id":"#.utf8)
        frame.reserveCapacity(bytes + 160)
        frame += JSONWriter.bytes(of: .string(sessionID)) + Array(#","update":"#.utf8) + update(index)
        if withMeta {
            frame += Array(#","_meta":{"seq":\#(firstSeq + Int64(index)),"ts":\#(ts(index))}"#.utf8)
        }
        return frame + Array("}}".utf8)
    }
}
