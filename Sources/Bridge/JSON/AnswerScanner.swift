/// Reads a JSON-RPC answer in pieces, as its bytes arrive, without ever holding it whole: every
/// member of the answer's object comes whole (`id`, `error`, `jsonrpc`) but its `result` when that
/// is an array, whose elements come one at a time, or an object, whose members come whole but its
/// `items` array, whose elements come one at a time (`tinyvex/history.changes`' pages), each as
/// its exact bytes. Members may come in any order.
///
/// It follows the structure only (objects, arrays, strings and their escapes, separators); each
/// piece is parsed by whoever reads it. A piece longer than `pieceLimit` bytes is refused
/// (`ScanError.pieceTooLarge`), so that memory stays bounded by the largest piece allowed.
struct AnswerScanner {
    /// What the scanner found complete.
    enum Piece: Equatable {
        /// A member of the answer's object, other than an array or object `result`: its key and
        /// value bytes.
        case member(key: String, value: [UInt8])
        /// The `result` is an object: its members follow, as `resultMember`s and, for its `items`
        /// array, `element`s.
        case resultObject
        /// A member of an object `result`, other than an array `items`.
        case resultMember(key: String, value: [UInt8])
        /// An element of the `result` array, or of an object `result`'s `items` array: its bytes.
        case element([UInt8])
    }

    /// Why the bytes are not an answer the scanner can read.
    enum ScanError: Error, Equatable {
        /// Not a JSON object of the expected shape, with what was found.
        case malformed(String)
        /// A piece of more bytes than the limit (at least this many).
        case pieceTooLarge(size: Int)
    }

    private enum Place {
        case beforeObject, beforeKey, inKey, afterKey, beforeValue, inMember, afterMember
        case beforeElement, inElement, afterElement, done
    }

    /// The most bytes a piece (a member's value or an element) may have.
    let pieceLimit: Int
    private var place = Place.beforeObject
    /// True inside an object `result` (its members are the ones read).
    private var inResultObject = false
    private var key: [UInt8] = []
    private var keyEscaped = false
    private var value = ValueBytes()

    init(pieceLimit: Int) {
        self.pieceLimit = pieceLimit
    }

    /// Reads the next bytes of the answer; returns the pieces they complete, in order.
    mutating func feed(_ chunk: [UInt8]) throws(ScanError) -> [Piece] {
        var pieces: [Piece] = []
        var index = 0
        while index < chunk.count {
            switch place {
            case .inMember, .inElement:
                let (consumed, ended) = value.take(chunk, from: index)
                index += consumed
                guard value.bytes.count <= pieceLimit else { throw .pieceTooLarge(size: value.bytes.count) }
                if ended {
                    if place == .inMember {
                        let name = String(decoding: key, as: UTF8.self)
                        pieces.append(inResultObject ? .resultMember(key: name, value: value.bytes) : .member(key: name, value: value.bytes))
                        place = .afterMember
                    } else {
                        pieces.append(.element(value.bytes))
                        place = .afterElement
                    }
                    value = ValueBytes()
                }
            case .inKey:
                let byte = chunk[index]
                index += 1
                if keyEscaped {
                    keyEscaped = false
                } else if byte == UInt8(ascii: "\\") {
                    keyEscaped = true
                } else if byte == UInt8(ascii: "\"") {
                    place = .afterKey
                    continue
                }
                key.append(byte)
                guard key.count <= pieceLimit else { throw .pieceTooLarge(size: key.count) }
            default:
                let byte = chunk[index]
                index += 1
                if Self.isWhitespace(byte) { continue }
                if try step(byte) { pieces.append(.resultObject) }
            }
        }
        return pieces
    }

