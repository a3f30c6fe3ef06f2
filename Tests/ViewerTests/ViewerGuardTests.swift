import Foundation
import Testing
import TestSupport

/// What stands before every route, over raw sockets to the real server: a foreign `Host` gets 421
/// on every path, whatever a proxy's headers claim; every answer carries the policy headers and
/// no CORS header; beyond loopback's trust, a token signs a browser in for a cookie.
@Suite("the web viewer's guard, over raw sockets")
struct ViewerGuardTests {
    /// Every route, static and unknown paths included.
    static let paths = ["/", "/?page=2", "/sessions/\(ViewerFixture.longSessionID)", "/sessions/\(ViewerFixture.longSessionID)/entries?from=10",
                        "/search?q=reader", "/status", "/secrets", "/live", "/live?session=x", "/sign-in", "/favicon.ico",
                        "/static/viewer.css", "/no/such/page"]

    @Test("a foreign Host gets 421 on every route, with no page in it; proxy headers change nothing")
    func misdirected() async throws {
        let mirror = try ViewerFixture(canary: 9)
        try await RunningViewer.with(mirror: mirror.path) { viewer in
            let foreign = ["evil.example", "evil.example:\(viewer.port)", "127.0.0.1:\(viewer.port + 1)", "127.0.0.1.evil.example:\(viewer.port)",
                           "localhost.:\(viewer.port)", "[::2]:\(viewer.port)"]
            for path in Self.paths {
                for host in foreign {
                    for headers in [[], [("X-Forwarded-For", "127.0.0.1"), ("Forwarded", "for=127.0.0.1;host=127.0.0.1:\(viewer.port)"),
                                         ("X-Forwarded-Host", "127.0.0.1:\(viewer.port)")]] {
                        let answer = try await RawHTTP.request(port: viewer.port, path: path, host: host, headers: headers)
                        #expect(answer.status == 421, "\(path) with Host \(host) \(headers): \(answer.status)")
                        #expect(!answer.body.contains("<html") && !answer.body.contains("session"), "\(path): \(answer.body.prefix(200))")
                        #expect(answer.headers["content-security-policy"] != nil)
                    }
                }
                let post = try await RawHTTP.request(port: viewer.port, path: path, host: "evil.example", method: "POST", body: "token=x")
                #expect(post.status == 421, "POST \(path)")
            }
            let noHost = try await RawHTTP.request(port: viewer.port, path: "/", host: nil)
            #expect(noHost.status == 421 || noHost.status == 400, "no Host at all: \(noHost.status)")
            #expect(!noHost.body.contains("Plain session"))
        }
    }

    @Test("every answer of the viewer's own Host carries the policy and no CORS header, an Origin notwithstanding")
    func headers() async throws {
        let mirror = try ViewerFixture(canary: 9)
        try await RunningViewer.with(mirror: mirror.path) { viewer in
            for path in Self.paths where !path.hasPrefix("/live") {
                for host in ["127.0.0.1:\(viewer.port)", "localhost:\(viewer.port)", "LOCALHOST:\(viewer.port)"] {
                    let answer = try await RawHTTP.request(port: viewer.port, path: path, host: host, headers: [("Origin", "https://evil.example")])
                    #expect(answer.status < 500, "\(path): \(answer.status) \(answer.body.prefix(300))")
                    let policy = answer.headers["content-security-policy"] ?? ""
                    #expect(policy.contains("default-src 'none'") && policy.contains("frame-ancestors 'none'") && policy.contains("connect-src 'self'"))
                    #expect(policy.contains("script-src 'sha256-") && !policy.contains("unsafe"), "\(policy)")
                    #expect(answer.headers["x-content-type-options"] == "nosniff")
                    #expect(answer.headers["referrer-policy"] == "no-referrer")
                    #expect(!answer.headerNames.contains { $0.hasPrefix("access-control-") }, "\(path): \(answer.headerNames)")
                }
            }
            #expect(try await viewer.get("/no/such/page").status == 404)
            #expect(try await viewer.get("/sessions/NO-SUCH-SESSION").status == 404)
            #expect(try await viewer.get("/sessions/\(ViewerFixture.longSessionID)?from=-5").status == 200, "a bad ordinal is the start")
        }
    }

    @Test("with a token: every page asks to sign in; a wrong token is refused; the right one gives an HttpOnly, Secure, SameSite=Strict cookie")
    func signIn() async throws {
        let mirror = try ViewerFixture(canary: 9)
        let token = "viewer-token-\(UUID().uuidString)"
        try await RunningViewer.with(mirror: mirror.path, token: token) { viewer in
            for path in ["/", "/status", "/sessions/\(ViewerFixture.longSessionID)", "/search?q=reader"] {
                let answer = try await viewer.get(path)
                #expect(answer.status == 401, "\(path)")
                #expect(answer.body.contains(#"action="/sign-in""#) && !answer.body.contains("Plain session"))
            }
            let host = "127.0.0.1:\(viewer.port)"
            let wrong = try await RawHTTP.request(port: viewer.port, path: "/sign-in", host: host, method: "POST",
                                                  headers: [("Content-Type", "application/x-www-form-urlencoded")], body: "token=guess")
            #expect(wrong.status == 401 && wrong.headers["set-cookie"] == nil)
            let right = try await RawHTTP.request(port: viewer.port, path: "/sign-in", host: host, method: "POST",
                                                  headers: [("Content-Type", "application/x-www-form-urlencoded")],
                                                  body: "token=" + (token.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""))
            #expect(right.status == 303 && right.headers["location"] == "/")
            let cookie = right.headers["set-cookie"] ?? ""
            for attribute in ["HttpOnly", "Secure", "SameSite=Strict", "Path=/"] { #expect(cookie.contains(attribute), "\(cookie)") }
            #expect(!cookie.contains(token), "the cookie is not the token")
            let pair = String(cookie.split(separator: ";")[0])
            let signedIn = try await viewer.get("/", headers: [("Cookie", pair)])
            #expect(signedIn.status == 200 && signedIn.body.contains("Plain session"), "\(signedIn.status) with \(pair)")
            #expect(try await viewer.get("/", headers: [("Cookie", pair + "x")]).status == 401)
            #expect(try await viewer.get("/?token=\(token)").status == 401, "a token in a URL signs nothing in")
        }
    }
}
