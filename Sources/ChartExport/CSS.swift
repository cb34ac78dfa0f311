/// CSS values as the display list carries them: colours and canvas font strings.
public struct RGBA: Equatable, Sendable {
    public var r: Double, g: Double, b: Double, a: Double
    public init(_ r: Double, _ g: Double, _ b: Double, _ a: Double = 1) { self.r = r; self.g = g; self.b = b; self.a = a }
}

public enum CSSColor {
    /// A CSS colour: `#rgb`, `#rgba`, `#rrggbb`, `#rrggbbaa`, `rgb()`/`rgba()` (numbers or
    /// percentages, commas or spaces, `/ alpha`), `hsl()`/`hsla()`, a named colour or
    /// `transparent`. nil for anything else (the canvas ignores such a colour and keeps
    /// the previous one; the renderer draws nothing with it).
    public static func parse(_ text: String) -> RGBA? {
        let s = text.trimmingCharacters(in: .whitespaces).lowercased()
        if s.hasPrefix("#") { return hex(String(s.dropFirst())) }
        if let open = s.firstIndex(of: "("), s.hasSuffix(")") {
            let name = s[..<open].trimmingCharacters(in: .whitespaces)
            let inner = s[s.index(after: open)..<s.index(before: s.endIndex)]
            var parts = inner.replacingOccurrences(of: "/", with: " / ").split(whereSeparator: { $0 == "," || $0 == " " }).map(String.init)
            var alphaText: String?
            if let slash = parts.firstIndex(of: "/") {
                alphaText = slash + 1 < parts.count ? parts[slash + 1] : nil
                parts = Array(parts[..<slash])
            } else if parts.count == 4 {
                alphaText = parts.removeLast()
            }
            guard parts.count == 3 else { return nil }
            var alpha = 1.0
            if let t = alphaText { guard let a = number(t, percentOf: 1) else { return nil }; alpha = a }
            alpha = min(max(alpha, 0), 1)
            switch name {
            case "rgb", "rgba":
                guard let r = number(parts[0], percentOf: 255), let g = number(parts[1], percentOf: 255),
                      let b = number(parts[2], percentOf: 255) else { return nil }
                return RGBA(clamp(r / 255), clamp(g / 255), clamp(b / 255), alpha)
            case "hsl", "hsla":
                guard let h = Double(parts[0].replacingOccurrences(of: "deg", with: "")),
                      let sat = number(parts[1], percentOf: 1), let l = number(parts[2], percentOf: 1) else { return nil }
                let (r, g, b) = hslToRGB(h, clamp(sat), clamp(l))
                return RGBA(r, g, b, alpha)
            default: return nil
            }
        }
        if s == "transparent" { return RGBA(0, 0, 0, 0) }
        guard let v = named[s] else { return nil }
        return RGBA(Double(v >> 16 & 0xff) / 255, Double(v >> 8 & 0xff) / 255, Double(v & 0xff) / 255)
    }

    static func clamp(_ x: Double) -> Double { min(max(x, 0), 1) }

    static func number(_ t: String, percentOf scale: Double) -> Double? {
        if t.hasSuffix("%") { return Double(t.dropLast()).map { $0 / 100 * scale } }
        return Double(t)
    }

    static func hex(_ h: String) -> RGBA? {
        guard h.allSatisfy(\.isHexDigit) else { return nil }
        let d: [Double] = h.map { Double(Int(String($0), radix: 16)!) }
        var v: [Double] = []
        switch d.count {
        case 3, 4:
            for x in d { v.append(x * 17 / 255) }
        case 6, 8:
            for i in stride(from: 0, to: d.count, by: 2) { v.append((d[i] * 16 + d[i + 1]) / 255) }
        default: return nil
        }
        return RGBA(v[0], v[1], v[2], v.count == 4 ? v[3] : 1)
    }

