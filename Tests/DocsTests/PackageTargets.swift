import Foundation
import TestSupport

/// A target of `Package.swift` as its text declares it: enough to check what the documents say of
/// the package's layers without running SwiftPM.
struct PackageTarget: Equatable {
    /// `target`, `executableTarget`, `systemLibrary`, `testTarget` or `plugin`.
    var kind: String
    var name: String
    /// The folder of its sources, relative to the repository.
    var path: String
    /// The targets of this package it depends on (products of other packages left out).
    var dependencies: Set<String>

    /// Every target of the repository's `Package.swift`.
    static func all() throws -> [PackageTarget] {
        let manifest = try String(contentsOf: Repository.root.appending(path: "Package.swift"), encoding: .utf8)
        let kinds = ["target", "executableTarget", "systemLibrary", "testTarget", "plugin"]
        let starts = kinds.flatMap { kind in
            manifest.ranges(of: ".\(kind)(").map { (kind: kind, start: $0.upperBound) }
        }.sorted { $0.start < $1.start }
        return starts.compactMap { start in
            let body = balancedBody(of: manifest, from: start.start)
            guard let name = matches(of: #"name: "([^"]+)""#, in: body).first else { return nil }
            let defaultFolder = start.kind == "testTarget" ? "Tests/\(name)" : "Sources/\(name)"
            let path = matches(of: #"path: "([^"]+)""#, in: body).first ?? defaultFolder
            let dependencyList = matches(of: #"dependencies: \[((?:[^\[\]]|\[[^\]]*\])*)\]"#, in: body).first ?? ""
            let withoutProducts = dependencyList.replacingOccurrences(
                of: #"\.product\([^)]*\)"#, with: "", options: .regularExpression)
            return PackageTarget(kind: start.kind, name: name, path: path,
                                 dependencies: Set(matches(of: #""([^"]+)""#, in: withoutProducts)))
        }
    }

    /// The text from `start` to the parenthesis that closes the one just before it.
    private static func balancedBody(of text: String, from start: String.Index) -> String {
        var depth = 1
        var index = start
        while index < text.endIndex, depth > 0 {
            switch text[index] {
            case "(": depth += 1
            case ")": depth -= 1
            default: break
            }
            index = text.index(after: index)
        }
        return String(text[start..<index])
    }
}
