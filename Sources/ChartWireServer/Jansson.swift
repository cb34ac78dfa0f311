import CJansson
import ChartSession
import Foundation

/// All JSON in and out of the server goes through jansson; this file is the only
/// place that touches it. Parsed documents become `JSONValue`s at once.
enum Jansson {
    struct ParseError: Error, CustomStringConvertible {
        let message: String
        let line: Int
        let column: Int
        /// Set when the document holds more values than the limit allows (nothing was
        /// built): the answer is 413, not 400.
        var valueLimit: Int? = nil
        var description: String {
            if let limit = valueLimit {
                return "the JSON holds more than \(limit) values (limit jsonValues; \(SessionLimits.howToRaise("jsonValues")))"
            }
            return "invalid JSON at line \(line), column \(column): \(message)"
        }
        /// The HTTP status for this error.
        var status: Int { valueLimit == nil ? 400 : 413 }
    }

    /// Parses one JSON document (duplicate keys refused). A document of more than
    /// `maxValues` values (`SessionLimits.jsonValues` unless given; nil: any) is refused
    /// after a scan that builds nothing, so a body of a million empty objects costs its
    /// own bytes, not a tree of them.
    static func parse(_ bytes: UnsafeRawBufferPointer, maxValues: Int? = SessionLimits.current.jsonValues) throws(ParseError) -> JSONValue {
        if let limit = maxValues, JSONScan.countValues(bytes, limit: limit) > limit {
            LimitCounters.count("jsonValues")
            throw ParseError(message: "too many values", line: 0, column: 0, valueLimit: limit)
        }
        var error = json_error_t()
        var empty: CChar = 0
        let base = bytes.baseAddress?.assumingMemoryBound(to: CChar.self) ?? withUnsafePointer(to: &empty) { $0 }
        guard let root = json_loadb(base, bytes.count, Int(JSON_REJECT_DUPLICATES), &error) else {
            let text = withUnsafeBytes(of: &error.text) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            throw ParseError(message: text, line: Int(error.line), column: Int(error.column))
        }
        defer { cw_json_decref(root) }
        return value(of: root)
    }

    static func parse(_ bytes: [UInt8], maxValues: Int? = SessionLimits.current.jsonValues) throws(ParseError) -> JSONValue {
        let result: Result<JSONValue, ParseError> = bytes.withUnsafeBytes { raw in
            do throws(ParseError) { return .success(try parse(raw, maxValues: maxValues)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    static func parse(_ text: String, maxValues: Int? = SessionLimits.current.jsonValues) throws(ParseError) -> JSONValue {
        try parse(Array(text.utf8), maxValues: maxValues)
    }

    private static func value(of j: UnsafeMutablePointer<json_t>) -> JSONValue {
        switch cw_json_typeof(j) {
        case Int32(CW_JSON_OBJECT):
            var members: [(String, JSONValue)] = []
            var iter = json_object_iter(j)
            while let it = iter {
                let key = String(cString: json_object_iter_key(it))
                if let v = json_object_iter_value(it) { members.append((key, value(of: v))) }
                iter = json_object_iter_next(j, it)
            }
            return .object(members)
        case Int32(CW_JSON_ARRAY):
            let n = json_array_size(j)
            var items: [JSONValue] = []
            items.reserveCapacity(n)
            for i in 0..<n { if let v = json_array_get(j, i) { items.append(value(of: v)) } }
            return .array(items)
        case Int32(CW_JSON_STRING):
            let n = json_string_length(j)
            guard let p = json_string_value(j) else { return .string("") }
            return .string(String(decoding: UnsafeRawBufferPointer(start: p, count: n), as: UTF8.self))
        case Int32(CW_JSON_INTEGER): return .int(Int64(json_integer_value(j)))
        case Int32(CW_JSON_REAL): return .double(json_real_value(j))
        case Int32(CW_JSON_TRUE): return .bool(true)
        case Int32(CW_JSON_FALSE): return .bool(false)
        default: return .null
        }
    }

    /// Prints a value compactly. `realPrecision` is the significant digits of
    /// fractional numbers (display lists use 9: floats round-trip at that).
    static func serialize(_ v: JSONValue, realPrecision: Int32 = 17) -> [UInt8] {
        guard let j = make(v) else { return Array("null".utf8) }
        defer { cw_json_decref(j) }
        let flags = Int(JSON_COMPACT) | Int(cw_json_real_precision(realPrecision)) | Int(JSON_ENCODE_ANY)
        guard let text = json_dumps(j, flags) else { return Array("null".utf8) }
        defer { free(text) }
        return Array(UnsafeRawBufferPointer(start: text, count: strlen(text)))
    }

    static func serializeString(_ v: JSONValue, realPrecision: Int32 = 17) -> String {
        String(decoding: serialize(v, realPrecision: realPrecision), as: UTF8.self)
    }

    private static func make(_ v: JSONValue) -> UnsafeMutablePointer<json_t>? {
        switch v {
        case .null: return json_null()
        case let .bool(b): return b ? json_true() : json_false()
        case let .int(i): return json_integer(json_int_t(i))
        case let .double(d): return d.isFinite ? json_real(d) : json_null()
        case let .string(s):
            return s.utf8CString.withUnsafeBufferPointer { json_stringn($0.baseAddress, $0.count - 1) }
        case let .array(items):
            let a = json_array()
            for item in items { if let j = make(item) { json_array_append_new(a, j) } }
            return a
        case let .object(members):
            let o = json_object()
            for (k, item) in members { if let j = make(item) { json_object_set_new(o, k, j) } }
            return o
        }
    }
}
