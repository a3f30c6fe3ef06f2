import CSQLite
import Foundation

/// `oa_bm25(events_fts, HITS…)`: FTS5's bm25 (k1 = 1.2, b = 0.75, lengths of whole rows, as
/// `bm25()` takes them), with the number of documents holding each of the first phrases (the
/// words) given as arguments, one per phrase, instead of counted. Only matches in the text column
/// score: phrases past the words (a search's session and kind) do not.
///
/// FTS5's own `bm25()` reads every document of every phrase once per query to count them (10–14 ms
/// for a word in 150,000 of a million events), while the search ranks only the newest few hundred
/// matches; `MirrorStore.documentCount(of:)` estimates those counts from the newest matches of
/// each phrase alone. Given exact counts, the score is `bm25()`'s, to rounding.
enum SearchRank {
    static let functionName = "oa_bm25"

    /// Registers `oa_bm25` on the connection (once per connection).
    static func register(on database: Database) throws(SQLiteError) {
        let api = try FTS5.api(of: database)
        guard let create = api.pointee.xCreateFunction else {
            throw SQLiteError(extendedCode: SQLITE_ERROR, message: "FTS5 cannot register functions", sql: "SELECT fts5(?1)")
        }
        let result = create(api, functionName, nil, { extensionAPI, fts, context, count, values in
            guard let api = extensionAPI?.pointee else { return }
            sqlite3_result_double(context, SearchRank.score(api: api, fts: fts, hits: (0..<Int(count)).map { index in
                sqlite3_value_double(values?[index])
            }))
        }, nil)
        guard result == SQLITE_OK else {
            throw SQLiteError(extendedCode: result, message: "cannot register \(functionName)", sql: "SELECT fts5(?1)")
        }
    }

    /// The index's column of text (the others hold a kind's and a session's token).
    private static let textColumn: Int32 = 0

    /// bm25 of the current row, negated as FTS5's is (lower is better).
    private static func score(api: Fts5ExtensionApi, fts: OpaquePointer?, hits: [Double]) -> Double {
        var rows: Int64 = 0
        var totalTokens: Int64 = 0
        var length: Int32 = 0
        var instances: Int32 = 0
        guard api.xRowCount?(fts, &rows) == SQLITE_OK, api.xColumnTotalSize?(fts, -1, &totalTokens) == SQLITE_OK,
              api.xColumnSize?(fts, -1, &length) == SQLITE_OK, api.xInstCount?(fts, &instances) == SQLITE_OK,
              let phraseCount = api.xPhraseCount?(fts), rows > 0 else { return 0 }
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
        let averageLength = Double(totalTokens) / Double(rows)
        let documents = Double(rows)
        var score = 0.0
        for (phrase, frequency) in frequencies.enumerated() {
            let hit = min(documents, hits[phrase])
            var inverse = log((documents - hit + 0.5) / (hit + 0.5))
            if inverse <= 0 { inverse = 1e-6 }
            score += inverse * (frequency * (k1 + 1)) / (frequency + k1 * (1 - b + b * Double(length) / averageLength))
        }
        return -score
    }
}
