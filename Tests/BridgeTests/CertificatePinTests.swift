import Bridge
import TestSupport
import Testing

/// The forms in which a pin is accepted (`--tls-pin`, `OA_TLS_PIN`), and what is refused.
@Suite("Certificate pins as people copy them", .endsWithin(.seconds(120)))
struct CertificatePinTests {
    /// The digest 00 01 02 … 1f, in the forms below.
    private let digest = (0..<32).map { UInt8($0) }
    private let lowercase = (0..<32).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }
    private var bare: String { lowercase.joined() }
    private var colons: String { lowercase.joined(separator: ":").uppercased() }

    @Test("64 hex digits with no separator")
    func bareHex() {
        #expect(CertificatePin(parsing: bare)?.digest == digest)
    }

    @Test("lowercase, uppercase and mixed case are the same pin")
    func anyCase() {
        let allAB = [UInt8](repeating: 0xab, count: 32)
        for text in [String(repeating: "ab", count: 32), String(repeating: "AB", count: 32), String(repeating: "aB", count: 32)] {
            #expect(CertificatePin(parsing: text)?.digest == allAB, "\(text)")
        }
        #expect(CertificatePin(parsing: bare.uppercased())?.digest == digest)
    }

    @Test("colon-separated pairs, as openssl prints them, with the fingerprint line's label")
    func opensslForm() {
        #expect(CertificatePin(parsing: colons)?.digest == digest)
        #expect(CertificatePin(parsing: "sha256 Fingerprint=\(colons)\n")?.digest == digest)
    }

    @Test("a sha256: prefix, in any case, with and without colons")
    func prefixed() {
        for text in ["sha256:\(bare)", "sha256:\(colons)", "SHA256:\(bare)", "  sha256:\(colons.lowercased())  "] {
            #expect(CertificatePin(parsing: text)?.digest == digest, "\(text)")
        }
    }

    @Test("the wrong number of digits, a non-hex digit or another digest's name are refused")
    func refused() {
        let shortened = String(bare.dropLast(2))
        let oneShort = String(bare.dropLast())
        let afterFirstPair = String(bare.dropFirst(2))
        let refused: [String] = [
            "", "sha256:", shortened, bare + "00", oneShort, oneShort + "g", String(colons.dropLast()) + "Z",
            "sha1:" + bare, "sha256:" + shortened, String(repeating: " ", count: 64), "+0" + afterFirstPair, "-0" + afterFirstPair,
        ]
        for text in refused {
            #expect(CertificatePin(parsing: text) == nil, "\(text)")
        }
    }

    @Test("hex and description write the two usual forms back")
    func writtenBack() throws {
        let pin = try #require(CertificatePin(parsing: colons))
        #expect(pin.hex == bare)
        #expect(pin.description == colons)
    }
}
