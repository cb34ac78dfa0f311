/// Ticks for a logarithmic axis: at whole powers of the base (every power, or every
/// 2nd, 3rd, 5th, 10th ... when they crowd), or, when less than one power of the
/// base is visible, at nice linear steps as a numeric axis has. Labels never overlap:
/// spacing is checked on the actual tick positions, which a log scale makes uneven.
public enum LogTickGenerator {
    public static func ticks(
        calculator calc: CoordinateCalculator, length: Double, horizontal: Bool, policy: TickPolicy,
        base: Double, format: NumberLabelFormat, measure: (String) -> Size
    ) -> [Tick]? {
        guard base > 1, base.isFinite, length > 0 else { return nil }
        let lo = calc.transformed(calc.range.min), hi = calc.transformed(calc.range.max)
        guard lo.isFinite, hi.isFinite, hi > lo else { return nil }
        let pixelsPerPower = length / (hi - lo)

        func fits(_ ticks: [Tick]) -> Bool {
            for (a, b) in zip(ticks, ticks.dropFirst()) {
                let need = horizontal ? (a.labelSize.width + b.labelSize.width) / 2 : (a.labelSize.height + b.labelSize.height) / 2
                if abs(b.pixel - a.pixel) < need + policy.minLabelGap { return false }
            }
            return true
        }

        if hi - lo >= 1 - 1e-9 {
            // Powers of the base, every `k`th.
            for k in [1, 2, 3, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000] {
                guard Double(k) * pixelsPerPower >= min(policy.targetSpacing, length / 2) || k == 1000 else { continue }
                // (A power at either end counts despite rounding: log(1e6) / log(10) < 6.)
                let first = Int((lo / Double(k) - 1e-9).rounded(.up)), last = Int((hi / Double(k) + 1e-9).rounded(.down))
                guard last >= first, last - first < policy.maxTicks else { continue }
                let ticks = (first...last).compactMap { j -> Tick? in
                    let e = j * k
                    let v = calc.untransformed(Double(e))
                    // (A power the rounding tolerance let in past the largest double, or below the smallest.)
                    guard v.isFinite, v > 0 else { return nil }
                    let label = Self.label(power: e, base: base, value: v, format: format)
                    return Tick(value: v, pixel: calc.pixel(v), label: label, labelSize: measure(label))
                }
                if fits(ticks) { return ticks }
            }
            return nil
        }

        // Within one power of the base: nice linear steps over the range.
        let r = calc.range
        let desired = max(1, min(Double(policy.maxTicks), length / policy.targetSpacing))
        guard var step = TickStep(near: r.span / desired) else { return nil }
        for _ in 0..<64 {
            if let indices = step.indices(in: r, limit: policy.maxTicks + 1), indices.count <= policy.maxTicks {
                let values = Array(indices)
                let labels = TickLabelFormatter.labels(indices: values, step: step, format: format,
                                                       autoSIFrom: TickLabelFormatter.logAutoSIFrom)
                let ticks = zip(values, labels).map { i, label in
                    Tick(value: step.value(at: i), pixel: calc.pixel(step.value(at: i)), label: label, labelSize: measure(label))
                }
                if fits(ticks) { return ticks }
            }
            step = step.coarser
        }
        return nil
    }

    /// The label of `base`^`power`: exact digits for base 10 ("0.001", "1000", "10K" or
    /// "1K" as `format` says: `auto` suffixes from ten thousand, `TickLabelFormatter.logAutoSIFrom`),
    /// the value to six significant digits for other bases.
    public static func label(power: Int, base: Double, value: Double, format: NumberLabelFormat) -> String {
        if base == 10, abs(power) <= 300 {
            return TickLabelFormatter.labels(indices: [1], step: TickStep(factor: 1, power: power), format: format,
                                             autoSIFrom: TickLabelFormatter.logAutoSIFrom)[0]
        }
        return TickLabelFormatter.general(value)
    }
}
