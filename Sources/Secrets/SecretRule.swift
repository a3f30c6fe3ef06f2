/// How sure a rule is that what it matched is a secret.
public enum SecretConfidence: String, Sendable, Codable, Comparable, CaseIterable {
    /// A value assigned to a name like `password`, random enough to be one.
    case low
    /// A well-known format without a checksum to verify.
    case medium
    /// A well-known format whose prefix (and checksum, where it has one) fits.
    case high

    public static func < (lhs: SecretConfidence, rhs: SecretConfidence) -> Bool {
        allCases.firstIndex(of: lhs) ?? 0 < allCases.firstIndex(of: rhs) ?? 0
    }
}

/// A further test a match must pass to count as a secret.
public enum SecretCheck: String, Sendable, Codable {
    /// GitHub's classic tokens and npm's: the last six characters are the CRC32, in base62, of
    /// the characters between the first `_` and them.
    case crc32Base62 = "crc32_base62"
    /// A JSON Web Token: its first part decodes (base64url) to a JSON object naming its `alg`.
    case jwtHeader = "jwt_header"
}

/// One kind of secret, as data: a regular expression, the literal words that must occur for it
/// to be tried at all, and the tests its match must pass. The built-in rules are
/// `SecretRule.builtIn`; a user adds more in the secrets file (`SecretsConfiguration`).
public struct SecretRule: Sendable, Equatable {
    /// The name findings and redaction tags carry: `github_token`, `aws_access_key`.
    public var kind: String
    /// An ICU regular expression.
    public var pattern: String
    /// The capture group that holds the secret (0: the whole match).
    public var group: Int
    /// Words of which one must occur (ignoring case) for the pattern to be tried; none: always tried.
    public var keywords: [String]
    public var confidence: SecretConfidence
    public var check: SecretCheck?
    /// The least Shannon entropy, in bits per character, of the secret.
    public var minimumEntropy: Double?
    /// The fewest characters of the secret.
    public var minimumLength: Int
    /// The secret must hold a digit or a character other than a letter, `_`, `-` and `.`: an
    /// identifier (`os.environ`, `getToken`) assigned to a `token` is not one.
    public var needsNonWordCharacter: Bool
    /// The pattern ignores case.
    public var ignoresCase: Bool
    /// ASCII characters of which one occurs in every match (empty: no such promise): a text
    /// holding none of them is not searched. Set by the built-in rules only; not part of the
    /// secrets file, nor of the rules' digest, since it changes no finding.
    var charactersInEveryMatch: [UInt8] = []

    public init(
        kind: String, pattern: String, group: Int = 0, keywords: [String] = [], confidence: SecretConfidence,
        check: SecretCheck? = nil, minimumEntropy: Double? = nil, minimumLength: Int = 8,
        needsNonWordCharacter: Bool = false, ignoresCase: Bool = false
    ) {
        self.kind = kind
        self.pattern = pattern
        self.group = group
        self.keywords = keywords
        self.confidence = confidence
        self.check = check
        self.minimumEntropy = minimumEntropy
        self.minimumLength = minimumLength
        self.needsNonWordCharacter = needsNonWordCharacter
        self.ignoresCase = ignoresCase
    }
}

extension SecretRule {
    /// This rule, promising that one of `characters` (ASCII) occurs in each of its matches.
    func matching(oneOf characters: String) -> SecretRule {
        var rule = self
        rule.charactersInEveryMatch = Array(characters.utf8)
        return rule
    }
}

extension SecretRule: Codable {
    enum CodingKeys: String, CodingKey {
        case kind, pattern, group, keywords, confidence, check
        case minimumEntropy = "min_entropy"
        case minimumLength = "min_length"
        case needsNonWordCharacter = "needs_non_word_character"
        case ignoresCase = "ignore_case"
    }

    /// Reads a rule of the secrets file: `kind` and `pattern` are required, the rest has defaults
    /// (`confidence` medium, `min_length` 8).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            kind: try container.decode(String.self, forKey: .kind),
            pattern: try container.decode(String.self, forKey: .pattern),
            group: try container.decodeIfPresent(Int.self, forKey: .group) ?? 0,
            keywords: try container.decodeIfPresent([String].self, forKey: .keywords) ?? [],
            confidence: try container.decodeIfPresent(SecretConfidence.self, forKey: .confidence) ?? .medium,
            check: try container.decodeIfPresent(SecretCheck.self, forKey: .check),
            minimumEntropy: try container.decodeIfPresent(Double.self, forKey: .minimumEntropy),
            minimumLength: try container.decodeIfPresent(Int.self, forKey: .minimumLength) ?? 8,
            needsNonWordCharacter: try container.decodeIfPresent(Bool.self, forKey: .needsNonWordCharacter) ?? false,
            ignoresCase: try container.decodeIfPresent(Bool.self, forKey: .ignoresCase) ?? false
        )
    }
}
