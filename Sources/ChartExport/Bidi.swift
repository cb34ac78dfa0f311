import FontStack

/// The visual order of a label's runs as the canvas shows it: Unicode's bidirectional
/// algorithm for a left-to-right paragraph (a canvas' `direction` is `ltr` on the
/// page), reduced to what chart labels hold. Letters of right-to-left scripts (Arabic,
/// Hebrew, ...) are R, other letters L; digits (European and Arabic-Indic, with a `.`
/// or `,` between two digits) are numbers; everything else is neutral, and a combining
/// mark goes with the character before it.
/// - a number after an R (neutrals between) is laid left to right inside it (level 2);
///   after an L or at the start it is L (level 0);
/// - a neutral between two R sides (a number counting as R) is R (level 1), else L;
/// - then each run of level 2, and each of level 1 or more, is reversed (rule L2).
/// FallbackShaper measures the same characters in the same runs, so widths agree; only
/// where the pieces stand differs from logical order.
enum Bidi {
    static let rtlScripts: Set<UInt32> = Set(["Arab", "Hebr", "Syrc", "Thaa", "Nkoo", "Adlm", "Rohg", "Mand", "Samr", "Mend"].map(Script.tag))

    enum Kind { case l, r, number, neutral }

    static func isDigit(_ s: UInt32) -> Bool { (0x30...0x39).contains(s) || (0x660...0x669).contains(s) || (0x6F0...0x6F9).contains(s) }

    /// The embedding level (0, 1 or 2) of each scalar.
    static func levels(_ scalars: [UInt32]) -> [UInt8] {
        var kinds: [Kind] = []
        kinds.reserveCapacity(scalars.count)
        for s in scalars {
            let script = Script.of(s)
            if isDigit(s) { kinds.append(.number) }
            else if script == Script.inherited { kinds.append(kinds.last ?? .neutral) }
            else if script == Script.common || script == Script.unknown { kinds.append(.neutral) }
            else { kinds.append(rtlScripts.contains(script) ? .r : .l) }
        }
        // A separator between two digits is part of the number.
        for i in kinds.indices where kinds[i] == .neutral && i > 0 && i + 1 < kinds.count
            && (scalars[i] == 0x2E || scalars[i] == 0x2C) && kinds[i - 1] == .number && kinds[i + 1] == .number {
            kinds[i] = .number
        }
        // Numbers take the direction of the strong letter before them.
        var levels = [UInt8](repeating: 0, count: scalars.count)
        var lastStrong = Kind.l
        for i in kinds.indices {
            switch kinds[i] {
            case .l: levels[i] = 0; lastStrong = .l
            case .r: levels[i] = 1; lastStrong = .r
            case .number: levels[i] = lastStrong == .r ? 2 : 0
            case .neutral: break
            }
        }
        // Neutrals between two right-to-left sides are R; others L.
        var i = 0
        while i < kinds.count {
            guard kinds[i] == .neutral else { i += 1; continue }
            var j = i
            while j < kinds.count && kinds[j] == .neutral { j += 1 }
            let before: Bool = i > 0 && (kinds[i - 1] == .r || (kinds[i - 1] == .number && levels[i - 1] == 2))
            let after: Bool = j < kinds.count && (kinds[j] == .r || (kinds[j] == .number && before))
            for k in i..<j { levels[k] = before && after ? 1 : 0 }
            i = j
        }
        return levels
    }

    /// Pieces (in logical order, each with its level) put in visual order: reversed
    /// runs of level 2 or more, then of level 1 or more.
    static func visualOrder<T>(_ pieces: [(level: UInt8, item: T)]) -> [T] {
        var p = pieces
        for floor in [UInt8(2), 1] {
            var i = 0
            while i < p.count {
                guard p[i].level >= floor else { i += 1; continue }
                var j = i
                while j < p.count && p[j].level >= floor { j += 1 }
                p[i..<j].reverse()
                i = j
            }
        }
        return p.map(\.item)
    }
}
