import ChartSession
import Foundation

/// The benchmark reads the embedded demo spec with Foundation's parser: chartbench
/// stays free of C, and the spec is small.
enum DemoJSON {
    static func parse(_ text: String) -> JSONValue {
        convert(try! JSONSerialization.jsonObject(with: Data(text.utf8)))
    }

    static func convert(_ any: Any) -> JSONValue {
        switch any {
        case let d as [String: Any]: return .object(d.keys.sorted().map { ($0, convert(d[$0]!)) })
        case let a as [Any]: return .array(a.map(convert))
        case let s as String: return .string(s)
        case let n as NSNumber:
            if String(cString: n.objCType) == "c" { return .bool(n.boolValue) }
            let d = n.doubleValue
            return d.rounded() == d && abs(d) < 9e15 ? .int(n.int64Value) : .double(d)
        default: return .null
        }
    }
}
