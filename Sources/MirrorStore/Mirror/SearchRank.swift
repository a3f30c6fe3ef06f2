import CSQLite
import Foundation

/// `oa_bm25(entries_fts, LENGTH, TEXT_BYTES, HITS…)`: bm25 (k1 = 1.2, b = 0.75) of the current
/// match, lower for better as FTS5's `bm25()` is, with each row's length in bytes (`LENGTH`: its
/// entry's, which `entries` and `single_entries` hold) against the average of the index's rows
/// (`TEXT_BYTES`: the bytes of all their texts, `EntryIndexRows.indexedTextBytes`), and the number
/// of documents holding each of the first phrases (the words) given as arguments, one per phrase,
/// instead of counted. Only matches in the text column score: phrases past the words (a search's
/// session and kind) do not.
///
/// FTS5's own `bm25()` needs each row's size in tokens, which the index does not store (a row of
/// sizes for every entry cost a catch-up a fifteenth of its time: `schema/0020`), and reads every
/// document of every phrase once per query to count them (10–14 ms for a word in 150,000 of a
/// million events), while the search ranks only the newest few hundred matches;
/// `MirrorStore.documentCount(of:)` estimates those counts from the newest matches of each phrase
/// alone. Given exact counts, the score is `bm25()`'s with lengths in bytes, to rounding.
enum SearchRank {
    static let functionName = "oa_bm25"

    /// Registers `oa_bm25` on the connection (once per connection).
    static func register(on database: Database) throws(SQLiteError) {
        let api = try FTS5.api(of: database)
        guard let create = api.pointee.xCreateFunction else {
            throw SQLiteError(extendedCode: SQLITE_ERROR, message: "FTS5 cannot register functions", sql: "SELECT fts5(?1)")
        }
        let result = create(api, functionName, nil, { extensionAPI, fts, context, count, values in
            guard let api = extensionAPI?.pointee, count >= 2, let values else { return }
            sqlite3_result_double(context, SearchRank.score(
                api: api, fts: fts, length: sqlite3_value_double(values[0]), textBytes: sqlite3_value_double(values[1]),
                hits: (2..<Int(count)).map { index in sqlite3_value_double(values[index]) }
            ))
        }, nil)
        guard result == SQLITE_OK else {
            throw SQLiteError(extendedCode: result, message: "cannot register \(functionName)", sql: "SELECT fts5(?1)")
        }
    }

    /// The index's column of text (the others hold a kind's and a session's token).
    private static let textColumn: Int32 = 0

    /// bm25 of the current row, of `length` bytes among rows of `textBytes` bytes in all,
    /// negated as FTS5's is (lower is better).
    private static func score(api: Fts5ExtensionApi, fts: OpaquePointer?, length: Double, textBytes: Double, hits: [Double]) -> Double {
        var rows: Int64 = 0
        var instances: Int32 = 0
        guard api.xRowCount?(fts, &rows) == SQLITE_OK, api.xInstCount?(fts, &instances) == SQLITE_OK,
              let phraseCount = api.xPhraseCount?(fts), rows > 0, textBytes > 0 else { return 0 }
        var frequencies = [Double](repeating: 0, count: min(Int(phraseCount), hits.count))
        for instance in 0..<instances {
            var phrase: Int32 = 0
            var column: Int32 = 0
            var offset: Int32 = 0
            guard api.xInst?(fts, instance, &phrase, &column, &offset) == SQLITE_OK, column == textColumn,
                  frequencies.indices.contains(Int(phrase)) else { continue }
            frequencies[Int(phrase)] += 1
        }
        let k1 = 1.2
        let b = 0.75
        let averageLength = textBytes / Double(rows)
        let documents = Double(rows)
        var score = 0.0
        for (phrase, frequency) in frequencies.enumerated() {
            let hit = min(documents, hits[phrase])
            var inverse = log((documents - hit + 0.5) / (hit + 0.5))
            if inverse <= 0 { inverse = 1e-6 }
            score += inverse * (frequency * (k1 + 1)) / (frequency + k1 * (1 - b + b * length / averageLength))
        }
        return -score
    }
}
