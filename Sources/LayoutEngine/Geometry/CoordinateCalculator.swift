/// Maps data values to pixel offsets along one axis and back (linear axes).
///
/// `pixelStart` is where `range.min` lands and `pixelEnd` where `range.max` lands, so a
/// vertical axis (values growing upwards) passes the bottom edge as `pixelStart`.
public struct LinearCoordinateCalculator: Equatable, Sendable {
    public let range: DoubleRange
    public let pixelStart: Double
    public let pixelEnd: Double
    private let scale: Double

    public init(range: DoubleRange, pixelStart: Double, pixelEnd: Double) {
        let r = range.widenedIfEmpty()
        self.range = r
        self.pixelStart = pixelStart
        self.pixelEnd = pixelEnd
        self.scale = (pixelEnd - pixelStart) / r.span
    }

    @inline(__always)
    public func pixel(_ value: Double) -> Double { pixelStart + (value - range.min) * scale }

    @inline(__always)
    public func value(_ pixel: Double) -> Double { range.min + (pixel - pixelStart) / scale }

    /// Data units per pixel (signed as the axis runs).
    public var valuePerPixel: Double { 1 / scale }
}
