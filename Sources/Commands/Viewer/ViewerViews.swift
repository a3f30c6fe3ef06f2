/// What every page of the web viewer shows around its content: the navigation, the search box,
/// a notice when nothing is redacted, its policy and script; and the stream of server-sent events
/// its script follows, when it follows one.
struct ViewerChrome {
    var policy = ViewerPolicy.meta
    var generator = "oa serve"
    var script = ViewerScript.source
    var viewerStyle = ViewerTemplates.style
    /// `--no-redact`: every page says so.
    var unredacted: Bool
    /// The page's own search, in the search box.
    var query = ""
    /// The address of the server-sent events the page's script follows.
    var live: String?
}

/// The sessions page: a page of the list, newest first, with its filters.
struct SessionsPageView: HTMLTemplateContext {
    static let template = HTMLTemplate.viewerSessions

    var chrome: ViewerChrome
    var title = "Sessions"
    var filter: String
    var desktops: [DesktopOption]
    var rows: [Row]
    var range: String
    var previous: String?
    var next: String?

    struct DesktopOption {
        var name: String
        var selected: Bool
    }

    struct Row {
        var href: String
        var title: String
        var sessionID: String
        var desktop: String
        var state: String
        var firstSeen: String
        var lastActivity: String
        var eventCount: Int64
        var note: String?
    }
}

/// The search page: the query, and its hits with their terms marked.
struct SearchPageView: HTMLTemplateContext {
    static let template = HTMLTemplate.viewerSearch

    var chrome: ViewerChrome
    var title: String
    var hasQuery: Bool
    var error: String?
    var hits: [Hit]
    var summary: String
    /// The same search with more hits, when there are more.
    var more: String?

    struct Hit {
        var href: String
        var title: String
        var sessionID: String
        var kind: String
        var time: String?
        /// The snippet, escaped, with its terms in `mark` elements.
        var snippetHTML: String
    }
}

/// The status page: each desktop, the mirror's counts, the sessions that failed, the outbox.
struct StatusPageView: HTMLTemplateContext {
    static let template = HTMLTemplate.viewerStatus

    var chrome: ViewerChrome
    var title = "Status"
    var mirror: String
    var sessions: Int
    var events: Int
    var desktops: [Desktop]
    var hasDesktops: Bool
    var failed: [Failed]
    var hasFailed: Bool
    var outbox: [Prompt]
    var hasOutbox: Bool

    struct Desktop {
        var name: String
        var bridge: String?
        var gone: String?
        var connection: String
        var cursor: Int64
        var sessions: Int
        var lastSync: String
        var lastError: String?
    }

    struct Failed {
        var href: String
        var sessionID: String
        var error: String
        var at: String
        var retry: String
    }

    struct Prompt {
        var id: Int64
        var href: String
        var sessionID: String
        var state: String
        var text: String
        var attempts: Int
        var lastError: String?
        var createdAt: String
    }
}

/// The secrets page: what the detector found, by fingerprint, never the secret.
struct SecretsPageView: HTMLTemplateContext {
    static let template = HTMLTemplate.viewerSecrets

    var chrome: ViewerChrome
    var title = "Secrets"
    var secrets: [Secret]
    var hasSecrets: Bool

    struct Secret {
        var kind: String
        var fingerprint: String
        var firstSeen: String
        var lastSeen: String
        var occurrences: [Place]
        var exportNote: String
    }

    struct Place {
        var href: String
        var sessionID: String
        var ordinal: Int64
    }
}

/// A page that only says something: not found, a bad request, a failure, the sign-in form.
struct MessagePageView: HTMLTemplateContext {
    static let template = HTMLTemplate.viewerMessage

    var chrome: ViewerChrome
    var title: String
    var message: String
    var signIn: Bool
}

/// Entries alone, as the script inserts them: a part of a session, with the links to the parts
/// before and after it.
struct EntriesFragmentView: HTMLTemplateContext {
    static let template = HTMLTemplate.viewerEntries

    var entries: [SessionPageView.EntryView]
    var viewer: SessionPageView.Viewer
}
