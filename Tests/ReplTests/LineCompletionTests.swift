@testable import Commands
import TestSupport
import Testing

/// Tab completion in the REPL, from the command catalogue: what a line before the cursor offers.
@Suite("Tab completion by context", .endsWithin(.seconds(120)))
struct LineCompletionTests {
    static let known = CompletionIDs(
        sessions: ["798C06FE-1F6B-4C9A-9C1E-2B8A6F1E7A01", "79A2B3C4-0000-4000-8000-000000000001",
                   "909CA87E-B99E-8C2C-AF5E-B4919C1C6A5E", "909CA87E-FFFF-4000-8000-000000000002",
                   "local-3b1c2d4e-aaaa-4bbb-8ccc-dddddddddddd"],
        outboxItems: ["1", "2", "12"]
    )

    func complete(_ line: String) -> LineCompletion {
        LineCompletion(line: line, known: Self.known)
    }

    /// What replaces the word, and the list.
    func pair(_ line: String) -> (String, [String]) {
        let completion = complete(line)
        return (completion.replacement, completion.candidates)
    }

    @Test("at the start of a line: the commands' first words and the dot commands, each once")
    func lineStart() {
        let offered = complete("").candidates
        #expect(offered == ["threads", "sessions", "show", "search", "prompt", "outbox", "follow", "unsubscribe", "export", "secrets",
                            "status", "sync", "help", "methods", "quit", ".mode", ".pager", ".redact"])
        #expect(pair("se") == ("se", ["sessions", "search", "secrets"]))
        #expect(pair("sess") == ("sessions", ["sessions"]))
        #expect(complete("SH").candidates == ["show"])
        #expect(complete(".p").candidates == [".pager"])
    }

    @Test("a command of several words completes word by word, outbox ids after them")
    func multiWordCommands() {
        #expect(complete("outbox ").candidates == ["retry", "drop"])
        #expect(pair("outbox r") == ("retry", ["retry"]))
        #expect(complete("outbox retry ").candidates == ["1", "2", "12"])
        #expect(pair("outbox drop 1") == ("1", ["1", "12"]))
        #expect(complete("outbox drop 12 ").candidates.isEmpty)
    }

    @Test("after show: only session ids, shown by their first 8 characters unless shared, and show's options")
    func showOffersSessionsAndOptions() {
        #expect(complete("show ").candidates == ["798C06FE", "79A2B3C4", "909CA87E-B99E-8C2C-AF5E-B4919C1C6A5E",
                                                 "909CA87E-FFFF-4000-8000-000000000002", "local-3b1c2d4e", "--raw", "--at", "--context"])
        #expect(complete("show --").candidates == ["--raw", "--at", "--context"])
        #expect(complete("show --raw ").candidates.count == 7, "an option given is not offered again")
        #expect(complete("show 798C06FE ").candidates == ["--raw", "--at", "--context"])
    }

    @Test("a unique prefix completes to the short id, the full id only when needed to be unique")
    func sessionPrefixes() {
        #expect(pair("show 798c") == ("798C06FE", ["798C06FE"]))
        #expect(pair("show 79") == ("79", ["798C06FE", "79A2B3C4"]))
        #expect(complete("show 909c").replacement == "909CA87E-")
        #expect(pair("show 909ca87e-b") == ("909CA87E-B99E-8C2C-AF5E-B4919C1C6A5E", ["909CA87E-B99E-8C2C-AF5E-B4919C1C6A5E"]))
        #expect(complete("show 798C06FE-1").candidates == ["798C06FE-1F6B-4C9A-9C1E-2B8A6F1E7A01"], "typed past the short id")
        #expect(complete("show loc").replacement == "local-3b1c2d4e")
        #expect(complete("show zz").candidates.isEmpty)
    }

    @Test("dot commands offer exactly their values; help offers the commands")
    func dotCommandsAndHelp() {
        #expect(complete(".mode ").candidates == ["table", "json", "markdown"])
        #expect(pair(".mode j") == ("json", ["json"]))
        #expect(complete(".pager ").candidates == ["on", "off"])
        #expect(complete(".pager on ").candidates.isEmpty)
        #expect(complete("help ").candidates == complete("").candidates.filter { !$0.hasPrefix(".") })
        #expect(complete("help outbox ").candidates == ["retry", "drop"])
        #expect(complete("help show ").candidates.isEmpty)
    }

    @Test("after an option that takes a value: its enumerated values, or nothing")
    func optionValues() {
        #expect(complete("follow --from ").candidates == ["start", "now"])
        #expect(complete("follow --from n").replacement == "now")
        #expect(complete("sessions --limit ").candidates.isEmpty)
        #expect(complete("sessions --limit 5 ").candidates == ["--offset", "--desktop"])
        #expect(complete("follow --from now ").candidates.suffix(2) == ["--until-idle-ms", "--desktop"])
        #expect(complete("follow --from=now --").candidates == ["--until-idle-ms", "--desktop"])
    }

    @Test("text parameters take no ids; prompt offers new; export --all skips the session")
    func positionals() {
        #expect(complete("search ").candidates == ["--limit", "--session", "--kind", "--since", "--until", "--desktop", "--everywhere"])
        #expect(complete("search flaky ").candidates.isEmpty, "the query runs to the end of the line")
        #expect(complete("prompt n").candidates == ["new"])
        #expect(complete("prompt 798C06FE ").candidates == ["--desktop"], "the only option; the text runs to the end of the line")
        #expect(complete("export --all ").candidates == ["--force", "--timestamp", "--format", "--html"])
        #expect(complete("export 7").candidates == ["798C06FE", "79A2B3C4"])
        #expect(complete("bogus ").candidates.isEmpty)
    }
}
