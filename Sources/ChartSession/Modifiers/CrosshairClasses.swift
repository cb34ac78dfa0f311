import LayoutEngine
import Synchronization

/// Crosshair subclasses a spec may name (`{"type": "crosshair", "class": "trade"}`):
/// the program registers a factory under a name before it serves, as it registers
/// its other hooks; the spec names the class, so a stored session gets the subclass
/// again once the restarted program has registered it (docs/modifiers.md,
/// "Subclassing the crosshair").
extension CrosshairModifier {
    /// What a spec's crosshair gives the factory of its class.
    public struct Config: Equatable, Sendable {
        public var mode: Mode
        public var interpolatePoints: Bool
        /// The name the spec gave (`class`).
        public var className: String
        public init(mode: Mode = .singleSeries, interpolatePoints: Bool = false, className: String) {
            self.mode = mode; self.interpolatePoints = interpolatePoints; self.className = className
        }
    }

    /// Makes the crosshair of a registered class from the spec's settings.
    public typealias Factory = @Sendable (Config) -> CrosshairModifier

    private static let factories = Mutex<[String: Factory]>([:])

    /// Registers (or replaces) the class a spec names as `name`: from then on a spec's
    /// `{"type": "crosshair", "class": name}` makes its crosshair with `make`. Names are
    /// 1 to 64 characters. A program registers its classes before the server starts,
    /// so that stored sessions naming them are restored with them.
    public static func register(_ name: String, _ make: @escaping Factory) {
        precondition(classNameProblem(name) == nil, "crosshair class name \"\(name)\": \(classNameProblem(name) ?? "")")
        factories.withLock { $0[name] = make }
    }

    /// Forgets a registered class (tests; a program rarely needs it). Sessions already
    /// made keep their crosshair.
    public static func unregister(_ name: String) {
        _ = factories.withLock { $0.removeValue(forKey: name) }
    }

    /// The registered class names, sorted.
    public static var registeredClasses: [String] { factories.withLock { $0.keys.sorted() } }

    static func factory(_ name: String) -> Factory? { factories.withLock { $0[name] } }

    /// Why `name` cannot name a class (nil: it can).
    static func classNameProblem(_ name: String) -> String? {
        (1...64).contains(name.count) ? nil : "expected a class name of 1 to 64 characters"
    }

    /// Nil when this program has registered class `name`, else why not, with the names
    /// it has.
    public static func unregisteredClassProblem(_ name: String) -> String? {
        guard factory(name) == nil else { return nil }
        let names = registeredClasses.map { "\"\($0)\"" }
        return "no crosshair class \"\(name)\" in this program: "
            + (names.isEmpty ? "it registers none (CrosshairModifier.register)" : "it registers \(names.joined(separator: ", "))")
    }

    /// The crosshair a spec's settings make: its class's, or the plain one (with
    /// `missingClass` set) when the program has not registered that class.
    static func make(_ config: Config?, mode: Mode, interpolatePoints: Bool) -> CrosshairModifier {
        guard let config else { return CrosshairModifier(mode: mode, interpolatePoints: interpolatePoints) }
        if let make = factory(config.className) { return make(config) }
        let plain = CrosshairModifier(mode: mode, interpolatePoints: interpolatePoints)
        plain.missingClass = config.className
        return plain
    }

    /// Refuses a spec (or a patch) whose crosshairs name a class this program has not
    /// registered, at the JSON path of the name (`$.chart.modifiers[1].class`). Called
    /// at the door for live changes (`Session.submit`, `SessionHub.submit`), not when a
    /// stored session is rebuilt: there the plain crosshair stands in, with a warning.
    public static func checkClasses(in spec: JSONValue) throws(JSONReadError) {
        guard let modifiers = spec["chart"]?["modifiers"]?.arrayValue else { return }
        for (i, m) in modifiers.enumerated() {
            guard m["type"]?.stringValue == "crosshair", let name = m["class"]?.stringValue,
                  classNameProblem(name) == nil, let why = unregisteredClassProblem(name) else { continue }
            throw JSONReadError(path: "$.chart.modifiers[\(i)].class", message: why)
        }
    }
}
