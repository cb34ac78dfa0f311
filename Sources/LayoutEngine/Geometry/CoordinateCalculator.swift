import Foundation

/// Maps data values to pixel offsets along one axis and back, linearly or on a
/// logarithmic scale.
///
/// `pixelStart` is where `range.min` lands and `pixelEnd` where `range.max` lands, so a
/// vertical axis (values growing upwards) passes the bottom edge as `pixelStart`.
public struct CoordinateCalculator: Equatable, Sendable {
    public let range: DoubleRange
    public let pixelStart: Double
    public let pixelEnd: Double
    /// nil: linear; else the base of a logarithmic axis (values must be positive).
    public let logBase: Double?
    /// Stretches left out of a discontinuous (linear) axis.
    public let breaks: AxisBreaks?
    /// Where `range.min` is in transformed units, and pixels per transformed unit.
    private let origin: Double
    private let scale: Double
    /// Neither logarithmic nor discontinuous: `pixel` is one multiply-add.
    private let isLinear: Bool

    public init(range: DoubleRange, pixelStart: Double, pixelEnd: Double, logBase: Double? = nil, breaks: AxisBreaks? = nil) {
        self.pixelStart = pixelStart
        self.pixelEnd = pixelEnd
        self.breaks = logBase == nil && !(breaks?.isEmpty ?? true) ? breaks : nil
        isLinear = logBase == nil && self.breaks == nil
        if let b = logBase {
            let r = range.min > 0 && range.max > range.min ? range : DoubleRange(max(range.max, 1e-300) / b, max(range.max, 1e-300) * b)
            self.range = r
            self.logBase = b
            let l = Foundation.log(b)
            origin = Foundation.log(r.min) / l
            scale = (pixelEnd - pixelStart) / (Foundation.log(r.max) / l - origin)
        } else if let breaks = self.breaks {
            var r = range.widenedIfEmpty()
            // A range wholly left out still needs a span: reach past its end.
            if breaks.compressed(r.max) - breaks.compressed(r.min) <= 0 { r = DoubleRange(r.min, breaks.expanded(breaks.compressed(r.max) + 1)) }
            self.range = r
            self.logBase = nil
            origin = breaks.compressed(r.min)
            scale = (pixelEnd - pixelStart) / (breaks.compressed(r.max) - origin)
        } else {
            let r = range.widenedIfEmpty()
            self.range = r
            self.logBase = nil
            origin = r.min
            scale = (pixelEnd - pixelStart) / r.span
        }
    }

    /// The value in the units pixels are linear in: itself, or its logarithm.
    @inline(__always)
    public func transformed(_ value: Double) -> Double {
        if let breaks { return breaks.compressed(value) }
        guard let b = logBase else { return value }
        // Zero and negative values have no place on a log axis: far below its start.
        return value > 0 ? Foundation.log(value) / Foundation.log(b) : origin - 1e6
    }

    @inline(__always)
    public func untransformed(_ t: Double) -> Double {
        if let breaks { return breaks.expanded(t) }
        guard let b = logBase else { return t }
        return Foundation.pow(b, t)
    }

    @inline(__always)
    public func pixel(_ value: Double) -> Double {
        isLinear ? pixelStart + (value - origin) * scale : pixelStart + (transformed(value) - origin) * scale
    }

    /// `pixel = value · a + b` when the axis is linear (nil on a log or discontinuous
    /// axis): for loops over many points.
    public var linearMap: (a: Double, b: Double)? { isLinear ? (scale, pixelStart - origin * scale) : nil }

    @inline(__always)
    public func value(_ pixel: Double) -> Double { untransformed(origin + (pixel - pixelStart) / scale) }

    /// Data units per pixel (signed as the axis runs); on a log axis, transformed units.
    public var valuePerPixel: Double { 1 / scale }

    /// The range after zooming by `factor` (below 1: in) about the data at `pixel`,
    /// evenly on screen whatever the scale.
    public func range(zoomedBy factor: Double, aboutPixel pixel: Double) -> DoubleRange {
        let anchor = origin + (pixel - pixelStart) / scale
        let a = anchor + (origin - anchor) * factor
        let b = anchor + (transformed(range.max) - anchor) * factor
        return DoubleRange(untransformed(min(a, b)), untransformed(max(a, b)))
    }

    /// The range after dragging the data at pixel `from` to pixel `to`.
    public func range(pannedFrom from: Double, to: Double) -> DoubleRange {
        let shift = (from - to) / scale
        return DoubleRange(untransformed(origin + shift), untransformed(transformed(range.max) + shift))
    }
}
