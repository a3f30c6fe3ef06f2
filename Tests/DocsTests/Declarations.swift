import Foundation
import TestSupport

/// What the repository's Swift files declare: type names, member names, and each function's
/// argument labels, read from the text (enough to catch a document naming what is not there).
struct Declarations {
    var types: Set<String> = []
    var members: Set<String> = []
    /// A function's name → the argument labels of each of its declarations.
    var signatures: [String: [Set<String>]] = [:]

    static func read() throws -> Declarations {
        var declarations = Declarations()
        for folder in ["Sources", "tools", "Tests"] {
            for file in RepositoryFiles.swiftFiles(under: Repository.root.appending(path: folder)) {
                declarations.add(try String(contentsOf: file, encoding: .utf8))
            }
        }
        return declarations
    }

    private mutating func add(_ text: String) {
        types.formUnion(matches(of: #"\b(?:class|struct|enum|actor|protocol|typealias|extension) +([A-Z]\w*)"#, in: text))
        members.formUnion(matches(of: #"\b(?:func|var|let|case|init) +`?(\w+)"#, in: text))
        // Further cases of a list (`case a, b`) and functions' parameter lists.
        for list in matches(of: #"(?m)^\s*(?:(?:public|indirect) )*case +([a-z]\w*(?:\([^)]*\))?(?:, *[a-z]\w*(?:\([^)]*\))?)+)"#, in: text) {
            members.formUnion(matches(of: #"(?:^|, *)([a-z]\w*)"#, in: list))
        }
        for signature in matches(of: #"\bfunc +(\w+(?:<[^>]*>)?\((?:[^()]|\([^()]*\))*\))"#, in: text) {
            guard let name = matches(of: #"^(\w+)"#, in: signature).first else { continue }
            let labels = matches(of: #"(?:\(|,)\s*(\w+)(?: +\w+)? *:"#, in: signature).filter { $0 != "_" }
            signatures[name, default: []].append(Set(labels))
        }
    }
}

/// A type, member or function named in a document: `Type`, `Type.member`, `Type.method()`,
/// `function(label:, other:)`.
struct CitedSymbol {
    var type: String?
    var members: [String]
    /// The argument labels given (`name:`), when the citation is a call.
    var labels: Set<String>?

    init?(_ citation: String) {
        guard let parts = matches(of: #"^([A-Za-z_]\w*(?:\.\w+)*)(\(.*\))?$"#, in: citation, allGroups: true).first
        else { return nil }
        let path = parts.split(separator: ".").map(String.init)
        let call = citation.dropFirst(parts.count)
        guard let first = path.first else { return nil }
        let isType = first.first?.isUppercase == true
        // All capitals (SQL, SQLite's codes, WebSocket terms) and plain words are not Swift names.
        if isType && first.allSatisfy({ $0.isUppercase || $0 == "_" || $0.isNumber }) { return nil }
        // A lower-case name is a Swift name only as a call with labels: `events.gone_at` is a column,
        // and a call of a C function (`mallopt(M_MMAP_THRESHOLD)`) or an attribute has no labels.
        if !isType && !call.contains(":") { return nil }
        type = isType ? first : nil
        members = isType ? Array(path.dropFirst()) : path
        // `_:` stands for an unlabelled argument, as declarations leave it out.
        labels = call.isEmpty ? nil : Set(matches(of: #"(\w+):"#, in: String(call)).filter { $0 != "_" })
    }
}

/// The repository's files, to resolve the paths a document cites.
struct RepositoryFiles {
    /// Every file and folder, relative to the repository, folders ending in `/`.
    var paths: Set<String>

    static func list() throws -> RepositoryFiles {
        var paths: Set<String> = []
        let root = Repository.root.standardizedFileURL.path + "/"
        for folder in ["Sources", "Tests", "tools", "schema", "docs", ".ci"] {
            paths.insert(folder + "/")
            let enumerator = FileManager.default.enumerator(
                at: Repository.root.appending(path: folder), includingPropertiesForKeys: [.isDirectoryKey])
            while let url = enumerator?.nextObject() as? URL {
                let isFolder = (try? url.resourceValues(forKeys: [.isDirectoryKey]).isDirectory) == true
                paths.insert(String(url.standardizedFileURL.path.dropFirst(root.count)) + (isFolder ? "/" : ""))
            }
        }
        for file in ["Package.swift", "README.md"] { paths.insert(file) }
        return RepositoryFiles(paths: paths)
    }

    /// Whether `citation` is a path from the repository's root or from `Sources/`, or the end of
    /// one (a file named alone, or a folder named within its target).
    func resolves(_ citation: String) -> Bool {
        [citation, citation + "/"].contains { name in
            paths.contains(name) || paths.contains("Sources/" + name) || paths.contains { $0.hasSuffix("/" + name) }
        }
    }

    /// The Swift files below `folder`.
    static func swiftFiles(under folder: URL) -> [URL] {
        let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)
        var files: [URL] = []
        while let url = enumerator?.nextObject() as? URL {
            if url.pathExtension == "swift" { files.append(url) }
        }
        return files
    }
}