    static func hslToRGB(_ h: Double, _ s: Double, _ l: Double) -> (Double, Double, Double) {
        let hue = (h.truncatingRemainder(dividingBy: 360) + 360).truncatingRemainder(dividingBy: 360) / 360
        func f(_ n: Double) -> Double {
            let k = (n + hue * 12).truncatingRemainder(dividingBy: 12)
            return l - s * min(l, 1 - l) * max(-1, min(k - 3, 9 - k, 1))
        }
        return (f(0), f(8), f(4))
    }

    /// CSS's named colours.
    static let named: [String: UInt32] = [
        "aliceblue": 0xf0f8ff, "antiquewhite": 0xfaebd7, "aqua": 0x00ffff, "aquamarine": 0x7fffd4, "azure": 0xf0ffff,
        "beige": 0xf5f5dc, "bisque": 0xffe4c4, "black": 0x000000, "blanchedalmond": 0xffebcd, "blue": 0x0000ff,
        "blueviolet": 0x8a2be2, "brown": 0xa52a2a, "burlywood": 0xdeb887, "cadetblue": 0x5f9ea0, "chartreuse": 0x7fff00,
        "chocolate": 0xd2691e, "coral": 0xff7f50, "cornflowerblue": 0x6495ed, "cornsilk": 0xfff8dc, "crimson": 0xdc143c,
        "cyan": 0x00ffff, "darkblue": 0x00008b, "darkcyan": 0x008b8b, "darkgoldenrod": 0xb8860b, "darkgray": 0xa9a9a9,
        "darkgreen": 0x006400, "darkgrey": 0xa9a9a9, "darkkhaki": 0xbdb76b, "darkmagenta": 0x8b008b, "darkolivegreen": 0x556b2f,
        "darkorange": 0xff8c00, "darkorchid": 0x9932cc, "darkred": 0x8b0000, "darksalmon": 0xe9967a, "darkseagreen": 0x8fbc8f,
        "darkslateblue": 0x483d8b, "darkslategray": 0x2f4f4f, "darkslategrey": 0x2f4f4f, "darkturquoise": 0x00ced1,
        "darkviolet": 0x9400d3, "deeppink": 0xff1493, "deepskyblue": 0x00bfff, "dimgray": 0x696969, "dimgrey": 0x696969,
        "dodgerblue": 0x1e90ff, "firebrick": 0xb22222, "floralwhite": 0xfffaf0, "forestgreen": 0x228b22, "fuchsia": 0xff00ff,
        "gainsboro": 0xdcdcdc, "ghostwhite": 0xf8f8ff, "gold": 0xffd700, "goldenrod": 0xdaa520, "gray": 0x808080,
        "green": 0x008000, "greenyellow": 0xadff2f, "grey": 0x808080, "honeydew": 0xf0fff0, "hotpink": 0xff69b4,
        "indianred": 0xcd5c5c, "indigo": 0x4b0082, "ivory": 0xfffff0, "khaki": 0xf0e68c, "lavender": 0xe6e6fa,
        "lavenderblush": 0xfff0f5, "lawngreen": 0x7cfc00, "lemonchiffon": 0xfffacd, "lightblue": 0xadd8e6, "lightcoral": 0xf08080,
        "lightcyan": 0xe0ffff, "lightgoldenrodyellow": 0xfafad2, "lightgray": 0xd3d3d3, "lightgreen": 0x90ee90, "lightgrey": 0xd3d3d3,
        "lightpink": 0xffb6c1, "lightsalmon": 0xffa07a, "lightseagreen": 0x20b2aa, "lightskyblue": 0x87cefa,
        "lightslategray": 0x778899, "lightslategrey": 0x778899, "lightsteelblue": 0xb0c4de, "lightyellow": 0xffffe0,
        "lime": 0x00ff00, "limegreen": 0x32cd32, "linen": 0xfaf0e6, "magenta": 0xff00ff, "maroon": 0x800000,
        "mediumaquamarine": 0x66cdaa, "mediumblue": 0x0000cd, "mediumorchid": 0xba55d3, "mediumpurple": 0x9370db,
        "mediumseagreen": 0x3cb371, "mediumslateblue": 0x7b68ee, "mediumspringgreen": 0x00fa9a, "mediumturquoise": 0x48d1cc,
        "mediumvioletred": 0xc71585, "midnightblue": 0x191970, "mintcream": 0xf5fffa, "mistyrose": 0xffe4e1, "moccasin": 0xffe4b5,
        "navajowhite": 0xffdead, "navy": 0x000080, "oldlace": 0xfdf5e6, "olive": 0x808000, "olivedrab": 0x6b8e23,
        "orange": 0xffa500, "orangered": 0xff4500, "orchid": 0xda70d6, "palegoldenrod": 0xeee8aa, "palegreen": 0x98fb98,
        "paleturquoise": 0xafeeee, "palevioletred": 0xdb7093, "papayawhip": 0xffefd5, "peachpuff": 0xffdab9, "peru": 0xcd853f,
        "pink": 0xffc0cb, "plum": 0xdda0dd, "powderblue": 0xb0e0e6, "purple": 0x800080, "rebeccapurple": 0x663399,
        "red": 0xff0000, "rosybrown": 0xbc8f8f, "royalblue": 0x4169e1, "saddlebrown": 0x8b4513, "salmon": 0xfa8072,
        "sandybrown": 0xf4a460, "seagreen": 0x2e8b57, "seashell": 0xfff5ee, "sienna": 0xa0522d, "silver": 0xc0c0c0,
        "skyblue": 0x87ceeb, "slateblue": 0x6a5acd, "slategray": 0x708090, "slategrey": 0x708090, "snow": 0xfffafa,
        "springgreen": 0x00ff7f, "steelblue": 0x4682b4, "tan": 0xd2b48c, "teal": 0x008080, "thistle": 0xd8bfd8,
        "tomato": 0xff6347, "turquoise": 0x40e0d0, "violet": 0xee82ee, "wheat": 0xf5deb3, "white": 0xffffff,
        "whitesmoke": 0xf5f5f5, "yellow": 0xffff00, "yellowgreen": 0x9acd32,
    ]
}

