import Foundation

extension JSONValue {
    /// A compact printed form for messages and tests. The server prints JSON for the
    /// wire with jansson; this exists so that error messages can quote values.
    public var compactText: String {
        switch self {
        case .null: return "null"
        case let .bool(b): return b ? "true" : "false"
        case let .int(i): return String(i)
        case let .double(d): return d.isFinite ? "\(d)" : "null"
        case let .string(s): return "\"" + s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        case let .array(a): return "[" + a.map(\.compactText).joined(separator: ",") + "]"
        case let .object(o): return "{" + o.map { JSONValue.string($0.0).compactText + ":" + $0.1.compactText }.joined(separator: ",") + "}"
        }
    }
}
