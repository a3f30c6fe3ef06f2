import Foundation
import NIOSSL
@testable import ReplProgram
import Testing
import TestSupport
import ToolSupport

/// What stands before every route, over raw sockets to the real server: a foreign `Host` gets 421
/// on every path, whatever a proxy's headers claim; every answer carries the policy headers and
/// no CORS header; beyond loopback's trust, a token signs a browser in for a cookie.
@Suite("the web viewer's guard, over raw sockets", .serialized)
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

    @Test("served with TLS: a browser speaking HTTPS gets the sign-in page; plain HTTP gets no page")
    func tls() async throws {
        let mirror = try ViewerFixture(canary: 9)
        let directory = try TemporaryDirectory()
        let certificate = directory.path("viewer.pem"), key = directory.path("viewer-key.pem")
        let made = try await ProgramRun.run(URL(fileURLWithPath: "/usr/bin/openssl"), [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
            "-subj", "/CN=127.0.0.1", "-keyout", key, "-out", certificate,
        ])
        try #require(made.status == 0, "openssl could not make a certificate: \(made.standardError)")
        let tls = TLSConfiguration.makeServerConfiguration(certificateChain: try NIOSSLCertificate.fromPEMFile(certificate).map { .certificate($0) },
                                                           privateKey: .privateKey(try NIOSSLPrivateKey(file: key, format: .pem)))
        try await RunningViewer.with(mirror: mirror.path, token: "tls-token-\(UUID().uuidString)", tls: tls) { viewer in
            #expect(viewer.url.hasPrefix("https://127.0.0.1:"))
            let request = "GET /status HTTP/1.1\r\nHost: 127.0.0.1:\(viewer.port)\r\nConnection: close\r\n\r\n"
            let answer = try await ProgramRun.run(URL(fileURLWithPath: "/usr/bin/openssl"),
                                                  ["s_client", "-connect", "127.0.0.1:\(viewer.port)", "-quiet"],
                                                  input: Data(request.utf8), timeout: .seconds(60))
            #expect(answer.standardOutput.hasPrefix("HTTP/1.1 401"), "\(answer.standardOutput.prefix(300)) \(answer.standardError.suffix(300))")
            #expect(answer.standardOutput.contains(#"action="/sign-in""#) && !answer.standardOutput.contains("Mirror <code>"))
            let plain = try? await viewer.get("/status")
            #expect(plain.map { !$0.body.contains("<html") } ?? true, "no page over plain HTTP")
        }
    }

    @Test("oa-repl serve refuses to listen beyond loopback without TLS and a token file (64), and a bad port")
    func listenBeyondLoopback() throws {
        for arguments in [["--listen", "0.0.0.0"], ["--listen", "192.168.1.5", "--token-file", "/dev/null"],
                          ["--listen", "0.0.0.0", "--tls-cert", "c.pem", "--tls-key", "k.pem"], ["--tls-cert", "c.pem"], ["--port", "70000"]] {
            #expect(throws: (any Error).self, "\(arguments)") { try ServeCommand.parse(arguments) }
        }
        for arguments in [[], ["--listen", "127.0.0.1"], ["--listen", "::1", "--port", "0"], ["--listen", "localhost"],
                          ["--listen", "0.0.0.0", "--tls-cert", "c.pem", "--tls-key", "k.pem", "--token-file", "t"]] {
            #expect(throws: Never.self, "\(arguments)") { _ = try ServeCommand.parse(arguments) }
        }
    }
}
