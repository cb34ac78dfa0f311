/// How a series comes onto the plot or leaves it (ShinobiCharts' `SChartAnimation`,
/// as `entryAnimation` and `exitAnimation`, used when `animationEnabled`).
///
/// Animations run on the server: the session's clock advances them and every frame
/// shows the same step to every viewer, as any other change of state would.
public struct SeriesAnimation: Equatable, Sendable {
    public enum Effect: String, CaseIterable, Sendable {
        /// Values grow from the series' baseline (a pie or donut: its radius from 0).
        case grow
        /// Opacity from 0 to 1.
        case fade
        /// The series slides in along its value axis from below the plot (a rotated
        /// chart: from the left; a pie or donut: from below).
        case slide
    }

    /// How time maps to progress.
    public enum Curve: String, CaseIterable, Sendable {
        case linear, easeIn, easeOut, easeInOut

        /// Progress at time fraction `t` (0...1).
        public func callAsFunction(_ t: Double) -> Double {
            let t = min(max(t, 0), 1)
            switch self {
            case .linear: return t
            case .easeIn: return t * t * t
            case .easeOut: let u = 1 - t; return 1 - u * u * u
            case .easeInOut: return t < 0.5 ? 4 * t * t * t : 1 - 4 * (1 - t) * (1 - t) * (1 - t)
            }
        }
    }

    public var effect: Effect
    /// Seconds.
    public var duration: Double
    public var curve: Curve

    public init(effect: Effect = .grow, duration: Double = 0.6, curve: Curve = .easeOut) {
        self.effect = effect; self.duration = duration; self.curve = curve
    }

    public static let defaultEntry = SeriesAnimation(effect: .grow, duration: 0.6, curve: .easeOut)
    public static let defaultExit = SeriesAnimation(effect: .fade, duration: 0.4, curve: .easeIn)
    /// The longest animation the spec accepts, seconds.
    public static let maxDuration = 30.0
}

/// Where a series stands in its entry or exit animation.
public struct AnimationState: Equatable, Sendable {
    public enum Direction: Equatable, Sendable { case entry, exit }
    public var direction: Direction
    public var animation: SeriesAnimation
    /// How much of the series shows before easing, 0...1: rises during an entry, falls
    /// during an exit.
    public var shown: Double
    /// Clock time (seconds) and `shown` when the animation last set off; nil until the
    /// session's clock first runs for it.
    var startedAt: (time: Double, shown: Double)? = nil

    public static func == (a: Self, b: Self) -> Bool {
        a.direction == b.direction && a.animation == b.animation && a.shown == b.shown
            && a.startedAt?.time == b.startedAt?.time && a.startedAt?.shown == b.startedAt?.shown
    }

    /// The eased amount the renderer applies (0: not shown, 1: fully shown).
    public var progress: Double {
        switch direction {
        case .entry: return animation.curve(shown)
        case .exit: return 1 - animation.curve(1 - shown)
        }
    }
}
