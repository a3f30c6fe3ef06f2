/// A message read in parts (`WebSocketConnection.Event.part`), from its first part to its last:
/// who takes it is decided by what its first pieces say.
struct MessageInParts {
    /// Who takes the message.
    enum Taker {
        /// Not known yet: its bytes are kept until it is (its first members are small).
        case undecided(prefix: [UInt8])
        /// The answer to a request that reads it in parts.
        case answer(AnswerInParts)
        /// Read whole, as any message within the limit: a notification, an error, the answer to a
        /// request that reads none in parts, or one whose request cannot be told before its result.
        case whole([UInt8])
        /// Nobody: the answer it was could not be read whole, and the rest is skipped.
        case skipped
    }

    var taker = Taker.undecided(prefix: [])
    var scanner: AnswerScanner
    /// The message's bytes so far.
    var byteCount = 0

    init(itemLimit: Int) {
        scanner = AnswerScanner(pieceLimit: itemLimit)
    }

    /// What the first decisive piece among `pieces` says of the message still undecided: taken by
    /// the request it names that reads answers in parts (`answering`, given its id; nil for a
    /// request that does not), or by the only request waiting when the result comes before the
    /// id (`onlyWaiting`); whole otherwise; nil while undecided.
    static func decision(_ pieces: [AnswerScanner.Piece], answering: (RequestID) -> Bool, onlyWaiting: RequestID?) -> Decision? {
        for piece in pieces {
            switch piece {
            case .member(key: "jsonrpc", _):
                continue
            case .member(key: "id", let value):
                guard let json = try? JSONParser.parse(value), let id = RequestID(json: json), answering(id) else { return .whole }
                return .answer(id)
            case .element, .resultObject, .resultMember:
                return onlyWaiting.map(Decision.answer) ?? .whole
            case .member:
                return .whole
            }
        }
        return nil
    }

    enum Decision: Equatable {
        case answer(RequestID)
        case whole
    }
}
