import Foundation

/// A process's memory, from `/proc/PID/status` (Linux), in KiB; nil once the process is gone.
public enum ProcessMemory {
    /// Resident set size now (`VmRSS`).
    public static func residentKiB(_ pid: Int32) -> Int? { field("VmRSS", of: pid) }

    /// The highest resident set size so far (`VmHWM`).
    public static func peakResidentKiB(_ pid: Int32) -> Int? { field("VmHWM", of: pid) }

    /// The resident memory that belongs to no file (`RssAnon`: the heaps, stacks and anonymous
    /// maps): what a process's own data costs, apart from the pages of its binary and of the
    /// files it maps, which the system may take back.
    public static func anonymousKiB(_ pid: Int32) -> Int? { field("RssAnon", of: pid) }

    /// The resident pages of mapped files (`RssFile`).
    public static func fileBackedKiB(_ pid: Int32) -> Int? { field("RssFile", of: pid) }

    private static func field(_ name: String, of pid: Int32) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix(name + ":") {
            return line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first.flatMap { Int($0) }
        }
        return nil
    }
}

/// The last lines of a log file, for failure messages.
public func tail(of log: URL, lines: Int = 15) -> String {
    guard let text = try? String(contentsOf: log, encoding: .utf8) else { return "(no log)" }
    return text.split(separator: "\n").suffix(lines).joined(separator: "\n")
}
