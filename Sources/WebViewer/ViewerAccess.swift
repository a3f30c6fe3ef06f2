import Bridge
import Crypto
import Foundation

/// Who may read the viewer when it listens beyond loopback: whoever signs in with the token
/// (read from a file, never from argv or a URL), which is exchanged once for a cookie that is
/// `HttpOnly`, `Secure` and `SameSite=Strict`. Both are compared in constant time; neither is
/// ever logged.
struct ViewerAccess: Sendable {
    /// The name of the cookie.
    static let cookieName = "oa_viewer"

    private let token: BridgeToken
    /// A random value made at start: the cookie's, so that the token itself never sits in a
    /// browser's cookie jar, and a restart signs every browser out.
    private let cookieValue: String

    init(token: BridgeToken) {
        self.token = token
        var generator = SystemRandomNumberGenerator()
        cookieValue = (0..<4).map { _ in String(generator.next() as UInt64, radix: 16) }.joined()
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
            return parts.count == 2 && parts[0] == Self.cookieName && Self.constantTimeEqual(Array(parts[1].utf8), Array(cookieValue.utf8))
        }
    }

    /// The `Set-Cookie` value that signs a browser in.
    var setCookie: String {
        "\(Self.cookieName)=\(cookieValue); Path=/; HttpOnly; Secure; SameSite=Strict"
    }

    /// Equal bytes, in a time that depends on their lengths only.
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        // Hashing both first makes the comparison independent of where they differ and of the
        // token's length.
        let left = Array(SHA256.hash(data: a)), right = Array(SHA256.hash(data: b))
        var difference: UInt8 = 0
        for index in left.indices { difference |= left[index] ^ right[index] }
        return difference == 0
    }
}
