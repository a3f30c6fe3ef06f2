import Commands
import Hummingbird

/// The viewer's routes, every one a GET but the sign-in: the pages, the parts of a session the
/// script inserts, and the server-sent events of the live updates.
enum ViewerRoutes {
    static func add<Context: RequestContext>(to router: Router<Context>, mirror: ViewerMirror, hub: LiveHub, access: ViewerAccess?) {
        let unredacted = mirror.unredacted
        router.get("/") { request, _ in
            let query = FormValues(request.uri.query)
            let number = Int(query.integer("page", in: 1...1_000_000) ?? 1)
            let desktop = query["desktop"].flatMap { $0.isEmpty ? nil : $0 }
            return try await page(unredacted) { () throws(CommandError) in
                try await mirror.sessionsPage(page: number, title: query["title"] ?? "", desktop: desktop)
            }
        }
        router.get("/sessions/:id") { request, context in
            let (id, position) = try session(request, context)
            return try await page(unredacted) { () throws(CommandError) in try await mirror.sessionPage(id, at: position, fragment: false) }
        }
        router.get("/sessions/:id/entries") { request, context in
            let (id, position) = try session(request, context)
            return try await page(unredacted) { () throws(CommandError) in try await mirror.sessionPage(id, at: position, fragment: true) }
        }
        router.get("/search") { request, _ in
            let form = FormValues(request.uri.query)
            let query = form["q"] ?? ""
            let limit = Int(form.integer("limit", in: 1...Int64(ViewerPages.searchLimits.upperBound)) ?? Int64(ViewerPages.searchLimits.lowerBound))
            return try await page(unredacted) { () throws(CommandError) in try await mirror.searchPage(query: query, limit: limit) }
        }
        router.get("/status") { _, _ in
            try await page(unredacted) { () throws(CommandError) in try await mirror.statusPage() }
        }
        router.get("/secrets") { _, _ in
            try await page(unredacted) { () throws(CommandError) in try await mirror.secretsPage() }
        }
        router.get("/live") { request, _ in
            let session = FormValues(request.uri.query)["session"]
            guard let stream = await hub.subscribe(session: session) else {
                return ViewerResponses.text("Too many live pages are open: this one shows what it has, without live updates.",
                                            status: .serviceUnavailable)
            }
            return ServerSentEvents.response(stream)
        }
        router.get("/sign-in") { _, _ in
            access == nil ? Response(status: .seeOther, headers: [.location: "/"]) : SignIn.page(status: .ok, unredacted: unredacted)
        }
        router.post("/sign-in") { request, _ in
            try await SignIn.answer(request, access: access, unredacted: unredacted)
        }
        router.get("/favicon.ico") { _, _ in Response(status: .noContent) }
    }

    /// A page made by `make`, or the page of its failure.
    private static func page(_ unredacted: Bool, _ make: () async throws(CommandError) -> String) async throws -> Response {
        do {
            return ViewerResponses.html(try await make())
        } catch {
            return ViewerResponses.failure(error, unredacted: unredacted)
        }
    }

    /// The session a path names and where its page opens (`from`, `at` or `before` an ordinal).
    private static func session<Context: RequestContext>(_ request: Request, _ context: Context) throws -> (String, ViewerMirror.Position) {
        guard let raw = context.parameters.get("id"), let id = raw.removingPercentEncoding, !id.isEmpty else {
            throw HTTPError(.notFound, message: "There is no such session here.")
        }
        let query = FormValues(request.uri.query)
        let ordinals = Int64(0)...Int64.max
        if let before = query.integer("before", in: ordinals) { return (id, .before(before)) }
        if let at = query.integer("at", in: ordinals) { return (id, .at(at)) }
        return (id, .from(query.integer("from", in: ordinals) ?? 0))
    }
}
