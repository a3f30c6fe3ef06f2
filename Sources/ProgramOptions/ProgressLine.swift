import Foundation
import Commands
import Primitives
import SyncEngine

/// A single progress line on a terminal's standard error, redrawn in place (`\r`), and erased
/// before anything else is written.
public final class ProgressLine: Sendable {
    /// True when standard error is a terminal: the only time a progress line is drawn.
    public static var isTerminal: Bool { isatty(STDERR_FILENO) == 1 }

    public init() {}

    /// Draws `progress` over the previous line.
    public func show(_ progress: SyncProgress) {
        var text = "syncing: \(progress.sessionsDone)/\(progress.sessionsTotal) sessions, \(progress.events)"
        if let total = progress.eventsTotal, total > 0 {
            text += "/\(total) events (\(min(100, progress.events * 100 / total))%)"
        } else {
            text += " events"
        }
        text += ", \(Int(progress.eventsPerSecond)) events/s"
        draw(text)
    }

    /// Draws a command's `progress` over the previous line, or erases the line after its last report.
    public func show(_ progress: CommandProgress) {
        if progress.finished { clear() } else { draw(progress.text) }
    }

    private func draw(_ text: String) {
        _ = DescriptorWriting.writeText("\r\u{1B}[2K" + text, to: STDERR_FILENO)
    }

    /// Erases the line.
    public func clear() {
        _ = DescriptorWriting.writeText("\r\u{1B}[2K", to: STDERR_FILENO)
    }
}
