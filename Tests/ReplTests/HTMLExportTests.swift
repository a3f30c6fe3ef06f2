@testable import Commands
import Foundation
import FrontEndSupport
import MirrorStore
import Testing
import TestSupport

/// `export --html` and `export --all --html`, written by the real oa-repl and opened in a real
/// headless Chromium: nothing fetched, no planted script run, the agent's Markdown rendered,
/// tool calls folded, pages linked, the index's filter (its one allowed script) working.
@Suite("the HTML export in a real browser", .serialized, .startsPrograms(endsWithin: .seconds(300)))
struct HTMLExportTests {
    private let prefix = String(AgentMarkdownSession.sessionID.prefix(8))

    /// The text of the first `<title>` of `dom`.
    private func title(_ dom: String) -> String? {
        guard let start = dom.range(of: "<title>"), let end = dom.range(of: "</title>", range: start.upperBound..<dom.endIndex) else { return nil }
        return String(dom[start.upperBound..<end.lowerBound])
    }

    @Test("a session page: rendered with no fetch attempted, no planted script or handler run, tool calls in <details>")
    func sessionPage() async throws {
        let directory = try TemporaryDirectory()
        let port = try ListeningPort()
        let mirror = try AgentMarkdownSession.mirror(in: directory, imageURL: "http://127.0.0.1:\(port.port)/image.png")
        let outcome = try await InProcessShell.run(mirror: mirror, commands: ["export \(prefix) \(directory.url.path) --html"])
        #expect(outcome.status == 0, "\(outcome.standardError)")
        let page = directory.path("openagents-\(prefix).html")
        #expect(outcome.standardOutput == "wrote \(page)\n")
        let html = try String(contentsOfFile: page, encoding: .utf8)
        #expect(html.contains(#"<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;; style-src &#39;unsafe-inline&#39;"#))
        #expect(!html.contains("<script"), "no script element: the planted ones are escaped or left out")

        let (dom, log) = try await Chromium.dumpDOM(page, profile: directory)
        #expect(title(dom) == "Fix the build", "no planted script changed the title: \(title(dom) ?? "none")")
        #expect(!dom.contains("<script"))
        #expect(!dom.contains("onerror=") && !dom.contains("onmouseover="), "no event handler attribute reached the DOM")
        #expect(!dom.contains("javascript:"))
        #expect(!port.connectionAttempted, "the planted image was not fetched")
        #expect(dom.contains(#"<pre lang="swift"><code>"#), "the agent's code block, with its language")
        #expect(dom.contains("#if canImport(Glibc)"))
        #expect(dom.contains("<h3>Diagnosis</h3>") && dom.contains("<h4>Plan</h4>"), "the agent's headings below the message's")
        #expect(dom.contains("<table>") && dom.contains("<ol>"))
        #expect(dom.contains(#"<details class="tool"><summary>Tool call <code>Bash</code>"#))
        #expect(dom.contains("<details><summary>Thinking</summary>"))
        #expect(dom.contains("Build complete! &lt;script&gt;"), "the tool output's script is text")
        #expect(dom.contains(#"id="e-0""#), "an anchor per entry, by ordinal")
        #expect(dom.contains(AgentMarkdownSession.sessionID))
        #expect(log.contains("Content Security Policy") || !log.contains("image.png"), "a blocked load is the policy's doing: \(log.suffix(1_000))")
    }

    @Test("a long session is split into pages linked to each other; a long output is folded with its size")
    func pages() async throws {
        let directory = try TemporaryDirectory()
        let mirror = try AgentMarkdownSession.mirror(in: directory, extraMessages: 2_500)
        let outcome = try await InProcessShell.run(mirror: mirror, commands: ["export \(prefix) \(directory.path("out.html")) --html"])
        #expect(outcome.status == 0, "\(outcome.standardError)")
        #expect(outcome.standardOutput == "wrote \(directory.path("out.html")) and 1 more page beside it\n")
        let second = directory.path("out-p2.html")
        #expect(FileManager.default.fileExists(atPath: second))
        let (first, _) = try await Chromium.dumpDOM(directory.path("out.html"), profile: directory)
        #expect(first.contains(#"<a rel="next" href="out-p2.html">next</a>"#))
        let (last, _) = try await Chromium.dumpDOM(second, profile: directory)
        #expect(last.contains(#"<a rel="prev" href="out.html">previous</a>"#))
        #expect(last.contains("Page 2 of 2"))

        #expect(HTMLExport.fileName("x", page: 1) == "x.html" && HTMLExport.fileName("x", page: 3) == "x-p3.html")
        #expect(HTMLExport.size(12_345) == "12.3 KB" && HTMLExport.size(1) == "1 byte")
    }

