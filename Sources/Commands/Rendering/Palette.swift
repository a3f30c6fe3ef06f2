import MirrorStore
import ReadModel

/// How text for people is styled: ANSI colours on a terminal, nothing in pipes, files, JSON or
/// with `NO_COLOR` (the front end chooses, and sets `CommandContext.palette`).
public struct Palette: Sendable, Equatable {
    /// Whether styles are written as ANSI escape sequences; plain text when not.
    public let usesColour: Bool

    public init(usesColour: Bool) {
        self.usesColour = usesColour
    }

    /// No styles: search hits in `[brackets]`.
    public static let plain = Palette(usesColour: false)
    /// ANSI styles.
    public static let colour = Palette(usesColour: true)

    /// The SGR parameters of each style.
    public enum Style: String, Sendable {
        case bold = "1"
        case dim = "2"
        case red = "31"
        case boldRed = "1;31"
        case green = "32"
        case boldGreen = "1;32"
        case yellow = "33"
        case highlight = "1;33"
        case blue = "34"
        case magenta = "35"
        case cyan = "36"
        case boldCyan = "1;36"
    }

    /// `text` in `style`, each line apart (a pager shows any line alone); unchanged when plain.
    public func apply(_ style: Style, to text: String) -> String {
        guard usesColour, !text.isEmpty else { return text }
        return text.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.isEmpty ? "" : "\u{1B}[\(style.rawValue)m\($0)\u{1B}[0m" }
            .joined(separator: "\n")
    }

    /// The heading style of a conversation's messages.
    func style(of role: Conversation.Role) -> Style {
        switch role {
        case .user: .boldCyan
        case .assistant: .boldGreen
        case .thinking: .magenta
        }
    }

    /// A `sync_state` or outbox state, coloured by what it asks of the person: green done, yellow
    /// on its way, red failed, magenta unconfirmed, cyan local.
    func state(_ state: String) -> String {
        switch state {
        case "synced", "sent": apply(.green, to: state)
        case "pending", "provisional", "queued", "sending": apply(.yellow, to: state)
        case "failed": apply(.red, to: state)
        case "unconfirmed": apply(.magenta, to: state)
        case "local": apply(.cyan, to: state)
        default: state
        }
    }

    /// How search asks SQLite to mark the matched terms: the noncharacters U+FDD0 and U+FDD1
    /// (which Unicode keeps for a program's internal use, and Swift refuses in literals), so that
    /// the renderer chooses what shows them.
    static let snippetMarkers = SnippetMarkers(start: String(decoding: [0xEF, 0xB7, 0x90], as: UTF8.self),
                                               end: String(decoding: [0xEF, 0xB7, 0x91], as: UTF8.self))

    /// A snippet marked with `snippetMarkers`: its terms highlighted, or between brackets when plain.
    func highlighted(_ snippet: String) -> String {
        let (start, end) = usesColour ? ("\u{1B}[\(Style.highlight.rawValue)m", "\u{1B}[0m") : ("[", "]")
        return snippet.replacing(Self.snippetMarkers.start, with: start).replacing(Self.snippetMarkers.end, with: end)
    }

    /// How many characters of `text` show: those outside ANSI escape sequences (`ESC [ … letter`).
    public static func visibleCount(_ text: some StringProtocol) -> Int {
        guard text.utf8.contains(0x1B) else { return text.count }
        var count = 0
        var inEscape = false
        for character in text {
            if inEscape {
                if character.isLetter { inEscape = false }
            } else if character == "\u{1B}" {
                inEscape = true
            } else {
                count += 1
            }
        }
        return count
    }

    /// The first `limit` visible characters of `text`, with its escape sequences; a reset at the
    /// end when it has any, so that a style cut short does not run on.
    static func visiblePrefix(_ text: String, _ limit: Int) -> String {
        guard text.utf8.contains(0x1B) else { return String(text.prefix(limit)) }
        var result = ""
        var count = 0
        var inEscape = false
        for character in text {
            if inEscape {
                result.append(character)
                if character.isLetter { inEscape = false }
            } else if character == "\u{1B}" {
                result.append(character)
                inEscape = true
            } else if count < limit {
                result.append(character)
                count += 1
            }
        }
        return result + "\u{1B}[0m"
    }
}
