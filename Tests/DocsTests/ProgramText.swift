import Foundation
import TestSupport
import ToolSupport

/// The option names a program's `--help` lists.
func helpOptions(of program: String) async throws -> Set<String> {
    let help = try await run(program, ["--help"]).output
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

/// Runs a built program to its end with `input`; its status and standard output.
func run(_ program: String, _ arguments: [String], input: String = "") async throws -> (status: Int32, output: String) {
    let outcome = try await ProgramRun.run(BuildProducts.executable(program), arguments, input: Data(input.utf8))
    return (outcome.status, outcome.standardOutput)
}
