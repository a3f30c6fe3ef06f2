import Bridge
import Foundation
import Logging
import NIOSSL
import Primitives
import TestSupport
import WebViewer

/// The web viewer served in this process on 127.0.0.1 and a port the system picks, for the
/// length of `body`: the real server, reached over loopback by raw sockets or a browser.
struct RunningViewer {
    let url: String
    let port: Int

    struct NotReady: Error, CustomStringConvertible {
        var description: String
    }

    static func with<T>(mirror: String, redacts: Bool = true, token: String? = nil, tls: TLSConfiguration? = nil,
                        _ body: (RunningViewer) async throws -> T) async throws -> T {
        var configuration = ViewerServer.Configuration(mirrorPath: mirror, port: 0, redacts: redacts)
        configuration.token = token.flatMap(BridgeToken.init)
        configuration.tls = tls
        let server = ViewerServer(configuration: configuration, logger: Logger(label: "viewer-test"))
        let ready = OneShot<String>()
        let failed = OneShot<String>()
        let task = Task {
            do {
                try await server.run { ready.settle($0) }
            } catch {
                failed.settle("\(error)")
            }
            failed.settle("the server stopped")
        }
        defer { task.cancel() }
        // Generous: in a parallel run the pool may be busy with other tests' fixtures for a while.
        guard let url = await ready.value(within: .seconds(90)) else {
            throw NotReady(description: "the viewer did not listen within 90 s: \(await failed.value(within: .seconds(1)) ?? "")")
        }
        let viewer = RunningViewer(url: url, port: Int(url.split(separator: ":").last?.filter(\.isNumber) ?? "") ?? 0)
        let result = try await body(viewer)
        task.cancel()
        guard await failed.value(within: .seconds(30)) != nil else { throw NotReady(description: "the viewer did not stop within 30 s") }
        return result
    }

    /// `GET path` with the viewer's own `Host`.
    func get(_ path: String, headers: [(String, String)] = []) async throws -> RawHTTP.Answer {
        try await RawHTTP.request(port: port, path: path, host: "127.0.0.1:\(port)", headers: headers)
    }
}
