/// Writes rows by an `INSERT … VALUES` of many rows at a time: a statement per row costs more
/// than the rows themselves when there are hundreds of thousands of them.
struct MultiRowInsert {
    /// Rows written by one statement (but the last few, one each).
    static let rowsPerStatement = 64

    private let manyRowsSQL: String
    private let oneRowSQL: String
    private let parametersPerRow: Int32
    private let rowsPerStatement: Int

    /// - Parameters:
    ///   - prefix: the statement up to `VALUES`;
    ///   - row: the parameters of one row, such as `(?, ?, ?)`;
    ///   - oneRowEach: a statement per row. For a full-text table in a transaction: a statement
    ///     of many rows there runs as a savepoint of its own, whose end makes FTS5 write the terms
    ///     it gathered as a new segment, one per statement.
    init(_ prefix: String, row: String, oneRowEach: Bool = false) {
        rowsPerStatement = oneRowEach ? 1 : Self.rowsPerStatement
        manyRowsSQL = prefix + " VALUES " + Array(repeating: row, count: rowsPerStatement).joined(separator: ", ")
        oneRowSQL = prefix + " VALUES " + row
        parametersPerRow = Int32(row.filter { $0 == "?" }.count)
    }

    /// Writes `rows`, `bind` binding each one's values from its first parameter on.
    func write<Element>(_ rows: some RandomAccessCollection<Element>, database: Database,
                        bind: (Element, Statement, Int32) throws -> Void) throws {
        var start = rows.startIndex
        while start != rows.endIndex {
            let count = rows.distance(from: start, to: rows.endIndex) >= rowsPerStatement ? rowsPerStatement : 1
            let end = rows.index(start, offsetBy: count)
            let statement = try database.cachedStatement(count == 1 ? oneRowSQL : manyRowsSQL)
            defer { statement.reset() }
            var first: Int32 = 1
            for element in rows[start..<end] {
                try bind(element, statement, first)
                first += parametersPerRow
            }
            try statement.run()
            start = end
        }
    }
}
