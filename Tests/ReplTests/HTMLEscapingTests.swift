@testable import Commands
import Mustache
import Testing

@Suite("HTML escaping of the templates")
struct HTMLEscapingTests {
    private let escaping = HTMLEscaping()

    @Test("the five characters swift-mustache escapes, by its entities; everything else as it is")
    func escapesAsMustacheDoes() throws {
        #expect(escaping.escapeText(#"<a href="x" onclick='y'>&amp;</a>"#)
            == "&lt;a href=&quot;x&quot; onclick=&#39;y&#39;&gt;&amp;amp;&lt;/a&gt;")
        #expect(escaping.escapeText("plain text, é, 日本, 🎉") == "plain text, é, 日本, 🎉")
        #expect(escaping.escapeText("") == "")
        // The same as swift-mustache's own escaping, rendered through a template of each.
        let text = "if a < b && c > \"d\" then 'e' — ok\n"
        var library = MustacheLibrary()
        try library.register("{{text}}", named: "theirs")
        try library.registerHTML("{{text}}", named: "ours")
        #expect(library.render(["text": text], withTemplate: "ours") == library.render(["text": text], withTemplate: "theirs"))
    }

    @Test("a < followed by a combining mark is escaped too (one Character to swift-mustache, which left it)")
    func combiningMarkAfterLessThan() {
        let text = "<\u{0338}script>"
        #expect(escaping.escapeText(text) == "&lt;\u{0338}script&gt;")
    }
}
