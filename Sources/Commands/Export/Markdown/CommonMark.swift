import CCmarkGFM
import Foundation

/// GitHub's CommonMark parser (libcmark-gfm, with its tables, strikethrough, autolinks, tag
/// filter and task lists), read into Swift values: the exports read the agent's Markdown with it
/// and render it as HTML; the tests read the exports with it.
package enum CommonMark {
    /// A block or inline of a parsed document, with where it came from.
    package struct Node: Sendable, Equatable {
        /// cmark's name of the type: `document`, `heading`, `code_block`, `html_block`, `list`,
        /// `item`, `paragraph`, `table`, `text`, `code`, `link`…
        package var type: String
        /// Lines and columns (1-based; columns in bytes) of the source the node spans.
        package var startLine: Int
        package var startColumn: Int
        package var endLine: Int
        /// A heading's level (1–6), else 0.
        package var headingLevel: Int
        /// A code block's info string (`swift`), a link's destination.
        package var info: String
        /// The text of a code block, an HTML block, a text or an inline code.
        package var literal: String
        /// A fenced code block's fence; nil when not fenced.
        package var fence: Fence?
        package var children: [Node]

        /// This node and every node below it, in document order.
        package var descendants: [Node] {
            [self] + children.flatMap(\.descendants)
        }

        /// The text of this node's inlines, joined.
        package var plainText: String {
            type == "text" || type == "code" ? literal : children.map(\.plainText).joined()
        }
    }

    /// A code block's fence: its character (`` ` `` or `~`) and length.
    package struct Fence: Sendable, Equatable {
        package var character: Character
        package var length: Int
    }

    /// `markdown` parsed as one document; with `blocksOnly`, without the inlines (text, links,
    /// emphasis) inside the blocks.
    package static func parse(_ markdown: String, blocksOnly: Bool = false) -> Node {
        withDocument(markdown) { root, _ in node(root, blocksOnly: blocksOnly) }
    }

    /// `markdown` as HTML, safely: raw HTML is left out (a comment stands in its place), links keep
    /// their address only when it is http(s) or an anchor in the page (`#…`): no `javascript:`,
    /// `data:`, `file:` or other scheme, no path that a viewer would resolve against itself;
    /// images lose theirs (a page fetches nothing); and the tag filter escapes what would still
    /// open a tag such as `<script>`. The agent's headings are moved `headingShift` levels down (at most to 6); a
    /// code block's language is the `lang` of its `pre`.
    package static func html(_ markdown: String, headingShift: Int) -> String {
        withDocument(markdown) { root, parser in
            if headingShift > 0 { shiftHeadings(below: root, by: headingShift) }
            dropUnsafeAddresses(below: root)
            guard let rendered = cmark_render_html(root, CMARK_OPT_GITHUB_PRE_LANG, cmark_parser_get_syntax_extensions(parser)) else { return "" }
            defer { free(rendered) }
            return String(cString: rendered)
        }
    }

    /// The core extensions registered, once, before any parser is made (cmark's registration is
    /// not thread-safe; a static is initialized once).
    private static let registered: Bool = {
        cmark_gfm_core_extensions_ensure_registered()
        return true
    }()

    /// Parses `markdown` and gives `body` the document and its parser (whose extensions the HTML
    /// renderer needs); both are freed afterwards.
    private static func withDocument<Result>(_ markdown: String, _ body: (OpaquePointer, OpaquePointer) -> Result) -> Result {
        _ = registered
        guard let parser = ccmark_gfm_parser(CMARK_OPT_DEFAULT) else { preconditionFailure("cmark-gfm could not make a parser (out of memory)") }
        defer { cmark_parser_free(parser) }
        var markdown = markdown
        markdown.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { cmark_parser_feed(parser, $0.baseAddress, $0.count) }
        }
        guard let root = cmark_parser_finish(parser) else { preconditionFailure("cmark-gfm returned no document (out of memory)") }
        defer { cmark_node_free(root) }
        return body(root, parser)
    }

    private static func node(_ pointer: OpaquePointer, blocksOnly: Bool) -> Node {
        let type = cmark_node_get_type_string(pointer).map { String(cString: $0) } ?? "unknown"
        var length: Int32 = 0
        var offset: Int32 = 0
        var character: CChar = 0
        let fenced = cmark_node_get_type(pointer) == CMARK_NODE_CODE_BLOCK && cmark_node_get_fenced(pointer, &length, &offset, &character) != 0
        var children: [Node] = []
        var child = cmark_node_first_child(pointer)
        while let current = child {
            // An inline's type has both high bits set (CMARK_NODE_TYPE_INLINE), a block's only the first.
            if !blocksOnly || cmark_node_get_type(current).rawValue & 0xC000 != 0xC000 {
                children.append(node(current, blocksOnly: blocksOnly))
            }
            child = cmark_node_next(current)
        }
        let info = cmark_node_get_type(pointer) == CMARK_NODE_CODE_BLOCK ? cmark_node_get_fence_info(pointer) : cmark_node_get_url(pointer)
        return Node(
            type: type,
            startLine: Int(cmark_node_get_start_line(pointer)), startColumn: Int(cmark_node_get_start_column(pointer)),
            endLine: Int(cmark_node_get_end_line(pointer)),
            headingLevel: cmark_node_get_type(pointer) == CMARK_NODE_HEADING ? Int(cmark_node_get_heading_level(pointer)) : 0,
            info: info.map { String(cString: $0) } ?? "",
            literal: cmark_node_get_literal(pointer).map { String(cString: $0) } ?? "",
            fence: fenced ? Fence(character: Character(UnicodeScalar(UInt8(bitPattern: character))), length: Int(length)) : nil,
            children: children
        )
    }

    /// Empties the address of every image, and of every link that is not http(s) or an anchor.
    private static func dropUnsafeAddresses(below root: OpaquePointer) {
        guard let iterator = cmark_iter_new(root) else { return }
        defer { cmark_iter_free(iterator) }
        while cmark_iter_next(iterator) != CMARK_EVENT_DONE {
            guard let node = cmark_iter_get_node(iterator), cmark_iter_get_event_type(iterator) == CMARK_EVENT_ENTER,
                  [CMARK_NODE_LINK, CMARK_NODE_IMAGE].contains(cmark_node_get_type(node)),
                  let url = cmark_node_get_url(node).map({ String(cString: $0) }),
                  cmark_node_get_type(node) == CMARK_NODE_IMAGE || !isSafeAddress(url) else { continue }
            cmark_node_set_url(node, "")
        }
    }

    /// http://, https:// (any case) or `#…`, with nothing a browser would strip in front.
    package static func isSafeAddress(_ url: String) -> Bool {
        let lowered = url.lowercased()
        return lowered.hasPrefix("https://") || lowered.hasPrefix("http://") || url.hasPrefix("#")
    }

    private static func shiftHeadings(below root: OpaquePointer, by shift: Int) {
        guard let iterator = cmark_iter_new(root) else { return }
        defer { cmark_iter_free(iterator) }
        while cmark_iter_next(iterator) != CMARK_EVENT_DONE {
            guard let node = cmark_iter_get_node(iterator), cmark_iter_get_event_type(iterator) == CMARK_EVENT_ENTER,
                  cmark_node_get_type(node) == CMARK_NODE_HEADING else { continue }
            cmark_node_set_heading_level(node, min(6, cmark_node_get_heading_level(node) + Int32(shift)))
        }
    }
}
