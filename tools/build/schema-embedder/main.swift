import Foundation

/// Writes a Swift file holding every migration of `schema/` as a string literal.
///
/// Usage: `schema-embedder OUTPUT.swift 0001_name.sql 0002_name.sql …`
/// File names must start with their version number; versions must run 1, 2, 3… without gaps.

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("schema-embedder: error: \(message)\n".utf8))
    exit(1)
}

/// A Swift string literal that spells `text` exactly.
func swiftLiteral(_ text: String) -> String {
    var literal = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\\": literal += "\\\\"
        case "\"": literal += "\\\""
        case "\n": literal += "\\n"
        case "\r": literal += "\\r"
        case "\t": literal += "\\t"
        case _ where scalar.value < 0x20 || scalar.value == 0x7F:
            literal += "\\u{\(String(scalar.value, radix: 16))}"
        default: literal.unicodeScalars.append(scalar)
        }
    }
    return literal + "\""
}

let arguments = CommandLine.arguments.dropFirst()
guard let outputPath = arguments.first else { fail("usage: schema-embedder OUTPUT.swift FILE.sql…") }

var entries: [String] = []
for (index, path) in arguments.dropFirst().enumerated() {
    let name = URL(fileURLWithPath: path).lastPathComponent
    let digits = name.prefix { $0.isNumber }
    guard let version = Int(digits) else { fail("\(name): a migration's name must start with its version number") }
    guard version == index + 1 else { fail("\(name): expected version \(index + 1); versions must run 1, 2, 3… without gaps") }
    guard let sql = try? String(contentsOfFile: path, encoding: .utf8) else { fail("\(path): cannot read as UTF-8") }
    entries.append("        (version: \(version), name: \(swiftLiteral(name)), sql: \(swiftLiteral(sql))),")
}

let source = """
    // Generated at build time from schema/*.sql by the EmbedSchema plugin. Do not edit.

    enum EmbeddedSchema {
        static let migrations: [(version: Int, name: String, sql: String)] = [
    \(entries.joined(separator: "\n"))
        ]
    }

    """
do {
    try Data(source.utf8).write(to: URL(fileURLWithPath: outputPath), options: .atomic)
} catch {
    fail("cannot write \(outputPath): \(error)")
}
