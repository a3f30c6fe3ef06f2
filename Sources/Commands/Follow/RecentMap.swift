/// A dictionary that keeps only its `capacity` most recently added keys: a long follow's memory
/// stays bounded while what is on screen lately can still be named.
struct RecentMap<Key: Hashable, Value> {
    private var values: [Key: Value] = [:]
    /// Keys in the order they were added, from `head` on.
    private var order: [Key] = []
    private var head = 0
    let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// The value last set for `key`, unless the key went since.
    subscript(key: Key) -> Value? {
        values[key]
    }

    /// Sets `key`'s value; the least recently added key goes when there are too many.
    mutating func set(_ value: Value, for key: Key) {
        guard values.updateValue(value, forKey: key) == nil else { return }
        order.append(key)
        guard values.count > capacity else { return }
        values[order[head]] = nil
        head += 1
        if head >= capacity {
            order.removeFirst(head)
            head = 0
        }
    }
}
