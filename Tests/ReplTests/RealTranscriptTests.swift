import Bridge
@testable import Commands
@testable import ReadModel
import Foundation
import MirrorStore
import TestSupport
import Testing

/// Real Claude Code sessions (`../shared/corpora/real-transcripts/`, recorded by other people),
/// served in the desktop's encoding of updates and in the standard ACP one, texts streamed in
/// pieces cut anywhere: both read to the same conversation, and `show` and the exports hold every
/// prompt, reply, thinking and tool output of each. Skipped where `../shared` is absent.
@Suite("Real sessions in both encodings", .enabled(if: ClaudeCodeTranscript.corpusIsPresent, "needs ../shared/corpora/real-transcripts"),
       .endsWithin(.seconds(300)))
struct RealTranscriptTests {
    /// The corpus mirrored once in each encoding, with each session's conversation.
    struct Mirrored {
        let store: MirrorStore
        let directory: TemporaryDirectory
        var transcripts: [ClaudeCodeTranscript] = []

        init() throws {
            directory = try TemporaryDirectory()
            store = try MirrorStore(path: directory.path("mirror.sqlite"))
            transcripts = try ClaudeCodeTranscript.corpus()
            for transcript in transcripts {
                for encoding in ClaudeCodeTranscript.Encoding.allCases {
                    let events = transcript.updates(encoding).map { json in
                        let bytes = JSONWriter.bytes(of: json)
                        let summary = SessionUpdate(rawBytes: bytes, json: json).summary
                        return NewEvent(sessionID: Self.sessionID(transcript, encoding), kind: summary.tag, text: summary.text, updateJSON: bytes)
                    }
                    try store.appendEvents(events)
                }
            }
        }

        static func sessionID(_ transcript: ClaudeCodeTranscript, _ encoding: ClaudeCodeTranscript.Encoding) -> String {
            "\(encoding.rawValue)-\(transcript.name.prefix(2))"
        }

        func events(_ transcript: ClaudeCodeTranscript, _ encoding: ClaudeCodeTranscript.Encoding) throws -> [TimelineEvent] {
            try store.timeline(sessionID: Self.sessionID(transcript, encoding))
        }
    }

    @Test("both encodings read to one conversation holding every prompt, reply, thinking and tool output")
    func sameConversation() async throws {
        try await onThreadOfItsOwn(Self.checkSameConversation)
    }

    @Test("Markdown and HTML exports of the ACP encoding show every tool output; nothing is left as JSON not shown")
    func exports() async throws {
        try await onThreadOfItsOwn(Self.checkExports)
    }

    @Test("search finds the replies' words, cut across chunks, once per message, in both encodings; restated texts are one hit; snippets begin at a word")
    func search() async throws {
        try await onThreadOfItsOwn(Self.checkSearch)
    }

    private static func checkSearch() throws {
        let mirrored = try Mirrored()
        var searched = 0
        for transcript in mirrored.transcripts {
            for encoding in ClaudeCodeTranscript.Encoding.allCases {
                let sessionID = Mirrored.sessionID(transcript, encoding)
                let replies = transcript.parts.compactMap { part -> String? in
                    if case .assistant(let text) = part { return text } else { return nil }
                }
                // The longest words of each reply: the likeliest to be cut across its pieces.
                for reply in replies {
                    let words = reply.split { !$0.isLetter }.filter { $0.count >= 10 && $0.allSatisfy(\.isASCII) }
                    guard let longest = words.max(by: { $0.count < $1.count }) else { continue }
                    let word = String(longest)
                    let hits = try mirrored.store.search(word, filter: SearchFilter(sessionID: sessionID, kind: "agent_message_chunk"), limit: 50)
                    #expect(!hits.isEmpty, "\(transcript.name), \(encoding): \(word)")
                    #expect(Set(hits.map { $0.eventID }).count == hits.count)
                    searched += 1
                }
            }
        }
        #expect(searched >= 50)
        for query in ["token usage", "test", "file", "the"] {
            let hits = try mirrored.store.search(query, filter: SearchFilter(everywhere: true), limit: 20)
            var texts = Set<String>()
            for hit in hits {
                let text = try #require(try mirrored.store.entryText(entryID: hit.eventID))
                #expect(texts.insert(text).inserted, "\(query): a text restated is one hit")
                let plain = hit.snippet.replacing("[", with: "").replacing("]", with: "")
                let word = String(plain.drop { !$0.isLetter && !$0.isNumber }.prefix { $0.isLetter || $0.isNumber })
                #expect(Self.isWholeWord(word, in: text), "\(query): the snippet \(hit.snippet.debugDescription) begins inside a word")
            }
        }
    }

    /// Whether `word` stands in `text` somewhere with no letter or digit against it on either side.
    private static func isWholeWord(_ word: String, in text: String) -> Bool {
        guard !word.isEmpty else { return true }
        var from = text.startIndex
        while let range = text.range(of: word, range: from..<text.endIndex) {
            let before = range.lowerBound == text.startIndex ? nil : text[text.index(before: range.lowerBound)]
            let after = range.upperBound == text.endIndex ? nil : text[range.upperBound]
            let bounded = { (character: Character?) in character.map { !$0.isLetter && !$0.isNumber } ?? true }
            if bounded(before) && bounded(after) { return true }
            from = text.index(after: range.lowerBound)
        }
        return false
    }

