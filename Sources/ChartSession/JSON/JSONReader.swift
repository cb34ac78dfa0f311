import Synchronization

/// An error found while reading a JSON document into a typed value: the JSON path of
/// the fault (`$.sessions[0].chart.series[2].color`) and what is wrong there.
public struct JSONReadError: Error, Equatable, CustomStringConvertible, Sendable {
    public let path: String
    public let message: String
    public init(path: String, message: String) { self.path = path; self.message = message }
    public var description: String { "\(path): \(message)" }
}

/// Reads typed fields out of a `JSONValue`, tracking the JSON path so that every
/// error says exactly where it is. Unknown keys are refused (a typo in a spec should
/// not pass silently); call `finish()` after reading an object's fields.
public struct JSONReader {
    public let value: JSONValue
    public let path: String
    private var seen: Set<String> = []

    public init(_ value: JSONValue, path: String = "$") { self.value = value; self.path = path }

    public func fail(_ message: String) -> JSONReadError { JSONReadError(path: path, message: message) }

    func child(_ key: String) -> String { "\(path).\(key)" }

    private mutating func field(_ key: String) throws -> JSONValue? {
        guard case let .object(members) = value else { throw fail("expected an object, found \(value.kindName)") }
        seen.insert(key)
        if JSONFieldRecorder.active.load(ordering: .relaxed) > 0, let recorder = JSONFieldRecorder.current { recorder.record(path, key) }
        guard let v = members.first(where: { $0.0 == key })?.1 else { return nil }
        if case .null = v { return nil }
        return v
    }

    public mutating func has(_ key: String) throws -> Bool { try field(key) != nil }

    public mutating func string(_ key: String) throws -> String? {
        guard let v = try field(key) else { return nil }
        guard let s = v.stringValue else { throw JSONReadError(path: child(key), message: "expected a string, found \(v.kindName)") }
        return s
    }

    public mutating func requiredString(_ key: String) throws -> String {
        guard let s = try string(key) else { throw JSONReadError(path: child(key), message: "is required") }
        return s
    }

    public mutating func bool(_ key: String) throws -> Bool? {
        guard let v = try field(key) else { return nil }
        guard let b = v.boolValue else { throw JSONReadError(path: child(key), message: "expected true or false, found \(v.kindName)") }
        return b
    }

    /// A finite number, optionally bounded.
    public mutating func number(_ key: String, min: Double? = nil, max: Double? = nil) throws -> Double? {
        guard let v = try field(key) else { return nil }
        guard let d = v.doubleValue else { throw JSONReadError(path: child(key), message: "expected a number, found \(v.kindName)") }
        guard d.isFinite else { throw JSONReadError(path: child(key), message: "must be finite") }
        if let lo = min, d < lo { throw JSONReadError(path: child(key), message: "must be at least \(JSONValue.number(lo).compactText)") }
        if let hi = max, d > hi { throw JSONReadError(path: child(key), message: "must be at most \(JSONValue.number(hi).compactText)") }
        return d
    }

    public mutating func integer(_ key: String, min: Int? = nil, max: Int? = nil) throws -> Int? {
        guard let d = try number(key, min: min.map(Double.init), max: max.map(Double.init)) else { return nil }
        guard d.rounded() == d, d.magnitude < 9e15 else { throw JSONReadError(path: child(key), message: "expected a whole number") }
        return Int(d)
    }

    /// One of a fixed set of strings.
    public mutating func oneOf<T: RawRepresentable>(_ key: String, _: T.Type) throws -> T?
    where T.RawValue == String, T: CaseIterable {
        guard let s = try string(key) else { return nil }
        guard let t = T(rawValue: s) else {
            let options = T.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
            throw JSONReadError(path: child(key), message: "unknown value \"\(s)\"; expected one of \(options)")
        }
        return t
    }

