import Commands
import HTTPTypes
import Hummingbird

/// The headers every answer of the viewer carries, and the pages it answers with.
enum ViewerResponses {
    /// No framing, no sniffing, no referrer, no caching of what may hold a session; and no CORS
    /// header at all: another site's page cannot read an answer.
    static func secured(_ response: Response) -> Response {
        var response = response
        response.headers[.contentSecurityPolicy] = ViewerPolicy.header
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[.cacheControl] = "no-store"
        for (name, value) in extraHeaders { response.headers[name] = value }
        return response
    }

    private static let extraHeaders: [(HTTPField.Name, String)] = [
        ("Referrer-Policy", "no-referrer"), ("X-Frame-Options", "DENY"),
        ("Cross-Origin-Opener-Policy", "same-origin"), ("Cross-Origin-Resource-Policy", "same-origin"),
    ].compactMap { name, value in HTTPField.Name(name).map { ($0, value) } }

    /// An HTML page.
    static func html(_ html: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: [.contentType: "text/html; charset=utf-8"], body: ResponseBody(byteBuffer: ByteBuffer(string: html)))
    }

    /// Plain text: the answer to a request refused before any page (a foreign `Host`).
    static func text(_ text: String, status: HTTPResponse.Status) -> Response {
        Response(status: status, headers: [.contentType: "text/plain; charset=utf-8"], body: ResponseBody(byteBuffer: ByteBuffer(string: text + "\n")))
    }

    /// A page that says what went wrong, with the status that says it to a program.
    static func message(_ title: String, _ message: String, status: HTTPResponse.Status, unredacted: Bool) -> Response {
        guard let page = try? ViewerPages.message(title: title, message: message, unredacted: unredacted) else {
            return text("\(title): \(message)", status: status)
        }
        return html(page, status: status)
    }

    /// The page of a command error: an unknown session is 404, a bad request 400, a mirror that
    /// cannot be read 503; anything else 500. The message names no secret (the command layer's
    /// errors never hold one).
    static func failure(_ error: CommandError, unredacted: Bool) -> Response {
        switch error {
        case .unknownSession(let id):
            message("Not found", "No session \(id) in this mirror.", status: .notFound, unredacted: unredacted)
        case .badArguments(let problem), .invalidRequest(let problem):
            message("Bad request", problem, status: .badRequest, unredacted: unredacted)
        case .mirror, .sqlite, .mirrorLocked, .store:
            message("The mirror cannot be read", error.description, status: .serviceUnavailable, unredacted: unredacted)
        default:
            message("Failure", error.description, status: .internalServerError, unredacted: unredacted)
        }
    }
}
