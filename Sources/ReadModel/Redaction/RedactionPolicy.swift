import Secrets

/// Whether the views of the mirror have their secrets replaced by tags: by default they do;
/// `.none` only when the person asked (`--no-redact`, `.redact off`), and what shows such views
/// says so.
public enum RedactionPolicy: Sendable {
    case redacted(SecretDetector)
    case none

    /// A redactor for one document (an answer, an export), or nil when nothing is redacted.
    public func redactor() -> Redactor? {
        switch self {
        case .redacted(let detector): Redactor(detector: detector)
        case .none: nil
        }
    }
}
