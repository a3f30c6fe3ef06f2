import Foundation
import PackagePlugin

/// Compiles the package's `schema/*.sql` migrations into the target that uses this plugin, so the
/// SQL files stay the one definition of the mirror's tables and the binary needs no files beside it.
@main
struct EmbedSchema: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) async throws -> [Command] {
        let schemaDirectory = context.package.directoryURL.appending(path: "schema")
        let sqlFiles = try FileManager.default
            .contentsOfDirectory(at: schemaDirectory, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "sql" }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedSchema.swift")
        return [
            .buildCommand(
                displayName: "Embedding \(sqlFiles.count) schema migrations",
                executable: try context.tool(named: "schema-embedder").url,
                arguments: [output.path] + sqlFiles.map(\.path),
                inputFiles: sqlFiles,
                outputFiles: [output]
            )
        ]
    }
}
