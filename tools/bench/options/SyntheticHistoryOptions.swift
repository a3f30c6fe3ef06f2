import ArgumentParser

/// `--events` and `--sessions`: the size of the synthetic history a benchmark seeds or writes.
public struct SyntheticHistoryOptions: ParsableArguments {
    @Option(help: "Events in the synthetic history.")
    public var events = 1_000_000

    @Option(help: "Sessions in the synthetic history.")
    public var sessions = 1000

    public init() {}
}
