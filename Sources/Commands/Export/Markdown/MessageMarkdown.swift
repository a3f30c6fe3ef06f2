/// A message's Markdown made fit to stand below a heading of a larger document, changed only
/// where it would reach outside its place, and never inside code.
///
/// The message is read by cmark-gfm, then:
/// - its headings move `headingShift` levels down (at most to 6), so that they sit below the
///   message's heading (a Setext heading becomes an ATX one: there is no Setext level 3);
/// - a fence left open at its end (a stream cut short) is closed there, so that nothing after the
///   message is swallowed into the code;
/// - an HTML block that would run to the document's end (`<!--`, `<pre>`, `<script>`… without
///   its end) has its `<` escaped, so that it is text.
///
/// Lines are split as CommonMark splits them (LF, CRLF or CR) and joined again with LF.
package enum MessageMarkdown {
    package static func contained(_ text: String, headingShift: Int) -> [String] {
        var lines = splitLines(text)
        guard mayNeedChanges(text) else { return lines }
        // Each pass escapes one HTML block left open (at most one per line), then reads again.
        for _ in 0...lines.count {
            let root = CommonMark.parse(lines.joined(separator: "\n"), blocksOnly: true)
            if let open = root.children.first(where: isOpenHTMLBlock) {
                escapeTag(on: open.startLine, from: open.startColumn, in: &lines)
                continue
            }
            let closingFence = root.children.last.flatMap { openFence($0, lines: lines) }
            let headings = root.descendants.filter { $0.type == "heading" }.sorted { $0.startLine > $1.startLine }
            for heading in headings { shift(heading, by: headingShift, in: &lines) }
            if let closingFence { lines.append(closingFence) }
            return lines
        }
        return lines
    }

    /// False when no line could open a heading, a fence or an HTML block: the text is kept as it is
    /// without reading it.
    private static func mayNeedChanges(_ text: String) -> Bool {
        text.utf8.contains { byte in byte == UInt8(ascii: "#") || byte == UInt8(ascii: "`") || byte == UInt8(ascii: "~")
            || byte == UInt8(ascii: "<") || byte == UInt8(ascii: "=") || byte == UInt8(ascii: "-") }
    }

    /// The lines of `text`, split at LF, CRLF or CR (as CommonMark counts them), on its UTF-8
    /// bytes (splitting by `Character` took a quarter of a long session's export).
    static func splitLines(_ text: String) -> [String] {
        guard text.utf8.contains(UInt8(ascii: "\r")) else {
            return text.utf8.split(separator: 0x0A, omittingEmptySubsequences: false).map { String(Substring($0)) }
        }
        return text.replacing("\r\n", with: "\n").replacing("\r", with: "\n")
            .utf8.split(separator: 0x0A, omittingEmptySubsequences: false).map { String(Substring($0)) }
    }

    /// The fence that closes `node` when it is a fenced code block left open at the message's end.
    private static func openFence(_ node: CommonMark.Node, lines: [String]) -> String? {
        guard node.type == "code_block", let fence = node.fence else { return nil }
        let last = min(node.endLine, lines.count)
        if last > node.startLine, isClosing(lines[last - 1], fence) { return nil }
        return String(repeating: fence.character, count: fence.length)
    }

    /// A closing fence: at most 3 spaces, at least `fence.length` of its character, then blanks only.
    private static func isClosing(_ line: String, _ fence: CommonMark.Fence) -> Bool {
        let indent = line.prefix { $0 == " " }.count
        guard indent <= 3 else { return false }
        let rest = line.dropFirst(indent)
        let run = rest.prefix { $0 == fence.character }.count
        return run >= fence.length && rest.dropFirst(run).allSatisfy { $0 == " " || $0 == "\t" }
    }

    /// An HTML block of the kinds that end only at their end marker (CommonMark's kinds 1 to 5),
    /// without it: it would take in the rest of the document.
    private static func isOpenHTMLBlock(_ node: CommonMark.Node) -> Bool {
        guard node.type == "html_block" else { return false }
        let literal = node.literal.drop { $0 == " " }.lowercased()
        let end: String
        if let tag = ["script", "pre", "style", "textarea"].first(where: { tag in
            literal.hasPrefix("<" + tag) && literal.dropFirst(tag.count + 1).first.map { $0 == ">" || $0.isWhitespace } ?? true
        }) {
            end = "</\(tag)>"
        } else if literal.hasPrefix("<!--") {
            end = "-->"
        } else if literal.hasPrefix("<?") {
            end = "?>"
        } else if literal.hasPrefix("<![cdata[") {
            end = "]]>"
        } else if literal.hasPrefix("<!") {
            end = ">"
        } else {
            return false
        }
        return !literal.dropFirst(2).contains(end)
    }

    /// Escapes the first `<` at or after `column` (1-based, in bytes) of line `number` (1-based).
    private static func escapeTag(on number: Int, from column: Int, in lines: inout [String]) {
        guard lines.indices.contains(number - 1) else { return }
        let line = lines[number - 1]
        let start = line.utf8.index(line.utf8.startIndex, offsetBy: max(0, column - 1), limitedBy: line.utf8.endIndex) ?? line.utf8.endIndex
        guard let bracket = line[start...].firstIndex(of: "<") else { return }
        lines[number - 1].insert("\\", at: bracket)
    }

    /// Moves `heading` `shift` levels down: more `#` for an ATX heading; a Setext one (its text
    /// lines and underline) becomes one ATX line in the place of its first line.
    private static func shift(_ heading: CommonMark.Node, by shift: Int, in lines: inout [String]) {
        let index = heading.startLine - 1
        guard shift > 0, lines.indices.contains(index) else { return }
        let level = min(6, heading.headingLevel + shift)
        let line = lines[index]
        let start = line.utf8.index(line.utf8.startIndex, offsetBy: max(0, heading.startColumn - 1), limitedBy: line.utf8.endIndex)
            ?? line.utf8.endIndex
        let content = line[start...]
        if content.drop(while: { $0 == " " }).hasPrefix("#") {
            guard let hashes = content.firstIndex(of: "#") else { return }
            lines[index].insert(contentsOf: String(repeating: "#", count: level - heading.headingLevel), at: hashes)
            return
        }
        let prefix = String(line[..<start])
        // The underline: the last line of the heading's span made of `=` or `-` alone.
        let span = (index + 1)...max(index + 1, min(heading.endLine, lines.count) - 1)
        guard let last = span.reversed().first(where: { lines.indices.contains($0) && isUnderline(lines[$0], after: prefix) }) else { return }
        let text = ([String(content)] + lines[(index + 1)..<last].map { line in
            line.hasPrefix(prefix) ? String(line.dropFirst(prefix.count)) : line
        }).map { $0.trimmingSpaces }.joined(separator: " ")
        lines.replaceSubrange(index...last, with: [prefix + String(repeating: "#", count: level) + " " + text])
    }
}

/// A Setext underline (after its container's `prefix`): `=` or `-` alone, spaces around.
private func isUnderline(_ line: String, after prefix: String) -> Bool {
    let body = (line.hasPrefix(prefix) ? String(line.dropFirst(prefix.count)) : line).trimmingSpaces
    return !body.isEmpty && (body.allSatisfy { $0 == "=" } || body.allSatisfy { $0 == "-" })
}

private extension String {
    var trimmingSpaces: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
