import Foundation
import Primitives

/// Runs `body` on a thread of its own and returns what it returns (or throws what it throws): CPU
/// or SQLite work of a test kept off the cooperative pool, whose few threads every test of the
/// parallel run shares (a test holding one for seconds delays the timers of all the others).
/// When the calling task is cancelled first, this throws `CancellationError`; `body` goes on to
/// its end on its thread, so it must end by itself.
public func onThreadOfItsOwn<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    let outcome = OneShot<Result<T, any Error>>()
    Thread { outcome.settle(Result { try body() }) }.start()
    guard let result = await outcome.valueUnlessCancelled() else { throw CancellationError() }
    return try result.get()
}
