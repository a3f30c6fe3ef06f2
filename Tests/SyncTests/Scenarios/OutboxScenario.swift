import MirrorStore
import TestSupport
import Testing

/// Prompts queued offline: one the desktop refuses is marked failed with its message and holds
/// back its session; one whose answer is lost goes back to the queue and is sent again, taken
/// once (history cursor: the client message id tells a resend), or waits unconfirmed (stock: a
/// resend could run twice). Written once, run where `place` says.
func outboxScenario(_ place: DesktopPlace, _ flavor: ScriptedDesktop.Flavor) async throws {
    let directory = try TemporaryDirectory()
    let mirror = directory.path("mirror.sqlite")
    let desktop = try await place.desktop("desk", flavor, in: directory)
    let cursor = flavor != .stock
    try await desktop.store(session: "S", texts: ["hello "])
    try await desktop.store(session: "T", texts: ["hello "])
    _ = try await desktop.syncOnce(mirror: mirror, name: "desk")

    let store = try MirrorStore(path: mirror)
    try store.enqueuePrompt(sessionID: "S", text: "", clientMessageID: "empty")
    try queuePrompt(store, session: "S", text: "after the refused one")
    try queuePrompt(store, session: "T", text: "accepted")
    let second = try await desktop.syncOnce(mirror: mirror, name: "desk")
    #expect(second.promptsRefused == 1 && second.promptsSent == 1, "\(second)")
    let afterSecond = try store.outboxItems()
    #expect(afterSecond.map(\.state) == [.failed, .queued, .sent], "a refused prompt holds back its session")
    #expect(afterSecond.first?.lastError == "Empty prompt", "with the desktop's message")

    try await desktop.dropBeforeAnsweringPrompts(true)
    try queuePrompt(store, session: "T", text: "answer lost")
    let third = try await desktop.sync(mirror: mirror, name: "desk", pin: nil)
    guard case .other(let said) = third.failure else {
        Issue.record("the connection lost with the answer fails the sync: \(third)")
        return
    }
    #expect(said.contains("closed"), "\(said)")
    #expect(try store.outboxItems().last?.state == (cursor ? .queued : .unconfirmed))

    try await desktop.dropBeforeAnsweringPrompts(false)
    _ = try await desktop.syncOnce(mirror: mirror, name: "desk")
    #expect(try store.outboxItems().last?.state == (cursor ? .sent : .unconfirmed))
    let received = try await desktop.prompts()
    try await desktop.stop()
    #expect(received.filter { $0.text == "answer lost" }.count == 1, "taken once, a resend known by its client message id")
    #expect(received.map(\.text).filter { $0 != "answer lost" } == ["accepted"], "nothing refused or held back was taken")
}