/// A canvas font string as the server writes it (`Theme.cssFont`): `[style] [weight]
/// <size>px <family>`, e.g. `"bold 12px ChartWire Sans"` or
/// `"italic 12px \"Liberation Serif\", ChartWire Sans"` (a family of its own first).
public struct CSSFont: Equatable, Sendable {
    public var size: Double
    public var bold: Bool
    public var italic = false
    /// The quoted family named before the chart font (nil: the chart font alone).
    public var family: String? = nil
    public init(size: Double, bold: Bool, italic: Bool = false, family: String? = nil) {
        self.size = size; self.bold = bold; self.italic = italic; self.family = family
    }

    /// nil when the string names no size in px (the canvas then keeps its previous font;
    /// the renderer uses the canvas default, 10px).
    public static func parse(_ text: String) -> CSSFont? {
        var bold = false, italic = false
        var rest = Substring(text)
        while let space = rest.firstIndex(of: " ") {
            let w = rest[..<space].lowercased()
            rest = rest[rest.index(after: space)...]
            if w == "bold" || w == "bolder" { bold = true; continue }
            if let n = Int(w), (100...1000).contains(n) { bold = n >= 600; continue }
            if w == "italic" || w == "oblique" { italic = true; continue }
            if w == "normal" || w == "lighter" { continue }
            if w.hasSuffix("px"), let size = Double(w.dropLast(2)), size > 0, size.isFinite {
                var family: String? = nil
                if rest.first == "\"", let end = rest.dropFirst().firstIndex(of: "\"") {
                    family = String(rest[rest.index(after: rest.startIndex)..<end])
                }
                return CSSFont(size: size, bold: bold, italic: italic, family: family)
            }
            return nil
        }
        return nil
    }
}

import Foundation
