import Foundation

/// Live demo data: a signal sampled at `rate` points per second, x in seconds since
/// the generator started. Deterministic for a given seed, so tests can predict it.
public struct DataGenerator: Equatable, Sendable {
    public enum Kind: String, CaseIterable, Sendable { case sine, square, sawtooth, randomWalk }
    /// What x the points get: seconds since the session started, or Unix seconds
    /// (the session's start on the wall clock plus those), for date-time axes.
    public enum Time: String, CaseIterable, Sendable { case elapsed, unix }

    public var kind: Kind
    public var rate: Double
    public var amplitude: Double
    public var period: Double
    public var offset: Double
    public var noise: Double
    public var time: Time = .elapsed
    public private(set) var emitted: Int = 0
    private var rng: SplitMix64
    private var walk: Double = 0

    public init(kind: Kind, rate: Double = 50, amplitude: Double = 1, period: Double = 4, offset: Double = 0,
                noise: Double = 0, seed: UInt64 = 1) {
        self.kind = kind; self.rate = rate; self.amplitude = amplitude; self.period = period
        self.offset = offset; self.noise = noise; self.rng = SplitMix64(seed: seed)
    }

    /// Its progress (points emitted, random state, random walk), to save and restore
    /// with a session's snapshot: a restored generator goes on where it was.
    public var progress: (emitted: Int, random: UInt64, walk: Double) {
        get { (emitted, rng.state, walk) }
        set { emitted = newValue.emitted; rng.state = newValue.random; walk = newValue.walk }
    }

    /// Most points one call emits: a server that stalled for a long time catches up
    /// by at most this many points per series instead of flooding its viewers.
    public static let maxCatchUp = 2_000

    /// The points due between the last call and `elapsed` seconds after the start.
    public mutating func points(upTo elapsed: Double) -> (xs: [Double], ys: [Double]) {
        guard elapsed.isFinite, elapsed >= 0 else { return ([], []) }
        var due = Int((elapsed * rate).rounded(.down)) + 1 - emitted
        if due > Self.maxCatchUp {
            emitted += due - Self.maxCatchUp  // skip ahead: x stays tied to the clock
            due = Self.maxCatchUp
        }
        guard due > 0 else { return ([], []) }
        var xs: [Double] = [], ys: [Double] = []
        xs.reserveCapacity(due); ys.reserveCapacity(due)
        for _ in 0..<due {
            let x = Double(emitted) / rate
            xs.append(x)
            ys.append(value(at: x))
            emitted += 1
        }
        return (xs, ys)
    }

    private mutating func value(at t: Double) -> Double {
        let phase = period > 0 ? (t / period).truncatingRemainder(dividingBy: 1) : 0
        let jitter = noise == 0 ? 0 : noise * (rng.nextUnit() * 2 - 1)
        switch kind {
        case .sine: return offset + amplitude * sin(2 * .pi * phase) + jitter
        case .square: return offset + (phase < 0.5 ? amplitude : -amplitude) + jitter
        case .sawtooth: return offset + amplitude * (2 * phase - 1) + jitter
        case .randomWalk:
            walk += amplitude * (rng.nextUnit() * 2 - 1) * 0.1
            walk *= 0.999  // drift back towards the offset
            return offset + walk + jitter
        }
    }
}

/// A small, fast, deterministic generator (Steele, Lea, Flood 2014).
struct SplitMix64: Equatable, Sendable {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    mutating func nextUnit() -> Double { Double(next() >> 11) / Double(1 << 53) }
}
