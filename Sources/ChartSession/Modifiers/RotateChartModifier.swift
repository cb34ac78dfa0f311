import LayoutEngine

/// The custom modifier of SciChart's "custom modifiers" page, written against this
/// API: `rotateChart()` moves every axis a quarter turn (bottom to left, left to top,
/// top to right, right to bottom), so the chart turns between horizontal and vertical,
/// in one frame (`suspendUpdates`). It also turns the chart on a long press (touch) —
/// a way to reach it from the page; call `rotateChart()` from Swift for anything else.
///
/// It is the example docs/modifiers.md walks through: a subclass of
/// `GestureModifierBase` that reads its `parentSurface`'s axes and changes them.
public final class RotateChartModifier: GestureModifierBase {
    public override var kind: String { "rotateChart" }

    public override init() { super.init() }

    /// Turns the chart a quarter turn.
    public func rotateChart() {
        guard isAttached, let chart = parentSurface else { return }
        chart.suspendUpdates {
            for axis in chart.xAxes + chart.yAxes {
                chart.setAlignment(axis.id, Self.rotated(axis.config.alignment))
            }
        }
    }

    /// Where an axis on `side` goes (the seed's table).
    static func rotated(_ side: AxisAlignment) -> AxisAlignment {
        switch side {
        case .right: return .bottom
        case .left: return .top
        case .top: return .right
        case .bottom: return .left
        }
    }

    public override func onClockGesture(_ gesture: Gesture, viewer: ViewerID) {
        if case .longPress(.began, _) = gesture { rotateChart() }
    }

    public override func onGesture(_ gesture: Gesture, args: ModifierEventArgs) -> Bool {
        // The long press this modifier acted on is its own until it ends.
        if case .longPress = gesture { return true }
        return false
    }
}
