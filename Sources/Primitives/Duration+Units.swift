/// A `Duration` as the plain numbers that SQLite, `poll`, `Thread.sleep`, Dispatch and reports take.
extension Duration {
    /// The duration in seconds.
    public var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// The duration in whole milliseconds, rounded toward zero (saturating at `Int64`'s bounds).
    public var milliseconds: Int64 {
        wholeUnits(perSecond: 1000)
    }

    /// The duration in whole nanoseconds, rounded toward zero (saturating at `Int64`'s bounds).
    public var nanoseconds: Int64 {
        wholeUnits(perSecond: 1_000_000_000)
    }

    /// The duration in whole units of which a second holds `perSecond` (a power of ten up to 10⁹).
    private func wholeUnits(perSecond: Int64) -> Int64 {
        let (seconds, attoseconds) = components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: perSecond)
        guard !overflow else { return seconds < 0 ? .min : .max }
        let (total, sumOverflow) = whole.addingReportingOverflow(attoseconds / (1_000_000_000_000_000_000 / perSecond))
        guard !sumOverflow else { return seconds < 0 ? .min : .max }
        return total
    }
}
