import Bridge
import MirrorStore
import ReadModel
import Secrets

/// `secrets`: each distinct secret found in the mirror (its kind and fingerprint, never its
/// value), every session and event where it occurs, first and last seen, and the exports of
/// those sessions: whether it reached one unredacted. The events not yet scanned are scanned
/// first (`SecretScan`). `--check -` reads one value from standard input and says where it has
/// been.
enum SecretsCommand {
    static let secrets = CommandDefinition(
        words: ["secrets"], method: "secrets.list",
        summary: "The secrets found in the mirror (kind and fingerprint, never the value): where each occurs, first and last seen, "
            + "and whether an export the mirror wrote holds it unredacted.",
        parameters: [CommandParameter("session_id", .string, flag: "session", value: "SESSION", "only this session's secrets (its id or any unique prefix)"),
                     CommandParameter("check", .string, value: "-",
                                      "read one value from standard input (never give it as an argument) and say where it has been (not in JSON-lines mode)")],
        example: "secrets --session 5f0c"
    ) { arguments, context in
        let session = try arguments.string("session_id").map { prefix throws(CommandError) in try context.resolveSession(prefix).sessionID }
        var checked: SecretFingerprint?
        if let check = try arguments.string("check") {
            guard check == "-" else { throw CommandError.badArguments("--check (check) takes - and reads the value from standard input: never give a secret as an argument") }
            guard let read = context.readSecret else { throw CommandError.badArguments("--check - reads standard input, which JSON-lines mode uses for requests") }
            guard let value = read(), !value.isEmpty else { throw CommandError.badArguments("--check - read no value from standard input") }
            checked = SecretFingerprint(of: value)
        }
        let detector = try context.secretDetector()
        let views = try context.views()
        let reports = try storeCall { try views.secretsReport(sessionID: session, detector: detector) }
            .filter { checked == nil || $0.fingerprint == checked?.text }
        if let checked, reports.isEmpty {
            return CommandResult(json: ["fingerprint": .string(checked.text), "found": false, "secrets": []],
                                 text: "\(checked): not found in the mirror (a value the detector does not recognise as a secret is not looked for)")
        }
        let json = try storeCall { try JSONValueEncoder().encode(reports) }
        let table = TextTable(headers: ["FINGERPRINT", "KIND", "FIRST SEEN", "LAST SEEN", "EXPORTED", "WHERE (SESSION#ORDINAL)"], rows: reports.map {
            [$0.fingerprint, $0.kind, $0.firstSeen?.iso8601 ?? "-", $0.lastSeen?.iso8601 ?? "-", $0.exportNote,
             $0.occurrences.map { "\(Formatting.short($0.sessionID))#\($0.ordinal)" }.joined(separator: ", ")]
        })
        return CommandResult(json: checked.map { ["fingerprint": .string($0.text), "found": true, "secrets": json] } ?? json, table: table)
    }
}
