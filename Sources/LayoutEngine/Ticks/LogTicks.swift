/// Ticks for a logarithmic axis: at whole powers of the base (every power, or every
/// 2nd, 3rd, 5th, 10th ... when they crowd), or, when less than one power of the
/// base is visible, at nice linear steps as a numeric axis has. Labels never overlap:
/// spacing is checked on the actual tick positions, which a log scale makes uneven.
///
/// An axis with one label cannot be read, so, as `TickGenerator` does, where that
/// leaves one label (or none) it looks for two that fit: closer powers (every power
/// rather than every 2nd); with one power in view, in base 10, 1, 2 and 5 times each
/// power (else 1 and 3 times: 5, 10, 20, 50 or 3, 10, 30); on the linear steps, a
/// finer step; each with the policy's gap, then (along a side) with
/// `TickGenerator.tightLabelGap` (`TickGenerator.fallbackGaps`); and keeps the one
/// label where none fits two.
public enum LogTickGenerator {
    public static func ticks(
        calculator calc: CoordinateCalculator, length: Double, horizontal: Bool, policy: TickPolicy,
        base: Double, format: NumberLabelFormat, measure: (String) -> Size
    ) -> [Tick]? {
        guard base > 1, base.isFinite, length > 0 else { return nil }
        let lo = calc.transformed(calc.range.min), hi = calc.transformed(calc.range.max)
        guard lo.isFinite, hi.isFinite, hi > lo else { return nil }
        let pixelsPerPower = length / (hi - lo)

        func fits(_ ticks: [Tick], gap: Double? = nil) -> Bool {
            for (a, b) in zip(ticks, ticks.dropFirst()) {
                let need = horizontal ? (a.labelSize.width + b.labelSize.width) / 2 : (a.labelSize.height + b.labelSize.height) / 2
                if abs(b.pixel - a.pixel) < need + (gap ?? policy.minLabelGap) { return false }
            }
            return true
        }
        /// The gaps tried where the policy's leaves one label.
        let gaps = TickGenerator.fallbackGaps(policy, horizontal: horizontal)
        /// Ticks at `m` x 10^e for every e, each m of `multiples`, in the range.
        func multiplesOfPowers(_ multiples: [Int64]) -> [Tick] {
            let e0 = Int((lo - 1e-9).rounded(.down)), e1 = Int((hi + 1e-9).rounded(.up))
            guard e0 > -300, e1 < 300 else { return [] }
            var ticks: [Tick] = []
            for e in e0...e1 {
                let step = TickStep(factor: 1, power: e)
                for m in multiples {
                    let v = step.value(at: m)
                    guard v >= calc.range.min * (1 - 1e-12), v <= calc.range.max * (1 + 1e-12) else { continue }
                    let label = TickLabelFormatter.labels(indices: [m], step: step, format: format,
                                                          autoSIFrom: TickLabelFormatter.logAutoSIFrom)[0]
                    ticks.append(Tick(value: v, pixel: calc.pixel(v), label: label, labelSize: measure(label)))
                }
            }
            return ticks
        }

        if hi - lo >= 1 - 1e-9 {
            let every = [1, 2, 3, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000]
            /// Every `k`th power of the base in view (nil: none, or too many).
            func powers(_ k: Int) -> [Tick]? {
                // (A power at either end counts despite rounding: log(1e6) / log(10) < 6.)
                let first = Int((lo / Double(k) - 1e-9).rounded(.up)), last = Int((hi / Double(k) + 1e-9).rounded(.down))
                guard last >= first, last - first < policy.maxTicks else { return nil }
                return (first...last).compactMap { j -> Tick? in
                    let e = j * k
                    let v = calc.untransformed(Double(e))
                    // (A power the rounding tolerance let in past the largest double, or below the smallest.)
                    guard v.isFinite, v > 0 else { return nil }
                    let label = Self.label(power: e, base: base, value: v, format: format)
                    return Tick(value: v, pixel: calc.pixel(v), label: label, labelSize: measure(label))
                }
            }
            var one: [Tick]? = nil
            // Powers of the base, every `k`th.
            for (index, k) in every.enumerated() {
                guard Double(k) * pixelsPerPower >= min(policy.targetSpacing, length / 2) || k == 1000 else { continue }
                guard let ticks = powers(k), fits(ticks) else { continue }
                if ticks.count >= 2 { return ticks }
                // One label: closer powers (every power rather than every 2nd) where two fit.
                for gap in gaps {
                    for finer in every[..<index].reversed() {
                        if let more = powers(finer), more.count >= 2, fits(more, gap: gap) { return more }
                    }
                }
                one = ticks
                break
            }
            // One power in view (or none): between the powers, where two labels fit.
            if base == 10, (powers(1)?.count ?? 0) < 2 {
                for gap in gaps {
                    for multiples: [Int64] in [[1, 2, 5], [1, 3]] {
                        let more = multiplesOfPowers(multiples)
                        if more.count >= 2, fits(more, gap: gap) { return more }
                    }
                }
            }
            return one
        }

        // Within one power of the base: nice linear steps over the range.
        let r = calc.range
        let desired = max(1, min(Double(policy.maxTicks), length / policy.targetSpacing))
        guard var step = TickStep(near: r.span / desired) else { return nil }
        /// The ticks of `step` (nil: too many).
        func linear(_ step: TickStep) -> [Tick]? {
            guard let indices = step.indices(in: r, limit: policy.maxTicks + 1), indices.count <= policy.maxTicks else { return nil }
            let values = Array(indices)
            let labels = TickLabelFormatter.labels(indices: values, step: step, format: format,
                                                   autoSIFrom: TickLabelFormatter.logAutoSIFrom)
            return zip(values, labels).map { i, label in
                Tick(value: step.value(at: i), pixel: calc.pixel(step.value(at: i)), label: label, labelSize: measure(label))
            }
        }
        for _ in 0..<64 {
            if let ticks = linear(step), fits(ticks) {
                guard ticks.count < 2 else { return ticks }
                // One tick or none: a finer step whose two or more labels still fit.
                for gap in gaps {
                    var finer = step.finer
                    for _ in 0..<3 {
                        guard let more = linear(finer), fits(more, gap: gap) else { break }
                        if more.count >= 2 { return more }
                        finer = finer.finer
                    }
                }
                return ticks
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
