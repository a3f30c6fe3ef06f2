import Bridge
import Foundation
import TestSupport
import Testing
import ToolSupport

/// A self-signed certificate and its key, made by `openssl`, and the certificate's pin: for the
/// simulator to serve `wss://` with.
struct TestCertificate {
    let certificate: String
    let key: String
    let pin: CertificatePin

    /// Whether `openssl` is here to make one (tools/scripts/install-deps installs it).
    static var canBeMade: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl") }

    init(named name: String, in directory: TemporaryDirectory) async throws {
        try #require(Self.canBeMade, "openssl is not installed (tools/scripts/install-deps installs it): the certificates cannot be made")
        certificate = directory.path("\(name).pem")
        key = directory.path("\(name)-key.pem")
        let made = try await ProgramRun.run(URL(fileURLWithPath: "/usr/bin/openssl"), [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
            "-subj", "/CN=\(name)", "-keyout", key, "-out", certificate,
        ])
        try #require(made.status == 0, "openssl could not make a certificate: \(made.standardError)")
        let fingerprint = try await ProgramRun.run(URL(fileURLWithPath: "/usr/bin/openssl"),
                                                   ["x509", "-noout", "-fingerprint", "-sha256", "-in", certificate])
        pin = try #require(CertificatePin(parsing: fingerprint.standardOutput), "openssl's fingerprint reads as a pin")
    }

    /// The simulator's arguments that serve it.
    var simulatorArguments: [String] { ["--tls-cert", certificate, "--tls-key", key] }
}
