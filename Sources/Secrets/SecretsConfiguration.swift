import Foundation

/// The user's secrets file, `$XDG_CONFIG_HOME/openagents/secrets.json` (else
/// `~/.config/openagents/secrets.json`); a missing file is the empty configuration.
///
/// ```json
/// {
///   "rules": [{"kind": "acme_key", "pattern": "\\bacme_[a-z0-9]{32}\\b", "keywords": ["acme_"], "confidence": "high"}],
///   "allow": ["sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", "not-a-real-key-123"],
///   "disable": ["password"]
/// }
/// ```
///
/// `rules` adds rules after the built-in ones (`SecretRule` has the members); `allow` lists
/// values never to flag, as themselves or as the SHA-256 of their UTF-8; `disable` names
/// kinds whose rules are not used.
public struct SecretsConfiguration: Sendable, Equatable, Decodable {
    public var rules: [SecretRule]
    public var allow: [String]
    public var disable: [String]

    public init(rules: [SecretRule] = [], allow: [String] = [], disable: [String] = []) {
        self.rules = rules
        self.allow = allow
        self.disable = disable
    }

    enum CodingKeys: String, CodingKey {
        case rules, allow, disable
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        rules = try container.decodeIfPresent([SecretRule].self, forKey: .rules) ?? []
        allow = try container.decodeIfPresent([String].self, forKey: .allow) ?? []
        disable = try container.decodeIfPresent([String].self, forKey: .disable) ?? []
    }

    /// Where the file is looked for, given the environment.
    public static func path(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        let base = environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.config"
        return base + "/openagents/secrets.json"
    }

    /// The file at `path`; the empty configuration when there is none.
    ///
    /// - Throws: `SecretsConfigurationError.unreadable` when it cannot be read or parsed (the
    ///   error says where, never what the file holds).
    public static func load(path: String) throws(SecretsConfigurationError) -> SecretsConfiguration {
        guard FileManager.default.fileExists(atPath: path) else { return SecretsConfiguration() }
        guard let data = FileManager.default.contents(atPath: path) else { throw .unreadable(path: path, reason: "cannot read it") }
        do {
            return try JSONDecoder().decode(SecretsConfiguration.self, from: data)
        } catch let DecodingError.keyNotFound(key, context) {
            throw .unreadable(path: path, reason: "\(Self.where(context.codingPath)) lacks \"\(key.stringValue)\"")
        } catch let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context) {
            throw .unreadable(path: path, reason: "\(Self.where(context.codingPath)) has the wrong type")
        } catch let DecodingError.dataCorrupted(context) {
            throw .unreadable(path: path, reason: context.codingPath.isEmpty ? "it is not JSON" : "\(Self.where(context.codingPath)) has a value not allowed")
        } catch {
            throw .unreadable(path: path, reason: "it is not JSON")
        }
    }

    /// A detector with these rules, allow list and disabled kinds.
    public func detector() throws(SecretsConfigurationError) -> SecretDetector {
        try SecretDetector(extraRules: rules, disabledKinds: Set(disable), allowList: SecretAllowList(allow))
    }

    /// `rules[2].confidence`: where in the file, never what it holds.
    private static func `where`(_ path: [any CodingKey]) -> String {
        guard !path.isEmpty else { return "the file" }
        return path.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined().trimmingCharacters(in: CharacterSet(charactersIn: "."))
    }
}

/// What is wrong with the secrets file. Its messages name the file and the place in it, never a
/// value it holds.
public enum SecretsConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    case unreadable(path: String, reason: String)
    /// A rule (by kind, and position among the rules in force) cannot be used.
    case badRule(kind: String, index: Int, reason: String)

    public var description: String {
        switch self {
        case .unreadable(let path, let reason): "the secrets file \(path) cannot be used: \(reason)"
        case .badRule(let kind, let index, let reason): "secret rule \(index) (\(kind)) cannot be used: \(reason)"
        }
    }
}
