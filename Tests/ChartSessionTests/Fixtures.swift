import ChartSession
import LayoutEngine
import TestSupport

/// Small charts with known data, for driving sessions without a server.
enum Fixtures {
    /// One line series y = x on x = 0...99 (fixed-range free: extents on both axes).
    static func staticChart(points: Int = 100, modifiers: [ChartModifierBase]? = nil) -> Chart {
        var data = XYData()
        try! data.append(xs: (0..<points).map(Double.init), ys: (0..<points).map(Double.init))
        return Chart(
            title: "Static",
            xAxes: [AxisConfig(id: "x", alignment: .bottom, title: "X", mode: .extents)],
            yAxes: [AxisConfig(id: "y", alignment: .left, title: "Y", mode: .extents, growBy: (0.1, 0.1))],
            series: [Series(id: "s", name: "Line", color: "#1f77b4", xAxisId: "x", yAxisId: "y", data: data)],
            modifiers: modifiers ?? [ZoomPanModifier(direction: .xy), MouseWheelZoomModifier(direction: .x), ZoomExtentsModifier()])
    }

    /// A scrolling chart: x follows a 10-unit window, fed by a 10 Hz sine generator.
    static func followChart() -> Chart {
        Chart(
            title: nil,
            xAxes: [AxisConfig(id: "x", alignment: .bottom, mode: .follow, window: 10)],
            yAxes: [AxisConfig(id: "y", alignment: .left, mode: .visible, growBy: (0.1, 0.1))],
            series: [Series(id: "sine", name: "Sine", color: "#d62728", xAxisId: "x", yAxisId: "y",
                            generator: DataGenerator(kind: .sine, rate: 10, period: 4))],
            modifiers: [ZoomPanModifier(direction: .xy), MouseWheelZoomModifier(direction: .x), ZoomExtentsModifier()])
    }

    static func session(_ chart: Chart, id: String = "t") -> Session {
        Session(id: id, title: "Test", chart: chart, measurer: TestFonts.measurer)
    }

    static let size = ViewerSize(width: 800, height: 500, dpr: 1)

    static func hello(_ size: ViewerSize = size, format: FrameFormat = .binary) -> ClientMessage {
        .hello(size, format: format, token: nil)
    }
}

extension Outgoing {
    var json: JSONValue? { if case let .text(j) = self { return j }; return nil }
    var bytes: [UInt8]? { if case let .binary(b) = self { return b }; return nil }
}
