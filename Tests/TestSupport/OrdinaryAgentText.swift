import Foundation
import ToolSupport

/// Text of the kind agent sessions are full of and that holds no secret: code, git hashes,
/// UUIDs, checksums, base64 images, logs, configuration that names secrets without holding one.
/// The detector's false positives are counted on it.
public enum OrdinaryAgentText {
    /// `count` texts, made from a fixed seed.
    public static func corpus(count: Int = 2000) -> [String] {
        var random = SplitMix64(seed: 1999)
        let hex = Array("0123456789abcdef")
        let base64 = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
        func draw(_ count: Int, _ alphabet: [Character]) -> String {
            String((0..<count).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] })
        }
        let fixed = [
            "func token(for user: User) -> String { user.sessionToken }",
            "let apiKey = ProcessInfo.processInfo.environment[\"API_KEY\"] ?? \"\"",
            "password: ${{ secrets.DB_PASSWORD }}",
            "export GITHUB_TOKEN=$(gh auth token)",
            "api_key: <your-api-key-here>",
            "secret_key_base = Rails.application.credentials.secret_key_base",
            "token_count: 128000",
            "The tokenizer splits text into tokens; max_tokens=4096 keeps replies short.",
            "const password = process.env.PASSWORD_FROM_VAULT;",
            "curl https://api.github.com/repos/apple/swift/releases/latest",
            "Visit https://user@example.com/docs for the guide.",
            "pip install scikit-learn==1.5.2 sk-video",
            "private_key_path = \"~/.ssh/id_ed25519\"",
            "token = tokenizer.encode(text, add_special_tokens=False)",
            "AUTH_TOKEN=********",
            "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA\n-----END PUBLIC KEY-----",
            "error: secret 'ci-deploy' not found in namespace default",
            "import jwt\ndecoded = jwt.decode(token, key, algorithms=[\"HS256\"])",
        ]
        var texts: [String] = []
        for index in 0..<count {
            switch index % 8 {
            case 0:
                texts.append("commit \(draw(40, hex))\nAuthor: Dev <dev@example.com>\n\n    Fix the flaky reconnect test")
            case 1:
                texts.append("Session \(UUID(uuidString: "00000000-0000-4000-8000-\(draw(12, hex))")?.uuidString ?? "") resumed at ordinal \(index)")
            case 2:
                texts.append("\(draw(64, hex))  openagents-mirror_1.0.\(index)_amd64.deb")
            case 3:
                texts.append("![screenshot](data:image/png;base64,iVBORw0KGgo\(draw(400, base64))==)")
            case 4:
                texts.append("sha256-\(Data(draw(32, hex).utf8).base64EncodedString()) integrity of bundle.js; etag W/\"\(draw(24, hex))\"")
            case 5:
                texts.append("    let id = try store.insertEvent(sessionID: \"\(draw(8, hex))\", ordinal: \(index), kind: .agentMessageChunk)")
            case 6:
                texts.append("[\(index)] GET /v1/sessions/\(draw(16, hex))/timeline?cursor=\(draw(22, base64.filter { $0.isLetter || $0.isNumber })) 200 12ms")
            default:
                texts.append(fixed[(index / 8) % fixed.count])
            }
        }
        return texts
    }
}
