@testable import Commands
@testable import ReadModel
import TestSupport
import Testing

/// Styles for a terminal: ANSI sequences only with colour, tables aligned on what shows.
@Suite("the palette", .endsWithin(.seconds(120)))
struct PaletteTests {
    @Test("plain leaves text as it is; colour wraps each line")
    func apply() {
        #expect(Palette.plain.apply(.red, to: "error: x") == "error: x")
        #expect(Palette.colour.apply(.red, to: "a\n\nb") == "\u{1B}[31ma\u{1B}[0m\n\n\u{1B}[31mb\u{1B}[0m")
        #expect(Palette.colour.apply(.bold, to: "") == "")
    }

    @Test("search hits: brackets when plain, highlighted with colour")
    func highlight() {
        let markers = Palette.snippetMarkers
        #expect(markers.start.unicodeScalars.map(\.value) == [0xFDD0] && markers.end.unicodeScalars.map(\.value) == [0xFDD1])
        let marked = "Fix the \(markers.start)flaky\(markers.end) reconnect"
        #expect(Palette.plain.highlighted(marked) == "Fix the [flaky] reconnect")
        #expect(Palette.colour.highlighted(marked) == "Fix the \u{1B}[1;33mflaky\u{1B}[0m reconnect")
    }

    @Test("states are coloured by what they ask; unknown ones are left alone")
    func states() {
        #expect(Palette.colour.state("failed") == "\u{1B}[31mfailed\u{1B}[0m")
        #expect(Palette.colour.state("synced") == "\u{1B}[32msynced\u{1B}[0m")
        #expect(Palette.colour.state("odd") == "odd")
        #expect(Palette.plain.state("failed") == "failed")
    }

    @Test("tables align and cut on visible characters, and end a style they cut")
    func styledTable() {
        let colour = Palette.colour
        let plain = TextTable(headers: ["ID", "STATE", "TEXT"], rows: [["1", "failed", "a long text to cut"], ["22", "sent", "short"]])
        let styled = TextTable(headers: plain.headers, rows: plain.rows.map { [$0[0], colour.state($0[1]), colour.apply(.bold, to: $0[2])] })
        let strip = { (text: String) in text.replacing(/\x{1B}\[[0-9;]*m/, with: "") }
        #expect(strip(styled.rendered(width: 22)) == plain.rendered(width: 22))
        #expect(styled.rendered(width: 22).split(separator: "\n")[1].hasSuffix("\u{1B}[1ma long te\u{1B}[0m\u{1B}[0m…"))
        #expect(Palette.visibleCount("\u{1B}[1;33mflaky\u{1B}[0m!") == 6)
    }

    @Test("the conversation's headings are coloured by role; a failed tool call is red; plain is unchanged")
    func conversation() {
        let entries: [Conversation.Entry] = [
            .message(role: .user, text: "hi", local: false, firstOrdinal: 1),
            .message(role: .thinking, text: "hmm", local: false, firstOrdinal: 2),
            .toolCall(Conversation.ToolCallEntry(callID: "c1", name: "Bash", arguments: nil, status: "failed", error: "exit 1",
                                                 output: nil, firstOrdinal: 3)),
        ]
        let plain = entries.map { ConversationText.render($0) }
        #expect(plain == ["[1] user:\n  hi", "[2] thinking:\n  hmm", "[3] tool Bash (c1): failed\n  error: exit 1"])
        let coloured = entries.map { ConversationText.render($0, palette: .colour) }
        #expect(coloured[0] == "\u{1B}[1;36m[1] user:\u{1B}[0m\n  hi")
        #expect(coloured[1] == "\u{1B}[35m[2] thinking:\u{1B}[0m\n\u{1B}[2m  hmm\u{1B}[0m")
        #expect(coloured[2] == "\u{1B}[1;31m[3] tool Bash (c1): failed\u{1B}[0m\n\u{1B}[31m  error: exit 1\u{1B}[0m")
    }
}
