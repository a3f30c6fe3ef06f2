/// What a page of a session's HTML export shows, as the session template reads it (Mustache
/// reads these values by their property names).
struct SessionPageView: HTMLTemplateContext {
    static let template = HTMLTemplate.session

    var policy = HTMLTemplates.pagePolicy
    var generator = "oa-repl export"
    /// The viewer's own style sheet, when served.
    var viewerStyle: String?
    var title: String
    var sessionID: String
    /// The desktop the mirror syncs from (its bridge's address), or "unknown desktop".
    var desktop: String
    var mode: String?
    var firstActivity: String?
    var lastActivity: String?
    var eventCount: Int64
    /// A note on the session shown under its facts (what is no longer on the desktop, say).
    var notice: String?
    var pageNumber: Int
    var pageCount: Int
    /// More than one page: the links between them are shown.
    var hasPages: Bool
    var previous: PageLink?
    var next: PageLink?
    var pages: [PageLink]
    var entries: [EntryView]
    /// Served by the web viewer: its navigation and script, and the links to the parts of the
    /// session before and after this one; nil in an export.
    var viewer: Viewer?

    /// What the web viewer adds to a session's page.
    struct Viewer {
        var chrome: ViewerChrome
        /// The session's address (`/sessions/<id>`), which the script builds on.
        var base: String
        var earlier: MoreLink?
        var later: MoreLink?
    }

    /// A link to the part of a session before or after the one shown: a page without script
    /// follows `href`; the script inserts `fragment`, the entries alone.
    struct MoreLink {
        var href: String
        var fragment: String
    }

    /// A link to one of the session's pages.
    struct PageLink {
        var number: Int
        var href: String
        var current: Bool
    }

    /// One conversation entry: a `section` with the id `e-<its first event's ordinal>`.
    struct EntryView {
        var anchor: String
        /// Its CSS class: `user`, `assistant`, `thinking`, `plan`, `tool`, `mode`, `commands`, `other`.
        var kind: String
        var label: String
        var time: String?
        /// cmark-gfm's safe rendering of a message's Markdown.
        var html = ""
        var isMessage = false
        var isThinking = false
        var plan: PlanView?
        var tool: ToolView?
        var note: String?
        /// An update this version does not show, as it came.
        var raw: String?
    }

    struct PlanView {
        var items: [PlanItem]
    }

    struct PlanItem {
        var content: String
        var status: String
        var done: Bool
        var details: String?
    }

    struct ToolView {
        var name: String
        var callID: String
        var status: String?
        var blocks: [TextBlock]
    }

    /// Arguments, an error or an output: folded (with its size shown) when long.
    struct TextBlock {
        var label: String
        var language: String
        var text: String
        var folded: Bool
        var size: String
    }
}

/// The index of `export --all --html`, as the index template reads it.
struct SessionIndexView: HTMLTemplateContext {
    static let template = HTMLTemplate.index

    var policy = HTMLTemplates.indexPolicy
    var script = HTMLTemplates.filterScript
    var desktop: String
    var sessionCount: Int
    /// `session` or `sessions`.
    var sessionNoun: String
    var rows: [Row]

    /// One session: newest first.
    struct Row {
        var title: String
        /// The title, lowercased, for the filter.
        var filterText: String
        var href: String
        var sessionID: String
        var desktop: String
        var firstActivity: String
        var lastActivity: String
        var messageCount: Int
        var eventCount: Int64
        var pageCount: Int
        /// What the session page's notice says, when it has one.
        var notice: String?
        /// For the order: the last activity, in milliseconds.
        var lastTS: Int64
    }
}
