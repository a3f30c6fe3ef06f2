@testable import Bridge
@testable import SyncEngine
import TestSupport
import Testing

/// Two history pages in flight: the second, asked where the first most likely ends, is used only
/// when the first reached that far; nothing is left out and nothing taken twice.
@Suite("Pages asked ahead", .endsWithin(.seconds(120)))
struct PageRequestsTests {
    @Test("contiguous seqs: the page asked ahead follows on, and the next is guessed after it")
    func contiguous() async throws {
        var requests = PageRequests(cursor: 0)
        let first = requests.ask(since: 0, limit: 3)
        let second = requests.ask(since: requests.guessedNext, limit: 3)
        #expect(requests.guessedNext == 6)
        let taken = try await answering([second: .success(page(4...6, hasMore: true)), first: .success(page(1...3, hasMore: true))],
                                        &requests)
        #expect(taken.map(\.seqs) == [[1, 2, 3], [4, 5, 6]], "taken in the order asked, the order asked")
        #expect(requests.cursor == 6)
    }

    @Test("seqs skipped: a page asked ahead that could leave seqs out is dropped, and the pages go on from the cursor")
    func skippedSeqs() async throws {
        var requests = PageRequests(cursor: 0)
        let first = requests.ask(since: 0, limit: 3)
        let second = requests.ask(since: 3, limit: 3)
        // The first page ends at 2 with more to come (fewer items than asked): the page asked from
        // 3 would leave seq 3 out if it exists.
        let taken = try await answering([first: .success(page([1, 2], next: 2, hasMore: true)),
                                         second: .success(page(4...6, hasMore: true))], &requests, upTo: 1)
        #expect(taken.map(\.seqs) == [[1, 2]])
        #expect(requests.waiting == 0, "the page asked from 3 is dropped: seq 3 would be left out")
        #expect(requests.cursor == 2 && requests.guessedNext == 2)
    }

    @Test("a page asked ahead that starts before the first one's end keeps only what is past it")
    func overlap() async throws {
        var requests = PageRequests(cursor: 0)
        let first = requests.ask(since: 0, limit: 3)
        let second = requests.ask(since: 3, limit: 3)
        // Seqs 2 and 3 were pruned: the first page reaches 5, past where the second starts.
        let taken = try await answering([first: .success(page([1, 4, 5], next: 5, hasMore: true)),
                                         second: .success(page([4, 5, 6], next: 6, hasMore: true))], &requests)
        #expect(taken.map(\.seqs) == [[1, 4, 5], [6]])
        #expect(requests.cursor == 6)
    }

    @Test("the history's end drops the page asked ahead; its failure is not the catch-up's")
    func endOfHistory() async throws {
        var requests = PageRequests(cursor: 10)
        let first = requests.ask(since: 10, limit: 5)
        let second = requests.ask(since: 15, limit: 5)
        let taken = try await answering([first: .success(page(11...12, hasMore: false)),
                                         second: .failure(BridgeError.connectionClosed(reason: "test"))], &requests, upTo: 1)
        #expect(taken.map(\.seqs) == [[11, 12]])
        #expect(requests.waiting == 0 && requests.cursor == 12)
    }

