import LayoutEngine
import Synchronization

/// Measures text the way Chromium draws it on a canvas whose font is the chart font:
/// the primary face (DejaVu Sans) first, then fallback faces for what it lacks (Noto
/// CJK, Devanagari, ...), each declared to the page as `@font-face` rules of the same
/// family with disjoint `unicode-range`s, so the browser picks the same face per
/// character as this does.
///
/// Like Chromium's shaper it splits a string into runs, each of one script and one
/// face, and shapes each run with HarfBuzz, with the whole string as context:
/// - a grapheme cluster takes the first face that has every character in it (marks
///   and joiners stay with their base, as when Chromium reshapes a cluster that came
///   out as .notdef with the next font), else the first that has its base character,
///   else the primary face (its .notdef);
/// - characters of no script of their own (spaces, digits, punctuation: Common, and
///   combining marks: Inherited) take the script of the run they are in.
public struct FallbackShaper: TextShaper {
    /// One run of a shaped string: scalars `range` in `faces[face]`, shaped as `script`.
    public struct Run: Equatable, Sendable {
        public var range: Range<Int>
        public var face: Int
        public var script: UInt32
        public init(range: Range<Int>, face: Int, script: UInt32) {
            self.range = range; self.face = face; self.script = script
        }
    }

    /// Faces in order of preference, the primary first; fallbacks are made when first
    /// needed (`LazyFace`).
    public let regularFaces: [LazyFace]
    public let boldFaces: [LazyFace]
    private let primary: ShapedFace, primaryBold: ShapedFace
    private let cache = WidthCache()
    /// Shape each space and each stretch between spaces apart, as Chromium's word
    /// shaper does for a font whose GSUB and GPOS do not involve the space: kerning in
    /// an old-style `kern` table (Liberation's: "V A", "T o" across a space) is then
    /// not applied across spaces. Set for the `--fonts` families (measured against
    /// Chromium by the width test); DejaVu's pairs never involve the space.
    public var shapesWordByWord = false

    /// Faces in order of preference, the primary first (made already: it is always
    /// needed). `bold` may be empty (the regular faces are used).
    public init(regular: [LazyFace], bold: [LazyFace]) {
        precondition(!regular.isEmpty, "a font stack needs a primary face")
        guard let first = regular[0].face else { preconditionFailure("the primary face must be made") }
        regularFaces = regular
        boldFaces = bold.isEmpty ? regular : bold
        primary = first
        primaryBold = boldFaces[0].face ?? first
    }

    /// Faces already made, in order of preference, the primary first.
    public init(regular: [ShapedFace], bold: [ShapedFace]) {
        self.init(regular: regular.map(LazyFace.init), bold: bold.map(LazyFace.init))
    }

    /// How many distinct faces have been made so far, the primary ones included (a
    /// Latin-only chart leaves every fallback unmade).
    public var loadedFaceCount: Int {
        Set((regularFaces + boldFaces).filter(\.isLoaded).map(ObjectIdentifier.init)).count
    }

    public func emWidth(of text: String, bold: Bool) -> Double {
        guard !text.isEmpty else { return 0 }
        if let known = cache.width(text, bold: bold) { return known }
        if shapesWordByWord, text != " ", text.unicodeScalars.contains(" ") {
            var whole = self
            whole.shapesWordByWord = false
            let words = text.split(separator: " ", omittingEmptySubsequences: true)
            let spaces = text.unicodeScalars.filter { $0 == " " }.count
            let units = words.reduce(0.0) { $0 + whole.emWidth(of: String($1), bold: bold) }
                + Double(spaces) * whole.emWidth(of: " ", bold: bold)
            cache.store(units, for: text, bold: bold)
            return units
        }
        let faces = bold ? boldFaces : regularFaces
        let scalars = text.unicodeScalars.map(\.value)
        var units = 0.0
        for run in runs(of: text, bold: bold) {
            // A run's face covered its characters, so it is made; a face that failed to
            // load covers nothing and is never a run's.
            let face = faces[run.face].face ?? (bold ? primaryBold : primary)
            units += Double(face.advance(of: scalars, range: run.range, script: run.script)) / face.unitsPerEm
        }
        cache.store(units, for: text, bold: bold)
        return units
    }

    /// The face a run of `runs(of:bold:)` is shaped in (the primary when its own could
    /// not be made): what the image export draws the run's glyphs with.
    public func face(of run: Run, bold: Bool) -> ShapedFace {
        let faces = bold ? boldFaces : regularFaces
        return faces[run.face].face ?? (bold ? primaryBold : primary)
    }

    /// How `text` is split for shaping (exposed for tests and for explaining a width).
    public func runs(of text: String, bold: Bool) -> [Run] {
        let faces = bold ? boldFaces : regularFaces
        var faceOf: [Int] = [], scriptOf: [UInt32] = []
        for cluster in text {
            let scalars = cluster.unicodeScalars
            let needed = scalars.filter { !$0.properties.isDefaultIgnorableCodePoint }
            let face = faces.indices.first { i in needed.allSatisfy { faces[i].covers($0.value) } }
                ?? faces.indices.first { i in needed.first.map { faces[i].covers($0.value) } ?? false } ?? 0
            for s in scalars {
                faceOf.append(face)
                scriptOf.append(Script.of(s.value))
            }
        }
        // Common and Inherited take the script before them; leading ones the first
        // real script of the string (or stay Common: HarfBuzz then guesses).
        var current = scriptOf.first { $0 != Script.common && $0 != Script.inherited && $0 != Script.unknown } ?? 0
        for i in scriptOf.indices {
            let s = scriptOf[i]
            if s == Script.common || s == Script.inherited || s == Script.unknown {
                scriptOf[i] = current
            } else {
                current = s
            }
        }
        var runs: [Run] = []
        var start = 0
        for i in 1...faceOf.count where i == faceOf.count || faceOf[i] != faceOf[start] || scriptOf[i] != scriptOf[start] {
            runs.append(Run(range: start..<i, face: faceOf[start], script: scriptOf[start]))
            start = i
        }
        return runs
    }
}

/// Widths already shaped: axis labels and legend entries repeat frame after frame.
/// Bounded: when full it starts afresh (a label set rarely outgrows it).
final class WidthCache: Sendable {
    private struct Key: Hashable { var text: String; var bold: Bool }
    private static let limit = 16_384
    private let table = Mutex<[Key: Double]>([:])

    func width(_ text: String, bold: Bool) -> Double? {
        table.withLock { $0[Key(text: text, bold: bold)] }
    }

    func store(_ width: Double, for text: String, bold: Bool) {
        table.withLock {
            if $0.count >= Self.limit { $0.removeAll(keepingCapacity: true) }
            $0[Key(text: text, bold: bold)] = width
        }
    }
}
