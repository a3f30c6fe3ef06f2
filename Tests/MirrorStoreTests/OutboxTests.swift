import Foundation
import TestSupport
import Testing
@testable import MirrorStore

@Suite("Outbox", .endsWithin(.seconds(120)))
struct OutboxTests {
    let mirror: MirrorFixture
    var directory: TemporaryDirectory { mirror.directory }
    var store: MirrorStore { mirror.store }

    init() throws {
        mirror = try MirrorFixture()
        try store.upsertSessions([SessionRecord(sessionID: "a"), SessionRecord(sessionID: "b")])
    }

    @Test("a queued prompt is durable at once")
    func durable() throws {
        let item = try store.enqueuePrompt(sessionID: "a", text: "hello", clientMessageID: "cm-1")
        #expect(item.state == .queued)
        #expect(item.attempts == 0)
        let reopened = try MirrorStore(path: store.path)
        #expect(try reopened.outboxItems() == [item])
    }

    @Test("dropping a prompt never sent removes its echo, and the counts follow")
    func dropRemovesEcho() throws {
        let echo = NewEvent(sessionID: "a", kind: "user_message_chunk", text: "hello", updateJSON: Array("{}".utf8))
        let item = try store.enqueuePrompt(sessionID: "a", text: "hello", clientMessageID: "cm-1", localEcho: echo)
        #expect(try store.counts().events == 1)
        #expect(try store.session(id: "a")?.localEventCount == 1)
        try store.dropOutboxItem(id: item.id)
        #expect(try store.timeline(sessionID: "a").isEmpty)
        #expect(try store.counts().events == 0)
        #expect(try store.session(id: "a")?.localEventCount == 0)
    }

