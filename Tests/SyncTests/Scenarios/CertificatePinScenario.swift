import Bridge
import FrontEndSupport
import MirrorStore
import TestSupport
import Testing

/// A `wss://` desktop's certificate trusted on first use and remembered; another one presented
/// later refused before anything is written; accepted when pinned deliberately, and then
/// remembered. Written once, run where `place` says.
func certificatePinScenario(_ place: DesktopPlace) async throws {
    let directory = try TemporaryDirectory()
    let mirror = directory.path("mirror.sqlite")
    let desktop = try await place.desktop("desk", .cursor(version: 2), presentsCertificate: true, in: directory)
    let original = try #require(await desktop.certificate)
    try await desktop.store(session: "S", texts: ["first "])
    let first = try await desktop.syncOnce(mirror: mirror, name: "desk")
    #expect(first.trustedOnFirstUse == original, "said, naming the bridge and the pin")
    #expect(try rememberedPin(mirror) == original.hex)
    let status = try await InProcessShell.run(mirror: mirror, commands: ["status"])
    #expect(status.standardOutput.contains(original.description), "status shows the pin in force")

    let other = try await desktop.presentAnotherCertificate()
    try await desktop.store(session: "S", texts: ["from the other certificate "])
    let refused = try await desktop.sync(mirror: mirror, name: "desk", pin: nil)
    guard case .certificateMismatch(let said) = refused.failure else {
        Issue.record("refused for its certificate: \(refused)")
        return
    }
    #expect(said.contains(original.description) && said.contains(other.description), "both fingerprints: \(said)")
    #expect(said.contains("--tls-pin \(other.hex)"), "how to accept it deliberately: \(said)")
    #expect(try MirrorStore(path: mirror, mode: .readOnly).counts().events == 1, "nothing of the other certificate's bridge")
    #expect(try rememberedPin(mirror) == original.hex, "the pin is kept")

    let accepted = try await desktop.sync(mirror: mirror, name: "desk", pin: other)
    #expect(accepted.failure == nil && accepted.eventsWritten == 1, "\(accepted)")
    #expect(accepted.trustedOnFirstUse == nil, "pinned deliberately, not trusted on first use")
    #expect(try rememberedPin(mirror) == other.hex)
    let again = try await desktop.syncOnce(mirror: mirror, name: "desk")
    #expect(again.trustedOnFirstUse == nil && again.eventsWritten == 0)
    try expectMirrorHolds(try await desktop.finalHistory(), mirror: mirror, nothingElse: true)
}

/// The pin the mirror remembers for the bridge it synced with last.
private func rememberedPin(_ mirror: String) throws -> String? {
    let store = try MirrorStore(path: mirror, mode: .readOnly)
    return try store.rememberedPin(forBridge: try #require(try store.lastBridgeURL()))
}
