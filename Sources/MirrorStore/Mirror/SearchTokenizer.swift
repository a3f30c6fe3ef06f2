import CSQLite
import Foundation

/// Splits text into the tokens the full-text index holds, with the index's own tokenizer:
/// `unicode61 remove_diacritics 2`, as `schema/0008_search_filters.sql` declares it (a test
/// checks that the two agree).
enum SearchTokenizer {
    static let name = "unicode61"
    static let arguments = ["remove_diacritics", "2"]

    /// The tokens of each of `texts`, in order, as the index holds them (folded to lower case,
    /// diacritics removed).
    static func tokens(of texts: [String], database: Database) throws(SQLiteError) -> [[String]] {
        try spans(of: texts, database: database).map { $0.map(\.token) }
    }

    /// One token of a text and where it lies in the text's UTF-8.
    struct Span {
        var token: String
        var bytes: Range<Int>
    }

    /// The tokens of each of `texts`, in order, with where each lies in its text.
    static func spans(of texts: [String], database: Database) throws(SQLiteError) -> [[Span]] {
        let api = try FTS5.api(of: database)
        var context: UnsafeMutableRawPointer?
        var tokenizer = fts5_tokenizer()
        guard let find = api.pointee.xFindTokenizer, find(api, name, &context, &tokenizer) == SQLITE_OK,
              let create = tokenizer.xCreate, let tokenize = tokenizer.xTokenize, let delete = tokenizer.xDelete else {
            throw SQLiteError(extendedCode: SQLITE_ERROR, message: "FTS5 has no \(name) tokenizer", sql: nil)
        }
        var handle: OpaquePointer?
        let code = withCStrings(arguments) { argv in create(context, argv, Int32(arguments.count), &handle) }
        guard code == SQLITE_OK, let handle else {
            throw SQLiteError(extendedCode: code, message: "cannot create the \(name) tokenizer", sql: nil)
        }
        defer { delete(handle) }
        return texts.map { text in
            let sink = TokenSink()
            var text = text
            text.withUTF8 { bytes in
                bytes.withMemoryRebound(to: CChar.self) { characters in
                    _ = tokenize(handle, Unmanaged.passUnretained(sink).toOpaque(), FTS5_TOKENIZE_DOCUMENT,
                                 characters.baseAddress, Int32(characters.count)) { context, _, token, length, start, end in
                        guard let context, let token else { return SQLITE_OK }
                        let sink = Unmanaged<TokenSink>.fromOpaque(context).takeUnretainedValue()
                        sink.spans.append(Span(
                            token: String(decoding: UnsafeRawBufferPointer(start: token, count: Int(length)), as: UTF8.self),
                            bytes: Int(start)..<Int(end)
                        ))
                        return SQLITE_OK
                    }
                }
            }
            return sink.spans
        }
    }

    /// Calls `body` with `strings` as a C array of C strings, valid during the call.
    private static func withCStrings<R>(_ strings: [String], _ body: (UnsafeMutablePointer<UnsafePointer<CChar>?>?) -> R) -> R {
        let copies = strings.map { strdup($0) }
        defer { copies.forEach { free($0) } }
        var pointers: [UnsafePointer<CChar>?] = copies.map { copy in copy.map { UnsafePointer($0) } }
        return pointers.withUnsafeMutableBufferPointer { body($0.baseAddress) }
    }

    /// Collects the tokens of one text during `xTokenize` (which runs synchronously, on the
    /// calling thread).
    private final class TokenSink {
        var spans: [Span] = []
    }
}
