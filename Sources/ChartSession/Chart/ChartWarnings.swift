import LayoutEngine

extension Chart {
    /// Unix times from 2000 to 2100 in seconds, and the same in milliseconds.
    static let unixSecondsSpan = DoubleRange(946_684_800, 4_102_444_800)
    static let unixMillisecondsSpan = DoubleRange(946_684_800_000, 4_102_444_800_000)

    /// Hints about what the chart is given, for the answer to a create, replace or
    /// patch (`warnings`, docs/feeding.md): a numeric X axis whose data (or range)
    /// lies wholly within 2000 to 2100 as Unix seconds or milliseconds is probably
    /// meant as times (`"type": "time"` labels them as dates); a crosshair whose class
    /// the program has not registered draws as the plain one.
    public func warnings() -> [String] {
        var out: [String] = []
        for (i, axis) in xAxes.enumerated() where axis.config.type == .numeric {
            guard let r = dataRange(axis.id) ?? axis.userRange ?? axis.config.range else { continue }
            let unit: String
            if Self.unixSecondsSpan.contains(r.min), Self.unixSecondsSpan.contains(r.max) { unit = "seconds" }
            else if Self.unixMillisecondsSpan.contains(r.min), Self.unixMillisecondsSpan.contains(r.max) { unit = "milliseconds" }
            else { continue }
            out.append("$.chart.xAxes[\(i)]: the values of numeric axis \"\(axis.id)\" look like Unix times in \(unit); "
                       + #""type": "time" labels them as dates and times"# + (unit == "milliseconds" ? " (in seconds: divide by 1000)" : ""))
        }
        for (i, m) in modifiers.enumerated() {
            guard let name = (m as? CrosshairModifier)?.missingClass else { continue }
            out.append("$.chart.modifiers[\(i)].class: crosshair class \"\(name)\" is not registered in this program "
                       + "(CrosshairModifier.register): the plain crosshair stands in")
        }
        return out
    }
}
