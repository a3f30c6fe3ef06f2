import Foundation
import TestSupport
import ToolSupport

/// The option names a program's `--help` lists.
func helpOptions(of program: String) async throws -> Set<String> {
    // `oa-repl serve`: a program's subcommand.
    let words = program.split(separator: " ").map(String.init)
    let help = try await run(words[0], Array(words.dropFirst()) + ["--help"]).output
    let section = help.components(separatedBy: "OPTIONS:").dropFirst().joined()
    return Set(matches(of: #"(?m)^  (?:(-[a-z]), )?(--[a-z][a-z-]*|-[a-z])"#, in: section, allGroups: true))
}

/// The first capture group (or, with `allGroups`, every non-empty group) of each match.
func matches(of pattern: String, in text: String, lines: Bool = false, allGroups: Bool = false) -> [String] {
    let regex = try? NSRegularExpression(pattern: pattern, options: lines ? [.anchorsMatchLines] : [])
    let range = NSRange(text.startIndex..., in: text)
    return (regex?.matches(in: text, range: range) ?? []).flatMap { match in
        (1..<match.numberOfRanges).prefix(allGroups ? Int.max : 1).compactMap { index in
            Range(match.range(at: index), in: text).map { String(text[$0]) }
        }.filter { !$0.isEmpty }
    }
}

/// Runs a built program to its end with `input`; its status and standard output. The same run
/// asked for again (`--help`, by several tests) is answered from the first: what a program prints
/// for fixed arguments does not change while the tests run.
func run(_ program: String, _ arguments: [String], input: String = "") async throws -> (status: Int32, output: String) {
    try await ProgramRuns.shared.outcome(program, arguments, input: input)
}

/// The runs of programs made so far, by program, arguments and input.
private actor ProgramRuns {
    static let shared = ProgramRuns()
    private var runs: [[String]: Task<(status: Int32, output: String), any Error>] = [:]

    func outcome(_ program: String, _ arguments: [String], input: String) async throws -> (status: Int32, output: String) {
        let key = [program, input] + arguments
        if let run = runs[key] { return try await run.value }
        let run = Task { () throws -> (status: Int32, output: String) in
            let outcome = try await ProgramRun.run(BuildProducts.executable(program), arguments, input: Data(input.utf8))
            return (outcome.status, outcome.standardOutput)
        }
        runs[key] = run
        return try await run.value
    }
}
