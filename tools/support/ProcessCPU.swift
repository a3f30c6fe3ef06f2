import Foundation

/// A process's CPU time, from `/proc/PID/stat` (Linux).
public enum ProcessCPU {
    /// The CPU time (user and system) process `pid` has used so far, in seconds; nil if unreadable.
    public static func seconds(of pid: Int32) -> Double? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let end = stat.lastIndex(of: ")") else { return nil }
        // The fields after the command's name, which may hold spaces: state is the 3rd, utime the 14th.
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}
