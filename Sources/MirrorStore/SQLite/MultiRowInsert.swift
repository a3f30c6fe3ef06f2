/// Writes rows by an `INSERT … VALUES` of many rows at a time: a statement per row costs more
/// than the rows themselves when there are hundreds of thousands of them.
struct MultiRowInsert {
    /// Rows written by one statement (but the last few, one each).
    static let rowsPerStatement = 64

    private let manyRowsSQL: String
    private let oneRowSQL: String
    private let parametersPerRow: Int32

    /// - Parameters:
    ///   - prefix: the statement up to `VALUES`;
    ///   - row: the parameters of one row, such as `(?, ?, ?)`.
    init(_ prefix: String, row: String) {
        manyRowsSQL = prefix + " VALUES " + Array(repeating: row, count: Self.rowsPerStatement).joined(separator: ", ")
        oneRowSQL = prefix + " VALUES " + row
        parametersPerRow = Int32(row.filter { $0 == "?" }.count)
    }

    /// Writes `rows`, `bind` binding each one's values from its first parameter on.
    func write<Element>(_ rows: some RandomAccessCollection<Element>, database: Database,
                        bind: (Element, Statement, Int32) throws -> Void) throws {
        var start = rows.startIndex
        while start != rows.endIndex {
            let count = rows.distance(from: start, to: rows.endIndex) >= Self.rowsPerStatement ? Self.rowsPerStatement : 1
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
