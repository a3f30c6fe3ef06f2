import Bridge
import Foundation

/// `--advertise NAME`: the simulator's DNS-SD advertisement (protocol Part 4).
enum SimulatorAdvertisement {
    /// The TXT record the simulator publishes: `proto`, `path` unless it is `/`, `history_cursor=1`
    /// for the cursor flavour, and `tls_sha256` when a pin is given (the leaf certificate's SHA-256,
    /// for a simulator serving `wss://`).
    static func txtRecord(flavor: Flavor, scheme: String = "ws", path: String = "/", tlsSHA256: String? = nil) -> [String: String] {
        var txt = ["proto": scheme]
        if path != "/" { txt["path"] = path }
        if flavor == .cursor { txt["history_cursor"] = "1" }
        if let tlsSHA256 { txt["tls_sha256"] = tlsSHA256 }
        return txt
    }

    /// Publishes `name` on the port the server bound (the first value of `boundPorts`) with `txt`,
    /// waits up to 10 s for avahi-daemon to establish it, prints `readyLine(port)`, then keeps the
    /// advertisement until the task is cancelled.
    static func advertise(name: String, txt: [String: String], boundPorts: AsyncStream<Int>,
                          readyLine: @Sendable (Int) -> String) async throws {
        guard let port = await boundPorts.first(where: { _ in true }) else { return }
        let advertisement = try BridgeAdvertisement(name: name, port: port, txt: txt)
        defer { advertisement.stop() }
        try await advertisement.waitUntilPublished(timeout: .seconds(10))
        FileHandle.standardOutput.write(Data((readyLine(port) + " advertised as \"\(name)\" (\(DiscoveredBridge.serviceType))\n").utf8))
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(3600))
        }
    }
}