    @Test("the first page's failure is thrown, even when the page after it was answered")
    func failureInOrder() async throws {
        var requests = PageRequests(cursor: 0)
        let first = requests.ask(since: 0, limit: 3)
        let second = requests.ask(since: 3, limit: 3)
        await #expect(throws: BridgeError.self) {
            _ = try await answering([second: .success(page(4...6, hasMore: true)),
                                     first: .failure(BridgeError.connectionClosed(reason: "test"))], &requests)
        }
    }

    @Test("a page of one event is asked alone: a message over the limit fails every request in flight, so only then is its event known")
    func oneEventAlone() {
        var requests = PageRequests(cursor: 200)
        #expect(requests.mayAskAhead(limit: 3))
        _ = requests.ask(since: 200, limit: 1)
        #expect(!requests.mayAskAhead(limit: 1) && !requests.mayAskAhead(limit: 3), "nothing beside a page of one event")
        var larger = PageRequests(cursor: 200)
        _ = larger.ask(since: 200, limit: 2)
        #expect(larger.mayAskAhead(limit: 2))
        #expect(!larger.mayAskAhead(limit: 1), "a page of one event is not asked beside another")
    }

    @Test("a page read in parts waits its turn behind the one ahead of it; one dropped is stopped, not left to hold the connection")
    func inPartsOutOfOrder() async throws {
        var requests = PageRequests(cursor: 0)
        let first = requests.ask(since: 0, limit: 3)
        let second = requests.ask(since: 3, limit: 3)
        let secondParts = HistoryPageParts()
        let firstPage = page([1, 2], next: 2, hasMore: true)
        try await withThrowingTaskGroup(of: PageRequests.Answer.self) { group -> Void in
            // In whichever order their tasks end.
            group.addTask { PageRequests.Answer(number: second, result: .success(.inParts(secondParts))) }
            group.addTask { PageRequests.Answer(number: first, result: .success(.whole(firstPage))) }
            let (_, _, answer) = try #require(try await requests.next(from: &group))
            guard case .whole(let page) = answer else {
                Issue.record("the first page, in its turn")
                return
            }
            // It ends at 2 with more to come: the page asked from 3 could leave seq 3 out.
            requests.finishFirst(next: page.next, hasMore: true)
            #expect(requests.waiting == 0)
        }
        await #expect(throws: BridgeError.self, "stopped: nobody reads it") { _ = try await secondParts.next(upTo: 10) }
    }

    @Test("a page the client skipped as answered ahead is dropped with those after it; the pages go on from the cursor")
    func answeredAhead() async throws {
        var requests = PageRequests(cursor: 0)
        let first = requests.ask(since: 0, limit: 3)
        let second = requests.ask(since: 3, limit: 3)
        let firstPage = page(1...3, hasMore: true)
        try await withThrowingTaskGroup(of: PageRequests.Answer.self) { group -> Void in
            group.addTask { PageRequests.Answer(number: second, result: .failure(HistoryPageAnsweredAhead())) }
            group.addTask { PageRequests.Answer(number: first, result: .success(.whole(firstPage))) }
            let (since, _, answer) = try #require(try await requests.next(from: &group))
            #expect(since == 0)
            guard case .whole(let page) = answer else {
                Issue.record("the first page, whole")
                return
            }
            requests.finishFirst(next: page.next, hasMore: true)
            if requests.waiting == 1 {
                // The first page's task ended before the skipped one's: that one is first now.
                await #expect(throws: HistoryPageAnsweredAhead.self) { _ = try await requests.next(from: &group) }
            }
            #expect(requests.waiting == 0 && requests.cursor == 3 && requests.guessedNext == 3, "the second is asked again from the cursor")
        }
    }

    /// Answers the requests (in whatever order their tasks end), then takes pages in the order
    /// asked (`upTo` of them at most), as `FetchedBatch.fetchAll` does, without asking for more.
    private func answering(_ answers: KeyValuePairs<Int, Result<HistoryChangesPage, any Error>>, _ requests: inout PageRequests,
                           upTo limit: Int = .max) async throws -> [[HistoryChange]] {
        try await withThrowingTaskGroup(of: PageRequests.Answer.self) { group in
            for (number, result) in answers {
                group.addTask { PageRequests.Answer(number: number, result: result.map(HistoryChangesAnswer.whole)) }
            }
            var taken: [[HistoryChange]] = []
            while taken.count < limit, let (since, _, answer) = try await requests.next(from: &group) {
                guard case .whole(let page) = answer else { throw BridgeError.connectionClosed(reason: "a page in parts") }
                taken.append(page.items.filter { requests.isNew($0.seq) })
                requests.finishFirst(next: page.next, hasMore: page.hasMore && page.next > since)
            }
            group.cancelAll()
            return taken
        }
    }

    private func page(_ seqs: ClosedRange<Int64>, hasMore: Bool) -> HistoryChangesPage {
        page(Array(seqs), next: seqs.upperBound, hasMore: hasMore)
    }

    private func page(_ seqs: [Int64], next: Int64, hasMore: Bool) -> HistoryChangesPage {
        HistoryChangesPage(items: seqs.map {
            HistoryChange(seq: $0, sessionID: "s", ts: nil, update: SessionUpdate(rawBytes: Array(#"{"n":\#($0)}"#.utf8)))
        }, next: next, hasMore: hasMore)
    }
}

private extension Array where Element == HistoryChange {
    var seqs: [Int64] { map(\.seq) }
}
