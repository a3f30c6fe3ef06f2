import CSQLite
import TestSupport
import Testing
@testable import MirrorStore

@Suite("Prepared statements kept for reuse", .endsWithin(.seconds(60)))
struct StatementCacheTests {
    @Test("a connection keeps a bounded number of them, however many texts of SQL it runs; each still runs")
    func bounded() throws {
        let directory = try TemporaryDirectory()
        let database = try Database(path: directory.path("cache.sqlite"))
        for index in 0..<(3 * Database.statementCacheLimit) {
            #expect(try database.scalarInt64("SELECT \(index)") == Int64(index))
        }
        var prepared = 0
        var statement = sqlite3_next_stmt(database.handle, nil)
        while let current = statement {
            prepared += 1
            statement = sqlite3_next_stmt(database.handle, current)
        }
        #expect(prepared <= Database.statementCacheLimit, "\(prepared) statements prepared")
        #expect(try database.scalarInt64("SELECT 1") == 1)
    }
}
