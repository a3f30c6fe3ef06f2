import Crypto
import Foundation
import Mustache

/// The HTML export's Mustache templates, its style sheet, and the Content-Security-Policy every
/// page carries: nothing may be fetched (no image, font, frame or connection), styles are inline,
/// and the one script allowed is the index's filter, by its SHA-256 hash.
///
/// `{{name}}` is HTML-escaped by Mustache; `{{{html}}}` is used only for what cmark-gfm rendered
/// safely (`CommonMark.html`).
enum HTMLTemplates {
    /// The policy of a session's pages: no script at all.
    static let pagePolicy = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"

    /// The policy of the index: the page's policy, and exactly the filter's script.
    static let indexPolicy = pagePolicy + "; script-src '\(scriptHash(filterScript))'"

    /// `sha256-<base64>` of `script` (or of a style sheet), as a CSP source.
    static func scriptHash(_ script: String) -> String {
        "sha256-" + Data(SHA256.hash(data: Data(script.utf8))).base64EncodedString()
    }

    /// The index's filter: rows whose title does not contain what is typed are hidden. It marks
    /// the document (`data-filter="ready"`) when it runs, which the tests read.
    static let filterScript = """

        const box = document.getElementById("filter");
        box.hidden = false;
        box.addEventListener("input", () => {
          const wanted = box.value.toLowerCase();
          for (const row of document.querySelectorAll("tbody tr")) row.hidden = !row.dataset.title.includes(wanted);
        });
        document.documentElement.dataset.filter = "ready";

        """

    static let library: MustacheLibrary = {
        var library = MustacheLibrary()
        do {
            try library.registerHTML(head, named: "head")
            try library.registerHTML(session, named: HTMLTemplate.session.rawValue)
            try library.registerHTML(index, named: HTMLTemplate.index.rawValue)
            try library.registerHTML(entries, named: "entries")
            try ViewerTemplates.register(in: &library)
        } catch {
            preconditionFailure("an HTML export template does not parse: \(error)")
        }
        return library
    }()

    /// Renders `view` with its template.
    ///
    /// - Throws: `CommandError.internalError` when the library has no such template: a page
    ///   rendered empty would be written as if it were the session.
    static func render<View: HTMLTemplateContext>(_ view: View) throws(CommandError) -> String {
        guard let html = library.render(TemplateFields(view), withTemplate: View.template.rawValue) else {
            throw .internalError("the HTML template \(View.template.rawValue) is missing")
        }
        return html
    }

    /// The entries of a session's page, one `section` each.
    private static let entries = """
        {{#entries}}
        <section id="{{anchor}}" class="entry {{kind}}">
        <div class="meta"><span class="role">{{label}}</span>{{#time}} <time>{{time}}</time>{{/time}} <a class="anchor" href="#{{anchor}}">#</a></div>
        {{#isMessage}}<div class="markdown">{{{html}}}</div>{{/isMessage}}
        {{#isThinking}}<details><summary>Thinking</summary><div class="markdown">{{{html}}}</div></details>{{/isThinking}}
        {{#plan}}<ul class="plan">{{#items}}<li class="{{status}}"><input type="checkbox" disabled{{#done}} checked{{/done}}> {{content}}{{#details}} <em>({{details}})</em>{{/details}}</li>{{/items}}</ul>{{/plan}}
        {{#tool}}<details class="tool"><summary>Tool call <code>{{name}}</code> <span class="call">{{callID}}</span>{{#status}} <span class="status {{status}}">{{status}}</span>{{/status}}</summary>
        {{#blocks}}<div class="block"><div class="label">{{label}}</div>{{#folded}}<details><summary>{{label}}: {{size}}</summary><pre lang="{{language}}"><code>{{text}}</code></pre></details>{{/folded}}{{^folded}}<pre lang="{{language}}"><code>{{text}}</code></pre>{{/folded}}</div>{{/blocks}}
        </details>{{/tool}}
        {{#note}}<p class="note">{{note}}</p>{{/note}}
        {{#raw}}<details class="other"><summary>The update as it came</summary><pre lang="json"><code>{{raw}}</code></pre></details>{{/raw}}
        </section>
        {{/entries}}
        """

    private static let head = """
        <meta charset="utf-8">
        <meta http-equiv="Content-Security-Policy" content="{{policy}}">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="generator" content="{{generator}}">
        <style>\(style)</style>
        {{#viewerStyle}}<style>{{{viewerStyle}}}</style>{{/viewerStyle}}
        """

    private static let pageLinks = """
        {{#hasPages}}<nav class="pages">Page {{pageNumber}} of {{pageCount}}:
        {{#previous}}<a rel="prev" href="{{href}}">previous</a>{{/previous}}
        {{#pages}}{{#current}}<strong>{{number}}</strong>{{/current}}{{^current}}<a href="{{href}}">{{number}}</a>{{/current}} {{/pages}}
        {{#next}}<a rel="next" href="{{href}}">next</a>{{/next}}</nav>{{/hasPages}}
        """