    @Test("prompts for unknown sessions are refused")
    func unknownSession() throws {
        #expect(throws: MirrorStoreError.unknownSession(id: "zzz")) {
            try store.enqueuePrompt(sessionID: "zzz", text: "x", clientMessageID: "cm")
        }
        #expect(try store.outboxItems().isEmpty)
    }

    @Test("delivery is FIFO per session; a failed prompt holds back its session only")
    func fifoPerSession() throws {
        let a1 = try store.enqueuePrompt(sessionID: "a", text: "a1", clientMessageID: "1")
        let a2 = try store.enqueuePrompt(sessionID: "a", text: "a2", clientMessageID: "2")
        let b1 = try store.enqueuePrompt(sessionID: "b", text: "b1", clientMessageID: "3")

        #expect(try store.claimNextOutboxItem()?.id == a1.id)
        #expect(try store.claimNextOutboxItem()?.id == b1.id, "a2 waits while a1 is sending")
        #expect(try store.claimNextOutboxItem() == nil)
        try store.markOutboxFailed(id: a1.id, error: "Empty prompt")
        #expect(try store.claimNextOutboxItem() == nil, "a2 waits while a1 failed")
        try store.markOutboxSent(id: b1.id)

        let retried = try store.requeueOutboxItem(id: a1.id)
        #expect(retried.state == .queued)
        #expect(retried.lastError == "Empty prompt")
        let again = try #require(try store.claimNextOutboxItem())
        #expect(again.id == a1.id)
        #expect(again.attempts == 2)
        let sent = try store.markOutboxSent(id: a1.id)
        #expect(sent.sentAt != nil)
        #expect(try store.claimNextOutboxItem()?.id == a2.id)
        try store.markOutboxUnconfirmed(id: a2.id, reason: "connection lost before the answer")
        #expect(try store.outboxItems(in: [.unconfirmed]).map(\.id) == [a2.id])
    }

    @Test("transitions that make no sense are refused")
    func invalidTransitions() throws {
        let item = try store.enqueuePrompt(sessionID: "a", text: "x", clientMessageID: "1")
        #expect(throws: MirrorStoreError.invalidOutboxTransition(id: item.id, from: .queued, to: .sent)) {
            try store.markOutboxSent(id: item.id)
        }
        #expect(throws: MirrorStoreError.unknownOutboxItem(id: 999)) { try store.requeueOutboxItem(id: 999) }
        _ = try store.claimNextOutboxItem()
        #expect(throws: MirrorStoreError.outboxItemInFlight(id: item.id)) { try store.dropOutboxItem(id: item.id) }
        // A user's retry while the prompt is being sent could send it twice.
        #expect(throws: MirrorStoreError.outboxItemInFlight(id: item.id)) { try store.requeueOutboxItem(id: item.id) }
        #expect(try store.outboxItem(id: item.id)?.state == .sending)
        #expect(try store.returnToQueue(id: item.id).state == .queued)
        #expect(throws: MirrorStoreError.invalidOutboxTransition(id: item.id, from: .queued, to: .queued)) {
            try store.requeueOutboxItem(id: item.id)
        }
    }

    @Test("a client message id is used once")
    func uniqueClientMessageID() throws {
        try store.enqueuePrompt(sessionID: "a", text: "x", clientMessageID: "same")
        let error = try #require(throws: SQLiteError.self) {
            try store.enqueuePrompt(sessionID: "b", text: "y", clientMessageID: "same")
        }
        #expect(error.isConstraintViolation)
        #expect(try store.outboxItems().count == 1)
    }

    @Test("prompts of a session made offline wait until it exists on the bridge")
    func localSessionsWait() throws {
        try store.createLocalSession(id: "local-1")
        let waiting = try store.enqueuePrompt(sessionID: "local-1", text: "first", clientMessageID: "c1")
        let ready = try store.enqueuePrompt(sessionID: "a", text: "other", clientMessageID: "c2")
        #expect(try store.sessionsAwaitingCreation() == ["local-1"])
        #expect(try store.claimNextOutboxItem()?.id == ready.id)
        #expect(try store.claimNextOutboxItem() == nil)
        try store.remapSession(localID: "local-1", to: "SERVER-1")
        #expect(try store.sessionsAwaitingCreation().isEmpty)
        #expect(try store.claimNextOutboxItem()?.id == waiting.id)
    }

    @Test("prompts a stopped process left sending are settled by what the bridge can de-duplicate")
    func interruptedSends() throws {
        let first = try store.enqueuePrompt(sessionID: "a", text: "x", clientMessageID: "1")
        let second = try store.enqueuePrompt(sessionID: "b", text: "y", clientMessageID: "2")
        _ = try store.claimNextOutboxItem()
        _ = try store.claimNextOutboxItem()
        let requeued = try store.settleInterruptedSends(canResendSafely: true)
        #expect(requeued.map(\.state) == [.queued, .queued])
        _ = try store.claimNextOutboxItem()
        let unconfirmed = try store.settleInterruptedSends(canResendSafely: false)
        #expect(unconfirmed.map(\.id) == [first.id])
        #expect(try store.outboxItem(id: first.id)?.state == .unconfirmed)
        #expect(try store.outboxItem(id: first.id)?.lastError?.contains("answer was lost") == true)
        #expect(try store.outboxItem(id: second.id)?.state == .queued)
    }

    @Test("a session made offline takes the bridge's id everywhere")
    func remapToNewID() throws {
        try store.createLocalSession(id: "local-1")
        let echo = NewEvent(sessionID: "local-1", kind: "user_message_chunk", text: "start", updateJSON: Array("{}".utf8))
        let item = try store.enqueuePrompt(sessionID: "local-1", text: "start", clientMessageID: "c", localEcho: echo)
        #expect(try store.session(id: "local-1")?.origin == .local)

        try store.remapSession(localID: "local-1", to: "SERVER-1")
        #expect(try store.session(id: "local-1") == nil)
        #expect(try store.session(id: "SERVER-1")?.origin == .server)
        #expect(try store.outboxItem(id: item.id)?.sessionID == "SERVER-1")
        #expect(try store.timeline(sessionID: "SERVER-1").map(\.text) == ["start"])
        #expect(try store.counts().events == 1)
    }

    @Test("a session made offline merges into the bridge's when its updates came first")
    func remapIntoExisting() throws {
        try store.createLocalSession(id: "local-2")
        let echo = NewEvent(sessionID: "local-2", kind: "user_message_chunk", text: "go", updateJSON: Array("{}".utf8))
        let item = try store.enqueuePrompt(sessionID: "local-2", text: "go", clientMessageID: "c", localEcho: echo)
        try store.appendEvents([messageEvent("SERVER-2", seq: 1, text: "mode set")])

        try store.replaceTimelineTail(sessionID: "SERVER-2", with: [messageEvent("SERVER-2", seq: 1, text: "mode set")],
                                      watermark: SessionWatermark(lastTS: 5, messageCount: 1))
        try store.replaceTimelineTail(sessionID: "local-2", with: [], watermark: SessionWatermark(lastTS: 1, messageCount: 0))
        try store.remapSession(localID: "local-2", to: "SERVER-2")
        #expect(try store.session(id: "local-2") == nil)
        #expect(try store.watermark(for: "SERVER-2") == SessionWatermark(lastTS: 5, messageCount: 1))
        #expect(try store.watermark(for: "local-2") == nil)
        #expect(try store.timeline(sessionID: "SERVER-2").map(\.text) == ["mode set", "go"])
        #expect(try store.session(id: "SERVER-2")?.localEventCount == 2)
        #expect(try store.counts().events == 2)
        #expect(try store.outboxItem(id: item.id)?.sessionID == "SERVER-2")
    }
}
