import ChartSession
import Foundation

/// Parses JSON text into a `JSONValue` with Foundation. The server parses with
/// jansson; tests and the benchmark use this so that they need no C. Object keys come
/// out sorted (Foundation does not keep their order).
public func foundationJSON(_ text: String) -> JSONValue {
    func convert(_ any: Any) -> JSONValue {
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
    return convert(try! JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]))
}
