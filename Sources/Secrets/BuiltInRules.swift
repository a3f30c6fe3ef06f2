extension SecretRule {
    /// The names whose values are taken for secrets when random enough (`password=…`,
    /// `"api_key": "…"`, `token: …`).
    static let secretNames = "passw(?:or)?d|pwd|secret|token|api[_-]?key|apikey|access[_-]?key|auth[_-]?key|private[_-]?key|credentials?"

    /// The `password` rule's pattern: a name, `=` or `:`, a value (group 1) on the same line, or
    /// after `:` on the next line indented (YAML). An empty assignment (`SENDGRID_API_KEY=`, as in
    /// every `.env.example`) is followed by the next line's name, not by a value.
    ///
    /// The name and the word it is part of are a run of `nameCharacters`, followed by a quote,
    /// spaces, `=` or `:`, and the name comes after a word boundary in the run. A match starts
    /// where such a run starts; a lookahead first checks that `=` or `:` comes after the run (no
    /// character of the run can start what follows it, so backtracking over the run fails at
    /// once), then the first word boundary in the run is taken, once: each run is read a few
    /// times, and the time is linear in the text. Possessive quantifiers would be no faster, and
    /// overflow ICU's backtracking stack on runs of a few hundred KB. Starting at every word
    /// boundary, as this rule once did, read the rest of a run at each boundary inside it, then
    /// tried every name at every place of it: 33 s for 80 KB of base64url after the word "token".
    /// The values found are the same but in words holding ß or ẞ, which the old form could not
    /// start at.
    static let passwordPattern = "(?<!" + nameCharacters + ")(?=" + nameCharacters + #"+["']?\s*[=:])(?>"# + nameCharacters
        + #"*?\b)"# + nameCharacters + "*(?:" + secretNames + ")" + nameCharacters
        + #"*["']?\s*(?:=[ \t]*|:[ \t]*(?:\r?\n[ \t]+)?)["']?([^\s"'`,;\[\]{}()<>\\]+)"#

    /// The characters of a name and of the word it is part of, as a class of ICU's syntax: ASCII
    /// letters, digits, `_`, `.` and `-`, and ß and ẞ (ignoring case, the `ss` of `password`
    /// matches them).
    static let nameCharacters = #"[A-Za-z0-9_.\-\u00DF\u1E9E]"#

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
        SecretRule(kind: "slack_token", pattern: #"\b(?:xoxe\.)?xox[baprs]-[A-Za-z0-9\-]{10,}"#, keywords: ["xox"], confidence: .high),
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
                   minimumEntropy: 3, minimumLength: 10, needsNonWordCharacter: true, ignoresCase: true).matching(oneOf: "=:"),
    ]
}
