import Commands
import Hummingbird

/// Signing a browser in when the viewer listens beyond loopback: `POST /sign-in` with the token
/// in a form's body (never in a URL) answers with the cookie and sends the browser to the
/// sessions; a wrong token gets the form again, after a pause that makes guessing slow.
enum SignIn {
    /// The form, with `status` (401 until signed in).
    static func page(status: HTTPResponse.Status, unredacted: Bool, wrong: Bool = false) -> Response {
        let message = wrong ? "That is not the token. Give the token of this viewer (the file named by --token-file)."
            : "This viewer asks for its token (the file named by --token-file) once; the browser then keeps a cookie."
        guard let html = try? ViewerPages.message(title: "Sign in", message: message, signIn: true, unredacted: unredacted) else {
            return ViewerResponses.text("Sign in: \(message)", status: status)
        }
        return ViewerResponses.html(html, status: status)
    }

    /// Answers `POST /sign-in`.
    static func answer(_ request: Request, access: ViewerAccess?, unredacted: Bool) async throws -> Response {
        guard let access else { return Response(status: .seeOther, headers: [.location: "/"]) }
        var request = request
        let body = try await request.collectBody(upTo: 4_096)
        let form = FormValues(String(buffer: body))
        guard let token = form["token"], access.isToken(token) else {
            try await Task.sleep(for: .milliseconds(500))
            return page(status: .unauthorized, unredacted: unredacted, wrong: true)
        }
        return Response(status: .seeOther, headers: [.location: "/", .setCookie: access.setCookie])
    }
}
