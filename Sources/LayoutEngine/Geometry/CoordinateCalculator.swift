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
    /// Where `range.min` is in scaled transformed units, and pixels per scaled unit.
    /// Transformed values are multiplied by `unit` (1, or ½ for a range wider than the
    /// largest double, -1e308 to 1e308) so that the span and every pixel stay finite.
    private let origin: Double
    private let scale: Double
    private let unit: Double
    /// Neither logarithmic nor discontinuous: `pixel` is one multiply-add.
    private let isLinear: Bool

    /// Any finite range is shown: one too narrow for pixels (a denormal span, [-0, 0],
    /// a log range whose logarithms round equal) is widened, and one wider than the
    /// largest double is measured in halves. So `pixel` is finite for every value.
    public init(range: DoubleRange, pixelStart: Double, pixelEnd: Double, logBase: Double? = nil, breaks: AxisBreaks? = nil) {
        self.pixelStart = pixelStart
        self.pixelEnd = pixelEnd
        var range = range.finite ?? DoubleRange(0, 1)
        if !(range.min <= range.max) { range = DoubleRange(range.max, range.min) }
        var breaks = logBase == nil && !(breaks?.isEmpty ?? true) ? breaks : nil
        let length = pixelEnd - pixelStart
        /// The origin, unit and scale of transformed ends `a < b`.
        func fit(_ a: Double, _ b: Double) -> (origin: Double, unit: Double, scale: Double) {
            let (a, b) = (a.clampedFinite, b.clampedFinite)
            let unit = (b - a).isFinite ? 1.0 : 0.5
            let s = length / (b * unit - a * unit)
            // Never 0 (an axis of no pixels): a value too far for `value * unit - origin`
            // then still gives ±infinity, clamped, rather than infinity times 0.
            return (a * unit, unit, s.isFinite && s != 0 ? s : length < 0 ? -.leastNormalMagnitude : .leastNormalMagnitude)
        }
        var r = range
        let ends: (Double, Double)
        if let b = logBase, b > 1, b.isFinite {
            if !(r.min > 0 && r.max > r.min) { r = DoubleRange(Swift.max(r.max, 1e-300) / b, (Swift.max(r.max, 1e-300) * b).clampedFinite) }
            let l = Foundation.log(b)
            // Logarithms too close to tell apart (1e308 and the double below it): a power
            // of the base either side.
            if !(Foundation.log(r.max) / l - Foundation.log(r.min) / l > 1e-12) {
                r = DoubleRange(r.min / b, (r.max * b).clampedFinite)
            }
            self.logBase = b
            ends = (Foundation.log(r.min) / l, Foundation.log(r.max) / l)
        } else if let b = breaks, let (br, be) = Self.compressedEnds(r.widenedIfEmpty(), b) {
            r = br
            self.logBase = nil
            ends = be
        } else {
            // (Also breaks whose arithmetic overflows for this range: shown without them.)
            breaks = nil
            r = r.widenedIfEmpty()
            self.logBase = nil
            ends = (r.min, r.max)
        }
        self.range = r
        self.breaks = breaks
        isLinear = self.logBase == nil && breaks == nil
        (origin, unit, scale) = fit(ends.0, ends.1)
    }

    /// The range of a discontinuous axis and its compressed ends, nil when the
    /// compression is not finite and increasing there (ranges past the largest double).
    private static func compressedEnds(_ range: DoubleRange, _ breaks: AxisBreaks) -> (DoubleRange, (Double, Double))? {
        var r = range
        // A range wholly left out still needs a span: reach past its end.
        if !(breaks.compressed(r.max) - breaks.compressed(r.min) > DoubleRange.minSpan) {
            r = DoubleRange(r.min, breaks.expanded(breaks.compressed(r.max) + Swift.max(1, abs(r.max) * 1e-9)).clampedFinite)
        }
        let a = breaks.compressed(r.min), b = breaks.compressed(r.max)
        guard r.isValid, a.isFinite, b.isFinite, b - a > DoubleRange.minSpan else { return nil }
        return (r, (a, b))
    }

    /// The value in the units pixels are linear in: itself, or its logarithm.
    @inline(__always)
    public func transformed(_ value: Double) -> Double {
        if let breaks { return breaks.compressed(value) }
        guard let b = logBase else { return value }
        // Zero and negative values have no place on a log axis: far below its start.
        return value > 0 ? Foundation.log(value) / Foundation.log(b) : origin / unit - 1e6
    }

    @inline(__always)
    public func untransformed(_ t: Double) -> Double {
        if let breaks { return breaks.expanded(t) }
        guard let b = logBase else { return t }
        return Foundation.pow(b, t)
    }

    /// The pixel of `value`: finite (within ±`Pixel.limit`) for every value but NaN.
    @inline(__always)
    public func pixel(_ value: Double) -> Double {
        Pixel.clamp(isLinear ? pixelStart + (value * unit - origin) * scale
                             : pixelStart + (transformed(value) * unit - origin) * scale)
    }

    /// `pixel = value · a + b` when the axis is linear (nil on a log or discontinuous
    /// axis): for loops over many points. (Not clamped: far-off values may give huge
    /// or infinite pixels, which callers compare before converting.)
    public var linearMap: (a: Double, b: Double)? { isLinear ? (scale * unit, pixelStart - origin * scale) : nil }

    /// The value at `pixel`, finite for finite pixels.
    @inline(__always)
    public func value(_ pixel: Double) -> Double { untransformed(fromScaled: origin + (pixel - pixelStart) / scale) }

    /// A scaled transformed value back in data units, within the finite doubles.
    @inline(__always)
    private func untransformed(fromScaled t: Double) -> Double { untransformed((t / unit).clampedFinite).clampedFinite }

    /// Data units per pixel (signed as the axis runs); on a log axis, transformed units.
    public var valuePerPixel: Double { (1 / scale / unit).clampedFinite }

    /// The range after zooming by `factor` (below 1: in) about the data at `pixel`,
    /// evenly on screen whatever the scale.
    public func range(zoomedBy factor: Double, aboutPixel pixel: Double) -> DoubleRange {
        let anchor = origin + (pixel - pixelStart) / scale
        let a = anchor + (origin - anchor) * factor
        let b = anchor + (transformed(range.max) * unit - anchor) * factor
        return DoubleRange(untransformed(fromScaled: min(a, b)), untransformed(fromScaled: max(a, b)))
    }

    /// The range after dragging the data at pixel `from` to pixel `to`.
    public func range(pannedFrom from: Double, to: Double) -> DoubleRange {
        let shift = (from - to) / scale
        return DoubleRange(untransformed(fromScaled: origin + shift), untransformed(fromScaled: transformed(range.max) * unit + shift))
    }
}
