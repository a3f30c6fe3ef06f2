/// A content block of a message chunk, tagged by `type`.
public enum ContentBlock: Sendable, Equatable {
    case text(String)
    /// An image: inline (`data`, `mimeType`) or, in older rows, by `url`.
    case image(mimeType: String?, url: String?, alt: String?)
    case audio(mimeType: String?)
    case resourceLink(name: String?, uri: String?)
    case resource(uri: String?, text: String?)
    /// A block of another type or shape, kept as it is.
    case unknown(JSONValue)

    /// Reads the block of a chunk: at `content.content` (current shape), at `content`, or
    /// `content.text.text` (older rows).
    init(chunkContent body: JSONValue) {
        let content = body["content"]
        let block = content?["content"] ?? content ?? .null
        self.init(block)
    }

    public init(_ block: JSONValue) {
        switch block["type"]?.stringValue {
        case "text":
            self = block["text"]?.stringValue.map(ContentBlock.text) ?? .unknown(block)
        case "image":
            self = .image(mimeType: block["mimeType"]?.stringValue, url: block["url"]?.stringValue, alt: block["alt"]?.stringValue)
        case "audio":
            self = .audio(mimeType: block["mimeType"]?.stringValue)
        case "resource_link":
            self = .resourceLink(name: block["name"]?.stringValue, uri: block["uri"]?.stringValue)
        case "resource":
            let resource = block["resource"] ?? block
            self = .resource(uri: resource["uri"]?.stringValue, text: resource["text"]?.stringValue)
        default:
            if let text = block["text"]?.stringValue ?? block["text"]?["text"]?.stringValue {
                self = .text(text)
            } else {
                self = .unknown(block)
            }
        }
    }

    /// The block as plain text: its text, or a short description of what it holds.
    public var plainText: String {
        switch self {
        case .text(let text): text
        case .image(let mimeType, let url, let alt): "[image\(alt.map { ": \($0)" } ?? "")\(url.map { " \($0)" } ?? "")\(url == nil ? mimeType.map { " \($0)" } ?? "" : "")]"
        case .audio(let mimeType): "[audio\(mimeType.map { " \($0)" } ?? "")]"
        case .resourceLink(let name, let uri): "[\(name ?? "resource")\(uri.map { " \($0)" } ?? "")]"
        case .resource(let uri, let text): text ?? "[resource\(uri.map { " \($0)" } ?? "")]"
        case .unknown(let json): UpdateSummary.strings(in: json).joined(separator: " ")
        }
    }
}
