import FontStack
import Foundation
import LayoutEngine

/// The chart font as the server loads it: DejaVu from Debian's fonts-dejavu-core, the
/// Noto fallbacks from fonts-noto-cjk and fonts-noto-core (all part of the setup line),
/// shaped with HarfBuzz.
public enum TestFonts {
    public static let dir = "/usr/share/fonts/truetype/dejavu"

    public static func bytes(_ name: String) -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: "\(dir)/\(name)") else {
            fatalError("\(dir)/\(name) is missing: install fonts-dejavu-core")
        }
        return [UInt8](data)
    }

    public static let fonts: ChartFonts = {
        do { return try ChartFonts.load(primaryDir: dir) } catch { fatalError("\(error)") }
    }()
    public static let regular = fonts.measurer.regular
    public static let bold = fonts.measurer.bold!
    public static let measurer = fonts.measurer
}
