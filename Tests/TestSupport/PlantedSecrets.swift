import Foundation
import ToolSupport

/// Realistic secrets of every kind the detector knows, made at run time from a fixed seed (so that
/// no file of the repository holds one), each with a sentence of agent text around it.
public struct PlantedSecret: Sendable {
    /// The kind the detector should report.
    public let kind: String
    /// The secret itself: what must never leave the mirror unredacted.
    public let value: String
    /// A line of agent text holding it.
    public let line: String
}

public enum PlantedSecrets {
    /// One of each kind (two GitHub tokens: a classic one and a fine-grained one).
    public static let all: [PlantedSecret] = {
        var random = SplitMix64(seed: 2424)
        let upper = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
        let base62 = "0123456789" + upper + upper.lowercased()
        let base32 = upper + "234567"
        func draw(_ count: Int, from alphabet: String) -> String {
            let characters = Array(alphabet)
            return String((0..<count).map { _ in characters[Int(random.next() % UInt64(characters.count))] })
        }
        func checksummed(_ prefix: String) -> String {
            let body = draw(30, from: base62)
            return prefix + body + base62Checksum(body)
        }
        let jwtHeader = base64URL(#"{"alg":"HS256","typ":"JWT"}"#)
        let jwtPayload = base64URL(#"{"sub":"1234567890","name":"deploy-bot","iat":1732000000}"#)
        let jwt = jwtHeader + "." + jwtPayload + "." + draw(43, from: base62 + "-_")
        let pemBody = (0..<6).map { _ in draw(64, from: base62 + "+/") }.joined(separator: "\n")
        let pem = "-----BEGIN RSA PRIVATE KEY-----\n" + pemBody + "\n-----END RSA PRIVATE KEY-----"
        let databasePassword = draw(12, from: base62) + "!" + draw(5, from: base62)
        let assigned = draw(10, from: base62) + "#" + draw(9, from: base62)
        let values: [(String, String, (String) -> String)] = [
            ("aws_access_key", "AKIA" + draw(16, from: base32), { "export AWS_ACCESS_KEY_ID=\($0)" }),
            ("github_token", checksummed("ghp_"), { "git clone https://github.com/acme/app (token \($0) from the keychain)" }),
            ("github_token", "github_pat_" + draw(22, from: base62) + "_" + draw(59, from: base62), { "GH_TOKEN is \($0), set in CI" }),
            ("gitlab_token", "glpat-" + draw(20, from: base62 + "-_"), { "curl --header \"PRIVATE-TOKEN: \($0)\" https://gitlab.example.com/api/v4/projects" }),
            ("slack_token", "xoxb-" + draw(12, from: "0123456789") + "-" + draw(13, from: "0123456789") + "-" + draw(24, from: base62),
             { "SLACK_BOT=\($0) posts to #deploys" }),
            ("stripe_key", "sk_live_" + draw(24, from: base62), { "Stripe.api_key = '\($0)'" }),
            ("openai_key", "sk-proj-" + draw(48, from: base62), { "The key \($0) was in the notebook" }),
            ("anthropic_key", "sk-ant-api03-" + draw(93, from: base62 + "-_"), { "ANTHROPIC_API_KEY \($0) is rotated monthly" }),
            ("npm_token", checksummed("npm_"), { "//registry.npmjs.org/:_authToken \($0)" }),
            ("jwt", jwt, { "Authorization: Bearer \($0)" }),
            ("private_key", pem, { "cat ~/.ssh/deploy_key\n\($0)\n" }),
            ("url_password", databasePassword, { "DATABASE_URL=postgres://app:\($0)@db.internal:5432/app" }),
            ("password", assigned, { "password = \"\($0)\"" }),
        ]
        return values.map { PlantedSecret(kind: $0.0, value: $0.1, line: $0.2($0.1)) }
    }()

    /// The CRC32 of `body`, in base62 (`0-9A-Za-z`), six digits: the checksum of GitHub's classic
    /// and npm's tokens (written here apart from the detector's, to check it).
    public static func base62Checksum(_ body: String) -> String {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in body.utf8 {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = (crc >> 1) ^ (crc & 1 == 0 ? 0 : 0xEDB8_8320) }
        }
        crc = ~crc
        let digits = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
        var text = ""
        for _ in 0..<6 {
            text = String(digits[Int(crc % 62)]) + text
            crc /= 62
        }
        return text
    }

    private static func base64URL(_ text: String) -> String {
        Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
