extension SecretRule {
    /// The names whose values are taken for secrets when random enough (`password=…`,
    /// `"api_key": "…"`, `token: …`).
    static let secretNames = "passw(?:or)?d|pwd|secret|token|api[_-]?key|apikey|access[_-]?key|auth[_-]?key|private[_-]?key|credentials?"

    /// The `password` rule's pattern: a name, `=` or `:`, a value.
    ///
    /// The lookahead after `\b` changes no match, it only makes words without `=` or `:` after
    /// them cheap: a match's name and the word characters around it are a run of characters none
    /// of which is a space, a quote, `=` or `:`, followed by one of those, so that run is the
    /// longest such run from where the match starts, and the lookahead reads it without
    /// backtracking. Without it, ICU tried every name, folding case, at every place of every word.
    static let passwordPattern = #"\b(?=[^\s"'=:]*+["']?\s*+[=:])[A-Za-z0-9_.\-]*(?:"# + secretNames
        + #")[A-Za-z0-9_.\-]*["']?\s*(?:=|:)\s*["']?([^\s"'`,;\[\]{}()<>\\]+)"#

    /// The rules every detector starts with, most specific first: where two matches overlap, the
    /// earlier rule's wins.
    public static let builtIn: [SecretRule] = [
        SecretRule(kind: "private_key",
                   pattern: #"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----(?:[\s\S]*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----|[A-Za-z0-9+/=\s]{40,})"#,
                   keywords: ["PRIVATE KEY-----"], confidence: .high),
        SecretRule(kind: "aws_access_key", pattern: #"\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}\b"#,
                   keywords: ["akia", "asia", "abia", "acca"], confidence: .high),
        SecretRule(kind: "github_token", pattern: #"\bgh[pousr]_[A-Za-z0-9]{36}\b"#,
                   keywords: ["ghp_", "gho_", "ghu_", "ghs_", "ghr_"], confidence: .high, check: .crc32Base62),
        SecretRule(kind: "github_token", pattern: #"\bgithub_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59}\b"#,
                   keywords: ["github_pat_"], confidence: .high),
        SecretRule(kind: "gitlab_token", pattern: #"\bglpat-[A-Za-z0-9_\-]{20,}"#, keywords: ["glpat-"], confidence: .high),
        SecretRule(kind: "slack_token", pattern: #"\bxox[baprs]-[A-Za-z0-9\-]{10,}"#, keywords: ["xox"], confidence: .high,
                   minimumEntropy: 3),
        SecretRule(kind: "stripe_key", pattern: #"\b[rs]k_live_[A-Za-z0-9]{20,}\b"#, keywords: ["k_live_"], confidence: .high),
        SecretRule(kind: "anthropic_key", pattern: #"\bsk-ant-[A-Za-z0-9_\-]{32,}"#, keywords: ["sk-ant-"], confidence: .high),
        SecretRule(kind: "openai_key", pattern: #"\bsk-(?!ant-)(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}"#, keywords: ["sk-"],
                   confidence: .medium, minimumEntropy: 3.5, minimumLength: 24, needsNonWordCharacter: true),
        SecretRule(kind: "npm_token", pattern: #"\bnpm_[A-Za-z0-9]{36}\b"#, keywords: ["npm_"], confidence: .high, check: .crc32Base62),
        SecretRule(kind: "jwt", pattern: #"\beyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"#, keywords: ["eyj"],
                   confidence: .high, check: .jwtHeader),
        SecretRule(kind: "url_password", pattern: #"\b[A-Za-z][A-Za-z0-9+.\-]*://[^\s:/@"'<>]+:([^\s@/"'<>]+)@[^\s/"'<>]+"#, group: 1,
                   keywords: ["://"], confidence: .high, minimumLength: 3),
        SecretRule(kind: "password",
                   pattern: passwordPattern,
                   group: 1, keywords: ["pass", "pwd", "secret", "token", "key", "credential"], confidence: .low,
                   minimumEntropy: 3, minimumLength: 10, needsNonWordCharacter: true, ignoresCase: true),
    ]
}
