import Foundation
import Testing
import TestSupport

/// The viewer in a real browser (Debian's headless Chromium, driven by chromedriver): pages render
/// and navigate by keys, search from the page, a long session loads as it is scrolled with the
/// page kept small, events committed to the mirror appear in an open page, and planted payloads
/// run nothing and fetch nothing.
@Suite("the web viewer in a real browser", .serialized, .startsPrograms(endsWithin: .seconds(300)))
struct ViewerBrowserTests {
    /// Runs `body` with a browser and the viewer on the fixture's mirror.
    private func withBrowser(canary: Int = 9, longTurns: Int = 60, _ body: (WebDriver, RunningViewer, ViewerFixture) async throws -> Void) async throws {
        let directory = try TemporaryDirectory()
        let mirror = try ViewerFixture(canary: canary, longTurns: longTurns)
        let browser = try await WebDriver.start(profile: directory)
        do {
            try await RunningViewer.with(mirror: mirror.path) { viewer in try await body(browser, viewer, mirror) }
        } catch {
            await browser.stop()
            throw error
        }
        await browser.stop()
    }

    private func ready(_ browser: WebDriver) async throws {
        _ = try await waitFor("the viewer's script to run", timeout: .seconds(30), look: {
            try await browser.string("return document.documentElement.dataset.viewer || ''")
        }, until: { $0 == "ready" })
    }

    @Test("keys move and open: j, Enter opens a session; / and Enter search from the page; a hit opens at its entry")
    func navigate() async throws {
        try await withBrowser { browser, viewer, _ in
            try await browser.open(viewer.url)
            try await ready(browser)
            #expect(try await browser.string("return String(document.querySelectorAll('tbody tr').length)") == "32")
            try await browser.press("j")
            try await browser.press("j")
            try await browser.press("\u{E007}")
            let opened = try await waitFor("a session to open", timeout: .seconds(30), look: { try await browser.currentURL() },
                                           until: { $0.contains("/sessions/") })
            #expect(opened.hasSuffix("/sessions/\(ViewerFixture.longSessionID)"), "the second row, the long session: \(opened)")
            try await ready(browser)
            try await browser.press("/")
            try await browser.type(ViewerFixture.searchWord + "\u{E007}", into: "input[name=q]")
            _ = try await waitFor("the search page", timeout: .seconds(30), look: { try await browser.currentURL() }, until: { $0.contains("/search?q=") })
            try await ready(browser)
            #expect(try await browser.string("return document.querySelector('li.hit mark').textContent") == ViewerFixture.searchWord)
            try await browser.press("j")
            try await browser.press("\u{E007}")
            let hit = try await waitFor("the hit to open", timeout: .seconds(30), look: { try await browser.currentURL() }, until: { $0.contains("#e-") })
            let anchor = String(hit.split(separator: "#").last ?? "")
            try await ready(browser)
            #expect(try await browser.string("return String(Boolean(document.getElementById('\(anchor)')))") == "true")
            let visible = try await browser.string("""
                const r = document.getElementById('\(anchor)').getBoundingClientRect(); return String(r.top >= 0 && r.top < innerHeight)
                """)
            #expect(visible == "true", "the page opens scrolled to the hit's entry")
        }
    }

    @Test("a long session loads as it is scrolled, both ways, and the page never holds more than 5,000 elements")
    func scrolling() async throws {
        try await withBrowser(longTurns: 300) { browser, viewer, _ in
            try await browser.open(viewer.url + "sessions/\(ViewerFixture.longSessionID)")
            try await ready(browser)
            var largest = 0
            var lastSeen = ""
            for _ in 0..<200 {
                let state = try await browser.string("""
                    window.scrollTo(0, document.body.scrollHeight);
                    const s = document.querySelectorAll('section.entry');
                    return [document.getElementsByTagName('*').length, s[s.length - 1].id, Boolean(document.querySelector('a.more.later'))].join(' ')
                    """)
                let parts = state.split(separator: " ")
                largest = max(largest, Int(parts[0]) ?? .max)
                lastSeen = String(parts[1])
                if parts[2] == "false" { break }
                _ = try await waitFor("the next part", timeout: .seconds(30), look: {
                    try await browser.string("const s = document.querySelectorAll('section.entry'); return s[s.length - 1].id")
                }, until: { $0 != lastSeen })
            }
            #expect(try await browser.string("return String(Boolean(document.querySelector('a.more.later')))") == "false", "the end was reached")
            #expect(largest <= 5_000, "at most 5,000 elements at any time: \(largest)")
            let first = try await browser.string("return document.querySelector('section.entry').id")
            #expect(first != "e-0", "the parts scrolled past were dropped")
            #expect(try await browser.string("return String(Boolean(document.querySelector('a.more.earlier')))") == "true")
            _ = try await browser.string("window.scrollTo(0, 0); return ''")
            _ = try await waitFor("an earlier part", timeout: .seconds(30), look: {
                try await browser.string("return document.querySelector('section.entry').id")
            }, until: { $0 != first })
        }
    }

