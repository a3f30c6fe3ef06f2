import Hummingbird

/// A page's live updates as server-sent events (`text/event-stream`): `event: change` when what
/// it shows changed, a comment as a heartbeat. The stream ends when the hub finishes it (the
/// server stops) or the page goes (a write fails).
enum ServerSentEvents {
    static func response(_ stream: AsyncStream<LiveHub.Message>) -> Response {
        Response(
            status: .ok,
            headers: [.contentType: "text/event-stream; charset=utf-8"],
            body: ResponseBody { writer in
                // A reconnecting page waits 2 s; the first line tells the page the stream is open.
                try await writer.write(ByteBuffer(string: "retry: 2000\n: open\n\n"))
                for await message in stream {
                    switch message {
                    case .change: try await writer.write(ByteBuffer(string: "event: change\ndata: \n\n"))
                    case .heartbeat: try await writer.write(ByteBuffer(string: ": heartbeat\n\n"))
                    }
                }
                try await writer.finish(nil)
            }
        )
    }
}
