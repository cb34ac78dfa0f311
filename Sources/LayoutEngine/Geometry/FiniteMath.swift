/// Arithmetic that stays finite for any finite input: pixels and fractions of ranges
/// wider than `Double.greatestFiniteMagnitude` (from -1e308 to 1e308) included.
///
/// Every pixel made from data passes `Pixel.clamp` (in `CoordinateCalculator.pixel`),
/// and every conversion of a pixel to an integer passes `Int(pixel:)`: a NaN or an
/// infinity reaching `Int(_:)` traps and would take the server down.
public enum Pixel {
    /// Pixels are kept within ±`limit`: millions of canvases away from the plot (a
    /// line towards a clamped point still leaves the canvas nearly as it should), and
    /// small enough that sums, differences and device-pixel products of pixels stay
    /// finite and fit an `Int`. (The line reducers always clamped their columns here.)
    public static let limit = 1e12

    /// `v` clamped to ±`limit`; NaN stays NaN (a gap in the data is the caller's).
    @inline(__always)
    public static func clamp(_ v: Double) -> Double {
        v < -limit ? -limit : v > limit ? limit : v
    }
}

extension Int {
    /// A pixel (or any coordinate) as an integer, rounded toward zero as `Int(_:)` does,
    /// clamped to ±`Pixel.limit`; NaN gives 0. Never traps.
    @inline(__always)
    public init(pixel v: Double) {
        self = v.isNaN ? 0 : Int(Pixel.clamp(v))
    }
}

extension Double {
    /// The point a fraction `t` of the way from `a` to `b`, exact at the ends and finite
    /// for finite ends even when `b - a` overflows.
    @inline(__always)
    public static func lerp(_ a: Double, _ b: Double, _ t: Double) -> Double {
        if t <= 0 { return a }
        if t >= 1 { return b }
        let d = b - a
        return d.isFinite ? a + d * t : a * (1 - t) + b * t
    }

    /// Where `v` lies between `a` and `b` as a fraction (0 at `a`, 1 at `b`), finite for
    /// finite values with `a != b` even when `b - a` overflows.
    @inline(__always)
    public static func fraction(_ v: Double, from a: Double, to b: Double) -> Double {
        let d = b - a
        if d.isFinite { return (v - a) / d }
        return (v * 0.5 - a * 0.5) / (b * 0.5 - a * 0.5)
    }

    /// `self` clamped to the finite doubles (NaN stays NaN).
    @inline(__always)
    public var clampedFinite: Double {
        self < -.greatestFiniteMagnitude ? -.greatestFiniteMagnitude : self > .greatestFiniteMagnitude ? .greatestFiniteMagnitude : self
    }
}