    @Test("an open page shows what is committed: a reply grows in place, a new session appears, an opened fold stays open")
    func live() async throws {
        try await withBrowser { browser, viewer, mirror in
            let session = "PLAIN-0003-4000-8000-000000000000"
            try await browser.open(viewer.url + "sessions/\(session)")
            try await ready(browser)
            let entries = try await browser.string("return String(document.querySelectorAll('section.entry').length)")
            _ = try await browser.string("document.querySelector('section.entry details')?.setAttribute('open', ''); return ''")
            let reply = "A streamed reply, committed while the page is open: " + String(repeating: "more words ", count: 10) + "the end."
            try mirror.appendReply(reply, to: session)
            let shown = try await waitFor("the reply in the open page", timeout: .seconds(30), look: {
                try await browser.string("return document.querySelector('main').textContent")
            }, until: { $0.contains("the end.") })
            #expect(shown.contains(reply), "the chunks joined into one message")
            #expect(try await browser.string("return String(document.querySelectorAll('section.entry').length)") == entries,
                    "the last reply grew in place: it went on streaming the same message")
            let hasFold = try await browser.string("return String(Boolean(document.querySelector('section.entry details')))") == "true"
            let openFolds = try await browser.string("return String(document.querySelectorAll('section.entry details[open]').length)")
            #expect(!hasFold || openFolds != "0", "a fold opened before the update is still open")
            try await browser.open(viewer.url)
            try await ready(browser)
            try mirror.appendReply("A new session.", to: "NEW-SESSION-0000")
            _ = try await waitFor("the new session in the list", timeout: .seconds(30), look: {
                try await browser.string("return document.querySelector('tbody').textContent")
            }, until: { $0.contains("NEW-SESSION-0000") })
        }
    }

    @Test("planted payloads in a message, a tool name, a tool output, a title and a session id run nothing and fetch nothing")
    func payloads() async throws {
        let canary = try ListeningPort()
        try await withBrowser(canary: canary.port) { browser, viewer, _ in
            let id = ViewerFixture.hostileID(canary.port).addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            for path in ["", "sessions/\(id)", "search?q=hostileword", "secrets", "status", "sessions/\(id)/entries?from=0"] {
                try await browser.open(viewer.url + path)
                let url = try await browser.currentURL()
                #expect(url.hasPrefix(viewer.url), "\(path): the page stayed (no top.location): \(url)")
                let title = try await browser.string("return document.title")
                #expect(!title.hasPrefix("pwned"), "\(path): no payload set the title: \(title)")
                if !path.contains("/entries") { try await ready(browser) }
                _ = try await browser.string("document.querySelectorAll('details').forEach(d => d.open = true); return ''")
                #expect(try await browser.string("return String(document.querySelectorAll('script').length)") == (path.contains("/entries") ? "0" : "1"))
                #expect(try await browser.string("return String(document.querySelectorAll('[onerror],[onclick],[onmouseover]').length)") == "0")
                #expect(try await browser.string("return String([...document.querySelectorAll('a[href]')].filter(a => !/^(https?:|#)/.test(a.href)).length)") == "0",
                        "\(path): no link but http(s) and anchors")
            }
            let log = try await browser.browserLog()
            #expect(!log.contains { $0.contains("pwned") }, "\(log)")
            #expect(!canary.connectionAttempted, "nothing was fetched from the canary port")
        }
    }

    @Test("screenshots of each page (docs/viewer-*.png)")
    func screenshots() async throws {
        let directory = try TemporaryDirectory()
        let mirror = try ViewerFixture(canary: 9)
        try await RunningViewer.with(mirror: mirror.path) { viewer in
            for (path, name) in [("", "viewer-sessions.png"), ("sessions/\(ViewerFixture.longSessionID)", "viewer-session.png"),
                                 ("search?q=reader+bounded", "viewer-search.png"), ("status", "viewer-status.png"), ("secrets", "viewer-secrets.png")] {
                let png = directory.path(name)
                try await Chromium.screenshot(url: viewer.url + path, to: png, height: 900, virtualTime: false, profile: directory)
                let bytes = try Data(contentsOf: URL(fileURLWithPath: png))
                #expect(bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) && bytes.count > 10_000, "\(name): a PNG with something drawn")
                if ProcessInfo.processInfo.environment["UPDATE_SCREENSHOTS"] == "1" {
                    try bytes.write(to: Repository.root.appending(path: "docs/\(name)"))
                }
            }
        }
    }
}
