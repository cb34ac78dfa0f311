/// Presence from outside the session's own viewers (another node of a cluster,
/// docs/cluster.md "Presence between nodes").
extension Session {
    /// The enabled presence modifier of the shared chart, if it has one.
    public var presence: PresenceModifier? {
        chart.modifiers.first { $0.isEnabled && $0 is PresenceModifier } as? PresenceModifier
    }

    /// Runs `change` on what the modifiers draw (not on the chart: nothing is logged),
    /// then marks the viewers whose own layer it changed, so they are sent a frame.
    /// True if some viewer's drawing changed.
    @discardableResult
    public func changeOverlays(_ change: () -> Void) -> Bool {
        finishRendering()
        // (What was pending already is marked first: the answer is about `change`.)
        collectOverlayInvalidations(viewsToo: false)
        change()
        let changed = chart.overlaysInvalidated != nil
        collectOverlayInvalidations(viewsToo: false)
        return changed
    }
}
