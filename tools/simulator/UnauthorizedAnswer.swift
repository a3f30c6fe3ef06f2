import NIOCore

/// Makes the answer to a declined WebSocket upgrade a 401, as a bridge that wants a token answers
/// (Part 4 of the protocol): the HTTP server answers every declined upgrade with 400, so this
/// handler, put first in the pipeline of a connection whose upgrade lacked the token, rewrites the
/// status line of the response on its way out.
final class UnauthorizedAnswer: ChannelOutboundHandler, RemovableChannelHandler, Sendable {
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        var buffer = unwrapOutboundIn(data)
        let declined = Array("HTTP/1.1 400 Bad Request\r\n".utf8)
        if buffer.readableBytesView.starts(with: declined) {
            buffer.moveReaderIndex(forwardBy: declined.count)
            var answer = context.channel.allocator.buffer(string: "HTTP/1.1 401 Unauthorized\r\n")
            answer.writeBuffer(&buffer)
            context.write(wrapOutboundOut(answer), promise: promise)
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
            return
        }
        context.write(wrapOutboundOut(buffer), promise: promise)
    }
}
