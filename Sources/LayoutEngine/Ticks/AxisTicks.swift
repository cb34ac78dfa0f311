/// One tick of an axis: its data value, pixel position along the axis and label.
public struct Tick: Equatable, Sendable {
    public var value: Double
    public var pixel: Double
    public var label: String
    public var labelSize: Size
    /// A style and colour of its own (`TickMark.labelStyle`, `labelColor`).
    public var labelStyle: TextStyle? = nil
    public var labelColor: String? = nil
    /// An angle of its own, when it differs from the axis' (`TickMark.labelAngle`):
    /// `labelSize` is then the size turned by it.
    public var labelAngle: Double? = nil
    /// A colour filled behind the label (`TickMark.labelBackground`).
    public var labelBackground: String? = nil
    /// An image in place of the text (`TickMark.labelImage`): `labelSize` is its size.
    public var labelImage: TickImage? = nil

    public init(value: Double, pixel: Double, label: String, labelSize: Size) {
        self.value = value; self.pixel = pixel; self.label = label; self.labelSize = labelSize
    }
}

/// How ticks are chosen for one axis: the spacing it aims for and the least gap it
/// keeps between neighbouring labels.
public struct TickPolicy: Equatable, Hashable, Sendable {
    /// Pixels between major ticks the generator aims for before checking labels.
    public var targetSpacing: Double
    /// Least free space between two labels, in pixels.
    public var minLabelGap: Double
    /// An upper bound on ticks per axis, whatever the pixels.
    public var maxTicks: Int

    public init(targetSpacing: Double = 80, minLabelGap: Double = 8, maxTicks: Int = 50) {
        self.targetSpacing = targetSpacing; self.minLabelGap = minLabelGap; self.maxTicks = maxTicks
    }
}

/// Chooses nice ticks for a range shown on `length` pixels so that no two labels
/// overlap: it starts from the step nearest `targetSpacing` and coarsens (1, 2, 5 x
/// 10^n) until every label, centred on its tick, keeps `minLabelGap` from the next.
///
/// An axis with one label cannot be read (no scale, no direction), so when that step
/// leaves a single tick in the range (a short axis: 9 to 91 on 108 pixels has only
/// 50 at a step of 50), or none, it refines the step (20: 20, 40, 60, 80) while the labels keep
/// their gap; on an axis along a side too short for that, while their line boxes do
/// not overlap (`tightLabelGap`: labels side by side keep the gap, `fallbackGaps`);
/// and keeps one label when even that does not fit two.
public enum TickGenerator {
    /// Least free space between two labels when the policy's gap would leave one label:
    /// none (their line boxes may touch; the lines' leading keeps the digits apart).
    public static let tightLabelGap = 0.0

    /// The gaps an axis tries, in order, where its step leaves one label: the
    /// policy's, then on an axis along a side `tightLabelGap` (line boxes may touch: the
    /// lines' leading keeps them apart); labels side by side keep the policy's (touching,
    /// `20002020` or `Sep 2026Nov 2026` reads as one label).
    public static func fallbackGaps(_ policy: TickPolicy, horizontal: Bool) -> [Double] {
        horizontal ? [policy.minLabelGap] : [policy.minLabelGap, min(policy.minLabelGap, tightLabelGap)]
    }

    public static func ticks(
        range: DoubleRange,
        calculator: CoordinateCalculator,
        length: Double,
        horizontal: Bool,
        policy: TickPolicy,
        format: NumberLabelFormat = .decimal,
        measure: (String) -> Size
    ) -> (step: TickStep, ticks: [Tick])? {
        let r = range.widenedIfEmpty()
        guard r.isValid, length > 0 else { return nil }
        let desired = max(1, min(Double(policy.maxTicks), length / policy.targetSpacing))
        // (Half the span, doubled after dividing: a span past the largest double.)
        guard var step = TickStep(near: r.halfSpan / desired * 2) else { return nil }
        /// The ticks of `step` and whether their labels keep `gap` (nil: too many ticks).
        func attempt(_ step: TickStep, gap: Double) -> (ticks: [Tick], fits: Bool)? {
            guard let indices = step.indices(in: r, limit: policy.maxTicks + 1), indices.count <= policy.maxTicks else { return nil }
            var ticks: [Tick] = []
            ticks.reserveCapacity(indices.count)
            var extent = 0.0
            let labels = TickLabelFormatter.labels(indices: Array(indices), step: step, format: format)
            for (i, label) in zip(indices, labels) {
                let size = measure(label)
                let v = step.value(at: i)
                extent = max(extent, horizontal ? size.width : size.height)
                ticks.append(Tick(value: v, pixel: calculator.pixel(v), label: label, labelSize: size))
            }
            let pixelsPerStep = abs(step.value * 0.5 / r.halfSpan * length)
            return (ticks, pixelsPerStep >= extent + gap)
        }
        for _ in 0..<64 {
            if let made = attempt(step, gap: policy.minLabelGap), made.ticks.count < 2 || made.fits {
                guard made.ticks.count < 2 else { return (step, made.ticks) }
                // One tick or none: a finer step with two or more whose labels still fit, if
                // any; else the first with one (a range between two ticks of this step).
                var one: (TickStep, [Tick])? = made.ticks.isEmpty ? nil : (step, made.ticks)
                for gap in Self.fallbackGaps(policy, horizontal: horizontal) {
                    var finer = step.finer
                    for _ in 0..<3 {
                        guard let more = attempt(finer, gap: gap), more.fits else { break }
                        if more.ticks.count >= 2 { return (finer, more.ticks) }
                        if one == nil, more.ticks.count == 1 { one = (finer, more.ticks) }
                        finer = finer.finer
                    }
                }
                return one ?? (step, made.ticks)
            }
            step = step.coarser
        }
        return nil
    }
}
