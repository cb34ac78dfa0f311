import LayoutEngine

/// Drag to pan: the data under the pointer stays under the pointer. Acts on the X
/// axes, the Y axes, or both (`direction`). Starts only inside the plot area, with
/// the primary button (or a touch/pen contact).
public final class ZoomPanModifier: ChartModifier {
    public let kind = "zoomPan"
    public var direction: ModifierDirection

    private struct DragKey: Hashable { let viewer: ViewerID; let pointer: Int }
    private var drags: [DragKey: Point] = [:]

    public init(direction: ModifierDirection = .xy) { self.direction = direction }

    public var activeDrags: Int { drags.count }

    public func pointer(_ event: PointerEvent, context: ModifierContext) -> Bool {
        let key = DragKey(viewer: context.viewer, pointer: event.pointerId)
        switch event.phase {
        case .down:
            guard event.button == 0, context.layout.plotRect.contains(event.point) else { return false }
            drags[key] = event.point
            return true
        case .move:
            guard let last = drags[key] else { return false }
            if event.pointerType == .mouse && event.buttons & 1 == 0 {
                drags[key] = nil  // the button came up outside our sight
                return false
            }
            pan(from: last, to: event.point, context: context)
            drags[key] = event.point
            return true
        case .up, .cancel:
            guard let last = drags.removeValue(forKey: key) else { return false }
            if event.phase == .up { pan(from: last, to: event.point, context: context) }
            return true
        }
    }

    public func viewerLeft(_ viewer: ViewerID) { drags = drags.filter { $0.key.viewer != viewer } }

    private func pan(from a: Point, to b: Point, context: ModifierContext) {
        guard a != b else { return }
        for (axis, layout) in context.axisLayouts(x: true) + context.axisLayouts(x: false) {
            guard axis.isXAxis ? direction.includesX : direction.includesY else { continue }
            let horizontal = layout.alignment.isHorizontal
            context.chart.setUserRange(axis.id, layout.calculator.range(pannedFrom: horizontal ? a.x : a.y,
                                                                        to: horizontal ? b.x : b.y))
        }
    }
}
