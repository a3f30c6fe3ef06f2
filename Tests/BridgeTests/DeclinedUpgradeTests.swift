@testable import Bridge
import TestSupport
import Testing

/// What a bridge's refusal of the WebSocket upgrade is reported as, by its HTTP status and
/// whether a token was sent.
@Suite("A declined WebSocket upgrade", .endsWithin(.seconds(120)))
struct DeclinedUpgradeTests {
    private let url = "wss://127.0.0.1:9443/"

    @Test("401 or 403 with no token sent: the bridge needs a token, not 'refused the token'")
    func withoutToken() {
        #expect(BridgeError.declinedUpgrade(url: url, status: 401, tokenSent: false) == .tokenRequired(url: url, status: 401))
        let forbidden = BridgeError.declinedUpgrade(url: url, status: 403, tokenSent: false)
        #expect(forbidden == .tokenRequired(url: url, status: 403))
        #expect(forbidden.description.contains("needs a token"))
        #expect(forbidden.description.contains("403"))
        #expect(!forbidden.description.contains("refused the token"))
    }

    @Test("401 or 403 to a token sent: the bridge refused the token")
    func withToken() {
        for status in [401, 403] {
            let refused = BridgeError.declinedUpgrade(url: url, status: status, tokenSent: true)
            #expect(refused == .tokenRefused(url: url, status: status))
            #expect(refused.description.contains("refused the token"))
        }
    }

    @Test("another status, or none read, is a refused upgrade whatever the token")
    func otherStatus() {
        for tokenSent in [false, true] {
            #expect(BridgeError.declinedUpgrade(url: url, status: 404, tokenSent: tokenSent) == .upgradeRefused(url: url, status: 404))
            #expect(BridgeError.declinedUpgrade(url: url, status: nil, tokenSent: tokenSent) == .upgradeRefused(url: url, status: nil))
        }
    }
}
