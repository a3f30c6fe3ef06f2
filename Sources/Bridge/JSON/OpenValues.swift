/// The values of the JSON containers a parser has open, innermost last, in memory it owns: each
/// container's values are collected here and moved, once, into an array of their exact count
/// (an array grown value by value allocates and copies several times; one copied out of a shared
/// array retains and releases each value again).
///
/// Owned by one parse, which calls `release()` when it ends, thrown or not.
struct OpenValues<Element> {
    private var storage: UnsafeMutablePointer<Element>?
    private var capacity = 0
    /// How many values are held, for all open containers.
    private(set) var count = 0

    /// Adds a value of the innermost container.
    mutating func push(_ element: Element) {
        if count == capacity { grow() }
        guard let storage else { return }
        (storage + count).initialize(to: element)
        count += 1
    }

    /// Moves the values from index `first` on (the innermost container's) into an array.
    mutating func pop(from first: Int) -> [Element] {
        let moved = count - first
        guard moved > 0, let storage else { return [] }
        let values = [Element](unsafeUninitializedCapacity: moved) { buffer, initialized in
            guard let base = buffer.baseAddress else { return }
            base.moveInitialize(from: storage + first, count: moved)
            initialized = moved
        }
        count = first
        return values
    }

    /// Frees what is held (values of containers a failed parse left open, and the memory).
    mutating func release() {
        storage?.deinitialize(count: count)
        storage?.deallocate()
        storage = nil
        capacity = 0
        count = 0
    }

    private mutating func grow() {
        let larger = max(64, capacity * 2)
        let grown = UnsafeMutablePointer<Element>.allocate(capacity: larger)
        if let storage {
            grown.moveInitialize(from: storage, count: count)
            storage.deallocate()
        }
        storage = grown
        capacity = larger
    }
}