    public mutating func numbers(_ key: String) throws -> [Double]? {
        guard let v = try field(key) else { return nil }
        guard let items = v.arrayValue else { throw JSONReadError(path: child(key), message: "expected an array of numbers, found \(v.kindName)") }
        return try items.enumerated().map { i, item in
            guard let d = item.doubleValue else {
                throw JSONReadError(path: "\(child(key))[\(i)]", message: "expected a number, found \(item.kindName)")
            }
            guard d.isFinite else { throw JSONReadError(path: "\(child(key))[\(i)]", message: "must be finite") }
            return d
        }
    }

    /// An array of strings.
    public mutating func strings(_ key: String) throws -> [String]? {
        guard let v = try field(key) else { return nil }
        guard let items = v.arrayValue else { throw JSONReadError(path: child(key), message: "expected an array of strings, found \(v.kindName)") }
        return try items.enumerated().map { i, item in
            guard let s = item.stringValue else {
                throw JSONReadError(path: "\(child(key))[\(i)]", message: "expected a string, found \(item.kindName)")
            }
            return s
        }
    }

    /// Numbers where `null` stands for a gap (NaN): the y of an append.
    public mutating func numbersOrGaps(_ key: String) throws -> [Double]? {
        guard let v = try field(key) else { return nil }
        guard let items = v.arrayValue else {
            throw JSONReadError(path: child(key), message: "expected an array of numbers (null for a gap), found \(v.kindName)")
        }
        var out: [Double] = []
        out.reserveCapacity(items.count)
        for (i, item) in items.enumerated() {
            if case .null = item { out.append(.nan); continue }
            guard let d = item.doubleValue else {
                throw JSONReadError(path: "\(child(key))[\(i)]", message: "expected a number or null, found \(item.kindName)")
            }
            guard d.isFinite else { throw JSONReadError(path: "\(child(key))[\(i)]", message: "must be finite") }
            out.append(d)
        }
        return out
    }

    /// A nested object, read by `body`.
    public mutating func object<T>(_ key: String, _ body: (inout JSONReader) throws -> T) throws -> T? {
        guard let v = try field(key) else { return nil }
        var r = JSONReader(v, path: child(key))
        let t = try body(&r)
        try r.finish()
        return t
    }

    /// An array of objects, each read by `body`.
    public mutating func objects<T>(_ key: String, _ body: (inout JSONReader) throws -> T) throws -> [T]? {
        guard let v = try field(key) else { return nil }
        guard let items = v.arrayValue else { throw JSONReadError(path: child(key), message: "expected an array, found \(v.kindName)") }
        return try items.enumerated().map { i, item in
            var r = JSONReader(item, path: "\(child(key))[\(i)]")
            let t = try body(&r)
            try r.finish()
            return t
        }
    }

    /// Refuses keys that were never asked for.
    public func finish() throws {
        guard case let .object(members) = value else { throw fail("expected an object, found \(value.kindName)") }
        for (key, _) in members where !seen.contains(key) {
            throw JSONReadError(path: child(key), message: "unknown field")
        }
    }
}

/// Records every field readers ask for (accept), by where it is: the JSON path without
/// list indices (`$.sessions.chart.xAxes`). A test reads docs/config.md against what
/// the spec reader records while reading specs of every kind, so the two cannot drift.
public final class JSONFieldRecorder: Sendable {
    private let fields = Mutex<[String: Set<String>]>([:])
    public init() {}

    /// Runs `body` with this recorder taking the fields read on this task.
    public func recording<T>(_ body: () throws -> T) rethrows -> T {
        Self.active.add(1, ordering: .relaxed)
        defer { Self.active.subtract(1, ordering: .relaxed) }
        return try Self.$current.withValue(self) { try body() }
    }

    /// The fields read, by path without indices.
    public var recorded: [String: Set<String>] { fields.withLock { $0 } }

    func record(_ path: String, _ key: String) {
        var place = ""
        var inIndex = false
        for c in path {
            if c == "[" { inIndex = true } else if c == "]" { inIndex = false } else if !inIndex { place.append(c) }
        }
        _ = fields.withLock { $0[place, default: []].insert(key) }
    }

    @TaskLocal static var current: JSONFieldRecorder?
    /// Recorders recording (readers look no further while there are none).
    static let active = Atomic<Int>(0)
}
