import Bridge
import FrontEndSupport
import MirrorStore
import TestSupport
import Testing

/// Two desktops followed at once by one engine or one oa-sync, both writing while each drops its
/// connections: every event of each exactly once; status, the desktop filter and a follower of
/// one desktop see each its own. Written once, run where `place` says.
func followedAtOnceScenario(_ place: DesktopPlace) async throws {
    let directory = try TemporaryDirectory()
    let mirror = directory.path("mirror.sqlite")
    let work = try await place.desktop("work", .cursor(version: 2), in: directory)
    let home = try await place.desktop("home", .cursor(version: 1), in: directory)
    for session in 0..<5 { try await work.store(session: "work-\(session)", texts: (0..<300).map { "work \(session) \($0) " }) }
    for session in 0..<4 { try await home.store(session: "home-\(session)", texts: (0..<200).map { "home \(session) \($0) " }) }
    try await FollowedDesktops.following([("work", work), ("home", home)], mirror: mirror) {
        let reader = { try MirrorStore(path: mirror, mode: .readOnly).counts().events }
        try await waitFor("the mirror to hold 2300 events", look: { (try? reader()) ?? 0 }, until: { $0 == 2_300 })
        // Both caught up (each history's sync noted), as a follower live on both is.
        try await waitUntil("both desktops caught up") {
            let histories = (try? MirrorStore(path: mirror, mode: .readOnly).histories()) ?? []
            return histories.count == 2 && histories.allSatisfy { $0.lastSyncedAt != nil }
        }
        // Both desktops write; each drops its connections half-way.
        for round in 0..<10 {
            for (name, desktop) in [("work", work), ("home", home)] {
                try await desktop.store(session: "\(name)-live", texts: (0..<20).map { "\(name) \(round).\($0) " })
                if round == 4 { try await desktop.dropConnections() }
            }
        }
        let expected = try await work.history().count + home.history().count
        try await waitFor("the mirror to hold \(expected) events", look: { (try? reader()) ?? 0 }, until: { $0 == expected })
    }
    let workHistory = try await work.finalHistory()
    let homeHistory = try await home.finalHistory()

    try expectMirrorHolds(workHistory, mirror: mirror)
    try expectMirrorHolds(homeHistory, mirror: mirror)
    let status = try await InProcessJSONLines.run(mirror: mirror, input: #"{"jsonrpc":"2.0","id":1,"method":"status","params":{}}"#)
    let desktops = try JSONParser.parse(Array(status.standardOutput.utf8))["result"]?["desktops"]?.arrayValue ?? []
    #expect(Set(desktops.compactMap { $0["desktop"]?.stringValue }) == ["work", "home"])
    #expect(desktops.allSatisfy { $0["last_sync"]?.stringValue != nil }, "\(status.standardOutput)")
    let homeOnly = try await InProcessJSONLines.run(
        mirror: mirror, input: #"{"jsonrpc":"2.0","id":1,"method":"sessions.list","params":{"desktop":"home","limit":100}}"#
    )
    let homeSessions = try JSONParser.parse(Array(homeOnly.standardOutput.utf8))["result"]?.arrayValue ?? []
    #expect(homeSessions.count == 5 && homeSessions.allSatisfy { $0["desktop"]?.stringValue == "home" })
    // Following one desktop: its events, every one, and none of the other's.
    let followed = try await InProcessJSONLines.run(
        mirror: mirror, input: #"{"jsonrpc":"2.0","id":1,"method":"events.subscribe","params":{"desktop":"home","until_idle_ms":300}}"#
    )
    let appended = followed.standardOutput.split(separator: "\n").compactMap { try? JSONParser.parse(Array($0.utf8)) }
        .filter { $0["method"]?.stringValue == "events.appended" }
        .flatMap { $0["params"]?["events"]?.arrayValue ?? [] }
    let homeIDs = Set(homeSessions.compactMap { $0["session_id"]?.stringValue })
    #expect(appended.count == homeHistory.count, "\(followed.standardError)")
    #expect(appended.allSatisfy { homeIDs.contains($0["session_id"]?.stringValue ?? "") })
}
