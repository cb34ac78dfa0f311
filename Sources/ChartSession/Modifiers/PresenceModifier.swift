import Foundation
import LayoutEngine

/// Shows everyone where the others are pointing (presence): each viewer's hover over
/// the plot is kept in data coordinates, and every other viewer sees it in its own
/// layer as a small ring labelled with that viewer's number, in a colour of its own.
/// A viewer never sees its own. Each move redraws every viewer's own layer (a few
/// dozen bytes each), so it suits rooms of people, not fan-outs of thousands.
public final class PresenceModifier: GestureModifierBase {
    public override var kind: String { "presence" }
    public override var changesChart: Bool { false }
    /// Where each viewer points: values on the first x and y axes.
    private var spots: [ViewerID: (x: Double, y: Double)] = [:]
    static let colours = ["#d62728", "#9467bd", "#2ca02c", "#ff7f0e", "#17becf", "#8c564b", "#e377c2", "#1f77b4"]

    public override init() { super.init() }

    /// Where `viewer` points, in data values (nil: not over the plot).
    public func spot(of viewer: ViewerID) -> (x: Double, y: Double)? { spots[viewer] }

    public override func onGesture(_ gesture: Gesture, args: ModifierEventArgs) -> Bool {
        let before = spots[args.viewer]
        switch gesture {
        case let .hover(p?), let .longPress(.began, p), let .longPress(.changed, p):
            let layout = args.layout
            guard layout.plotRect.contains(p), let (xl, yl) = axes(layout) else { spots[args.viewer] = nil; break }
            let along = { (a: AxisLayout) in a.calculator.value(a.alignment.isHorizontal ? p.x : p.y) }
            spots[args.viewer] = (along(xl), along(yl))
        case .hover(nil), .longPress(.ended, _), .longPress(.cancelled, _):
            spots[args.viewer] = nil
        default:
            return false
        }
        if spots[args.viewer].map({ [$0.x, $0.y] }) != before.map({ [$0.x, $0.y] }) { invalidateOverlay() }
        return false
    }

    public override func viewerLeft(_ viewer: ViewerID) {
        super.viewerLeft(viewer)
        if spots.removeValue(forKey: viewer) != nil { invalidateOverlay() }
    }

    private func axes(_ layout: ChartLayout) -> (AxisLayout, AxisLayout)? {
        guard let x = xAxes.first, let y = yAxes.first, let xl = layout.axis(x.id), let yl = layout.axis(y.id) else { return nil }
        return (xl, yl)
    }

    public override func overlay(for viewer: ViewerID, layout: ChartLayout) -> [DrawCommand] {
        guard let (xl, yl) = axes(layout) else { return [] }
        let plot = layout.plotRect
        var out: [DrawCommand] = []
        for (other, spot) in spots.sorted(by: { $0.key < $1.key }) where other != viewer {
            // Each value along its axis, in this viewer's pixels.
            var p = Point(x: 0, y: 0)
            for (a, v) in [(xl, spot.x), (yl, spot.y)] {
                if a.alignment.isHorizontal { p.x = a.calculator.pixel(v) } else { p.y = a.calculator.pixel(v) }
            }
            guard plot.contains(p) else { continue }
            let colour = Self.colours[Int(other) % Self.colours.count]
            var ring: [Float] = []
            for k in 0...16 {
                let t = Double(k) / 16 * 2 * .pi
                ring += [Float(p.x + 5 * cos(t)), Float(p.y + 5 * sin(t))]
            }
            out.append(.polyline(points: ring, stroke: colour, width: 2, dash: []))
            out.append(.text(x: Float(p.x + 8), y: Float(p.y - 6), text: "#\(other)", font: "11px ChartWire Sans", fill: colour,
                             align: .left, baseline: .alphabetic, angle: 0))
        }
        return out
    }
}
