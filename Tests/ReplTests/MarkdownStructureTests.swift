@testable import Commands
import Foundation
import FrontEndSupport
import MirrorStore
@testable import ReadModel
import Testing
import TestSupport

/// The Markdown export read back by cmark-gfm, GitHub's CommonMark parser: the agent's Markdown
/// is kept (code, lists, tables), contained below its message's heading, and never changed
/// inside code; with the real oa-repl over a mirror of what an agent writes.
@Suite("the Markdown export, read by cmark-gfm", .endsWithin(.seconds(120)))
struct MarkdownStructureTests {
    /// The document `oa-repl export` prints for the agent session, parsed.
    private func exported() async throws -> (markdown: String, root: CommonMark.Node) {
        let directory = try TemporaryDirectory()
        let mirror = try AgentMarkdownSession.mirror(in: directory)
        let outcome = try await InProcessShell.run(mirror: mirror, commands: ["export \(AgentMarkdownSession.sessionID.prefix(8))"])
        #expect(outcome.status == 0, "\(outcome.standardError)")
        return (outcome.standardOutput, CommonMark.parse(outcome.standardOutput))
    }

    @Test("code blocks keep their language and their content, byte for byte; a # inside code stays")
    func codeBlocks() async throws {
        let (_, root) = try await exported()
        let blocks = root.descendants.filter { $0.type == "code_block" }
        let swift = try #require(blocks.first { $0.info == "swift" })
        #expect(swift.literal == AgentMarkdownSession.swiftCode + "\n")
        #expect(swift.fence?.character == "`")
        let error = try #require(blocks.first { $0.literal.hasPrefix("error: cannot find") })
        #expect(error.literal == "error: cannot find 'Mirror' in scope\n# 1 error\n", "the user's fenced output, kept")
        #expect(!root.descendants.contains { $0.type == "heading" && $0.plainText.contains("not a heading") })
    }

    @Test("one heading of level 2 per message; the agent's headings nested below it (Setext ones too)")
    func headings() async throws {
        let (_, root) = try await exported()
        let headings = root.children.filter { $0.type == "heading" }
        #expect(headings.first?.headingLevel == 1 && headings.first?.plainText == "Fix the build")
        let messages = headings.filter { $0.headingLevel == 2 }.map(\.plainText)
        #expect(messages == ["User", "Assistant", "User", "Assistant"], "one level-2 heading per message, no other")
        let agent = headings.filter { $0.headingLevel > 2 }.map { "\($0.headingLevel) \($0.plainText)" }
        #expect(agent == ["3 Diagnosis", "4 Plan", "4 Heading in Setext"], "shifted two levels down")
        // The thinking's heading: inside its quote, below the message level too.
        let quoted = root.children.filter { $0.type == "block_quote" }.flatMap(\.descendants).filter { $0.type == "heading" }
        #expect(quoted.map(\.headingLevel) == [3])
    }

    @Test("lists and tables intact, emphasis and links kept")
    func listsAndTables() async throws {
        let (_, root) = try await exported()
        let list = try #require(root.children.first { $0.type == "list" && $0.plainText.hasPrefix("Add the dependency") })
        #expect(list.children.count == 2)
        #expect(list.children[1].descendants.contains { $0.type == "list" }, "the nested list")
        let table = try #require(root.children.first { $0.type == "table" })
        #expect(table.children.count == 3, "the header row and two rows")
        #expect(table.children[1].children.map(\.plainText) == ["Package.swift", "dependencies"])
        #expect(root.descendants.contains { $0.type == "emph" && $0.plainText == "missing" })
        #expect(root.descendants.contains { $0.type == "link" && $0.info == "https://www.swift.org/documentation/" })
    }

    @Test("a fence left open is closed at its message's end: nothing after it is code")
    func openFence() async throws {
        let (markdown, root) = try await exported()
        let python = try #require(root.children.first { $0.type == "code_block" && $0.info == "python" })
        #expect(python.literal == "print(\"cut short\")\n# still code\n")
        #expect(markdown.hasSuffix("# still code\n```\n\n"), "closed by a fence of its own kind and length (then the line break export prints)")
    }

    @Test("a tool output holding ``` and ~~~ is one block, unchanged")
    func toolOutput() async throws {
        let (_, root) = try await exported()
        let output = try #require(root.children.first { $0.type == "code_block" && $0.literal.hasPrefix("Compiling") })
        #expect(output.literal == AgentMarkdownSession.toolOutput + "\n")
        #expect((output.fence?.length ?? 0) > 3)
    }

    @Test("a message cannot end the document's structure: an open HTML comment or <pre> is made text, the next message is a heading")
    func openHTMLBlocks() {
        for text in ["before\n\n<!-- never closed\n# inside", "<pre>\nnever closed", "<script>\nx", "```\nopen", "~~~~\nopen\n```"] {
            let message = MessageMarkdown.contained(text, headingShift: 2)
            let document = (["## User", ""] + message + ["", "## Assistant", "", "after"]).joined(separator: "\n")
            let root = CommonMark.parse(document)
            #expect(root.children.contains { $0.type == "heading" && $0.plainText == "Assistant" }, "\(text.debugDescription): \(document)")
            #expect(root.children.last?.type == "paragraph" && root.children.last?.plainText == "after", "\(text.debugDescription)")
        }
    }

    @Test("MCP read_session and export --all give the same rendering of the messages")
    func sameRenderer() async throws {
        let directory = try TemporaryDirectory()
        let mirror = try AgentMarkdownSession.mirror(in: directory)
        let single = try await InProcessShell.run(mirror: mirror, commands: ["export \(AgentMarkdownSession.sessionID)"])
        let all = try await InProcessShell.run(mirror: mirror, commands: ["export --all \(directory.path("notes"))"])
        #expect(all.status == 0, "\(all.standardError)")
        let file = try String(contentsOfFile: directory.path("notes/openagents-\(AgentMarkdownSession.sessionID.prefix(8)).md"), encoding: .utf8)
        #expect(file + "\n" == single.standardOutput)
        let store = try MirrorStore(path: mirror)
        let session = try #require(try store.session(id: AgentMarkdownSession.sessionID))
        let entries = Conversation(events: try store.timeline(sessionID: session.sessionID)).entries
        for entry in entries {
            #expect(file.contains(MarkdownExport.render(entry).joined(separator: "\n")))
        }
    }
}
