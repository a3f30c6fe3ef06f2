import Foundation
import Secrets
import Testing
import TestSupport

@Suite(.endsWithin(.seconds(120))) struct RedactorTests {
    let detector = try! SecretDetector()

    @Test func theSameValueGetsTheSameTag() throws {
        let first = try #require(PlantedSecrets.all.first { $0.kind == "github_token" }).value
        let second = try #require(PlantedSecrets.all.last { $0.kind == "github_token" }).value
        let redactor = Redactor(detector: detector)
        let text = redactor.redact("\(first) then \(second) and \(first) again")
        #expect(text == "[REDACTED:github_token#1] then [REDACTED:github_token#2] and [REDACTED:github_token#1] again")
        #expect(redactor.redact("later: \(first)") == "later: [REDACTED:github_token#1]")
        #expect(redactor.redactions == 2)
    }

    @Test func everyPlantedSecretIsRedacted() {
        let redactor = Redactor(detector: detector)
        for secret in PlantedSecrets.all {
            let text = redactor.redact(secret.line)
            #expect(!text.contains(secret.value), "\(secret.kind)")
            #expect(text.contains("[REDACTED:\(secret.kind)#"), "\(secret.kind)")
        }
    }

    @Test func onlyTheURLsPasswordIsRedacted() throws {
        let secret = try #require(PlantedSecrets.all.first { $0.kind == "url_password" })
        #expect(Redactor(detector: detector).redact(secret.line) == "DATABASE_URL=postgres://app:[REDACTED:url_password#1]@db.internal:5432/app")
    }

    @Test func aSecretSplitAcrossPiecesIsRedactedWhereItStarts() {
        for secret in PlantedSecrets.all {
            let text = "Here it is: " + secret.line + " (keep it safe)"
            let cut = text.utf8.count - secret.line.utf8.count / 2 - 15
            let bytes = Array(text.utf8)
            let pieces = [String(decoding: bytes[..<cut], as: UTF8.self), String(decoding: bytes[cut...], as: UTF8.self)]
            let redacted = Redactor(detector: detector).redact(pieces: pieces)
            #expect(redacted.count == 2)
            let joined = redacted.joined()
            #expect(!joined.contains(secret.value), "\(secret.kind)")
            #expect(joined.contains("[REDACTED:\(secret.kind)#1]"), "\(secret.kind): \(redacted.map { $0.count })")
            for piece in redacted {
                #expect(piece.count < 4 || !secret.value.contains(piece), "\(secret.kind): a piece is left whole")
            }
        }
    }

    @Test func textWithoutSecretsIsUnchanged() {
        let redactor = Redactor(detector: detector)
        for text in OrdinaryAgentText.corpus(count: 200) { #expect(redactor.redact(text) == text) }
        #expect(redactor.redact(pieces: ["abc", "def"]) == ["abc", "def"])
    }
}
