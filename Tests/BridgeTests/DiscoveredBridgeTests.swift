import Bridge
import TestSupport
import Testing

/// What a resolved DNS-SD advertisement means (protocol Part 4), and the `dnssd[:NAME]` targets.
@Suite("A discovered bridge's TXT record and URL", .endsWithin(.seconds(120)))
struct DiscoveredBridgeTests {
    private func bridge(address: String = "192.168.1.20", port: Int = 9099, txt: [String: String] = [:]) -> DiscoveredBridge {
        DiscoveredBridge(instanceName: "My Desktop", domain: "local", hostName: "mac.local", address: address, port: port, txt: txt)
    }

    @Test("no TXT record: ws://ADDRESS:PORT/, no pin, history cursor unknown")
    func stock() {
        let stock = bridge()
        #expect(stock.url == "ws://192.168.1.20:9099/")
        #expect(stock.tlsSHA256 == nil)
        #expect(stock.historyCursor == nil)
    }

    @Test("proto, path and tls_sha256 are honoured, keys without case; unknown keys ignored")
    func txtKeys() {
        let pin = String(repeating: "Ab", count: 32)
        let advertised = bridge(port: 9443, txt: ["PROTO": "wss", "path": "/bridge", "Tls_SHA256": pin, "colour": "blue", "history_cursor": "1"])
        #expect(advertised.url == "wss://192.168.1.20:9443/bridge")
        #expect(advertised.tlsSHA256 == pin.lowercased())
        #expect(advertised.historyCursor == true)
    }

    @Test("a malformed pin, an unknown proto and a path without a leading slash fall back to the defaults")
    func malformed() {
        let odd = bridge(txt: ["proto": "http", "path": "bridge", "tls_sha256": "abc"])
        #expect(odd.url == "ws://192.168.1.20:9099/")
        #expect(odd.tlsSHA256 == nil)
    }

    @Test("an IPv6 address goes in brackets")
    func ipv6() {
        #expect(bridge(address: "fd7a::1").url == "ws://[fd7a::1]:9099/")
    }

    @Test("dnssd and dnssd:NAME are DNS-SD targets; URLs and an empty name are not")
    func targets() {
        #expect(DNSSDBridgeTarget(parsing: "dnssd")?.instance == nil)
        #expect(DNSSDBridgeTarget(parsing: "dnssd") != nil)
        #expect(DNSSDBridgeTarget(parsing: "dnssd:My Desktop")?.instance == "My Desktop")
        #expect(DNSSDBridgeTarget(parsing: "dnssd:") == nil)
        #expect(DNSSDBridgeTarget(parsing: "ws://127.0.0.1:9099") == nil)
    }
}
