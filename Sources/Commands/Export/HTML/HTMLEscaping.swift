import Mustache

/// What `{{name}}` escapes in the HTML templates: the five characters swift-mustache's own HTML
/// escaping replaces, by the same entities, found in the text's UTF-8 bytes. swift-mustache looks
/// each `Character` up in a dictionary, which was two thirds of an HTML export's time; it also
/// left a `<` unescaped when a combining mark followed it (one `Character`), which this does not.
struct HTMLEscaping: MustacheContentType {
    /// The name templates select it by (`{{% CONTENT_TYPE: … }}`, which `registerHTML` adds).
    static let name = "OPENAGENTS_HTML"

    /// Makes the content type known to the templates' parser: once, before any is parsed.
    static let registered: Void = MustacheContentTypes.register(HTMLEscaping(), named: name)

    func escapeText(_ text: String) -> String {
        guard text.utf8.contains(where: Self.isEscaped) else { return text }
        var escaped: [UInt8] = []
        escaped.reserveCapacity(text.utf8.count + text.utf8.count / 8)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "<"): escaped += "&lt;".utf8
            case UInt8(ascii: ">"): escaped += "&gt;".utf8
            case UInt8(ascii: "&"): escaped += "&amp;".utf8
            case UInt8(ascii: "\""): escaped += "&quot;".utf8
            case UInt8(ascii: "'"): escaped += "&#39;".utf8
            default: escaped.append(byte)
            }
        }
        return String(decoding: escaped, as: UTF8.self)
    }

    private static func isEscaped(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "<") || byte == UInt8(ascii: ">") || byte == UInt8(ascii: "&")
            || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'")
    }
}

extension MustacheLibrary {
    /// Registers an HTML template whose `{{name}}`s are escaped by `HTMLEscaping`. (Each template
    /// says so itself: a partial starts again from swift-mustache's own escaping.)
    mutating func registerHTML(_ template: String, named name: String) throws {
        HTMLEscaping.registered
        try register("{{% CONTENT_TYPE: \(HTMLEscaping.name) }}\n" + template, named: name)
    }
}
