import CShaping

/// One face of a font file, ready to shape with HarfBuzz (through the C target
/// `CShaping`, which keeps every HarfBuzz type on its side).
///
/// Immutable once made: HarfBuzz fonts are safe to shape with from several threads
/// when nobody changes them, which is why this class is `@unchecked Sendable`.
public final class ShapedFace: @unchecked Sendable {
    private let face: OpaquePointer
    /// Design units per em: what `advance` returns is in these.
    public let unitsPerEm: Double

    /// The face at `index` of a font file or collection; nil when the bytes hold none.
    public init?(bytes: [UInt8], index: Int = 0) {
        guard index >= 0, let face = cw_face_create(bytes, bytes.count, UInt32(index)) else { return nil }
        self.face = face
        unitsPerEm = Double(cw_face_units_per_em(face))
    }

    deinit { cw_face_destroy(face) }

    /// Whether the face has a glyph of its own (not .notdef) for `scalar`.
    public func covers(_ scalar: UInt32) -> Bool { cw_face_has_glyph(face, scalar) != 0 }

    /// The summed advance, in font units, of `text[range]` shaped as one run of
    /// `script`, the rest of `text` serving as context.
    public func advance(of text: [UInt32], range: Range<Int>, script: UInt32) -> Int {
        Int(cw_shape_advance(face, text, text.count, range.lowerBound, range.count, script))
    }
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