    /// One significant byte outside keys and values; true when it opens an object `result`.
    private mutating func step(_ byte: UInt8) throws(ScanError) -> Bool {
        switch (place, byte) {
        case (.beforeObject, UInt8(ascii: "{")): place = .beforeKey
        case (.beforeKey, UInt8(ascii: "\"")):
            key = []
            place = .inKey
        case (.beforeKey, UInt8(ascii: "}")), (.afterMember, UInt8(ascii: "}")):
            place = inResultObject ? .afterMember : .done
            inResultObject = false
        case (.afterKey, UInt8(ascii: ":")): place = .beforeValue
        case (.beforeValue, UInt8(ascii: "[")) where key == Array(inResultObject ? "items".utf8 : "result".utf8): place = .beforeElement
        case (.beforeValue, UInt8(ascii: "{")) where !inResultObject && key == Array("result".utf8):
            inResultObject = true
            place = .beforeKey
            return true
        case (.beforeValue, _) where Self.startsValue(byte):
            value = ValueBytes()
            _ = value.take([byte], from: 0)
            place = .inMember
        case (.afterMember, UInt8(ascii: ",")): place = .beforeKey
        case (.beforeElement, UInt8(ascii: "]")), (.afterElement, UInt8(ascii: "]")): place = .afterMember
        case (.beforeElement, _) where Self.startsValue(byte):
            value = ValueBytes()
            _ = value.take([byte], from: 0)
            place = .inElement
        case (.afterElement, UInt8(ascii: ",")): place = .beforeElement
        default:
            throw .malformed("unexpected \(Self.describe(byte)) in the answer's \(place)")
        }
        return false
    }

    /// Checks that the answer ended where an object ends.
    func finish() throws(ScanError) {
        guard place == .done else { throw .malformed("the answer ended inside its \(place)") }
    }

    /// True for a byte a JSON value can start with.
    private static func startsValue(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "{"), UInt8(ascii: "["), UInt8(ascii: "\""), UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"): true
        default: false
        }
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    private static func describe(_ byte: UInt8) -> String {
        (0x21...0x7E).contains(byte) ? "'\(Character(Unicode.Scalar(byte)))'" : "byte \(byte)"
    }
}

/// The bytes of one JSON value as they arrive, until it is complete: nesting is counted
/// outside strings; a scalar (number, `true`, `false`, `null`) ends at the first byte that
/// cannot belong to it, which is left for the caller.
private struct ValueBytes {
    var bytes: [UInt8] = []
    private var depth = 0
    private var inString = false
    private var escaped = false
    private var isScalar = false

    /// Takes bytes of `chunk` from `start` until the value is complete; returns how many it took
    /// and whether the value is complete.
    mutating func take(_ chunk: [UInt8], from start: Int) -> (consumed: Int, ended: Bool) {
        var index = start
        if bytes.isEmpty, index < chunk.count {
            let first = chunk[index]
            isScalar = first != UInt8(ascii: "{") && first != UInt8(ascii: "[") && first != UInt8(ascii: "\"")
        }
        while index < chunk.count {
            if inString {
                if escaped {
                    escaped = false
                    bytes.append(chunk[index])
                    index += 1
                    continue
                }
                // A run of plain string bytes is copied at once.
                let stop = chunk[index...].firstIndex { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") } ?? chunk.count
                bytes.append(contentsOf: chunk[index..<stop])
                index = stop
                guard index < chunk.count else { break }
                let byte = chunk[index]
                bytes.append(byte)
                index += 1
                if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else {
                    inString = false
                    if depth == 0 {
                        return (index - start, true)
                    }
                }
                continue
            }
            let byte = chunk[index]
            if isScalar {
                if Self.endsScalar(byte) {
                    return (index - start, true)
                }
                bytes.append(byte)
                index += 1
                continue
            }
            bytes.append(byte)
            index += 1
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                if depth == 0 {
                    return (index - start, true)
                }
            default: break
            }
        }
        return (index - start, false)
    }

    private static func endsScalar(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), 0x20, 0x0A, 0x0D, 0x09: true
        default: false
        }
    }
}
