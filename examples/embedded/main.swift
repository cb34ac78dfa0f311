// A Swift program that hosts its own live chart with ChartWire, no JSON anywhere:
// it defines the chart in Swift, adds a modifier of its own, feeds data from a timer
// on the server's thread, and the server streams it to browsers at /s/plant.
//
//   swift run -c release embedded-example [port]      then open http://127.0.0.1:PORT/s/plant
//
// docs/feeding.md, "Embedding", walks through it.
import ChartSession
import ChartWireServer
import Foundation
import LayoutEngine

/// A modifier of our own: a tap on the plot drops a labelled marker at the data
/// point under the finger (or mouse); a double tap clears them.
final class MarkPointModifier: GestureModifierBase {
    override var kind: String { "markPoint" }
    override var consumes: Set<ConsumedInput> { [] }   // taps only: the page keeps scrolling

    override func onGesture(_ gesture: Gesture, args: ModifierEventArgs) -> Bool {
        guard let chart = parentSurface else { return false }
        switch gesture {
        case let .tap(p) where args.isInSourceBounds:
            let layout = args.layout
            guard let x = axisLayouts(x: true, in: layout).first, let y = axisLayouts(x: false, in: layout).first else { return false }
            let (vx, vy) = (x.layout.calculator.value(p.x), y.layout.calculator.value(p.y))
            var marker = Annotation(kind: .text, xAxisId: x.axis.id, yAxisId: y.axis.id, color: "#b3261e")
            marker.x = vx
            marker.y = vy
            marker.text = String(format: "● %.1f", vy)
            chart.annotations.append(marker)
            return true
        case .doubleTap:
            chart.annotations.removeAll()
            return true
        default:
            return false
        }
    }
}

/// A crosshair of our own, a subclass of the library's: pressures in bar, solid lines.
/// Registered by name before the server starts, so a spec sent to this program may ask
/// for it (`{"type": "crosshair", "class": "plant"}`), and stored sessions naming it
/// get it back (docs/modifiers.md, "Subclassing the crosshair").
final class PlantCrosshair: CrosshairModifier {
    override func valueLabel(_ value: Double, axis: AxisConfig?) -> String {
        axis?.alignment.isHorizontal == false ? String(format: "%.2f bar", value) : super.valueLabel(value, axis: axis)
    }
    override func lineStyle(for target: Target) -> LineStyle { LineStyle(color: "#1f5fb4", width: 1.5, dash: []) }
}
CrosshairModifier.register("plant") { config in
    PlantCrosshair(mode: config.mode, interpolatePoints: config.interpolatePoints)
}

let port = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 8090
var configuration = ChartServer.Configuration()
configuration.port = port
let server: ChartServer
do { server = try ChartServer(configuration) } catch {
    FileHandle.standardError.write(Data("embedded-example: \(error)\n".utf8))
    exit(2)
}

// The chart, in Swift: a time axis following the last minute, two series.
let chart = Chart(
    title: "Plant (hosted from Swift)",
    xAxes: [AxisConfig(id: "t", alignment: .bottom, mode: .follow, window: 60, type: .time)],
    yAxes: [AxisConfig(id: "v", alignment: .left, title: "Pressure (bar)", mode: .visible, growBy: (0.1, 0.1))],
    series: [
        Series(id: "pressure", name: "Pressure", color: "#1f5fb4", xAxisId: "t", yAxisId: "v", data: XYData(capacity: 10_000)),
        Series(id: "setpoint", name: "Set point", kind: .step, color: "#e8710a", xAxisId: "t", yAxisId: "v",
               data: XYData(capacity: 10_000)),
    ],
    modifiers: [RolloverModifier(), MarkPointModifier()])
// The legend's entries written and drawn in Swift (ShinobiCharts' SChartLegendItem): the
// set point's entry says what it is and shows a step in place of the plain swatch.
chart.setLegendItemRenderer(LegendItemRenderer("plant-legend", item: { item in
    if item.seriesId == "setpoint" { item.text = "Set point (target)" }
}, symbol: { item, box in
    guard item.seriesId == "setpoint" else { return nil }   // the default swatch
    let (l, r, t, b) = (Float(box.minX + 1), Float(box.maxX - 1), Float(box.midY - 4), Float(box.midY + 4))
    return [.polyline(points: [l, b, (l + r) / 2, b, (l + r) / 2, t, r, t], stroke: item.color, width: 2, dash: [])]
}))
// Content drawn in Swift on the plot: the operating range, 3 to 6 bar, across the whole
// visible time (relative x), shaded, its limits dashed (clipped to the plot as it zooms).
chart.customAnnotations = [CustomAnnotation("operating-range", xAxisId: "t", yAxisId: "v",
                                            x: .relative(0), y: .data(3), x2: .relative(1), y2: .data(6), layer: .below) { ctx in
    let b = ctx.box
    let limits = [3.0, 6.0].map { Float(ctx.point(x: ctx.xAxis.range.min, y: $0).y) }
    return [.rect(x: Float(b.minX), y: Float(b.minY), w: Float(b.width), h: Float(b.height), fill: "#e6f4ea", stroke: nil, lineWidth: 0),
            .segments(coords: limits.flatMap { [Float(b.minX), $0, Float(b.maxX), $0] }, stroke: "#188038", width: 1, dash: [4, 3])]
}]
let session = server.host(chart, id: "plant", title: "Plant (embedded)")
// ShinobiCharts' delegate, in Swift: told of every zoom and pan.
chart.addEventHandler { event in
    if case let .zoomEnded(viewer) = event { print("viewer \(viewer) zoomed") }
}

// Data, every 50 ms, on the server's thread: append directly to the chart.
var pressure = 4.0, setpoint = 4.0
server.every(0.05) { now in
    if Int(now * 20) % 400 == 0 { setpoint = Double.random(in: 3...6) }
    pressure += (setpoint - pressure) * 0.05 + Double.random(in: -0.04...0.04)
    try? chart.append(seriesId: "pressure", xs: [now], ys: [pressure])
    try? chart.append(seriesId: "setpoint", xs: [now], ys: [setpoint])
}

do {
    let bound = try server.start()
    FileHandle.standardOutput.write(Data("listening on http://127.0.0.1:\(bound) (the chart: /s/\(session.id))\n".utf8))
    try server.run()
} catch {
    FileHandle.standardError.write(Data("embedded-example: \(error)\n".utf8))
    exit(1)
}
