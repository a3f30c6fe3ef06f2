import Mustache

/// The web viewer's own templates (its session page is the export's, `HTMLTemplates`): the
/// sessions, search, status, secrets and message pages, and the entries of a part of a session
/// alone. Every value is escaped by Mustache (`{{name}}`) but the snippets, escaped before their
/// marks are put in (`SearchPageView.Hit.snippetHTML`), and what cmark-gfm rendered safely.
enum ViewerTemplates {
    static func register(in library: inout MustacheLibrary) throws {
        try library.registerHTML(nav, named: "viewerNav")
        try library.registerHTML(page(sessions), named: HTMLTemplate.viewerSessions.rawValue)
        try library.registerHTML(page(search), named: HTMLTemplate.viewerSearch.rawValue)
        try library.registerHTML(page(status), named: HTMLTemplate.viewerStatus.rawValue)
        try library.registerHTML(page(secrets), named: HTMLTemplate.viewerSecrets.rawValue)
        try library.registerHTML(page(message), named: HTMLTemplate.viewerMessage.rawValue)
        try library.registerHTML(entries, named: HTMLTemplate.viewerEntries.rawValue)
    }

    /// A page around `main`: the head every page has, the navigation, the script.
    private static func page(_ main: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        {{#chrome}}{{> head}}{{/chrome}}
        <title>{{title}} · OpenAgents Mirror</title>
        </head>
        <body{{#chrome}}{{#live}} data-live="{{live}}"{{/live}}{{/chrome}}>
        {{#chrome}}{{> viewerNav}}{{/chrome}}
        <main>
        \(main)
        </main>
        {{#chrome}}<script>{{{script}}}</script>{{/chrome}}
        </body>
        </html>

        """
    }

    private static let nav = """
        <nav class="viewer">
        <a href="/">Sessions</a> <a href="/search">Search</a> <a href="/status">Status</a> <a href="/secrets">Secrets</a>
        <form action="/search" method="get" role="search"><input name="q" type="search" value="{{query}}" placeholder="Search (press /)" aria-label="Search the mirror"></form>
        </nav>
        {{#unredacted}}<p class="unredacted">Not redacted (--no-redact): secrets appear as they were received.</p>{{/unredacted}}
        """

    private static let sessions = """
        <h1>Sessions</h1>
        <form class="filters" action="/" method="get">
        <input name="title" type="search" value="{{filter}}" placeholder="Title holds" aria-label="Title holds">
        <select name="desktop" aria-label="Desktop"><option value="">Every desktop</option>{{#desktops}}<option{{#selected}} selected{{/selected}}>{{name}}</option>{{/desktops}}</select>
        <button>Filter</button>
        </form>
        <p>{{range}}</p>
        <table class="index">
        <thead><tr><th>Title</th><th>Desktop</th><th>State</th><th>First seen</th><th>Last activity</th><th>Events</th></tr></thead>
        <tbody data-live-rows>
        {{#rows}}
        <tr data-href="{{href}}"><td><a href="{{href}}">{{title}}</a>{{#note}} <em class="notice">{{note}}</em>{{/note}}<br><code>{{sessionID}}</code></td><td>{{desktop}}</td><td class="state {{state}}">{{state}}</td><td><time>{{firstSeen}}</time></td><td><time>{{lastActivity}}</time></td><td>{{eventCount}}</td></tr>
        {{/rows}}
        </tbody>
        </table>
        <nav class="pages">{{#previous}}<a rel="prev" href="{{previous}}">newer</a> {{/previous}}{{#next}}<a rel="next" href="{{next}}">older</a>{{/next}}</nav>
        """

    private static let search = """
        <h1>{{title}}</h1>
        {{#error}}<p class="error">{{error}}</p>{{/error}}
        {{^hasQuery}}<p>Words find the messages that hold them all (a word cut across chunks included); "a phrase" in quotes; OR, NOT; session:ID, desktop:NAME, since:DATE, until:DATE narrow the search.</p>{{/hasQuery}}
        {{#hasQuery}}<p>{{summary}}</p>{{/hasQuery}}
        <ol class="hits">
        {{#hits}}
        <li class="hit"><a href="{{href}}">{{title}}</a> <span class="call">{{kind}}{{#time}} · <time>{{time}}</time>{{/time}}</span><br><span class="snippet">{{{snippetHTML}}}</span><br><code>{{sessionID}}</code></li>
        {{/hits}}
        </ol>
        {{#more}}<p class="more"><a rel="next" href="{{more}}">More hits</a></p>{{/more}}
        """

    private static let status = """
        <h1>Status</h1>
        <p>Mirror <code>{{mirror}}</code>: {{sessions}} sessions, {{events}} events.</p>
        <h2>Desktops</h2>
        {{^hasDesktops}}<p>No desktop was synced into this mirror yet.</p>{{/hasDesktops}}
        {{#hasDesktops}}<table><thead><tr><th>Desktop</th><th>Connection</th><th>History cursor</th><th>Sessions</th><th>Last sync</th><th>Last error</th></tr></thead><tbody>
        {{#desktops}}<tr><td>{{name}}{{#bridge}}<br><code>{{bridge}}</code>{{/bridge}}{{#gone}}<br><em>{{gone}}</em>{{/gone}}</td><td>{{connection}}</td><td>{{cursor}}</td><td>{{sessions}}</td><td><time>{{lastSync}}</time></td><td>{{lastError}}</td></tr>{{/desktops}}
        </tbody></table>{{/hasDesktops}}
        {{#hasFailed}}<h2>Sessions that could not be mirrored</h2>{{/hasFailed}}
        <ul>{{#failed}}<li><a href="{{href}}"><code>{{sessionID}}</code></a>: {{error}} (at <time>{{at}}</time>, retried after <time>{{retry}}</time>)</li>{{/failed}}</ul>
        <h2>Outbox</h2>
        {{^hasOutbox}}<p>No prompt is queued.</p>{{/hasOutbox}}
        {{#hasOutbox}}<table><thead><tr><th>#</th><th>Session</th><th>State</th><th>Prompt</th><th>Attempts</th><th>Queued</th></tr></thead><tbody>
        {{#outbox}}<tr><td>{{id}}</td><td><a href="{{href}}"><code>{{sessionID}}</code></a></td><td>{{state}}{{#lastError}}<br><em>{{lastError}}</em>{{/lastError}}</td><td>{{text}}</td><td>{{attempts}}</td><td><time>{{createdAt}}</time></td></tr>{{/outbox}}
        </tbody></table>{{/hasOutbox}}
        """

    private static let secrets = """
        <h1>Secrets</h1>
        <p>What the detector found in the mirror, by fingerprint: the secrets themselves are never shown here.</p>
        {{^hasSecrets}}<p>No secret was found.</p>{{/hasSecrets}}
        {{#hasSecrets}}<table><thead><tr><th>Kind</th><th>Fingerprint</th><th>First seen</th><th>Last seen</th><th>Where</th><th>Exports</th></tr></thead><tbody>
        {{#secrets}}<tr><td>{{kind}}</td><td><code>{{fingerprint}}</code></td><td><time>{{firstSeen}}</time></td><td><time>{{lastSeen}}</time></td><td>{{#occurrences}}<a href="{{href}}"><code>{{sessionID}}</code> #{{ordinal}}</a> {{/occurrences}}</td><td>{{exportNote}}</td></tr>{{/secrets}}
        </tbody></table>{{/hasSecrets}}
        """

    private static let message = """
        <h1>{{title}}</h1>
        <p>{{message}}</p>
        {{#signIn}}<form action="/sign-in" method="post"><input name="token" type="password" autocomplete="current-password" aria-label="Token" autofocus> <button>Sign in</button></form>{{/signIn}}
        """

    private static let entries = """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8"><title>Entries</title></head>
        <body><main>
        {{#viewer}}{{#earlier}}<p class="more"><a class="more earlier" href="{{href}}" data-fragment="{{fragment}}">Earlier in this session</a></p>{{/earlier}}{{/viewer}}
        {{> entries}}
        {{#viewer}}{{#later}}<p class="more"><a class="more later" href="{{href}}" data-fragment="{{fragment}}">Later in this session</a></p>{{/later}}{{/viewer}}
        </main></body></html>

        """

    /// The viewer's additions to the style of every page (`HTMLTemplates.style`).
    static let style = """

        nav.viewer { display: flex; flex-wrap: wrap; gap: .75rem; align-items: center; border-bottom: 1px solid var(--line); padding-bottom: .5rem; }
        nav.viewer form { flex: 1; min-width: 12rem; }
        nav.viewer input { width: 100%; font-size: 1rem; padding: .3rem; box-sizing: border-box; }
        .unredacted { background: #cf222e; color: #fff; padding: .25rem .5rem; border-radius: 4px; }
        .filters { display: flex; gap: .5rem; margin-bottom: .5rem; }
        .hits li { margin: .5rem 0; }
        mark { background: #fff8c5; color: #1f2328; }
        .current { outline: 2px solid var(--accent); outline-offset: 2px; }
        .state.failed, .error { color: #cf222e; }
        p.more { text-align: center; }

        """
}
