@testable import SyncEngine
import TestSupport
import Testing

/// The size of history pages follows the bytes they hold, within 1…5000.
@Suite("Page sizes", .endsWithin(.seconds(120)))
struct PageSizerTests {
    @Test("pages get smaller after large events and larger again, doubling at most, within 1…5000")
    func adapts() {
        var sizer = PageSizer(start: 2000, messageLimit: 128 << 20)
        #expect(sizer.targetBytes == 1 << 20)
        sizer.observe(events: 2000, bytes: 2000 * 100_000)
        #expect(sizer.size == 10, "1 MiB of 100 KB events")
        sizer.observe(events: 41, bytes: 41 * 8 << 20)
        #expect(sizer.size == 1, "an event larger than the target: pages of one")
        sizer.observe(events: 1, bytes: 150)
        #expect(sizer.size == 2, "small events again: doubling")
        for _ in 0..<20 { sizer.observe(events: sizer.size, bytes: sizer.size * 150) }
        #expect(sizer.size == 5000)
    }

    @Test("a refused page is asked for smaller, down to one event")
    func shrinks() {
        var sizer = PageSizer(start: 5000, messageLimit: 1 << 20)
        #expect(sizer.shrink(afterRefusing: 5000, size: 3 << 20) == 416, "what fits the target (256 KiB), when less than half")
        #expect(sizer.shrink(afterRefusing: 312, size: nil) == 156)
        #expect(sizer.shrink(afterRefusing: 2, size: nil) == 1)
        #expect(sizer.shrink(afterRefusing: 1, size: 2 << 20) == nil, "one event alone is over the limit")
    }
}
