/// The markers that the benchmark's events carry as their text, and that it looks for in what
/// the follower prints: `m0000123 ` for the measured events (numbered from 0 for each follower),
/// `r0000004 ` for the probes that show the follower is up. A letter, seven digits, a space.
enum Marker {
    case measured(Int)
    case probe(Int)

    static let digits = 7

    /// The event text for this marker.
    var text: String {
        let (letter, number) = switch self {
        case .measured(let number): ("m", number)
        case .probe(let number): ("r", number)
        }
        let decimal = String(number)
        return letter + String(repeating: "0", count: max(0, Self.digits - decimal.count)) + decimal + " "
    }
}

/// Finds markers in a byte stream read in chunks of any size: a marker may be cut between two
/// reads (the text mode prints a message's chunks on one line, so no newline says where one ends).
struct MarkerScanner {
    private var letter: UInt8?
    private var digits = 0
    private var value = 0

    /// Feeds `bytes`, calling `found` for each whole marker in them (and ending in them).
    mutating func scan(_ bytes: UnsafeRawBufferPointer, found: (Marker) -> Void) {
        for byte in bytes {
            if let current = letter {
                if digits < Marker.digits, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                    digits += 1
                    value = value * 10 + Int(byte - UInt8(ascii: "0"))
                    continue
                }
                if digits == Marker.digits, byte == UInt8(ascii: " ") {
                    found(current == UInt8(ascii: "m") ? .measured(value) : .probe(value))
                    letter = nil
                    continue
                }
                letter = nil
            }
            if byte == UInt8(ascii: "m") || byte == UInt8(ascii: "r") {
                letter = byte
                digits = 0
                value = 0
            }
        }
    }
}
