import CShaping
import Synchronization

/// One face of a font file, ready to shape with HarfBuzz (through the C target
/// `CShaping`, which keeps every HarfBuzz type on its side).
///
/// Immutable once made: HarfBuzz fonts are safe to shape with from several threads
/// when nobody changes them, which is why this class is `@unchecked Sendable`.
public final class ShapedFace: @unchecked Sendable {
    private let face: OpaquePointer
    /// Design units per em: what `advance` returns is in these.
    public let unitsPerEm: Double
    /// The font file the face was made from and its index in it (nil for a face made
    /// from bytes): what the image export hands FreeType, so glyph ids agree.
    public let path: String?
    public let index: Int

    /// The face at `index` of a font file or collection; nil when the bytes hold none.
    public init?(bytes: [UInt8], index: Int = 0) {
        guard index >= 0, let face = cw_face_create(bytes, bytes.count, UInt32(index)) else { return nil }
        self.face = face
        unitsPerEm = Double(cw_face_units_per_em(face))
        path = nil
        self.index = index
    }

    /// The face at `index` of the font file at `path`, mapped rather than read (HarfBuzz
    /// maps the file read-only: only the pages shaping touches become resident, and
    /// they are the page cache's). nil when the file cannot be opened or holds no face.
    public init?(path: String, index: Int = 0) {
        guard index >= 0, let face = cw_face_create_from_file(path, UInt32(index)) else { return nil }
        self.face = face
        unitsPerEm = Double(cw_face_units_per_em(face))
        self.path = path
        self.index = index
    }

    /// The size of the font file at `path` when it holds a usable face `index`, else nil.
    /// Reads only the file's header and two small tables (through a mapping it drops).
    public static func probe(path: String, index: Int = 0) -> Int? {
        guard index >= 0 else { return nil }
        let size = cw_font_file_probe(path, UInt32(index))
        return size < 0 ? nil : Int(size)
    }

    deinit { cw_face_destroy(face) }

    /// Whether the face has a glyph of its own (not .notdef) for `scalar`.
    public func covers(_ scalar: UInt32) -> Bool { cw_face_has_glyph(face, scalar) != 0 }

    /// The summed advance, in font units, of `text[range]` shaped as one run of
    /// `script`, the rest of `text` serving as context.
    public func advance(of text: [UInt32], range: Range<Int>, script: UInt32) -> Int {
        Int(cw_shape_advance(face, text, text.count, range.lowerBound, range.count, script))
    }

    /// A run's glyphs as `advance(of:range:script:)` shapes it: ids, and pen positions
    /// in font units from the run's start (y up), with the run's summed advance.
    public struct Glyphs: Sendable {
        public var ids: [UInt32] = []
        public var x: [Int32] = []
        public var y: [Int32] = []
        public var advance = 0
    }

    public func glyphs(of text: [UInt32], range: Range<Int>, script: UInt32) -> Glyphs {
        var out = Glyphs()
        var capacity = range.count + 8
        while true {
            var ids = [UInt32](repeating: 0, count: capacity), xs = [Int32](repeating: 0, count: capacity)
            var ys = [Int32](repeating: 0, count: capacity)
            var advance: Int64 = 0
            let n = cw_shape_glyphs(face, text, text.count, range.lowerBound, range.count, script, &ids, &xs, &ys, capacity, &advance)
            if n > capacity { capacity = n; continue }
            out.ids = Array(ids[..<n]); out.x = Array(xs[..<n]); out.y = Array(ys[..<n]); out.advance = Int(advance)
            return out
        }
    }
}

/// A face made when first needed: a fallback font (Noto CJK, Devanagari, ...) is mapped
/// and given to HarfBuzz only when a string has a character no face before it covers,
/// so a chart whose text is all Latin never loads the CJK collections.
///
/// Safe to use from several threads (layout runs on the render threads): the first
/// caller loads under a lock while the others wait; after that the face is immutable.
public final class LazyFace: Sendable {
    private enum State { case waiting, loaded(ShapedFace?) }
    /// Where the face comes from (nil for a face handed in already made).
    public let path: String?
    public let index: Int
    private let ready: ShapedFace?
    private let state: Mutex<State>

    /// A face already made (the primary face: always needed).
    public init(_ face: ShapedFace) {
        path = nil; index = 0; ready = face; state = Mutex(.loaded(face))
    }

    /// A face of the file at `path`, made on first use.
    public init(path: String, index: Int = 0) {
        self.path = path; self.index = index; ready = nil; state = Mutex(.waiting)
    }

    /// The face, made now if not yet; nil when the file could not be read when first
    /// needed (then it covers nothing: the faces after it, or the primary, draw).
    public var face: ShapedFace? {
        if let ready { return ready }
        return state.withLock { state in
            switch state {
            case .loaded(let face): return face
            case .waiting:
                let face = path.flatMap { ShapedFace(path: $0, index: index) }
                state = .loaded(face)
                return face
            }
        }
    }

    /// Whether the face has been made (or tried): what the memory test looks at.
    public var isLoaded: Bool {
        if ready != nil { return true }
        return state.withLock { if case .loaded = $0 { true } else { false } }
    }

    /// Whether the face has a glyph of its own for `scalar` (loading it if need be).
    public func covers(_ scalar: UInt32) -> Bool { face?.covers(scalar) ?? false }
}

/// Unicode scripts, as HarfBuzz tags them.
public enum Script {
    public static let common: UInt32 = tag("Zyyy")
    public static let inherited: UInt32 = tag("Zinh")
    public static let unknown: UInt32 = tag("Zzzz")

    public static func of(_ scalar: UInt32) -> UInt32 { cw_script(scalar) }

    /// "Latn" -> the four bytes as one number, as HarfBuzz and OpenType tag scripts.
    public static func tag(_ s: String) -> UInt32 {
        precondition(s.utf8.count == 4, "a script tag has four letters")
        return s.utf8.reduce(0) { $0 << 8 | UInt32($1) }
    }
}