    private static let session = """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        {{> head}}
        <title>{{title}}</title>
        </head>
        <body{{#viewer}} data-base="{{base}}"{{#chrome}}{{#live}} data-live="{{live}}"{{/live}}{{/chrome}}{{/viewer}}>
        {{#viewer}}{{#chrome}}{{> viewerNav}}{{/chrome}}{{/viewer}}
        <header>
        <h1>{{title}}</h1>
        <dl class="facts">
        <dt>Session</dt><dd><code>{{sessionID}}</code></dd>
        <dt>Desktop</dt><dd>{{desktop}}</dd>
        {{#mode}}<dt>Mode</dt><dd>{{mode}}</dd>{{/mode}}
        {{#firstActivity}}<dt>First activity</dt><dd><time>{{firstActivity}}</time></dd>{{/firstActivity}}
        {{#lastActivity}}<dt>Last activity</dt><dd><time>{{lastActivity}}</time></dd>{{/lastActivity}}
        <dt>Events</dt><dd>{{eventCount}}</dd>
        </dl>
        {{#notice}}<p class="notice">{{notice}}</p>{{/notice}}
        \(pageLinks)
        </header>
        <main>
        {{#viewer}}{{#earlier}}<p class="more"><a class="more earlier" href="{{href}}" data-fragment="{{fragment}}">Earlier in this session</a></p>{{/earlier}}{{/viewer}}
        {{> entries}}
        {{#viewer}}{{#later}}<p class="more"><a class="more later" href="{{href}}" data-fragment="{{fragment}}">Later in this session</a></p>{{/later}}{{/viewer}}
        </main>
        {{^viewer}}
        <footer>
        \(pageLinks)
        <p><a href="index.html">All sessions</a> (when exported with <code>export --all --html</code>)</p>
        </footer>
        {{/viewer}}
        {{#viewer}}{{#chrome}}<script>{{{script}}}</script>{{/chrome}}{{/viewer}}
        </body>
        </html>

        """

    private static let index = """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        {{> head}}
        <title>OpenAgents sessions</title>
        </head>
        <body>
        <header>
        <h1>OpenAgents sessions</h1>
        <p>{{sessionCount}} {{sessionNoun}} from {{desktop}}, newest first.</p>
        <input id="filter" type="search" placeholder="Filter by title" aria-label="Filter by title" hidden>
        </header>
        <main>
        <table class="index">
        <thead><tr><th>Title</th><th>Desktop</th><th>First activity</th><th>Last activity</th><th>Messages</th><th>Events</th><th>Pages</th></tr></thead>
        <tbody>
        {{#rows}}
        <tr data-title="{{filterText}}"><td><a href="{{href}}">{{title}}</a>{{#notice}} <em class="notice">{{notice}}</em>{{/notice}}<br><code>{{sessionID}}</code></td><td>{{desktop}}</td><td><time>{{firstActivity}}</time></td><td><time>{{lastActivity}}</time></td><td>{{messageCount}}</td><td>{{eventCount}}</td><td>{{pageCount}}</td></tr>
        {{/rows}}
        </tbody>
        </table>
        </main>
        <script>{{{script}}}</script>
        </body>
        </html>

        """

    /// The style sheet of every page, exported or served.
    static let style = """

        :root { color-scheme: light dark; --fg: #1f2328; --bg: #ffffff; --muted: #59636e; --line: #d1d9e0; --code: #f6f8fa;
                --user: #ddf4ff; --assistant: #ffffff; --accent: #0969da; }
        @media (prefers-color-scheme: dark) {
          :root { --fg: #e6edf3; --bg: #0d1117; --muted: #9198a1; --line: #3d444d; --code: #151b23;
                  --user: #0c2d4a; --assistant: #0d1117; --accent: #4493f8; }
        }
        body { font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg);
               max-width: 60rem; margin: 0 auto; padding: 1rem; }
        a { color: var(--accent); }
        h1 { font-size: 1.5rem; }
        .facts { display: grid; grid-template-columns: max-content 1fr; gap: 0 1rem; color: var(--muted); }
        .facts dd { margin: 0; }
        .notice { color: var(--muted); font-style: italic; }
        .entry { border: 1px solid var(--line); border-radius: 6px; padding: .5rem 1rem; margin: .75rem 0; background: var(--assistant); }
        .entry.user { background: var(--user); }
        .entry.mode, .entry.commands { border-style: dashed; }
        .meta { color: var(--muted); font-size: .85rem; }
        .role { font-weight: 600; color: var(--fg); }
        .anchor { text-decoration: none; opacity: .4; }
        pre, code { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: .9em; }
        pre { background: var(--code); border: 1px solid var(--line); border-radius: 6px; padding: .5rem .75rem; overflow-x: auto; }
        pre[lang]:not([lang=""])::before { content: attr(lang); display: block; color: var(--muted); font-size: .75rem; margin-bottom: .25rem; }
        :not(pre) > code { background: var(--code); padding: 0 .25em; border-radius: 4px; }
        details > summary { cursor: pointer; color: var(--muted); }
        .status.completed { color: #1a7f37; } .status.error, .status.failed { color: #cf222e; }
        .call { color: var(--muted); font-size: .8rem; }
        .label { color: var(--muted); font-size: .8rem; margin-top: .5rem; }
        table { border-collapse: collapse; } th, td { border: 1px solid var(--line); padding: .25rem .5rem; text-align: left; vertical-align: top; }
        .plan { list-style: none; padding-left: 0; }
        .pages { margin: .5rem 0; }
        #filter { width: 100%; font-size: 1rem; padding: .4rem; margin-bottom: .5rem; box-sizing: border-box; }

        """
}

/// The templates of the HTML export, one per kind of page.
enum HTMLTemplate: String, CaseIterable {
    case session
    case index
    case viewerSessions
    case viewerSearch
    case viewerStatus
    case viewerSecrets
    case viewerMessage
    case viewerEntries
}

/// What a template reads (Mustache reads the values by their property names): each kind of view
/// names its template, so that a view is rendered with the template written for it.
protocol HTMLTemplateContext {
    static var template: HTMLTemplate { get }
}

