import MirrorStore
import TestSupport
import Testing

/// Two desktops synced in turns into one mirror, each adding events between the syncs: every
/// event of each exactly once, two histories, nothing marked gone. Written once, run where
/// `place` says.
func twoDesktopsInTurnsScenario(_ place: DesktopPlace, cursorVersion version: Int) async throws {
    let directory = try TemporaryDirectory()
    let mirror = directory.path("mirror.sqlite")
    let work = try await place.desktop("work", .cursor(version: version), in: directory)
    let home = try await place.desktop("home", .cursor(version: version), in: directory)
    for session in 0..<5 { try await work.store(session: "work-\(session)", texts: (0..<180).map { "work \(session) \($0) " }) }
    for session in 0..<4 { try await home.store(session: "home-\(session)", texts: (0..<100).map { "home \(session) \($0) " }) }
    for round in 0..<3 {
        for (name, desktop) in [("work", work), ("home", home)] {
            try await desktop.store(session: "\(name)-live", texts: (0..<7).map { "\(name) round \(round) #\($0) " })
            _ = try await desktop.syncOnce(mirror: mirror, name: name)
        }
    }
    let workHistory = try await work.finalHistory()
    let homeHistory = try await home.finalHistory()

    try expectMirrorHolds(workHistory, mirror: mirror)
    try expectMirrorHolds(homeHistory, mirror: mirror)
    let store = try MirrorStore(path: mirror, mode: .readOnly)
    #expect(try store.counts().events == workHistory.count + homeHistory.count)
    let histories = try store.histories()
    #expect(histories.count == 2)
    #expect(Set(histories.map(\.desktop)) == ["work", "home"])
    #expect(try store.sessions().allSatisfy { $0.goneAt == nil })
}
