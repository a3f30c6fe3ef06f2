/// The file names `export --all` gives sessions: `openagents-<first 8 of the id>.md` (`.html`,
/// `.jsonl` for the other formats), longer where ids share their first 8 characters.
///
/// The rule, with case ignored throughout (a file system may ignore it):
/// 1. The sessions are taken in the order of their full ids (byte order, as SQLite sorts them).
/// 2. A session whose first 8 characters no session before it took as its name keeps them: so the first of
///    ids that share their first 8 characters, and every id that shares them with none.
/// 3. Each of the others gets the shortest of its first 12, 16, 20, … characters that no other
///    session's id starts with, or else its full id: a prefix that names it alone (`show` takes it).
/// 4. A name still taken (ids equal but for case, or an id as short as another's name: not seen in
///    practice, ids are UUIDs) gets `-2`, `-3`, … after the full id.
///
/// The names depend on the set of ids only, not on what was exported before: the same mirror
/// gives the same names on every run. A new session that sorts before another with the same first
/// 8 characters takes their name, and the other moves to a longer one. A `/` or a NUL in an id
/// becomes `_`.
enum ExportFileNames {
    /// Each id with its file name (ending `.<fileExtension>`), in the order of the ids.
    static func assign(_ sessionIDs: [String], fileExtension: String = "md") -> [(sessionID: String, fileName: String)] {
        let ids = sessionIDs.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        let safe = ids.map { id in String(id.map { $0 == "/" || $0 == "\0" ? "_" : $0 }) }
        let shared = sharedPrefixLengths(safe)
        var taken = Set<String>()
        return ids.indices.map { index in
            let id = safe[index]
            var stem = String(id.prefix(8))
            if taken.contains(stem.lowercased()) {
                let length = stride(from: 12, to: id.count, by: 4).first { $0 > shared[index] } ?? id.count
                stem = String(id.prefix(length))
            }
            if taken.contains(stem.lowercased()) {
                stem = (2...).lazy.map { "\(id)-\($0)" }.first { !taken.contains($0.lowercased()) } ?? id
            }
            taken.insert(stem.lowercased())
            return (ids[index], "openagents-\(stem).\(fileExtension)")
        }
    }

    /// For each id, the most characters it shares, at its start and ignoring case, with any other
    /// id: a prefix longer than that is its alone.
    private static func sharedPrefixLengths(_ ids: [String]) -> [Int] {
        let folded = ids.map { id in id.map { $0.lowercased() } }
        let keys = folded.map { $0.joined() }
        let order = keys.indices.sorted { keys[$0].utf8.lexicographicallyPrecedes(keys[$1].utf8) }
        var shared = Array(repeating: 0, count: ids.count)
        for (left, right) in zip(order, order.dropFirst()) {
            let common = zip(folded[left], folded[right]).prefix { $0 == $1 }.count
            shared[left] = max(shared[left], common)
            shared[right] = max(shared[right], common)
        }
        return shared
    }
}
