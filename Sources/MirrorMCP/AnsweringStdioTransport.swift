import Foundation
import Logging
import MCP

/// Standard input and output for the server (the SDK's `StdioTransport`), whose input ends only
/// once every request read has been answered: the SDK handles each request in a task of its own,
/// and ends its loop at the end of input, which would drop the answers still being made (a client
/// that writes its requests and closes its end would miss the last ones).
actor AnsweringStdioTransport: Transport {
    nonisolated let logger: Logger
    private let base: StdioTransport
    private var input: AsyncThrowingStream<Data, any Error>.AsyncIterator?
    /// Requests read and not answered yet.
    private var unanswered = 0
    private var allAnswered: CheckedContinuation<Void, Never>?

    init(logger: Logger) {
        self.logger = logger
        base = StdioTransport(logger: logger)
    }

    func connect() async throws {
        try await base.connect()
        input = await base.receive().makeAsyncIterator()
    }

    func disconnect() async {
        await base.disconnect()
    }

    func send(_ data: Data) async throws {
        try await base.send(data)
        if Self.kind(of: data) == .response {
            unanswered -= 1
            if unanswered <= 0, let waiting = allAnswered {
                allAnswered = nil
                waiting.resume()
            }
        }
    }

    func receive() -> AsyncThrowingStream<Data, any Error> {
        AsyncThrowingStream { try await self.next() }
    }

    /// The next message read; at the end of input, nil once every request has been answered.
    private func next() async throws -> Data? {
        // Taken out while it waits: the consumer asks for one message at a time.
        if var iterator = input {
            let data = try await iterator.next(isolation: self)
            input = iterator
            if let data {
                if Self.kind(of: data) == .request { unanswered += 1 }
                return data
            }
        }
        if unanswered > 0 { await withCheckedContinuation { allAnswered = $0 } }
        return nil
    }

    private enum Kind {
        case request
        case response
        case other
    }

    /// A request has a method and an id; a response an id and no method.
    private static func kind(of data: Data) -> Kind {
        guard let message = try? JSONSerialization.jsonObject(with: data) as? [String: Any], message["id"] != nil else { return .other }
        return message["method"] == nil ? .response : .request
    }
}
