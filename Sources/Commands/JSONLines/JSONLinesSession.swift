import ReadModel
import Bridge
import MirrorStore

/// The JSON-lines front end: one JSON-RPC 2.0 request per line in, one answer per line out, and
/// the notifications of the subscriptions that `events.subscribe` starts.
///
/// Blank lines are ignored. A line that is not JSON gets a -32700 answer with a null id; JSON that
/// is not a request object gets -32600. A request without an `id` is a notification: it runs and
/// gets no answer. Every other request gets exactly one answer, `result` or `error`, in the order
/// the requests came. Each subscription runs as a task of its own, so that requests keep being
/// answered while its notifications flow; every line is written whole (`StandardOutput`).
/// After `quit` (answered `{}`), the session ends, with its subscriptions; at the end of input it
/// ends once every subscription has.
public struct JSONLinesSession {
    let runner: CommandRunner
    let mirrorPath: String

    /// A session whose commands run with `context`, on a thread of their own (`CommandRunner`).
    public init(context: sending CommandContext) {
        mirrorPath = context.mirrorPath
        runner = CommandRunner(context: context)
    }

    /// Answers the requests read from `input` on `output` until `quit`, or until the input ends
    /// and every subscription is over.
    public func run(input: some LineInput, output: some LineOutput) async {
        await MirrorChangeSignal.withSignal(mirrorPath: mirrorPath) { signal in
            let reader = MirrorReader(mirrorPath: mirrorPath)
            let subscriptions = SubscriptionRegistry()
            // Discarding: a long session that subscribes and unsubscribes keeps no finished task.
            await withDiscardingTaskGroup { group in
                while let line = await input.nextLine() {
                    let (answer, result) = await answer(line)
                    switch result?.feed {
                    case .start(let request):
                        // Sent as a notification, it would give its notifications a number the client never learns.
                        guard let answer else { continue }
                        let number = subscriptions.add()
                        if case .object(let members) = result?.json.kind {
                            let numbered = JSONValue.object([JSONMember("subscription", .number(number))] + members)
                            await output.write(Self.result(id: answer.id, numbered))
                        }
                        let redaction = await runner.feedRedaction()
                        group.addTask {
                            await Self.follow(request, subscription: number, reader: reader, signal: signal, redaction: redaction,
                                              subscriptions: subscriptions, output: output)
                        }
                        continue
                    case .stop(let number):
                        guard subscriptions.end(number) else {
                            if let id = answer?.id { await output.write(Self.error(id: id, .unknownSubscription(number))) }
                            continue
                        }
                        // No notification of it follows the answer.
                        await subscriptions.waitUntilGone(number)
                    case nil:
                        break
                    }
                    if result?.quits == true {
                        // Every subscription over first: nothing comes after the answer.
                        for number in subscriptions.endAll() { await subscriptions.waitUntilGone(number) }
                    }
                    if let answer { await output.write(answer.line) }
                    if result?.quits == true { return }
                }
            }
        }
    }

    /// Runs one subscription's feed, writing its notifications, until it ends on its own (idle, an
    /// error), is unsubscribed, or the session ends.
    private static func follow(
        _ request: FeedRequest, subscription: Int, reader: MirrorReader, signal: MirrorChangeSignal, redaction: FeedRedaction,
        subscriptions: SubscriptionRegistry, output: some LineOutput
    ) async {
        defer { subscriptions.remove(subscription) }
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                let ending: String?
                do {
                    let end = try await EventFeed.run(request, reader: reader, signal: signal) { items in
                        for line in FeedNotifications.lines(for: redaction.redacted(items), subscription: subscription) where !Task.isCancelled {
                            await output.write(line)
                        }
                    }
                    ending = switch end {
                    case .idle: FeedNotifications.ended(subscription: subscription, reason: "idle")
                    case .merged(let into): FeedNotifications.ended(subscription: subscription, reason: "merged", into: into)
                    case .stopped: nil
                    }
                } catch {
                    ending = FeedNotifications.ended(subscription: subscription, reason: "error", message: CommandError.message(for: error))
                }
                if let ending, !Task.isCancelled { await output.write(ending) }
            }
            group.addTask { await subscriptions.waitForEnd(subscription) }
            await group.next()
            group.cancelAll()
        }
    }

    /// An answer to write, with the request's id.
    struct Answer {
        var id: JSONValue
        var line: String
    }

    /// The answer to one input line (nil when there is none to give) and the command's result.
    func answer(_ line: String) async -> (Answer?, CommandResult?) {
        guard line.contains(where: { !$0.isWhitespace }) else { return (nil, nil) }
        let request: JSONValue
        do {
            request = try JSONParser.parse(line)
        } catch {
            return (Answer(id: .null, line: Self.error(id: .null, CommandError.parseError(error.description))), nil)
        }
        guard let members = request.objectValue else {
            let error = CommandError.invalidRequest("expected one request object per line (batches are not supported)")
            return (Answer(id: .null, line: Self.error(id: .null, error)), nil)
        }
        let id = members.last { $0.key == "id" }?.value
        let answerID = id.map { JSONValue($0.kind) } ?? .null
        func failed(_ error: CommandError) -> (Answer?, CommandResult?) {
            (id == nil ? nil : Answer(id: answerID, line: Self.error(id: answerID, error)), nil)
        }
        guard request["jsonrpc"]?.stringValue == "2.0" else { return failed(.invalidRequest("jsonrpc must be \"2.0\"")) }
        guard let method = request["method"]?.stringValue else { return failed(.invalidRequest("method must be a string")) }
        if let id, !Self.isValidID(id) {
            return (Answer(id: .null, line: Self.error(id: .null, .invalidRequest("id must be a string, a number or null"))), nil)
        }
        do {
            let result = try await runner.run(method: method, params: request["params"])
            guard id != nil else { return (nil, result) }
            return (Answer(id: answerID, line: Self.result(id: answerID, result.json)), result)
        } catch {
            return failed(error)
        }
    }

    private static func result(id: JSONValue, _ result: JSONValue) -> String {
        String(decoding: JSONWriter.bytes(of: ["jsonrpc": "2.0", "id": id, "result": result]), as: UTF8.self)
    }

    private static func isValidID(_ id: JSONValue) -> Bool {
        switch id.kind {
        case .string, .number, .null: true
        default: false
        }
    }

    static func error(id: JSONValue, _ error: CommandError) -> String {
        let members = [JSONMember("code", .number(error.code)), JSONMember("message", .string(error.description)),
                       JSONMember("data", error.data)]
        let answer: JSONValue = ["jsonrpc": "2.0", "id": id, "error": .object(members)]
        return String(decoding: JSONWriter.bytes(of: answer), as: UTF8.self)
    }
}
