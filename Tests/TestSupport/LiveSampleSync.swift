import Foundation

/// oa-sync following a simulator that serves the sample desktop history, once it is live.
public struct LiveSampleSync {
    public let directory: TemporaryDirectory
    public let simulator: SimulatorProcess
    public let mirror: String
    public let sync: OASyncProcess

    public init(flavor: String) async throws {
        directory = try TemporaryDirectory()
        simulator = try await SimulatorProcess(flavor: flavor, database: try SimulatorProcess.sampleDatabase(in: directory))
        mirror = directory.path("mirror.sqlite")
        sync = try OASyncProcess(bridge: simulator.url, database: mirror)
        try await sync.waitForState("live")
    }
}
