import Foundation
import LayoutEngine

/// The wheel zooms about the pointer: the value under the pointer stays put while the
/// range around it grows or shrinks. Scrolling down (positive deltaY) zooms out.
public final class MouseWheelZoomModifier: ChartModifier {
    public let kind = "mouseWheelZoom"
    public var direction: ModifierDirection
    /// Zoom factor per 100 pixels of wheel travel.
    public var stepFactor: Double

    public init(direction: ModifierDirection = .x, stepFactor: Double = 1.2) {
        self.direction = direction; self.stepFactor = stepFactor
    }

    public func wheel(_ event: WheelEvent, context: ModifierContext) -> Bool {
        guard context.layout.plotRect.contains(Point(x: event.x, y: event.y)), event.deltaY != 0 else {
            return false
        }
        // Clamp a single event to ±500 px so a burst cannot collapse the range.
        let delta = max(-500, min(500, event.deltaY))
        let factor = pow(stepFactor, delta / 100)
        for (axis, layout) in context.axisLayouts(x: true) + context.axisLayouts(x: false) {
            guard axis.isXAxis ? direction.includesX : direction.includesY else { continue }
            let pixel = layout.alignment.isHorizontal ? event.x : event.y
            context.chart.setUserRange(axis.id, layout.calculator.range(zoomedBy: factor, aboutPixel: pixel))
        }
        return true
    }
}
