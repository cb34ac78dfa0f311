/// A partial spec laid over a whole one (`PATCH /api/sessions/{s}`, the `patch`
/// message): JSON merge patch (RFC 7396) with one addition for lists of things that
/// have ids.
///
/// - An object merges key by key; `null` removes a key (its default comes back).
/// - A list whose entries all carry an `"id"` (series, axes) merges entry by entry:
///   an entry with a known id merges into that entry, one with a new id is added at
///   the end, and `{"id": "…", "remove": true}` removes one. The others keep their
///   order.
/// - Anything else (numbers, strings, lists without ids such as `annotations` and
///   `modifiers`) replaces what was there.
public enum SpecPatch {
    public static func merge(_ base: JSONValue, _ patch: JSONValue, path: String = "$") throws(JSONReadError) -> JSONValue {
        switch (base, patch) {
        case let (.object(old), .object(changes)):
            var out = old
            for (key, change) in changes {
                let i = out.firstIndex { $0.0 == key }
                if change == .null {
                    if let i { out.remove(at: i) }
                } else if let i {
                    out[i].1 = try merge(out[i].1, change, path: "\(path).\(key)")
                } else {
                    out.append((key, try merge(.null, change, path: "\(path).\(key)")))
                }
            }
            return .object(out)
        case let (.array(old), .array(changes)) where !changes.isEmpty && changes.allSatisfy({ $0["id"]?.stringValue != nil })
            && old.allSatisfy({ $0["id"]?.stringValue != nil }):
            var out = old
            for (k, change) in changes.enumerated() {
                let id = change["id"]!.stringValue!
                let at = "\(path)[\(k)]"
                let i = out.firstIndex { $0["id"]?.stringValue == id }
                if change["remove"] == .bool(true) {
                    guard let i else { throw JSONReadError(path: at, message: "no entry with id \"\(id)\" to remove") }
                    out.remove(at: i)
                } else if let remove = change["remove"], remove != .bool(false) {
                    throw JSONReadError(path: "\(at).remove", message: "expected true (remove the entry with this id)")
                } else if let i {
                    out[i] = try merge(out[i], withoutRemove(change), path: at)
                } else {
                    out.append(try merge(.null, withoutRemove(change), path: at))
                }
            }
            return .array(out)
        case (_, .object):
            // A new object: its nulls mean "not given".
            return try merge(.object([]), patch, path: path)
        default:
            return patch
        }
    }

    private static func withoutRemove(_ v: JSONValue) -> JSONValue {
        guard case let .object(members) = v else { return v }
        return .object(members.filter { $0.0 != "remove" })
    }

    /// Whether `patch` names `key` anywhere inside it.
    static func mentions(_ patch: JSONValue?, _ key: String) -> Bool {
        switch patch {
        case let .object(members)?: return members.contains { $0.0 == key || mentions($0.1, key) }
        case let .array(items)?: return items.contains { mentions($0, key) }
        default: return false
        }
    }

    /// The entry with `id` of the list at `key` of an object, if any.
    static func entry(_ list: JSONValue?, id: String) -> JSONValue? {
        list?.arrayValue?.first { $0["id"]?.stringValue == id }
    }

    /// The entries of a list by id (the first of each id), to find many in one step each.
    static func entries(_ list: JSONValue?) -> [String: JSONValue] {
        var out: [String: JSONValue] = [:]
        for e in list?.arrayValue ?? [] { if let id = e["id"]?.stringValue, out[id] == nil { out[id] = e } }
        return out
    }
}
