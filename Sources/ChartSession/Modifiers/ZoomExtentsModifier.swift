/// Double-click returns every axis to its automatic range: the whole data, or, on a
/// scrolling chart, the window that follows the newest points again.
public final class ZoomExtentsModifier: ChartModifier {
    public let kind = "zoomExtents"
    public init() {}

    public func doubleClick(_ event: DoubleClickEvent, context: ModifierContext) -> Bool {
        context.chart.resetUserRanges()
        return true
    }
}
