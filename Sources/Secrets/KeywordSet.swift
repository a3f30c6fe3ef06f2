import Foundation

/// The keywords of a detector's rules, all looked for in one pass over a text: which of them occur
/// in it, ignoring case: in the UTF-8 of the text lowercased.
///
/// An ASCII keyword is found by its first two bytes, in a table of 65,536 flags (as
/// `SecretMentions` finds values), the text's ASCII letters lowercased as they are read; a keyword
/// found is not compared again, and the pass ends once every one was. That finds what lowercasing
/// the text first finds: the only characters whose lowercase holds ASCII are the ASCII letters,
/// the Kelvin sign (U+212A) and `İ` (U+0130), and a text holding one of those two is lowercased
/// first. Any other keyword (of one byte, or not ASCII) is looked for in the text lowercased.
struct KeywordSet: Sendable {
    /// Each keyword, lowercased, by its number.
    private var keywords: [String] = []
    private var numbers: [String: Int] = [:]
    /// Whether some ASCII keyword of two bytes or more starts with these two bytes (bit
    /// `b0 << 8 | b1`): 8 KiB, read at each byte of a text, and small enough to stay in cache.
    private var startsOfKeywords = [UInt64](repeating: 0, count: 1 << 10)
    /// For each two bytes (by `b0 << 8 | b1`), 1 + the index in `startingWith` of the ASCII
    /// keywords of two bytes or more that start with them; 0 for none.
    private var pairs = [UInt16](repeating: 0, count: 1 << 16)
    /// The numbers of the keywords that start with each pair, with their bytes.
    private var startingWith: [[(number: Int, bytes: [UInt8])]] = []
    /// How many keywords `startingWith` holds.
    private var pairedCount = 0
    /// The numbers of the other keywords: of one byte, empty, or not ASCII.
    private var others: [Int] = []

    init() {}

    /// Adds `keyword` (any case) if it is not in the set; returns its number, for `Found`.
    mutating func add(_ keyword: String) -> Int {
        let lowered = keyword.lowercased()
        if let number = numbers[lowered] { return number }
        let number = keywords.count
        keywords.append(lowered)
        numbers[lowered] = number
        let bytes = Array(lowered.utf8)
        if bytes.count >= 2, bytes.allSatisfy({ $0 < 0x80 }) {
            let pair = Int(bytes[0]) << 8 | Int(bytes[1])
            if pairs[pair] == 0 {
                startingWith.append([])
                pairs[pair] = UInt16(startingWith.count)
            }
            startingWith[Int(pairs[pair]) - 1].append((number, bytes))
            startsOfKeywords[pair >> 6] |= 1 << UInt64(pair & 63)
            pairedCount += 1
        } else {
            others.append(number)
        }
        return number
    }

    /// Which keywords occur in a text.
    struct Found {
        fileprivate var flags: [Bool]

        func contains(_ number: Int) -> Bool { flags[number] }
    }

    /// The keywords that occur in `text`, ignoring case.
    func found(in text: String) -> Found {
        var found = Found(flags: [Bool](repeating: false, count: keywords.count))
        guard !keywords.isEmpty else { return found }
        var lowered: [UInt8]?
        let scanned: Bool = text.utf8.withContiguousStorageIfAvailable { bytes in
            guard !Self.holdsCharacterLoweredToASCII(bytes) else { return false }
            scan(bytes, into: &found)
            return true
        } ?? false
        if !scanned {
            let bytes = Array(text.lowercased().utf8)
            lowered = bytes
            bytes.withUnsafeBufferPointer { scan($0, into: &found) }
        }
        for number in others {
            let keyword = keywords[number]
            if keyword.isEmpty {
                found.flags[number] = true
            } else {
                let bytes = lowered ?? Array(text.lowercased().utf8)
                lowered = bytes
                found.flags[number] = bytes.firstRange(of: keyword.utf8) != nil
            }
        }
        return found
    }

    /// Flags the ASCII keywords of two bytes or more that occur in `bytes`, its ASCII letters
    /// taken lowercased.
    private func scan(_ bytes: UnsafeBufferPointer<UInt8>, into found: inout Found) {
        guard bytes.count >= 2, pairedCount > 0 else { return }
        var left = pairedCount
        startsOfKeywords.withUnsafeBufferPointer { starts in
            var previous = Int(Self.lowercase(bytes[0]))
            for index in 1..<bytes.count {
                let current = Int(Self.lowercase(bytes[index]))
                let pair = previous << 8 | current
                previous = current
                guard starts[pair >> 6] & (1 << UInt64(pair & 63)) != 0 else { continue }
                for keyword in startingWith[Int(pairs[pair]) - 1] where !found.flags[keyword.number]
                    && Self.matches(keyword.bytes, bytes, at: index - 1) {
                    found.flags[keyword.number] = true
                    left -= 1
                }
                if left == 0 { return }
            }
        }
    }

    /// Whether `keyword` (ASCII, lowercase, two bytes or more, the first two already seen) stands
    /// in `bytes` at `start`, its letters in any case.
    private static func matches(_ keyword: [UInt8], _ bytes: UnsafeBufferPointer<UInt8>, at start: Int) -> Bool {
        guard bytes.count - start >= keyword.count else { return false }
        for offset in 2..<keyword.count where lowercase(bytes[start + offset]) != keyword[offset] {
            return false
        }
        return true
    }

    private static func lowercase(_ byte: UInt8) -> UInt8 {
        byte &- 0x41 < 26 ? byte | 0x20 : byte
    }

    /// Whether `bytes` hold the Kelvin sign (E2 84 AA) or `İ` (C4 B0), whose lowercase holds ASCII.
    private static func holdsCharacterLoweredToASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return false }
        func holds(_ lead: UInt8, _ second: UInt8, _ third: UInt8?) -> Bool {
            var start = 0
            while start < bytes.count, let place = memchr(base + start, Int32(lead), bytes.count - start) {
                let at = base.distance(to: place.assumingMemoryBound(to: UInt8.self))
                if at + 1 < bytes.count, bytes[at + 1] == second, third.map({ at + 2 < bytes.count && bytes[at + 2] == $0 }) ?? true {
                    return true
                }
                start = at + 1
            }
            return false
        }
        return holds(0xE2, 0x84, 0xAA) || holds(0xC4, 0xB0, nil)
    }
}
