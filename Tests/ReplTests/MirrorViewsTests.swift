import Bridge
import MirrorStore
@testable import ReadModel
import Secrets
import TestSupport
import Testing

@Suite("The read model's views, made in process")
struct MirrorViewsTests {
    let mirror: MirrorFixture
    var store: MirrorStore { mirror.store }

    init() throws {
        mirror = try MirrorFixture()
    }

    @Test("status with several desktops: the one written last speaks for the mirror, but the last sync is any desktop's")
    func statusOfSeveralDesktops() throws {
        try store.recordStatus(.state(.live), desktop: "work", bridgeURL: "ws://127.0.0.1:4000")
        try store.recordStatus(.succeeded, desktop: "work", bridgeURL: "ws://127.0.0.1:4000")
        mirror.clock.advance(by: 1_000)
        try store.recordStatus(.state(.connecting), desktop: "home", bridgeURL: "ws://127.0.0.1:4001")
        try store.recordStatus(.failed("connection refused"), desktop: "home", bridgeURL: "ws://127.0.0.1:4001")
        let report = try MirrorViews(store: store, redaction: .none).statusReport(mirrorPath: "m.sqlite")
        #expect(report.bridge == "ws://127.0.0.1:4001")
        #expect(report.connectionState == .connecting)
        #expect(report.lastError == "connection refused")
        let workSucceeded = try #require(try store.desktopStatuses().first { $0.desktop == "work" }?.lastSuccessAt)
        #expect(report.lastSuccess == Timestamp(milliseconds: workSucceeded))
    }

    @Test("session rows: titles by one rule and redacted, every documented member in order, paged and filtered in SQL")
    func sessionRows() throws {
        let secret = try #require(PlantedSecrets.all.first { $0.kind == "github_token" }).value
        try store.upsertSessions([
            SessionRecord(sessionID: "a", title: "deploy with \(secret)", mode: "code", lastTS: 3_000),
            SessionRecord(sessionID: "b", lastTS: 2_000),
            SessionRecord(sessionID: "c", title: "Other work", lastTS: 1_000),
        ], history: nil)
        try store.appendEvents([NewEvent(sessionID: "b", kind: "session_info_update", text: "Named by the agent",
                                         updateJSON: Array(#"{"sessionUpdate":"session_info_update","title":"Named by the agent"}"#.utf8))])
        let views = MirrorViews(store: store, redaction: .redacted(try SecretDetector()))

        let rows = try views.sessionRows(limit: 10, offset: 0)
        #expect(rows.map(\.sessionID) == ["a", "b", "c"])
        #expect(rows.map(\.title) == ["deploy with [REDACTED:github_token#1]", "Named by the agent", "Other work"])
        let json = String(decoding: JSONWriter.bytes(of: try JSONValueEncoder().encode(rows[2])), as: UTF8.self)
        #expect(json == #"{"session_id":"c","title":"Other work","mode":null,"last_activity":"1970-01-01T00:00:01.000Z","event_count":0,"#
            + #""server_event_count":null,"sync_state":"synced","desktop":null,"gone_from_desktop_at":null,"events_gone_from_desktop":0,"#
            + #""sync_error":null,"sync_error_at":null,"retry_after":null}"#)

        #expect(try views.sessionRows(limit: 1, offset: 1).map(\.sessionID) == ["b"])
        let matching = SessionMatch(sessionIDs: ["b"], titleWords: "OTHER")
        #expect(try views.sessionRows(limit: 10, offset: 0, matching: matching).map(\.sessionID) == ["b", "c"])
        #expect(try views.sessionRows(limit: 10, offset: 0, matching: SessionMatch(sessionIDs: [], titleWords: nil)).isEmpty)
        #expect(try MirrorViews(store: store, redaction: .none).sessionRows(limit: 1, offset: 0).first?.title == "deploy with \(secret)")
    }
}
