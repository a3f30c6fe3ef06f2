#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The events an insert has just written, as the derivation of entries takes them, gathered while
/// their rows are bound: deriving from them reads nothing back from `events`.
///
/// A catch-up derives the entries of each transaction's events in that transaction; reading them
/// back from the rows just written took a sixth of the writer's time on a million small events
/// (`docs/benchmarks.md`, issue 34).
struct EventsInHand {
    /// Every event, in the order of its id (a chunk with its text, any other event without).
    private(set) var events: [DerivedEvent] = []
    /// The events whose entries are themselves alone (`SingleEvents`), in the order of their ids.
    private(set) var singles: [SingleEvent] = []
    /// The oldest and newest times among the events' (nil if none has a time).
    private(set) var oldestTimestamp: Int64?
    private(set) var newestTimestamp: Int64?

    init(reservingCapacity count: Int) {
        events.reserveCapacity(count)
    }

    /// The id of the first event (nil if none was added).
    var firstEventID: Int64? { events.first?.id }

    /// Adds an event written with id `id`: its kind and text are the UTF-8 bytes of its row.
    mutating func append(id: Int64, sessionNo: Int64, ordinal: Int64, kind: UnsafeRawBufferPointer,
                         text: UnsafeRawBufferPointer, origin: EventOrigin, timestamp: Int64?) {
        let role = Self.role(kind: kind, origin: origin)
        let isChunk = role.chunkKind != nil
        events.append(DerivedEvent(
            id: id, sessionNo: sessionNo, ordinal: ordinal, role: role, origin: origin.rawValue,
            text: isChunk ? String(decoding: text, as: UTF8.self) : "", timestamp: timestamp
        ))
        if !isChunk && !text.isEmpty {
            singles.append(SingleEvent(
                id: id, sessionNo: sessionNo, kind: String(decoding: kind, as: UTF8.self),
                text: String(decoding: text, as: UTF8.self), timestamp: timestamp
            ))
        }
        if let timestamp {
            if timestamp < oldestTimestamp ?? .max { oldestTimestamp = timestamp }
            if timestamp > newestTimestamp ?? .min { newestTimestamp = timestamp }
        }
    }

    /// `DerivedEvent.Role.sql`, of the bytes of a kind.
    private static func role(kind: UnsafeRawBufferPointer, origin: EventOrigin) -> DerivedEvent.Role {
        if equal(kind, EntryWriter.toolUpdateKind) { return .toolUpdate }
        guard origin != .local else { return .other }
        for role in DerivedEvent.Role.chunks {
            if let chunkKind = role.chunkKind, equal(kind, chunkKind) { return role }
        }
        return .other
    }

    /// Whether `bytes` are the UTF-8 of `string` (lengths first: most kinds differ in theirs), by
    /// `memcmp`: compared a byte at a time through `String.UTF8View`, the kinds of a million
    /// events took a tenth of a second of the writer's.
    private static func equal(_ bytes: UnsafeRawBufferPointer, _ string: String) -> Bool {
        guard string.utf8.count == bytes.count else { return false }
        var string = string
        return string.withUTF8 { utf8 in
            guard let left = utf8.baseAddress, let right = bytes.baseAddress else { return true }
            return memcmp(left, right, utf8.count) == 0
        }
    }
}

/// An event whose entry is itself alone (an event with text that is not a chunk of a message),
/// with what its entry and its row in the index are made of.
struct SingleEvent {
    var id: Int64
    var sessionNo: Int64
    var kind: String
    var text: String
    var timestamp: Int64?
}
