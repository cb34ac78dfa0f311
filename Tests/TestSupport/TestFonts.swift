import ChartSession
import FontStack
import Foundation
import LayoutEngine

/// The chart font as the server loads it: DejaVu from Debian's fonts-dejavu-core, the
/// Noto fallbacks from fonts-noto-cjk and fonts-noto-core (all part of the setup line),
/// shaped with HarfBuzz; and the Liberation families (fonts-liberation) as `--fonts`
/// loads them by default, registered for the spec reader (`FontFamilies`).
public enum TestFonts {
    public static let familyDir = "/usr/share/fonts/truetype/liberation"

    public static let dir = "/usr/share/fonts/truetype/dejavu"

    public static func bytes(_ name: String) -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: "\(dir)/\(name)") else {
            fatalError("\(dir)/\(name) is missing: install fonts-dejavu-core")
        }
        return [UInt8](data)
    }

    public static let fonts: ChartFonts = {
        do {
            let fonts = try ChartFonts.load(primaryDir: dir).adding(familyDirs: [familyDir])
            for (name, family) in fonts.families { FontFamilies.register(name, faces: Set(family.faces.keys)) }
            return fonts
        } catch { fatalError("\(error) (install fonts-liberation)") }
    }()
    public static let regular = fonts.measurer.regular
    public static let bold = fonts.measurer.bold!
    public static let measurer = fonts.measurer
}
