import CSQLite
import TestSupport
import Testing
@testable import MirrorStore

@Suite("The page cache's budget", .endsWithin(.seconds(60)))
struct PageCacheBudgetTests {
    @Test("a store opens with a catch-up's budget; a live one frees the pages past it at once, and a catch-up's comes back")
    func budgets() throws {
        let mirror = try MirrorFixture()
        let store = mirror.store
        #expect(try store.pageCacheKiB() == PageCacheBudget.catchUp.kibibytes)
        // Pages in the cache: a session of large events, read back.
        let text = String(repeating: "page filler ", count: 2_000)
        try store.appendEvents((0..<2_000).map { entryEvent("s\($0 % 7)", text: "\($0) \(text)") })
        _ = try store.database.scalarInt64("SELECT sum(length(update_json)) FROM events")
        let full = try cacheUsedKiB(store)
        #expect(full > PageCacheBudget.live.kibibytes, "\(full) KiB in the cache")
        try store.usePageCache(.live)
        #expect(try store.pageCacheKiB() == PageCacheBudget.live.kibibytes)
        let live = try cacheUsedKiB(store)
        #expect(live <= PageCacheBudget.live.kibibytes + 1024, "\(live) KiB in the cache once live")
        try store.usePageCache(.catchUp)
        #expect(try store.pageCacheKiB() == PageCacheBudget.catchUp.kibibytes)
    }

    /// The memory the connection's page cache holds, in KiB (`SQLITE_DBSTATUS_CACHE_USED`).
    private func cacheUsedKiB(_ store: MirrorStore) throws -> Int {
        var current: Int32 = 0
        var highest: Int32 = 0
        try #require(sqlite3_db_status(store.database.handle, SQLITE_DBSTATUS_CACHE_USED, &current, &highest, 0) == SQLITE_OK)
        return Int(current) / 1024
    }
}
