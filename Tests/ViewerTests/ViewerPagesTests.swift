import Foundation
import MirrorStore
import Testing
import TestSupport

/// The viewer's pages as the server renders them (scripts off): the sessions list and its paging,
/// a long session opened a part at a time, search hits opening at their entry, status, secrets;
/// every planted payload escaped, secrets redacted unless asked.
@Suite("the web viewer's pages", .serialized)
struct ViewerPagesTests {
    @Test("the sessions, newest first, a hundred a page, filtered by title and desktop")
    func sessions() async throws {
        let mirror = try ViewerFixture(canary: 9)
        try await RunningViewer.with(mirror: mirror.path) { viewer in
            let page = try await viewer.get("/")
            #expect(page.status == 200 && page.headers["content-type"] == "text/html; charset=utf-8")
            let rows = page.body.components(separatedBy: "<tr data-href=").dropFirst()
            #expect(rows.count == ViewerFixture.plainSessions + 2)
            #expect(rows.first?.contains("EVIL") == true, "the most recently active first")
            #expect(page.body.contains("Sessions 1–32"))
            let filtered = try await viewer.get("/?title=long")
            #expect(filtered.body.components(separatedBy: "<tr data-href=").count == 2 && filtered.body.contains("A long session"))
            let none = try await viewer.get("/?page=2")
            #expect(none.body.contains("No session on this page") && none.body.contains(#"rel="prev""#))
        }
    }

    @Test("a long session opens at its first part, with a link to the next; parts join without a gap or an overlap")
    func longSession() async throws {
        let mirror = try ViewerFixture(canary: 9)
        try await RunningViewer.with(mirror: mirror.path) { viewer in
            let base = "/sessions/\(ViewerFixture.longSessionID)"
            var page = try await viewer.get(base)
            #expect(page.status == 200 && page.body.contains("<h1>A long session</h1>"))
            #expect(!page.body.contains("a more earlier"))
            var anchors: [Int] = []
            var parts = 0
            while true {
                parts += 1
                anchors += page.body.matches(of: /<section id="e-(\d+)"/).map { Int($0.1) ?? -1 }
                guard let next = page.body.firstMatch(of: /class="more later" href="([^"]+)"/) else { break }
                page = try await viewer.get(String(next.1).replacing("&amp;", with: "&"))
                #expect(page.body.contains("a class=\"more earlier\""), "a later part links back")
                #expect(parts < 200)
            }
            #expect(parts > 2, "a session of \(anchors.count) entries opens in parts")
            #expect(anchors == anchors.sorted() && Set(anchors).count == anchors.count, "every entry once, in order")
            #expect(anchors.count == mirror.longTurns * 3, "each turn: a prompt, a reply joined from its chunks, a tool call")
            let fragment = try await viewer.get(base + "/entries?from=0")
            #expect(fragment.body.contains(#"<section id="e-0""#) && !fragment.body.contains("<nav"), "a part alone, for the script")
            let before = try await viewer.get(base + "/entries?before=\(anchors[60])")
            let earlier = before.body.matches(of: /<section id="e-(\d+)"/).map { Int($0.1) ?? -1 }
            #expect(!earlier.isEmpty && earlier.allSatisfy { $0 < anchors[60] } && earlier.last == anchors[59], "the part just before")
        }
    }

    @Test("search: terms marked in escaped snippets, each hit opening its session at its entry")
    func search() async throws {
        let mirror = try ViewerFixture(canary: 4_242)
        try await RunningViewer.with(mirror: mirror.path) { viewer in
            let page = try await viewer.get("/search?q=\(ViewerFixture.searchWord)")
            #expect(page.body.contains("<mark>\(ViewerFixture.searchWord)</mark>"), "\(page.body.suffix(2_000))")
            guard let hit = page.body.firstMatch(of: /<li class="hit"><a href="([^"]+)"/) else {
                Issue.record("no hit")
                return
            }
            let href = String(hit.1)
            #expect(href.contains("?at=") && href.contains("#e-"))
            let anchor = String(href.split(separator: "#").last ?? "")
            let opened = try await viewer.get(String(href.split(separator: "#")[0]))
            #expect(opened.body.contains(#"id="\#(anchor)""#), "the hit's entry is on the page it opens")
            let hostile = try await viewer.get("/search?q=hostileword")
            #expect(hostile.body.contains("hostileword"), "found (a snippet with a secret redacted loses its marks: SnippetRedaction)")
            #expect(!hostile.body.contains("<script>document") && !hostile.body.contains("<img src=\"http://127.0.0.1:4242"))
            #expect(hostile.body.contains("[REDACTED:aws_access_key"), "snippets redacted")
            let bad = try await viewer.get("/search?q=since:notadate")
            #expect(bad.status == 200 && bad.body.contains(#"class="error""#))
            let first = try await viewer.get("/search?q=reader")
            #expect(first.body.components(separatedBy: #"<li class="hit">"#).count - 1 == 20, "20 hits at first")
            guard let more = first.body.firstMatch(of: /<a rel="next" href="([^"]+)">More hits/) else {
                Issue.record("no link to more hits")
                return
            }
            let second = try await viewer.get(String(more.1).replacing("&amp;", with: "&"))
            #expect(second.body.components(separatedBy: #"<li class="hit">"#).count - 1 == 40, "20 more")
            let phrase = try await viewer.get("/search?q=%22linker+cannot%22")
            #expect(phrase.body.contains("<mark>"), "a form's + is a space, a quoted phrase searched")
        }
    }

    @Test("planted payloads are text on every page; a secret is redacted and its page shows its fingerprint only")
    func hostile() async throws {
        let mirror = try ViewerFixture(canary: 4_242)
        let id = ViewerFixture.hostileID(4_242)
        try await RunningViewer.with(mirror: mirror.path) { viewer in
            let session = try await viewer.get("/sessions/" + (id.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""))
            #expect(session.status == 200)
            var pages = [session.body]
            for path in ["/", "/secrets", "/status", "/search?q=hostileword"] { pages.append(try await viewer.get(path).body) }
            for (index, body) in pages.enumerated() {
                let scripts = body.components(separatedBy: "<script>").count - 1
                #expect(scripts == 1, "page \(index): only the viewer's own script")
                #expect(!body.contains("<script>document.title") && !body.contains("<script>top.location"), "page \(index)")
                #expect(!body.contains(#"<img src="http://127.0.0.1:4242"#) && !body.contains(" onerror=\"document"), "page \(index)")
                #expect(!body.contains("javascript:"), "page \(index)")
                #expect(!body.contains(ViewerFixture.awsKey), "page \(index): the secret is redacted")
                #expect(!body.contains(#"href="http://127.0.0.1:4242/anchor""#), "page \(index): raw HTML's links are left out")
            }
            #expect(session.body.contains("&lt;script&gt;document.title=&#39;pwned by tool"), "the tool's name, as text")
            #expect(session.body.contains("[REDACTED:aws_access_key#1]"))
            let secrets = pages[2]
            #expect(secrets.contains("aws_access_key") && secrets.contains("EVIL%22%3E%3Cscript%3E"), "its place, linked by an encoded id")
        }
        try await RunningViewer.with(mirror: mirror.path, redacts: false) { viewer in
            for path in ["/", "/status", "/secrets", "/search?q=x", "/sessions/\(ViewerFixture.longSessionID)"] {
                let body = try await viewer.get(path).body
                #expect(body.contains("Not redacted (--no-redact)"), "\(path) says it is not redacted")
            }
        }
    }
}