    /// Seconds of SQLite and rendering: run on a thread of their own.
    private static func checkSameConversation() throws {
        let mirrored = try Mirrored()
        #expect(mirrored.transcripts.count >= 10)
        var outputs = 0
        for transcript in mirrored.transcripts {
            let desktop = Conversation(events: try mirrored.events(transcript, .desktop))
            let acp = Conversation(events: try mirrored.events(transcript, .acp))
            #expect(Self.encodingFree(acp) == Self.encodingFree(desktop), "\(transcript.name)")
            #expect(!acp.entries.contains { if case .other = $0 { true } else { false } }, "\(transcript.name): an update not read")

            let texts = Dictionary(grouping: acp.entries.compactMap { entry -> (Conversation.Role, String)? in
                if case .message(let role, let text, _, _) = entry { (role, text) } else { nil }
            }, by: \.0).mapValues { $0.map(\.1).joined(separator: "\u{0}") }
            let calls = Dictionary(acp.entries.compactMap { entry -> (String, Conversation.ToolCallEntry)? in
                if case .toolCall(let call) = entry { (call.callID, call) } else { nil }
            }, uniquingKeysWith: { first, _ in first })
            for part in transcript.parts {
                switch part {
                case .user(let text): #expect(texts[.user]?.contains(text) == true, "\(transcript.name): a prompt")
                case .assistant(let text): #expect(texts[.assistant]?.contains(text) == true, "\(transcript.name): a reply")
                case .thinking(let text): #expect(texts[.thinking]?.contains(text) == true, "\(transcript.name): thinking")
                case .toolCall(let id, let name, _):
                    #expect(calls[id]?.name == name, "\(transcript.name): tool call \(id)")
                case .toolResult(let id, let output, let failed):
                    outputs += 1
                    #expect(calls[id]?.output == output.nilIfEmpty, "\(transcript.name): the output of \(id)")
                    #expect(calls[id]?.failed == failed, "\(transcript.name): the status of \(id)")
                case .title(let title):
                    let shown = acp.entries.contains { if case .sessionTitle(title, _) = $0 { true } else { false } }
                    #expect(shown, "\(transcript.name): its title")
                }
            }
        }
        #expect(outputs == 479, "the corpus's tool outputs, as SOURCES.md counts them")
    }

    @Test("a session's title is the one its agent gave, else its first prompt that is not a wrapper, on one line")
    func titles() async throws {
        try await onThreadOfItsOwn {
            let mirrored = try Mirrored()
            for transcript in mirrored.transcripts {
                for encoding in ClaudeCodeTranscript.Encoding.allCases {
                    let session = try #require(try mirrored.store.session(id: Mirrored.sessionID(transcript, encoding)))
                    let title = try #require(try SessionTitle.of(session, store: mirrored.store), "\(transcript.name)")
                    let agentTitles = transcript.parts.compactMap { if case .title(let title) = $0 { title } else { nil } }
                    if let last = agentTitles.last {
                        #expect(title == last, "\(transcript.name)")
                    } else {
                        let wrapper = title.hasPrefix("<") || title.hasPrefix("Caveat:")
                        #expect(!wrapper && !title.contains("\n"), "\(transcript.name): \(title)")
                    }
                }
            }
        }
    }

    private static func checkExports() throws {
        let mirrored = try Mirrored()
        for transcript in mirrored.transcripts {
            let events = try mirrored.events(transcript, .acp)
            let session = try #require(try mirrored.store.session(id: Mirrored.sessionID(transcript, .acp)))
            let document = SessionDocument(session: session, events: events, redactor: nil)
            let markdown = MarkdownExport.document(document)
            let html = try HTMLExport.pages(document, baseName: "t", desktop: nil)
                .map(\.html).joined()
            // Each check is made a Bool first: a failed one then prints its message, not the document.
            for document in [markdown, html] {
                let notShown = document.contains("not shown by this version")
                #expect(!notShown, "\(transcript.name): an update left as JSON")
            }
            for case .toolResult(let id, let output, _) in transcript.parts where !output.isEmpty {
                let inMarkdown = markdown.contains(MarkdownExport.fenced(output, language: "").joined(separator: "\n"))
                #expect(inMarkdown, "\(transcript.name): the output of \(id) in Markdown")
                let lines = output.utf8.count { $0 == 0x0A } + 1
                if output.count > HTMLExport.foldedLength || lines > HTMLExport.foldedLines {
                    let folded = html.contains("Output: \(HTMLExport.size(output.utf8.count)), \(lines) line\(lines == 1 ? "" : "s")")
                    #expect(folded, "\(transcript.name): the long output of \(id) folded with its size")
                }
            }
        }
    }
}

extension RealTranscriptTests {
    /// The conversation without what only one encoding says: ACP's tool kinds, and its statuses'
    /// words (`failed` for the desktop's `error`, `pending` before any result).
    static func encodingFree(_ conversation: Conversation) -> [Conversation.Entry] {
        conversation.entries.map { entry in
            guard case .toolCall(var call) = entry else { return entry }
            call.kind = nil
            call.status = call.status == "pending" ? nil : call.status == "error" ? "failed" : call.status
            return .toolCall(call)
        }
    }
}
