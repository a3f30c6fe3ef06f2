import Foundation
import TestSupport
import Testing

/// docs/architecture.md against the code: every file and folder it cites exists, every type,
/// member and function it names is declared, and its table of layers is Package.swift's.
@Suite("docs/architecture.md against the code", .endsWithin(.seconds(120)))
struct ArchitectureDocTests {
    static let document = "docs/architecture.md"

    /// Types the document names that come from the toolchain or another package, not from ours.
    static let outsideTypes: Set<String> = [
        "AsyncStream", "DispatchSource", "Task", "Sendable", "Duration", "Mutex", "Atomic", "Thread", "Server", "StdioTransport",
    ]

    @Test("every path it cites exists")
    func pathsExist() throws {
        let files = try RepositoryFiles.list()
        let paths = try Self.citations().filter(Self.isPath)
        #expect(paths.count >= 40)
        for path in paths {
            let exists = files.resolves(path)
            #expect(exists, "\(Self.document) cites `\(path)`, which is no file or folder of the repository")
        }
    }

    @Test("every type, member and function it names is declared")
    func symbolsDeclared() throws {
        var declarations = try Declarations.read()
        declarations.types.formUnion(try PackageTarget.all().map(\.name))
        var checked = 0
        for citation in try Self.citations() where !Self.isPath(citation) {
            guard let symbol = CitedSymbol(citation) else { continue }
            checked += 1
            if let type = symbol.type, !Self.outsideTypes.contains(type) {
                let declared = declarations.types.contains(type)
                #expect(declared, "\(Self.document) names `\(citation)`: no type \(type) is declared")
            }
            for member in symbol.members {
                let declared = declarations.members.contains(member)
                #expect(declared, "\(Self.document) names `\(citation)`: nothing declares \(member)")
            }
            if let labels = symbol.labels, !labels.isEmpty, let function = symbol.members.last {
                let signatures = declarations.signatures[function] ?? []
                let matching = signatures.contains { labels.isSubset(of: $0) }
                #expect(matching,
                        "\(Self.document) names `\(citation)`: no \(function) takes the labels \(labels.sorted())")
            }
        }
        #expect(checked >= 100)
    }

    @Test("its table of layers lists every target, with Package.swift's dependencies, each on a lower layer")
    func layerTable() throws {
        // The tests' own support (TestSupport, FrontEndSupport) is not a layer of the program.
        let targets = try PackageTarget.all().filter { $0.kind != "testTarget" && !$0.path.hasPrefix("Tests/") }
        let rows = try Self.layerRows()
        let tabled = rows.flatMap(\.targets)
        let untabled = Set(targets.map(\.name)).symmetricDifference(tabled).sorted()
        #expect(untabled == [], "targets of Package.swift missing from the table, or not in Package.swift")
        #expect(tabled.count == Set(tabled).count, "a target is in two rows")

        let layerOf = Dictionary(rows.flatMap { row in row.targets.map { ($0, row.layer) } }) { first, _ in first }
        for target in targets {
            guard let row = rows.first(where: { $0.targets.contains(target.name) }) else { continue }
            let listed = row.dependencies.isSuperset(of: target.dependencies)
            #expect(listed,
                    "the table's row of \(target.name) says it depends on \(row.dependencies.sorted()); Package.swift: \(target.dependencies.sorted())")
            guard let layer = row.layer else { continue }
            for dependency in target.dependencies {
                guard let lower = layerOf[dependency] ?? nil else { continue }
                #expect(lower < layer, "\(target.name) (layer \(layer)) depends on \(dependency) (layer \(lower))")
            }
        }
    }

    @Test("the programs' and tools' sources import only the targets Package.swift lets them")
    func importsFollowThePackage() throws {
        let targets = try PackageTarget.all()
        let names = Set(targets.map(\.name))
        for target in targets where target.kind != "systemLibrary" && target.kind != "testTarget" {
            let folder = Repository.root.appending(path: target.path)
            for file in RepositoryFiles.swiftFiles(under: folder) {
                let text = try String(contentsOf: file, encoding: .utf8)
                let imported = Set(matches(of: #"(?m)^(?:@testable |@_exported )?import (\w+)"#, in: text))
                let undeclared = imported.intersection(names).subtracting(target.dependencies).sorted()
                #expect(undeclared == [], "\(file.lastPathComponent) in \(target.name) imports \(undeclared)")
            }
        }
    }

    @Test("only test targets import a module @testable: a plain `swift build -c release` builds every other target")
    func testableOnlyInTests() throws {
        for target in try PackageTarget.all() where target.kind != "systemLibrary" && target.kind != "testTarget" {
            for file in RepositoryFiles.swiftFiles(under: Repository.root.appending(path: target.path)) {
                let text = try String(contentsOf: file, encoding: .utf8)
                #expect(matches(of: #"(?m)^@testable import (\w+)"#, in: text) == [],
                        "\(file.lastPathComponent) in \(target.name): a release build does not compile modules for testing")
            }
        }
    }

    // MARK: - Reading the document

    /// The text between backticks outside fenced blocks.
    private static func citations() throws -> [String] {
        let text = try String(contentsOf: Repository.root.appending(path: document), encoding: .utf8)
        var inFence = false
        var prose: [Substring] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") { inFence.toggle(); continue }
            if !inFence { prose.append(line) }
        }
        return matches(of: "`([^`\n]+)`", in: prose.joined(separator: "\n"))
    }

    /// A file or folder: a file name's extension, a folder's final slash, or a top-level folder
    /// first (`session/new` is a method of the bridge), and nothing that is a placeholder.
    private static func isPath(_ citation: String) -> Bool {
        guard !citation.contains(where: { " <>*…".contains($0) }), !citation.contains("000N") else { return false }
        let extensions = [".swift", ".sql", ".md", ".h", ".modulemap", ".py", ".service"]
        let topLevel = ["Sources", "Tests", "tools", "schema", "docs", ".ci"]
        return extensions.contains { citation.hasSuffix($0) } || citation.hasSuffix("/")
            || topLevel.contains { citation.hasPrefix($0 + "/") }
    }

    /// The rows of the layer table: a layer (`5b` is 5.5, above 5; none for build and tools
    /// rows), the targets named in the second column, and those of the last.
    private static func layerRows() throws -> [(layer: Double?, targets: [String], dependencies: Set<String>)] {
        let text = try String(contentsOf: Repository.root.appending(path: document), encoding: .utf8)
        let section = text.components(separatedBy: "## Layers").dropFirst().first?
            .components(separatedBy: "\n## ").first ?? ""
        return section.split(separator: "\n").filter { $0.hasPrefix("| ") && !$0.hasPrefix("| layer") }.map { line in
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { String($0) }
            let label = cells[1].trimmingCharacters(in: .whitespaces)
            let layer = Double(label.filter(\.isNumber)).map { $0 + (label.last?.isLetter == true && label.last != "a" ? 0.5 : 0) }
            return (layer: layer, targets: matches(of: "`([^`]+)`", in: cells[2]),
                    dependencies: Set(matches(of: "`([^`]+)`", in: cells[cells.count - 2])))
        }
    }
}
