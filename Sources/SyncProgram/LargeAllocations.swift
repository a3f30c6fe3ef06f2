#if canImport(Glibc)
import Glibc
#endif

/// How the process allocates large blocks (messages, pages, batches: up to the message limit).
enum LargeAllocations {
    /// glibc's `M_MMAP_THRESHOLD` (malloc.h).
    private static let mmapThreshold: Int32 = -3

    /// Has glibc map every block of 1 MiB or more on its own and unmap it when freed. By default
    /// glibc raises that threshold to the largest block freed (up to 32 MiB), after which large
    /// events' buffers come from the heaps of the pool's threads and stay there: the peak resident
    /// memory of a catch-up of large events was about 1.7 times higher (docs/benchmarks.md).
    static func mapLargeBlocksAlone() {
        #if canImport(Glibc)
        // mallopt's header is not part of the Glibc module, so it is looked up by name
        // (RTLD_DEFAULT is a null handle), as MirrorStore.releaseMemory does malloc_trim.
        if let symbol = dlsym(nil, "mallopt") {
            _ = unsafeBitCast(symbol, to: (@convention(c) (Int32, Int32) -> Int32).self)(mmapThreshold, 1 << 20)
        }
        #endif
    }
}
