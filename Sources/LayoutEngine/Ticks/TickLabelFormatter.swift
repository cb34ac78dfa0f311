/// Formats tick values exactly from their integer index and step.
///
/// All labels of one axis share the step's number of decimals ("0.0, 0.5, 1.0"), so
/// they line up. Very large or very small magnitudes switch to exponent form
/// ("2.5e-12", "1e18"), still built from integer digits, never from a rounded double.
/// How a numeric axis writes its tick values.
public enum NumberLabelFormat: String, CaseIterable, Sendable {
    /// Plain digits ("120000000"); exponent form past 15 digits.
    case decimal
    /// With an SI suffix from a thousand up ("120M", "2.5K").
    case si
    /// Plain below a million (on a logarithmic axis, below ten thousand); from there up,
    /// SI suffixes where they make the labels shorter (the default).
    case auto
}

public enum TickLabelFormatter {
    /// Beyond these, plain digits get unreadable and the exponent form is used.
    public static let maxPlainDecimals = 9
    public static let maxPlainIntegerDigits = 15

    public static func label(index: Int64, step: TickStep) -> String {
        let (n, overflow) = index.multipliedReportingOverflow(by: Int64(step.factor))
        if overflow { return exponentLabel(Double(index) * step.value) }
        if n == 0 { return step.power < 0 ? "0." + String(repeating: "0", count: -step.power) : "0" }
        // Built byte by byte (labels are made for every candidate step of every axis at
        // every layout): the digits of |n|, then zeros, a point, or the exponent form.
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        let count = withUnsafeMutableBytes(of: &digits) { buf -> Int in
            var m = n.magnitude, k = 0
            while m > 0 { buf[19 - k] = UInt8(truncatingIfNeeded: m % 10) + 48; m /= 10; k += 1 }
            return k
        }
        return withUnsafeBytes(of: &digits) { raw -> String in
            let d = UnsafeBufferPointer(rebasing: raw.bindMemory(to: UInt8.self)[(20 - count)...])
            let negative = n < 0
            if step.power >= 0 {
                if count + step.power > maxPlainIntegerDigits {
                    return (negative ? "-" : "") + exponentForm(digits: String(decoding: d, as: UTF8.self), exponent: step.power + count - 1)
                }
                return String(unsafeUninitializedCapacity: count + step.power + 1) { out in
                    var i = 0
                    if negative { out[0] = 45; i = 1 }
                    for c in d { out[i] = c; i += 1 }
                    for _ in 0..<step.power { out[i] = 48; i += 1 }
                    return i
                }
            }
            let decimals = -step.power
            if decimals > maxPlainDecimals {
                return (negative ? "-" : "") + exponentForm(digits: String(decoding: d, as: UTF8.self), exponent: step.power + count - 1)
            }
            // "0.00ddd" when the digits do not reach the point, else "ddd.ddd".
            let integer = max(count - decimals, 1), zeros = max(decimals - count, 0)
            return String(unsafeUninitializedCapacity: integer + decimals + 2) { out in
                var i = 0
                if negative { out[0] = 45; i = 1 }
                if count <= decimals { out[i] = 48; i += 1 } else { for c in d[..<(count - decimals)] { out[i] = c; i += 1 } }
                out[i] = 46; i += 1
                for _ in 0..<zeros { out[i] = 48; i += 1 }
                for c in d[max(0, count - decimals)...] { out[i] = c; i += 1 }
                return i
            }
        }
    }

    /// The labels of one axis' ticks in `format`. With SI suffixes every label of the
    /// axis takes the suffix of its largest tick (0, 20M, 40M ... 120M; 0.5M, 1.0M,
    /// 1.5M), still exact: the step's power is shifted, no double is rounded. `auto`
    /// takes the suffix only where it makes the longest label shorter and leaves at most
    /// `maxSIDigits` significant digits: Unix seconds every minute stay "1790000040",
    /// not "1.7900000G".
    ///
    /// `autoSIFrom`: the largest tick from which `auto` considers suffixes (a million;
    /// a logarithmic axis passes `logAutoSIFrom`).
    public static func labels(indices: [Int64], step: TickStep, format: NumberLabelFormat,
                              autoSIFrom: Double = 1e6) -> [String] {
        let largest = indices.map { Double($0.magnitude) * step.value }.max() ?? 0
        let group = largest >= 1000 ? min(18, Int((largest.log10Value / 3).rounded(.down)) * 3) : 0
        let useSI: Bool
        switch format {
        case .decimal: useSI = false
        case .si: useSI = group > 0
        case .auto: useSI = group > 0 && largest >= autoSIFrom
        }
        let plain = { indices.map { label(index: $0, step: step) } }
        guard useSI else { return plain() }
        let shifted = TickStep(factor: step.factor, power: step.power - group)
        let suffix = siSuffixes[group / 3]
        let si = indices.map { i in i == 0 ? "0" : label(index: i, step: shifted) + suffix }
        // A mantissa that needs an exponent itself is no label ("1.79e0G").
        if si.contains(where: { $0.utf8.contains(101) }) { return plain() }
        guard format == .auto else { return si }
        let p = plain()
        return longest(si) < longest(p) && si.allSatisfy({ significantDigits($0) <= maxSIDigits }) ? si : p
    }

