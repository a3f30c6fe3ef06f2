import Bridge
import Foundation

/// Who may read the viewer when it listens beyond loopback: whoever signs in with the token
/// (read from a file, never from argv or a URL), which is exchanged once for a cookie that is
/// `HttpOnly`, `Secure` and `SameSite=Strict`. Both are compared in constant time
/// (`BridgeToken.matches`); neither is ever logged.
struct ViewerAccess: Sendable {
    /// The name of the cookie.
    static let cookieName = "oa_viewer"

    private let token: BridgeToken
    /// A random value made at start, the cookie's: the token itself never sits in a browser's
    /// cookie jar, and a restart signs every browser out.
    private let cookieValue: String
    private let cookie: BridgeToken

    init(token: BridgeToken) {
        self.token = token
        var generator = SystemRandomNumberGenerator()
        let value = (0..<4).map { _ in String(generator.next() as UInt64, radix: 16) }.joined()
        cookieValue = value
        // Hexadecimal digits: always a valid token.
        cookie = BridgeToken(value) ?? token
    }

    /// Whether `candidate` is the token.
    func isToken(_ candidate: String) -> Bool {
        token.matches(candidate)
    }

    /// Whether the `Cookie` header `header` holds the sign-in cookie.
    func isSignedIn(cookieHeader header: String?) -> Bool {
        guard let header else { return false }
        return header.split(separator: ";").contains { pair in
            let parts = pair.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
            return parts.count == 2 && parts[0] == Self.cookieName && cookie.matches(String(parts[1]))
        }
    }

    /// The `Set-Cookie` value that signs a browser in.
    var setCookie: String {
        "\(Self.cookieName)=\(cookieValue); Path=/; HttpOnly; Secure; SameSite=Strict"
    }
}
