import LayoutEngine
import Synchronization

/// Colours and the font family of a chart. Colours are CSS colour strings, passed to
/// the client as they are.
public struct Theme: Equatable, Sendable {
    public var fontFamily: String
    public var background: String
    public var plotBackground: String
    public var gridLine: String
    public var minorGridLine: String
    /// Fill of an axis' alternate bands (`bands`).
    public var band: String
    public var axisLine: String
    public var tickLabel: String
    public var title: String
    public var legendBackground: String
    public var legendBorder: String
    public var legendText: String
    /// Colours given to series that do not name one, in order.
    public var palette: [String]

    public init(
        fontFamily: String = Theme.defaultFontFamily, background: String = "#ffffff", plotBackground: String = "#fbfbfd",
        gridLine: String = "#e3e5ea", minorGridLine: String = "#f0f1f4", band: String = "rgba(40,60,110,0.035)", axisLine: String = "#5b6170", tickLabel: String = "#3b404c", title: String = "#1d2029",
        legendBackground: String = "rgba(255,255,255,0.88)", legendBorder: String = "#c9ccd4", legendText: String = "#1d2029",
        palette: [String] = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"]
    ) {
        self.fontFamily = fontFamily; self.background = background; self.plotBackground = plotBackground
        self.gridLine = gridLine; self.minorGridLine = minorGridLine; self.band = band; self.axisLine = axisLine; self.tickLabel = tickLabel; self.title = title
        self.legendBackground = legendBackground; self.legendBorder = legendBorder; self.legendText = legendText
        self.palette = palette
    }

    /// The CSS font string the client draws text of `style` with, e.g.
    /// `"bold 16px ChartWire Sans"`. Everything that names a font to the client uses it.
    /// A style naming a family of its own lists it first, the chart font after it
    /// (`"italic bold 14px \"Liberation Serif\", ChartWire Sans"`): the page then falls
    /// back per character as the server's shaper does.
    public func cssFont(_ style: TextStyle) -> String {
        let size = style.size.rounded() == style.size ? String(Int(style.size)) : String(style.size)
        let family = style.family.map { "\"\($0)\", \(fontFamily)" } ?? fontFamily
        return "\(style.italic ? "italic " : "")\(style.bold ? "bold " : "")\(size)px \(family)"
    }

    /// The family name the client page declares with `@font-face` for the font file the
    /// server measures with.
    public static let defaultFontFamily = "ChartWire Sans"

    /// The built-in themes, by name: `light` (the default), `dark`, `iOS7`, and `contrast`
    /// (black on white, strong lines, a palette told apart without colour vision).
    public static let presets: [String: Theme] = [
        "light": Theme(),
        "dark": Theme(
            background: "#15171c", plotBackground: "#1b1e24", gridLine: "#2c313a", minorGridLine: "#22262d",
            band: "rgba(255,255,255,0.035)", axisLine: "#8a93a3", tickLabel: "#c4cad4", title: "#e8ebf0",
            legendBackground: "rgba(27,30,36,0.9)", legendBorder: "#3a404b", legendText: "#e8ebf0",
            palette: ["#4ea1f3", "#f26d6d", "#5fd08a", "#f5a742", "#b58cf0", "#d9a27e", "#f28bd3", "#4fd3e0"]),
        "contrast": Theme(
            background: "#ffffff", plotBackground: "#ffffff", gridLine: "#bdbdbd", minorGridLine: "#e0e0e0",
            band: "rgba(0,0,0,0.06)", axisLine: "#000000", tickLabel: "#000000", title: "#000000",
            legendBackground: "rgba(255,255,255,0.95)", legendBorder: "#000000", legendText: "#000000",
            palette: ["#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#000000", "#f0e442"]),
        // ShinobiCharts' iOS7 theme: white and flat, hairline grey grid and axes, grey
        // labels, the iOS 7 system colours.
        "iOS7": Theme(
            background: "#ffffff", plotBackground: "#ffffff", gridLine: "#e5e5ea", minorGridLine: "#f2f2f7",
            band: "rgba(0,122,255,0.04)", axisLine: "#c7c7cc", tickLabel: "#8e8e93", title: "#000000",
            legendBackground: "rgba(255,255,255,0.92)", legendBorder: "#e5e5ea", legendText: "#1c1c1e",
            palette: ["#007aff", "#ff3b30", "#4cd964", "#ff9500", "#5856d6", "#ff2d55", "#5ac8fa", "#ffcc00"]),
    ]
}

/// The font of one kind of text (a title, an axis' labels, the legend, an annotation):
/// a family the server loaded (nil: the chart's, `Chart.fontFamily`, else the chart
/// font), a weight (nil: the text's own default: bold for the chart title, regular for
/// the rest) and whether it is italic.
public struct TextFont: Equatable, Hashable, Sendable {
    public var family: String?
    public var bold: Bool?
    public var italic: Bool
    public init(family: String? = nil, bold: Bool? = nil, italic: Bool = false) {
        self.family = family; self.bold = bold; self.italic = italic
    }

    /// The style of text of `size` in this font, on a chart whose family is `chartFamily`.
    public func style(size: Double, bold defaultBold: Bool = false, chartFamily: String?) -> TextStyle {
        TextStyle(size: size, bold: bold ?? defaultBold, italic: italic, family: family ?? chartFamily)
    }
}

/// The font families this process can measure and serve besides the chart font, with
/// their faces: set at start-up from the `--fonts` folders (`ChartFonts.adding`), read
/// by the spec reader so that a spec naming another family, or a face the family does
/// not have, is refused with the names it could use.
public enum FontFamilies {
    private static let known = Mutex<[String: Set<FontFace>]>([:])

    public static func register(_ family: String, faces: Set<FontFace>) {
        known.withLock { $0[family, default: []].formUnion(faces) }
    }

    public static var all: [String: Set<FontFace>] { known.withLock { $0 } }

    /// Nil when text in `family` (nil: the chart font) may be drawn in `face`, else why not.
    public static func problem(family: String?, face: FontFace) -> String? {
        guard let family else {
            return face.italic ? "the chart font (\(Theme.defaultFontFamily)) has no italic: name a family that has one" : nil
        }
        let all = self.all
        guard let faces = all[family] else {
            let names = all.keys.sorted().map { "\"\($0)\"" }
            return "no font family \"\(family)\" on this server: " + (names.isEmpty
                ? "it has none but the chart font (start it with --fonts DIR)" : "it has \(names.joined(separator: ", "))")
        }
        guard faces.contains(face) else {
            let has = faces.map(\.description).sorted().joined(separator: ", ")
            return "font family \"\(family)\" has no \(face) face (it has \(has))"
        }
        return nil
    }
}
