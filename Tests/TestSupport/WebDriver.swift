import Foundation
import ToolSupport

/// Debian's headless Chromium driven through `chromedriver` (W3C WebDriver, on 127.0.0.1): a page
/// stays open while the test changes what it shows, and the test reads it with scripts of its
/// own (`string`), types in it (`type`), and follows its links. Every call is bounded.
public final class WebDriver {
    private let process: Process
    private let end: ProcessEnd
    private let port: Int
    private let session: String

    public struct Failed: Error, CustomStringConvertible {
        public var description: String
    }

    private init(process: Process, end: ProcessEnd, port: Int, session: String) {
        self.process = process
        self.end = end
        self.port = port
        self.session = session
    }

    /// Starts chromedriver and a browser in a profile of `profile`'s, with a window of `width` × `height`.
    public static func start(profile: TemporaryDirectory, width: Int = 1100, height: Int = 900) async throws -> WebDriver {
        let driver = "/usr/bin/chromedriver"
        guard FileManager.default.isExecutableFile(atPath: driver) else {
            throw Failed(description: "chromedriver is not installed (/usr/bin/chromedriver): run tools/scripts/install-deps")
        }
        ProgramGate.checkPlaceHeld(toStart: "chromedriver")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: driver)
        process.arguments = ["--port=0", "--log-path=\(profile.path("chromedriver.log"))"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let end = ProcessEnd(watching: process)
        let reader = OutputLineReader(descriptor: output.fileHandleForReading.fileDescriptor)
        let deadline = ContinuousClock.now + .seconds(30)
        var port: Int?
        while port == nil {
            let line = try await reader.nextLine(before: deadline, program: "chromedriver", isRunning: { process.isRunning })
            // "ChromeDriver was started successfully on port N." (the line before names the port asked for, 0).
            if let range = line.range(of: #"successfully on port \d+"#, options: .regularExpression) {
                port = Int(line[range].dropFirst("successfully on port ".count))
            }
        }
        let driverPort = port ?? 0
        let capabilities: [String: Any] = ["capabilities": ["alwaysMatch": [
            "goog:chromeOptions": ["binary": "/usr/bin/chromium", "args": Chromium.flags(profile: profile) + ["--window-size=\(width),\(height)"]],
            "goog:loggingPrefs": ["browser": "ALL"],
        ]]]
        let created = try await call(driverPort, "POST", "/session", capabilities)
        guard let value = created["value"] as? [String: Any], let session = value["sessionId"] as? String else {
            kill(process.processIdentifier, SIGKILL)
            throw Failed(description: "chromedriver made no session: \(created)")
        }
        return WebDriver(process: process, end: end, port: driverPort, session: session)
    }

    /// Ends the browser and chromedriver, within a bound.
    public func stop() async {
        _ = try? await Self.call(port, "DELETE", "/session/\(session)", nil)
        kill(process.processIdentifier, SIGTERM)
        if await end.status(within: .seconds(10)) == nil { kill(process.processIdentifier, SIGKILL) }
    }

    deinit {
        if !end.hasEnded { kill(end.processIdentifier, SIGKILL) }
    }

    /// Opens `url` and returns once it has loaded.
    public func open(_ url: String) async throws {
        _ = try await command("POST", "/url", ["url": url])
    }

    /// The page's address now.
    public func currentURL() async throws -> String {
        try await command("GET", "/url", nil)["value"] as? String ?? ""
    }

    /// What `script` (a function body: `return …`) returns in the page, as text.
    public func string(_ script: String) async throws -> String {
        let answer = try await command("POST", "/execute/sync", ["script": script, "args": [String]()])
        if let text = answer["value"] as? String { return text }
        if let number = answer["value"] as? NSNumber { return number.stringValue }
        return answer["value"].map { "\($0)" } ?? ""
    }

    /// Types `text` into the element `selector` finds (`\u{E007}` is Enter).
    public func type(_ text: String, into selector: String) async throws {
        let found = try await command("POST", "/element", ["using": "css selector", "value": selector])
        guard let element = (found["value"] as? [String: Any])?.values.first as? String else { throw Failed(description: "no element \(selector)") }
        _ = try await command("POST", "/element/\(element)/value", ["text": text])
    }

    /// Presses `key` on the page as a person would (`/`, `j`, `\u{E007}`).
    public func press(_ key: String) async throws {
        let actions: [String: Any] = ["actions": [["type": "key", "id": "keyboard", "actions": [["type": "keyDown", "value": key], ["type": "keyUp", "value": key]]]]]
        _ = try await command("POST", "/actions", actions)
    }

    /// The browser's log of the page (console messages, refused loads), as lines.
    public func browserLog() async throws -> [String] {
        let answer = try await command("POST", "/se/log", ["type": "browser"])
        return (answer["value"] as? [[String: Any]] ?? []).map { "\($0["level"] ?? "") \($0["message"] ?? "")" }
    }

    private func command(_ method: String, _ path: String, _ body: [String: Any]?) async throws -> [String: Any] {
        try await Self.call(port, method, "/session/\(session)\(path)", body)
    }

    /// One command to chromedriver on 127.0.0.1:`port`, its answer's JSON.
    private static func call(_ port: Int, _ method: String, _ path: String, _ body: [String: Any]?) async throws -> [String: Any] {
        let text = try body.map { String(decoding: try JSONSerialization.data(withJSONObject: $0), as: UTF8.self) } ?? ""
        let answer = try await RawHTTP.request(port: port, path: path, host: "127.0.0.1:\(port)", method: method,
                                               headers: body == nil ? [] : [("Content-Type", "application/json; charset=utf-8")], body: text,
                                               timeout: .seconds(90))
        let json = (try? JSONSerialization.jsonObject(with: Data(answer.body.utf8))) as? [String: Any] ?? [:]
        guard answer.status == 200 else { throw Failed(description: "\(method) \(path): \(answer.status) \(answer.body.prefix(1_000))") }
        return json
    }
}
