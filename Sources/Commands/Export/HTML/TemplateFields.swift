import Mustache

/// A view as the HTML templates read it: its stored properties by name, from one reflection of
/// the value. swift-mustache reflects a value again at each `{{name}}`, and once more for each
/// level of the context it climbs past, which was most of a page's rendering time; this reads
/// each value once and each name in a dictionary.
///
/// A property is handed over as swift-mustache would read it itself: an optional unwrapped (nil
/// when empty, so the name is looked for further up the context), a struct or class as
/// `TemplateFields` of its own, an array with its elements so, anything else as it is. A
/// wrapped value prints as the value would, should a template print it whole.
struct TemplateFields: MustacheParent, CustomStringConvertible {
    private let value: Any
    private let fields: [String: Any]

    init(_ value: Any) {
        self.init(value, mirror: Mirror(reflecting: value))
    }

    private init(_ value: Any, mirror: Mirror) {
        var fields: [String: Any] = [:]
        for case let (label?, child) in mirror.children {
            fields[label] = child
        }
        self.value = value
        self.fields = fields
    }

    var description: String { String(describing: value) }

    func child(named name: String) -> Any? {
        fields[name].flatMap(Self.readable)
    }

    /// `value` as a template reads it (see the type's comment); nil for an empty optional.
    private static func readable(_ value: Any) -> Any? {
        if value is String || value is Bool || value is any Numeric || value is MustacheParent || value is MustacheLambda {
            return value
        }
        let mirror = Mirror(reflecting: value)
        switch mirror.displayStyle {
        case .optional:
            return mirror.children.first.flatMap { readable($0.value) }
        case .struct, .class:
            return TemplateFields(value, mirror: mirror)
        case .collection:
            guard let elements = value as? [Any] else { return value }
            return elements.map { readable($0) ?? $0 }
        default:
            return value
        }
    }
}
