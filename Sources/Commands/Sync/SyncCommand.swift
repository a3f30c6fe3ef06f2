import Bridge
import Logging
import SyncEngine

/// `sync`: one catch-up against the bridge now, with the engine `oa-sync --once` uses.
enum SyncCommand {
    static let sync = CommandDefinition(
        words: ["sync"], method: "sync",
        summary: "Catch up with the bridge now and deliver queued prompts (as oa-sync --once; not while oa-sync runs).",
        parameters: [], example: "sync"
    ) { _, context in
        context.closeStore()
        let lock: MirrorLock
        let report: SyncReport
        do {
            try MirrorLocation.prepareDirectory(for: context.mirrorPath)
            lock = try MirrorLock(mirrorPath: context.mirrorPath)
            // The pin and the token as the front end was given them, else from the environment.
            let engine = try context.launcher.engine(mirrorPath: context.mirrorPath, bridges: [BridgeEntry(parsing: context.bridgeURL)],
                                                     logger: Logger(label: "openagents.sync"))
            do {
                report = try await engine.syncOnce()
            } catch {
                await engine.finish()
                throw error
            }
            await engine.finish()
        } catch {
            throw CommandError.wrapping(error)
        }
        withExtendedLifetime(lock) {}
        let json: JSONValue = [
            "bridge": .string(report.bridgeURL), "history_cursor": .bool(report.historyCursor),
            "events_written": .number(report.eventsWritten), "timelines_fetched": .number(report.timelinesFetched),
            "prompts_sent": .number(report.promptsSent), "prompts_failed": .number(report.promptsFailed),
            "prompts_unconfirmed": .number(report.promptsUnconfirmed),
        ]
        return CommandResult(json: json, text: "synced with \(report.bridgeURL): \(report.eventsWritten) event(s) written, "
                             + "\(report.promptsSent) prompt(s) sent")
    }
}
