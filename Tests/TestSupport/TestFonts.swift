import Foundation
import LayoutEngine

/// The DejaVu fonts from Debian's fonts-dejavu-core (part of the setup line).
public enum TestFonts {
    public static let dir = "/usr/share/fonts/truetype/dejavu"

    public static func bytes(_ name: String) -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: "\(dir)/\(name)") else {
            fatalError("\(dir)/\(name) is missing: install fonts-dejavu-core")
        }
        return [UInt8](data)
    }

    public static let regular = try! FontMetrics(trueType: bytes("DejaVuSans.ttf"), family: "ChartWire Sans")
    public static let bold = try! FontMetrics(trueType: bytes("DejaVuSans-Bold.ttf"), family: "ChartWire Sans")
    public static let measurer = TextMeasurer(regular: regular, bold: bold)
}
