import Foundation
import Commands
import Logging
import Primitives

/// How log lines are written to standard error.
public enum LogFormat: String, Sendable, CaseIterable {
    /// `2026-11-22T02:06:16.123Z info state state=live url=ws://…` — readable, and journal-friendly.
    case text
    /// One JSON object per line: `{"ts":"…","level":"info","label":"…","message":"…","state":"live"}`.
    case json
    /// For the systemd journal: `<6>info state state=live url=…` — the priority in the prefix
    /// journald reads (`<3>` error … `<7>` debug), no time (the journal adds its own).
    case journal

    /// `journal` when standard error is the systemd journal (`$JOURNAL_STREAM` names its device
    /// and inode, as systemd sets it for a service), else `text`.
    public static func forStandardError(environment: [String: String] = ProcessInfo.processInfo.environment) -> LogFormat {
        guard let stream = environment["JOURNAL_STREAM"] else { return .text }
        var info = stat()
        guard fstat(STDERR_FILENO, &info) == 0 else { return .text }
        return stream == "\(info.st_dev):\(info.st_ino)" ? .journal : .text
    }
}

/// A swift-log handler writing one line per message to standard error, never to standard output
/// (which belongs to results).
public struct StandardErrorLogHandler: LogHandler {
    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]
    private let label: String
    private let format: LogFormat

    public init(label: String, format: LogFormat, level: Logger.Level) {
        self.label = label
        self.format = format
        self.logLevel = level
    }

    /// Makes every logger of the process write this way.
    public static func bootstrap(format: LogFormat, level: Logger.Level) {
        LoggingSystem.bootstrap { label in StandardErrorLogHandler(label: label, format: format, level: level) }
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
        let time = Formatting.iso8601(Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))) ?? ""
        let line: String
        switch format {
        case .text, .journal:
            let fields = merged.sorted { $0.key < $1.key }.map { "\($0.key)=\(Self.quotedIfNeeded("\($0.value)"))" }
            let start = format == .text ? [time] : []
            line = (format == .journal ? "<\(Self.syslogPriority(event.level))>" : "")
                + (start + [event.level.rawValue, event.message.description] + fields).joined(separator: " ")
        case .json:
            var object: [String: String] = ["ts": time, "level": event.level.rawValue, "label": label, "message": event.message.description]
            for (key, value) in merged where object[key] == nil { object[key] = "\(value)" }
            let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
            line = String(decoding: data, as: UTF8.self)
        }
        DescriptorWriting.writeErrorLine(line)
    }

    /// The syslog priority of a level, as journald reads it from a `<N>` prefix.
    private static func syslogPriority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }

    private static func quotedIfNeeded(_ value: String) -> String {
        value.contains(where: { $0 == " " || $0 == "\"" || $0 == "=" }) ? "\"" + value.replacing("\"", with: "\\\"") + "\"" : value
    }
}
