/// The values of a query string or of a form's body (`application/x-www-form-urlencoded`):
/// `+` is a space, `%XX` a byte; a name given twice keeps its first value.
struct FormValues: Sendable {
    private var values: [String: String] = [:]

    init(_ encoded: String?) {
        for pair in (encoded ?? "").split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = Self.decoded(parts[0])
            if values[name] == nil { values[name] = parts.count > 1 ? Self.decoded(parts[1]) : "" }
        }
    }

    subscript(_ name: String) -> String? { values[name] }

    /// `name`'s value as a whole number in `range`, nil when absent or not one.
    func integer(_ name: String, in range: ClosedRange<Int64>) -> Int64? {
        values[name].flatMap { Int64($0) }.flatMap { range.contains($0) ? $0 : nil }
    }

    private static func decoded(_ text: Substring) -> String {
        let spaced = String(text).replacing("+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }
}