    /// Where `auto` starts suffixes on a logarithmic axis: ten thousand ("10K", "100K",
    /// "1M"). A linear axis' labels are read against their neighbours a step apart
    /// ("250000, 500000, 750000"), a log axis' each alone a decade from the next, where
    /// "100000" must be counted; "1000" still reads at a glance, and stays.
    public static let logAutoSIFrom = 1e4

    /// `auto` takes a suffix only for labels of at most this many significant digits
    /// (120M, 1.5M, 2.025G): past that the digits are an offset's, and plain digits
    /// read better (Unix milliseconds a second apart: 1790000001000, not 1.790000001T).
    public static let maxSIDigits = 5

    /// Significant digits of a label: its digits without leading zeros.
    static func significantDigits(_ label: String) -> Int {
        var count = 0, leading = true
        for c in label.utf8 where c >= 48 && c <= 57 {
            if leading, c == 48 { continue }
            leading = false
            count += 1
        }
        return count
    }

    /// Labels of arbitrary values (ticks given by the user): six significant digits,
    /// SI suffixes as `format` says for the largest of them (`auto`: where shorter).
    public static func labels(values: [Double], format: NumberLabelFormat) -> [String] {
        let largest = values.map(\.magnitude).max() ?? 0
        let group = largest >= 1000 && largest.isFinite ? min(18, Int((largest.log10Value / 3).rounded(.down)) * 3) : 0
        let useSI = format == .si ? group > 0 : format == .auto ? group >= 6 : false
        let plain = values.map { general($0) }
        guard useSI else { return plain }
        let scale = pow10(group)
        let si = values.map { $0 == 0 ? "0" : general($0 / scale, significant: format == .auto ? 12 : 6) + siSuffixes[group / 3] }
        guard format == .auto else { return si }
        return longest(si) < longest(plain) && si.allSatisfy({ significantDigits($0) <= maxSIDigits }) ? si : plain
    }

    static func longest(_ labels: [String]) -> Int { labels.map(\.utf8.count).max() ?? 0 }

    /// K = 10^3, M = 10^6, G = 10^9, T, P, E.
    static let siSuffixes = ["", "K", "M", "G", "T", "P", "E"]

    /// "d.ddde±x" from significant digits; trailing zeros of the mantissa dropped.
    static func exponentForm(digits: String, exponent: Int) -> String {
        var mantissa = Substring(digits)
        while mantissa.count > 1, mantissa.last == "0" { mantissa.removeLast() }
        let head = mantissa.prefix(1)
        let tail = mantissa.dropFirst()
        return (tail.isEmpty ? String(head) : head + "." + tail) + "e" + String(exponent)
    }

    static func exponentLabel(_ v: Double) -> String { "\(v)" }

    /// A general-purpose label for a value that is not on a tick (legends, cursors):
    /// up to `significant` significant digits after the point, no trailing zeros;
    /// the integer part is always whole (1234567 stays 1234567).
    public static func general(_ v: Double, significant: Int = 6) -> String {
        guard v.isFinite else { return v.isNaN ? "NaN" : (v > 0 ? "∞" : "-∞") }
        if v == 0 { return "0" }
        let magnitude = Int(v.magnitude.log10Value)
        let decimals = max(0, significant - 1 - magnitude)
        if magnitude >= maxPlainIntegerDigits || decimals > maxPlainDecimals + 3 { return "\(v)" }
        let scaled = (v.magnitude * pow10(decimals)).rounded()
        guard scaled < 9e18 else { return "\(v)" }
        var text = String(Int64(scaled))
        if decimals > 0 {
            if text.count <= decimals { text = String(repeating: "0", count: decimals - text.count + 1) + text }
            let cut = text.index(text.endIndex, offsetBy: -decimals)
            var frac = String(text[cut...])
            while frac.last == "0" { frac.removeLast() }
            text = frac.isEmpty ? String(text[..<cut]) : text[..<cut] + "." + frac
        }
        return (v < 0 ? "-" : "") + text
    }
}
