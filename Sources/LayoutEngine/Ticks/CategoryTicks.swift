/// Ticks for a category axis: one at each whole slot in view that has a name (slot
/// `i` is `categories[i]`), every 2nd, 5th, 10th ... one when the names would touch.
public enum CategoryTickGenerator {
    public static func ticks(
        calculator calc: CoordinateCalculator, length: Double, horizontal: Bool, policy: TickPolicy,
        categories: [String], measure: (String) -> Size
    ) -> [Tick]? {
        guard !categories.isEmpty, length > 0 else { return nil }
        let r = calc.range
        // (Ends clamped to the slots before converting: a range may reach 1e308.)
        let count = Double(categories.count)
        let first = max(0, Int(min(max(-1, r.min), count).rounded(.up)))
        let last = min(categories.count - 1, Int(max(min(count, r.max), -1).rounded(.down)))
        guard last >= first else { return [] }
        var every = 1
        while every < categories.count {
            var ticks: [Tick] = []
            var i = (first + every - 1) / every * every
            while i <= last {
                let name = categories[i]
                ticks.append(Tick(value: Double(i), pixel: calc.pixel(Double(i)), label: name, labelSize: measure(name)))
                i += every
            }
            let fits = ticks.count <= policy.maxTicks && zip(ticks, ticks.dropFirst()).allSatisfy { a, b in
                let need = horizontal ? (a.labelSize.width + b.labelSize.width) / 2 : (a.labelSize.height + b.labelSize.height) / 2
                return abs(b.pixel - a.pixel) >= need + policy.minLabelGap
            }
            if fits { return ticks }
            every = every < 2 ? 2 : every < 5 ? 5 : every < 10 ? 10 : every * 2
        }
        return []
    }
}
