import Hummingbird
import Synchronization

/// What stands before every route, static files and unknown paths included: a `Host` other than
/// the one served gets 421 (DNS rebinding); beyond loopback, a browser not signed in gets the
/// sign-in page; and every answer, errors included, carries `ViewerResponses.secured`'s headers.
/// Headers a proxy adds (`X-Forwarded-For`, `Forwarded`) are never read: nothing here trusts
/// where a request says it came from.
struct ViewerGuard<Context: RequestContext>: RouterMiddleware {
    let hosts: BoundHosts
    let access: ViewerAccess?
    let unredacted: Bool

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard hosts.allows(request.head.authority) else {
            return ViewerResponses.secured(ViewerResponses.text(
                "Misdirected request: this viewer answers only requests addressed to it (Host \(hosts.example)).", status: .misdirectedRequest))
        }
        if let access, request.uri.path != "/sign-in", !access.isSignedIn(cookieHeader: request.headers[.cookie]) {
            return ViewerResponses.secured(SignIn.page(status: .unauthorized, unredacted: unredacted))
        }
        do {
            return ViewerResponses.secured(try await next(request, context))
        } catch let error as HTTPError {
            let title = error.status == .notFound ? "Not found" : error.status.reasonPhrase
            return ViewerResponses.secured(ViewerResponses.message(title, error.body ?? "There is no such page here.", status: error.status,
                                                                   unredacted: unredacted))
        } catch {
            return ViewerResponses.secured(ViewerResponses.message("Failure", "The page could not be made.", status: .internalServerError,
                                                                   unredacted: unredacted))
        }
    }
}

/// The allowed hosts once the server has bound its port (0 asks the system for one).
final class BoundHosts: Sendable {
    private let hosts: Mutex<AllowedHosts?> = Mutex(nil)

    func bind(_ allowed: AllowedHosts) {
        hosts.withLock { $0 = allowed }
    }

    func allows(_ host: String?) -> Bool {
        hosts.withLock { $0?.allows(host) ?? false }
    }

    /// `127.0.0.1:PORT`, for the refusal to show.
    var example: String {
        hosts.withLock { hosts in hosts.map { "127.0.0.1:\($0.port)" } ?? "127.0.0.1" }
    }
}
