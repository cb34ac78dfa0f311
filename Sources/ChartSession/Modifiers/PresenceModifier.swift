import Foundation
import LayoutEngine
import Synchronization

/// Shows everyone where the others are pointing (presence): each viewer's hover over
/// the plot is kept in data coordinates, and every other viewer sees it in its own
/// layer as a small ring labelled with that viewer's number, in a colour of its own.
/// A viewer never sees its own. Each move redraws every viewer's own layer (a few
/// dozen bytes each), so it suits rooms of people, not fan-outs of thousands.
///
/// On a cluster (docs/cluster.md, "Presence between nodes") the viewers of other nodes
/// are shown too: their node publishes its viewers' spots (`localSpots`, changed when
/// `localVersion` is) and this node hands them in (`setRemote`), labelled `#N·abc`
/// (the viewer's number on its node and the first letters of the node's name).
public final class PresenceModifier: GestureModifierBase {
    public override var kind: String { "presence" }
    public override var changesChart: Bool { false }
    /// Where each viewer points: values on the first x and y axes.
    private var spots: [ViewerID: (x: Double, y: Double)] = [:]
    /// Counts changes of this node's viewers' spots.
    public private(set) var localVersion = 0 {
        didSet { Self.localChanges.add(1, ordering: .relaxed) }
    }
    /// Counts changes of local spots in every presence modifier of the process: a
    /// cluster node looks for sessions to publish only when it moved.
    public static let localChanges = Atomic<Int>(0)
    /// By node, where the viewers of other nodes point.
    private var remote: [String: [(viewer: Int64, x: Double, y: Double)]] = [:]
    static let colours = ["#d62728", "#9467bd", "#2ca02c", "#ff7f0e", "#17becf", "#8c564b", "#e377c2", "#1f77b4"]

    public override init() { super.init() }

    /// Where `viewer` points, in data values (nil: not over the plot).
    public func spot(of viewer: ViewerID) -> (x: Double, y: Double)? { spots[viewer] }

    /// This node's viewers' spots, by viewer number.
    public var localSpots: [(viewer: ViewerID, x: Double, y: Double)] {
        spots.sorted { $0.key < $1.key }.map { ($0.key, $0.value.x, $0.value.y) }
    }

    /// Replaces what node `node`'s viewers point at (empty: none of them points); every
    /// viewer here redraws when it changed.
    public func setRemote(node: String, _ list: [(viewer: Int64, x: Double, y: Double)]) {
        let before = remote[node] ?? []
        let same = before.count == list.count && zip(before, list).allSatisfy { $0.viewer == $1.viewer && $0.x == $1.x && $0.y == $1.y }
        guard !same else { return }
        remote[node] = list.isEmpty ? nil : list
        invalidateOverlay()
    }

    /// The nodes whose viewers are shown.
    public var remoteNodes: [String] { remote.keys.sorted() }

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
        if spots[args.viewer].map({ [$0.x, $0.y] }) != before.map({ [$0.x, $0.y] }) {
            localVersion &+= 1
            invalidateOverlay()
        }
        return false
    }

    public override func viewerLeft(_ viewer: ViewerID) {
        super.viewerLeft(viewer)
        if spots.removeValue(forKey: viewer) != nil {
            localVersion &+= 1
            invalidateOverlay()
        }
    }

    private func axes(_ layout: ChartLayout) -> (AxisLayout, AxisLayout)? {
        guard let x = xAxes.first, let y = yAxes.first, let xl = layout.axis(x.id), let yl = layout.axis(y.id) else { return nil }
        return (xl, yl)
    }

    public override func overlay(for viewer: ViewerID, layout: ChartLayout) -> [DrawCommand] {
        guard let (xl, yl) = axes(layout) else { return [] }
        let plot = layout.plotRect
        var out: [DrawCommand] = []
        var shown: [(x: Double, y: Double, label: String, colour: Int)] = spots.sorted(by: { $0.key < $1.key })
            .filter { $0.key != viewer }.map { ($0.value.x, $0.value.y, "#\($0.key)", $0.key) }
        for (node, list) in remote.sorted(by: { $0.key < $1.key }) {
            // (A colour of its own per node and viewer, the same on every node.)
            let tag = node.unicodeScalars.reduce(0) { $0 &+ Int($1.value) }
            for s in list { shown.append((s.x, s.y, "#\(s.viewer)·\(node.prefix(3))", tag &+ Int(truncatingIfNeeded: s.viewer))) }
        }
        for spot in shown {
            // Each value along its axis, in this viewer's pixels.
            var p = Point(x: 0, y: 0)
            for (a, v) in [(xl, spot.x), (yl, spot.y)] {
                if a.alignment.isHorizontal { p.x = a.calculator.pixel(v) } else { p.y = a.calculator.pixel(v) }
            }
            guard plot.contains(p) else { continue }
            let colour = Self.colours[abs(spot.colour % Self.colours.count)]
            var ring: [Float] = []
            for k in 0...16 {
                let t = Double(k) / 16 * 2 * .pi
                ring += [Float(p.x + 5 * cos(t)), Float(p.y + 5 * sin(t))]
            }
            out.append(.polyline(points: ring, stroke: colour, width: 2, dash: []))
            out.append(.text(x: Float(p.x + 8), y: Float(p.y - 6), text: spot.label, font: "11px ChartWire Sans", fill: colour,
                             align: .left, baseline: .alphabetic, angle: 0))
        }
        return out
    }
}