    @Test("every kind of page has its template: none is rendered empty")
    func templates() {
        for template in HTMLTemplate.allCases {
            #expect(HTMLTemplates.library.getTemplate(named: template.rawValue) != nil, "\(template)")
        }
    }

    @Test("export --all --html: every session and index.html, newest first, with a filter that runs offline; a second run writes nothing")
    func archive() async throws {
        let directory = try TemporaryDirectory()
        let mirror = try await SampleMirror.copy(in: directory)
        let out = directory.path("archive")
        let first = try await InProcessShell.run(mirror: mirror, commands: ["export --all \(out) --html"])
        #expect(first.status == 0, "\(first.standardError)")
        let files = try FileManager.default.contentsOfDirectory(atPath: out)
        #expect(files.contains("index.html"))
        #expect(files.filter { $0.hasSuffix(".html") }.count >= 11)
        let second = try await InProcessShell.run(mirror: mirror, commands: ["export --all \(out) --format html"])
        #expect(second.standardOutput.contains(": 0 written, \(files.count) unchanged, 0 failed"), "\(second.standardOutput)")

        let index = try String(contentsOfFile: "\(out)/index.html", encoding: .utf8)
        #expect(index.contains("script-src &#39;\(HTMLTemplates.scriptHash(HTMLTemplates.filterScript))&#39;"))
        let (dom, _) = try await Chromium.dumpDOM("\(out)/index.html", profile: directory)
        #expect(dom.contains(#"data-filter="ready""#), "the filter's script ran: the policy allows exactly it")
        #expect(dom.contains("798C06FE-0494-B6D2-EC70-38C908FB09A0"))
        let session = try #require(files.first { $0.hasPrefix("openagents-798C06FE") })
        #expect(dom.contains(#"href="\#(session)""#))
    }

    @Test("--format json: the stored events, one per line, byte for byte; the formats' arguments checked")
    func jsonLines() async throws {
        let directory = try TemporaryDirectory()
        let mirror = try AgentMarkdownSession.mirror(in: directory)
        let outcome = try await InProcessShell.run(mirror: mirror, commands: ["export \(prefix) \(directory.url.path) --format json"])
        #expect(outcome.status == 0, "\(outcome.standardError)")
        let written = try Data(contentsOf: directory.url.appending(path: "openagents-\(prefix).jsonl"))
        let events = try MirrorStore(path: mirror).timeline(sessionID: AgentMarkdownSession.sessionID)
        #expect(written == Data(events.flatMap { $0.updateJSON + [0x0A] }))
        for (command, message) in [("export \(prefix) --format pdf", "must be one of md, html, json"),
                                   ("export \(prefix) --html --format md", "give one"),
                                   ("export \(prefix) --html --timestamp", "cannot be used with --format html")] {
            let refused = try await InProcessShell.run(mirror: mirror, commands: [command])
            #expect(refused.status != 0)
            #expect(refused.standardError.contains(message), "\(command): \(refused.standardError)")
        }
    }

    @Test("screenshots of a session page and of the index (docs/export-session.png, docs/export-index.png)")
    func screenshots() async throws {
        let directory = try TemporaryDirectory()
        let mirror = try AgentMarkdownSession.mirror(in: directory)
        let out = directory.path("archive")
        #expect(try await InProcessShell.run(mirror: mirror, commands: ["export --all \(out) --html"]).status == 0)
        // The index of the sample desktop history: many sessions.
        #expect(try await InProcessShell.run(mirror: try await SampleMirror.copy(in: directory), commands: ["export --all \(out) --html"]).status == 0)
        for (page, name) in [("openagents-\(prefix).html", "export-session.png"), ("index.html", "export-index.png")] {
            let png = directory.path(name)
            try await Chromium.screenshot("\(out)/\(page)", to: png, profile: directory)
            let bytes = try Data(contentsOf: URL(fileURLWithPath: png))
            #expect(bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) && bytes.count > 10_000, "a PNG with something drawn")
            if ProcessInfo.processInfo.environment["UPDATE_SCREENSHOTS"] == "1" {
                try bytes.write(to: Repository.root.appending(path: "docs/\(name)"))
            }
        }
    }
}
