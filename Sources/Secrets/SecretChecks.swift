import Foundation

/// The tests a match must pass beyond its pattern (`SecretCheck`, entropy, placeholders).
enum SecretChecks {
    /// Whether `value` passes `check`.
    static func passes(_ value: Substring, _ check: SecretCheck) -> Bool {
        switch check {
        case .crc32Base62: checksumFits(value)
        case .jwtHeader: jwtHeaderNamesAlgorithm(value)
        }
    }

    /// The last six characters are the CRC32 of the characters between the first `_` and them,
    /// in base62 (`0-9A-Za-z`), padded with zeros.
    static func checksumFits(_ value: Substring) -> Bool {
        guard let underscore = value.firstIndex(of: "_") else { return false }
        let body = value[value.index(after: underscore)...]
        guard body.count > 6 else { return false }
        let random = body.dropLast(6)
        return base62(crc32(Array(random.utf8)), width: 6) == String(body.suffix(6))
    }

    /// The CRC32 (IEEE 802.3) of `bytes`.
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return crc ^ 0xFFFF_FFFF
    }

    private static let base62Digits = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")

    /// `number` in base62, left-padded with `0` to `width` digits.
    static func base62(_ number: UInt32, width: Int) -> String {
        var digits: [Character] = []
        var rest = number
        repeat {
            digits.append(base62Digits[Int(rest % 62)])
            rest /= 62
        } while rest > 0
        return String(repeating: "0", count: max(0, width - digits.count)) + String(digits.reversed())
    }

    /// The first part of a JWT decodes to a JSON object with an `alg` member.
    static func jwtHeaderNamesAlgorithm(_ value: Substring) -> Bool {
        guard let first = value.split(separator: ".").first else { return false }
        var base64 = first.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let data = Data(base64Encoded: base64),
              let header = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return false }
        return header["alg"] is String
    }

    /// The Shannon entropy of `value`'s characters, in bits per character.
    static func entropy(_ value: Substring) -> Double {
        var counts: [Character: Int] = [:]
        for character in value { counts[character, default: 0] += 1 }
        let total = Double(value.count)
        return counts.values.reduce(0) { sum, count in
            let p = Double(count) / total
            return sum - p * log2(p)
        }
    }

    /// Holds a digit or a character other than a letter, `_`, `-` and `.`.
    static func hasNonWordCharacter(_ value: Substring) -> Bool {
        value.contains { !($0.isLetter || $0 == "_" || $0 == "-" || $0 == ".") }
    }

    /// A stand-in for a secret rather than one: a variable (`$TOKEN`, `${{ secrets.X }}`,
    /// `%PASS%`, `<password>`), a mask (`****`, `xxxxxxxx`), a file's path (`~/.ssh/id_ed25519`,
    /// `/run/secrets/db`), a redaction tag, or an example behind a real prefix
    /// (`AKIAIOSFODNN7EXAMPLE`, `glpat-XXXXXXXXXXXXXXXXXXXX`, `xoxb-PUT_YOUR_TOKEN_HERE`).
    static func isPlaceholder(_ value: Substring) -> Bool {
        guard let first = value.first else { return true }
        if "$%<{*".contains(first) || value.hasPrefix("[REDACTED") { return true }
        if value.hasPrefix("~/") || value.hasPrefix("./") || value.hasPrefix("../") || (first == "/" && value.dropFirst().contains("/")) {
            return true
        }
        let lowered = value.lowercased()
        if Set(lowered).count <= 2 || placeholderValues.contains(lowered) { return true }
        if placeholderWords.contains(where: lowered.contains) || lowered.contains("xxxx") { return true }
        // "your … here", "put your …", "insert your …".
        if let your = lowered.range(of: "your") { return lowered[your.upperBound...].contains("here") || lowered.hasPrefix("put") }
        return false
    }

    /// Values that stand for a password in examples (`https://user:pass@proxy:8080`).
    private static let placeholderValues: Set<String> = ["pass", "password", "passwd", "pwd", "secret", "user", "username", "changeme"]

    /// Words of an example, a template or a mask, never of a random secret (four `x` in a row
    /// occur in a random base62 token of 40 characters once in about 25,000).
    private static let placeholderWords = ["example", "placeholder", "changeme", "change_me", "replace_me", "dummy", "insert_your"]
}
