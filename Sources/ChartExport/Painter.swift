import CCairo
import CExport
import ChartSession
import FontStack
import Foundation
import LayoutEngine

/// One layer's commands on a Cairo context, line for line what `draw()` in
/// web/client.js does on a canvas (comments name the canvas calls mirrored).
struct Painter {
    let cr: OpaquePointer
    let dpr: Double
    /// An image surface: markers are stamped from a sprite as the page stamps them;
    /// on SVG and PDF each marker is its own path at the same place.
    let raster: Bool
    let fonts: GlyphFonts
    let images: @Sendable (String) -> [UInt8]?

    /// The canvas' globalAlpha (saved and restored with the clip, as ctx.save does).
    var alpha = 1.0
    var lineWidth = 1.0
    var colors: [String: RGBA] = [:]
    var sprites: [String: OpaquePointer] = [:]

    init(cr: OpaquePointer, dpr: Double, raster: Bool, fonts: GlyphFonts, images: @escaping @Sendable (String) -> [UInt8]?) {
        self.cr = cr; self.dpr = dpr; self.raster = raster; self.fonts = fonts; self.images = images
    }

    mutating func color(_ css: String) -> RGBA? {
        if let c = colors[css] { return c }
        let c = CSSColor.parse(css)
        if let c { colors[css] = c }
        return c
    }

    /// Sets the source to a colour at the current globalAlpha; false when the colour is not one.
    mutating func source(_ css: String) -> Bool {
        guard let c = color(css) else { return false }
        cairo_set_source_rgba(cr, c.r, c.g, c.b, c.a * alpha)
        return true
    }

    /// A linear gradient from `from` at (x0, y0) to `to` at (x1, y1) as the source.
    mutating func gradientSource(_ from: String, _ to: String, _ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) -> OpaquePointer? {
        guard let a = color(from), let b = color(to), let p = cairo_pattern_create_linear(x0, y0, x1, y1) else { return nil }
        cairo_pattern_add_color_stop_rgba(p, 0, a.r, a.g, a.b, a.a * alpha)
        cairo_pattern_add_color_stop_rgba(p, 1, b.r, b.g, b.b, b.a * alpha)
        cairo_set_source(cr, p)
        return p
    }

    /// `stroke(ctx, cmd)`: strokeStyle, lineWidth (a width the canvas refuses, zero or
    /// less, keeps the one before) and the dash (refused when a length is negative or
    /// not finite; all zeros draws solid).
    mutating func strokeStyle(_ stroke: String, width: Float, dash: [Float]) -> Bool {
        if width.isFinite, width > 0 { lineWidth = Double(width) }
        cairo_set_line_width(cr, lineWidth)
        let d = dash.map(Double.init)
        if d.isEmpty || d.contains(where: { !$0.isFinite || $0 < 0 }) || d.allSatisfy({ $0 == 0 }) {
            cairo_set_dash(cr, nil, 0, 0)
        } else {
            cairo_set_dash(cr, d, Int32(d.count), 0)
        }
        return source(stroke)
    }

    func moveTo(_ x: Float, _ y: Float) { if x.isFinite && y.isFinite { cairo_move_to(cr, Double(x), Double(y)) } }
    func lineTo(_ x: Float, _ y: Float) {
        guard x.isFinite && y.isFinite else { return }
        // A lineTo with no current point is a moveTo, as on a canvas.
        if cairo_has_current_point(cr) != 0 { cairo_line_to(cr, Double(x), Double(y)) } else { cairo_move_to(cr, Double(x), Double(y)) }
    }

    mutating func layer(_ commands: [DrawCommand]) {
        cairo_save(cr)
        cairo_identity_matrix(cr)
        cairo_scale(cr, dpr, dpr)
        cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND)
        cairo_set_line_cap(cr, CAIRO_LINE_CAP_BUTT)
        cairo_set_fill_rule(cr, CAIRO_FILL_RULE_WINDING)
        alpha = 1
        lineWidth = 1
        var clipped = false, alphaBeforeClip = 1.0
        for cmd in commands {
            switch cmd {
            case let .polyline(points, stroke, width, dash):
                guard points.count >= 4, strokeStyle(stroke, width: width, dash: dash) else { break }
                cairo_new_path(cr)
                moveTo(points[0], points[1])
                var i = 2
                while i + 1 < points.count { lineTo(points[i], points[i + 1]); i += 2 }
                cairo_stroke(cr)
            case let .segments(coords, stroke, width, dash):
                guard strokeStyle(stroke, width: width, dash: dash) else { break }
                cairo_new_path(cr)
                var i = 0
                while i + 3 < coords.count {
                    moveTo(coords[i], coords[i + 1]); lineTo(coords[i + 2], coords[i + 3]); i += 4
                }
                cairo_stroke(cr)
            case let .columns(line):
                guard strokeStyle(line.stroke, width: line.width, dash: line.dash) else { break }
                columns(line)
            case let .markers(m): markers(m)
            case let .bars(b): bars(b)
            case let .wedges(w): wedges(w)
            case let .band(b): band(b)
            case let .polygon(points, fill, gradient):
                guard points.count >= 6 else { break }
                var pattern: OpaquePointer?
                if let g = gradient {
                    pattern = gradientSource(fill, g.color, Double(g.x0), Double(g.y0), Double(g.x1), Double(g.y1))
                    if pattern == nil { break }
                } else if !source(fill) { break }
                cairo_new_path(cr)
                moveTo(points[0], points[1])
                var k = 2
                while k + 1 < points.count { lineTo(points[k], points[k + 1]); k += 2 }
                cairo_close_path(cr)
                cairo_fill(cr)
                if let pattern { cairo_pattern_destroy(pattern) }
            case let .rect(x, y, w, h, fill, stroke, lw):
                // fillRect and strokeRect ignore a rectangle with a non-finite number.
                guard x.isFinite, y.isFinite, w.isFinite, h.isFinite else { break }
                if let fill, source(fill) {
                    cairo_new_path(cr)
                    cairo_rectangle(cr, Double(x), Double(y), Double(w), Double(h))
                    cairo_fill(cr)
                }
                if let stroke, source(stroke) {
                    if lw.isFinite, lw > 0 { lineWidth = Double(lw) }
                    cairo_set_line_width(cr, lineWidth)
                    cairo_set_dash(cr, nil, 0, 0)
                    // strokeRect(x + 0.5/dpr, y + 0.5/dpr, w - 1/dpr, h - 1/dpr)
                    cairo_new_path(cr)
                    cairo_rectangle(cr, Double(x) + 0.5 / dpr, Double(y) + 0.5 / dpr, Double(w) - 1 / dpr, Double(h) - 1 / dpr)
                    cairo_stroke(cr)
                }
            case let .text(x, y, text, font, fill, align, baseline, angle):
                self.text(x: Double(x), y: Double(y), text: text, font: font, fill: fill, align: align, baseline: baseline,
                          angle: Double(angle))
            case let .clip(x, y, w, h):
                if clipped { cairo_restore(cr); alpha = alphaBeforeClip }
                cairo_save(cr)
                alphaBeforeClip = alpha
                cairo_new_path(cr)
                // rect() ignores non-finite numbers: the clip is then to an empty path.
                if x.isFinite, y.isFinite, w.isFinite, h.isFinite {
                    cairo_rectangle(cr, Double(x), Double(y), Double(w), Double(h))
                }
                cairo_clip(cr)
                clipped = true
            case .unclip:
                if clipped { cairo_restore(cr); alpha = alphaBeforeClip; clipped = false }
            case let .opacity(a):
                // globalAlpha refuses values outside 0...1 and non-numbers.
                if a.isFinite, a >= 0, a <= 1 { alpha = Double(a) }
            case let .image(x, y, w, h, src):
                image(x: Double(x), y: Double(y), w: Double(w), h: Double(h), src: src)
            }
        }
        if clipped { cairo_restore(cr) }
        cairo_restore(cr)
        for (_, s) in sprites { cairo_surface_destroy(s) }
        sprites = [:]
    }

    // MARK: columns and bands

    /// `columnStretches(c)`: each stretch a flat x0,y0,x1,y1,... path.
    static func stretches(_ c: ColumnLine) -> [[Float]] {
        let e = c.entries
        var out: [[Float]] = [], cur: [Float] = []
        func Y(_ q: UInt16) -> Float { c.y0 + Float(q) * c.dy }
        var penY: Float = 0
        for i in e.indices {
            let x = c.x0 + Float(e[i].column) * c.dx
            if i > 0 && e[i].joined {
                let p = e[i - 1]
                if c.step { cur += [x, Y(p.last), x, Y(e[i].first)] }
                else if e[i].column > p.column + 1 {
                    penY = Y(e[i].first)
                    cur += [c.x0 + Float(p.column) * c.dx, Y(p.last), x, penY]
                }
            } else {
                if !cur.isEmpty { out.append(cur) }
                penY = Y(e[i].first)
                cur = [x, penY]
            }
            let lo = Y(e[i].lo), hi = Y(e[i].hi)
            if c.step { cur += [x, lo, x, hi, x, Y(e[i].last)] }
            else if abs(penY - lo) <= abs(penY - hi) { cur += [x, lo, x, hi]; penY = hi }
            else { cur += [x, hi, x, lo]; penY = lo }
        }
        if !cur.isEmpty { out.append(cur) }
        return out
    }

    /// `drawColumns`: the area under each stretch, then the line.
    mutating func columns(_ c: ColumnLine) {
        let stretches = Self.stretches(c)
        let strokeSource = cairo_get_source(cr).map { cairo_pattern_reference($0) }
        defer { if let strokeSource { cairo_pattern_destroy(strokeSource) } }
        if let area = c.area {
            let base = c.y0 + Float(area.base) * c.dy
            var pattern: OpaquePointer?
            var ok = true
            if let g = area.gradient {
                pattern = gradientSource(area.fill, g, 0, Double(c.y0 + Float(area.top) * c.dy), 0, Double(base))
                ok = pattern != nil
            } else {
                ok = source(area.fill)
            }
            if ok {
                cairo_new_path(cr)
                closedDown(stretches, to: base)
                cairo_fill(cr)
            }
            if let pattern { cairo_pattern_destroy(pattern) }
            if let strokeSource { cairo_set_source(cr, strokeSource) }
        }
        cairo_new_path(cr)
        for s in stretches {
            moveTo(s[0], s[1])
            var k = 2
            while k + 1 < s.count { lineTo(s[k], s[k + 1]); k += 2 }
        }
        cairo_stroke(cr)
    }

    /// Adds each stretch to the path as a closed region: down (or up) from its first point
    /// to `edge`, along the stretch, and back to `edge` under its last point (an area's
    /// fill to its baseline, a band's halves to the plot's top or bottom).
    private mutating func closedDown(_ stretches: [[Float]], to edge: Float) {
        for s in stretches {
            moveTo(s[0], edge)
            var k = 0
            while k + 1 < s.count { lineTo(s[k], s[k + 1]); k += 2 }
            lineTo(s[s.count - 2], edge)
            cairo_close_path(cr)
        }
    }

    /// `drawBand`: under line a, clipped to above line b, in fill; under b, clipped to above a, in fillY1.
    mutating func band(_ c: BandFill) {
        let A = Self.stretches(c.a), B = Self.stretches(c.b)
        for (under, above, fill) in [(A, B, c.fill), (B, A, c.fillY1)] {
            cairo_save(cr)
            cairo_new_path(cr); closedDown(above, to: c.top); cairo_clip(cr)
            cairo_new_path(cr); closedDown(under, to: c.bottom)
            if source(fill) { cairo_fill(cr) }
            cairo_new_path(cr)
            cairo_restore(cr)
        }
    }

    // MARK: markers, bars, wedges

    /// Fills and strokes one marker at (cx, cy) (device pixels, identity matrix), in
    /// the sprite's own context state (default miter joins and butt caps, like a new canvas).
    mutating func markerInk(_ m: MarkerSet, on ctx: OpaquePointer, _ cx: Double, _ cy: Double, alpha: Double) {
        let lw = m.stroke != nil ? Double(m.lineWidth == 0 ? 1 : m.lineWidth) * dpr : 0, r = Double(m.size) / 2 * dpr
        func path() {
            cairo_new_path(ctx)
            switch m.shape {
            case .circle: cairo_arc(ctx, cx, cy, r, 0, 2 * Double.pi)
            case .square: cairo_rectangle(ctx, cx - r, cy - r, 2 * r, 2 * r)
            case .triangle:
                cairo_move_to(ctx, cx, cy - r); cairo_line_to(ctx, cx + r, cy + r); cairo_line_to(ctx, cx - r, cy + r); cairo_close_path(ctx)
            case .diamond:
                cairo_move_to(ctx, cx, cy - r); cairo_line_to(ctx, cx + r, cy); cairo_line_to(ctx, cx, cy + r); cairo_line_to(ctx, cx - r, cy)
                cairo_close_path(ctx)
            case .cross:
                cairo_move_to(ctx, cx - r, cy); cairo_line_to(ctx, cx + r, cy); cairo_move_to(ctx, cx, cy - r); cairo_line_to(ctx, cx, cy + r)
            }
        }
        path()
        if let fill = m.fill, m.shape != .cross, let c = color(fill) {
            cairo_set_source_rgba(ctx, c.r, c.g, c.b, c.a * alpha)
            cairo_fill_preserve(ctx)
        }
        if let stroke = m.stroke, let c = color(stroke) {
            cairo_set_source_rgba(ctx, c.r, c.g, c.b, c.a * alpha)
            cairo_set_line_width(ctx, lw)
            cairo_set_line_join(ctx, CAIRO_LINE_JOIN_MITER)
            cairo_set_line_cap(ctx, CAIRO_LINE_CAP_BUTT)
            cairo_set_dash(ctx, nil, 0, 0)
            cairo_stroke_preserve(ctx)
        }
        cairo_new_path(ctx)
    }

    /// `drawMarkers`: the sprite (odd side, drawn at device resolution) stamped at every cell.
    mutating func markers(_ m: MarkerSet) {
        let lw = m.stroke != nil ? Double(m.lineWidth == 0 ? 1 : m.lineWidth) * dpr : 0, r = Double(m.size) / 2 * dpr
        let side = 2 * Int((r + lw / 2).rounded(.up)) + 1, half = Double(side) / 2
        guard side > 0, side < 4096 else { return }
        let X0 = Double(m.x0) * dpr - half, Y0 = Double(m.y0) * dpr - half, step = Double(m.unit) * dpr
        cairo_save(cr)
        cairo_identity_matrix(cr)
        if raster {
            let key = "\(m.shape)|\(m.size)|\(m.fill ?? "")|\(m.stroke ?? "")|\(m.lineWidth)"
            var sprite = sprites[key]
            if sprite == nil, let s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(side), Int32(side)), let ctx = cairo_create(s) {
                markerInk(m, on: ctx, half, half, alpha: 1)
                cairo_destroy(ctx)
                sprites[key] = s
                sprite = s
            }
            if let sprite {
                for cell in m.cells {
                    let x = X0 + Double(cell.x) * step, y = Y0 + Double(cell.y) * step
                    cairo_set_source_surface(cr, sprite, x, y)
                    cairo_rectangle(cr, x, y, Double(side), Double(side))
                    if alpha < 1 {
                        // (Within the layer's clip: saved and restored, not reset.)
                        cairo_save(cr); cairo_clip(cr); cairo_paint_with_alpha(cr, alpha); cairo_restore(cr)
                    } else {
                        cairo_fill(cr)
                    }
                }
            }
        } else {
            for cell in m.cells {
                markerInk(m, on: cr, X0 + Double(cell.x) * step + half, Y0 + Double(cell.y) * step + half, alpha: alpha)
            }
        }
        cairo_restore(cr)
    }

    /// `drawBars`: rectangles on whole device pixels, outlined inside when wide enough.
    mutating func bars(_ b: BarSet) {
        let X0 = (Double(b.x0) * dpr).rounded(), Y0 = (Double(b.y0) * dpr).rounded(), step = Double(b.unit) * dpr
        cairo_save(cr)
        cairo_identity_matrix(cr)
        if source(b.fill) {
            cairo_new_path(cr)
            for r in b.bars {
                cairo_rectangle(cr, X0 + Double(r.left) * step, Y0 + Double(r.top) * step, Double(r.width) * step, Double(r.height) * step)
                cairo_fill(cr)
            }
        }
        if let stroke = b.stroke, source(stroke) {
            let lw = Double(b.lineWidth == 0 ? 1 : b.lineWidth) * dpr
            cairo_set_line_width(cr, lw)
            cairo_set_dash(cr, nil, 0, 0)
            for r in b.bars {
                let w = Double(r.width) * step, h = Double(r.height) * step
                if w <= lw || h <= lw { continue }
                cairo_new_path(cr)
                cairo_rectangle(cr, X0 + Double(r.left) * step + lw / 2, Y0 + Double(r.top) * step + lw / 2, w - lw, h - lw)
                cairo_stroke(cr)
            }
        }
        cairo_restore(cr)
    }

    /// `drawWedges`: angles clockwise from 12 o'clock, offset slices pushed out along their middle.
    mutating func wedges(_ c: WedgeSet) {
        for w in c.wedges {
            let mid = Double(w.a0 + w.a1) / 2
            let cx = Double(c.cx) + Double(w.offset) * sin(mid), cy = Double(c.cy) - Double(w.offset) * cos(mid)
            let a0 = Double(w.a0) - Double.pi / 2, a1 = Double(w.a1) - Double.pi / 2
            cairo_new_path(cr)
            arc(cx, cy, Double(c.r1), a0, a1, anticlockwise: false)
            if c.r0 > 0 { arc(cx, cy, Double(c.r0), a1, a0, anticlockwise: true) } else { cairo_line_to(cr, cx, cy) }
            cairo_close_path(cr)
            if source(w.fill) { cairo_fill_preserve(cr) }
            if let stroke = c.stroke, source(stroke) {
                if c.lineWidth.isFinite, c.lineWidth > 0 { lineWidth = Double(c.lineWidth) }
                cairo_set_line_width(cr, lineWidth)
                cairo_set_dash(cr, nil, 0, 0)
                cairo_stroke_preserve(cr)
            }
            cairo_new_path(cr)
        }
    }

    /// The canvas' arc(): a sweep of 2π or more is a whole circle; otherwise the angle
    /// between start and end taken the way asked.
    func arc(_ cx: Double, _ cy: Double, _ r: Double, _ a0: Double, _ a1: Double, anticlockwise: Bool) {
        guard r >= 0, a0.isFinite, a1.isFinite else { return }
        let full = 2 * Double.pi
        if !anticlockwise {
            if a1 - a0 >= full { cairo_arc(cr, cx, cy, r, a0, a0 + full) }
            else { cairo_arc(cr, cx, cy, r, a0, a0 + (a1 - a0).truncatingRemainder(dividingBy: full).positiveAngle) }
        } else {
            if a0 - a1 >= full { cairo_arc_negative(cr, cx, cy, r, a0, a0 - full) }
            else { cairo_arc_negative(cr, cx, cy, r, a0, a0 - (a0 - a1).truncatingRemainder(dividingBy: full).positiveAngle) }
        }
    }

    // MARK: text and images

    /// fillText with textAlign and textBaseline, rotated about the anchor: runs as
    /// FallbackShaper splits the string, each in its face, placed left to right.
    mutating func text(x: Double, y: Double, text: String, font: String, fill: String, align: DrawCommand.TextAlign,
                       baseline: DrawCommand.TextBaseline, angle: Double) {
        // fillText ignores a non-finite anchor.
        guard !text.isEmpty, x.isFinite, y.isFinite, let c = color(fill) else { return }
        let f = CSSFont.parse(font) ?? CSSFont(size: 10, bold: false)
        let size = f.size
        let (shaper, typo) = fonts.face(for: f)
        let byWord = shaper.shapesWordByWord
        let scalars = text.unicodeScalars.map(\.value)
        struct Piece { var face: ShapedFace; var glyphs: ShapedFace.Glyphs }
        // Runs as FallbackShaper shapes them, cut where the bidi level changes, then in
        // visual order (Bidi): a right-to-left piece's glyphs come from HarfBuzz in
        // visual order already.
        let levels = Bidi.levels(scalars)
        var pieces: [(level: UInt8, item: Piece)] = []
        for run in shaper.runs(of: text, bold: f.bold) {
            let face = shaper.face(of: run, bold: f.bold)
            var start = run.range.lowerBound
            while start < run.range.upperBound {
                var end = start + 1
                // (A family shaped word by word, as Chromium does: each space a piece of its own.)
                while end < run.range.upperBound && levels[end] == levels[start]
                        && !(byWord && (scalars[end] == 32 || scalars[end - 1] == 32)) { end += 1 }
                let level = levels[start]
                // A left-to-right piece (digits) of a right-to-left run: HarfBuzz guesses
                // its script, hence left to right.
                let script = level % 2 == 0 && Bidi.rtlScripts.contains(run.script) ? 0 : run.script
                pieces.append((level, Piece(face: face, glyphs: face.glyphs(of: scalars, range: start..<end, script: script))))
                start = end
            }
        }
        struct Placed { var face: OpaquePointer; var glyphs: [cairo_glyph_t] }
        var placed: [Placed] = []
        var pen = 0.0
        for piece in Bidi.visualOrder(pieces) {
            let g = piece.glyphs, scale = size / piece.face.unitsPerEm
            if let cf = fonts.cairoFace(for: piece.face) {
                var glyphs: [cairo_glyph_t] = []
                glyphs.reserveCapacity(g.ids.count)
                for i in g.ids.indices {
                    glyphs.append(cairo_glyph_t(index: UInt(g.ids[i]), x: pen + Double(g.x[i]) * scale, y: -Double(g.y[i]) * scale))
                }
                placed.append(Placed(face: cf, glyphs: glyphs))
            }
            pen += Double(g.advance) * scale
        }
        let dy: Double
        switch baseline {
        case .alphabetic: dy = 0
        case .top: dy = typo.ascent * size
        case .middle: dy = (typo.ascent - typo.descent) / 2 * size
        case .bottom: dy = -typo.descent * size
        }
        let dx: Double
        switch align {
        case .left: dx = 0
        case .center: dx = -pen / 2
        case .right: dx = -pen
        }
        cairo_save(cr)
        cairo_translate(cr, x, y)
        if angle != 0, angle.isFinite { cairo_rotate(cr, angle * Double.pi / 180) }
        cairo_translate(cr, dx, dy)
        cairo_set_source_rgba(cr, c.r, c.g, c.b, c.a * alpha)
        if let options = cairo_font_options_create() {
            cairo_font_options_set_antialias(options, CAIRO_ANTIALIAS_GRAY)
            cairo_font_options_set_hint_style(options, CAIRO_HINT_STYLE_SLIGHT)
            cairo_font_options_set_hint_metrics(options, CAIRO_HINT_METRICS_OFF)
            cairo_set_font_options(cr, options)
            cairo_font_options_destroy(options)
        }
        cairo_set_font_size(cr, size)
        for p in placed where !p.glyphs.isEmpty {
            cairo_set_font_face(cr, p.face)
            p.glyphs.withUnsafeBufferPointer { cairo_show_glyphs(cr, $0.baseAddress, Int32($0.count)) }
        }
        cairo_restore(cr)
    }

    /// drawImage(img, x, y, w, h) for an image the server holds: a PNG through Cairo, a
    /// JPEG (libjpeg-turbo) or a GIF's first frame (giflib) through CExport's decoders.
    /// Bytes that do not decode draw nothing, as a broken image draws nothing on the page.
    mutating func image(x: Double, y: Double, w: Double, h: Double, src: String) {
        guard w > 0, h > 0, let bytes = images(src), let surface = Self.decode(bytes) else { return }
        defer { cairo_surface_destroy(surface) }
        drawImage(surface, x: x, y: y, w: w, h: h)
    }

    /// Decodes PNG, JPEG or GIF bytes (by their signature, as ChartImage tells them apart)
    /// into an image surface, or nil.
    static func decode(_ bytes: [UInt8]) -> OpaquePointer? {
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return decodePNG(bytes) }
        let isJPEG = bytes.starts(with: [0xFF, 0xD8]), isGIF = bytes.starts(with: Array("GIF8".utf8))
        guard isJPEG || isGIF else { return nil }
        var width: Int32 = 0, height: Int32 = 0
        let side = Int32(ChartImage.maxSide)
        guard let pixels = bytes.withUnsafeBufferPointer({ b in
            isJPEG ? cw_jpeg_decode(b.baseAddress, b.count, side, &width, &height)
                   : cw_gif_decode(b.baseAddress, b.count, side, &width, &height)
        }) else { return nil }
        // The surface draws from the decoder's pixels (width·4 is ARGB32's stride) and frees
        // them when its last reference goes: the SVG and PDF surfaces may hold on to a
        // source until they finish. No second copy of the pixels.
        guard cairo_format_stride_for_width(CAIRO_FORMAT_ARGB32, width) == width * 4,
              let surface = cairo_image_surface_create_for_data(
                  UnsafeMutableRawPointer(pixels).assumingMemoryBound(to: UInt8.self), CAIRO_FORMAT_ARGB32, width, height, width * 4)
        else { cw_image_free(pixels); return nil }
        guard cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS,
              cairo_surface_set_user_data(surface, decodedPixelsKey, pixels, { cw_image_free($0?.assumingMemoryBound(to: UInt32.self)) })
                == CAIRO_STATUS_SUCCESS
        else {
            cairo_surface_destroy(surface)
            cw_image_free(pixels)
            return nil
        }
        return surface
    }

    static func decodePNG(_ bytes: [UInt8]) -> OpaquePointer? {
        final class Reader { var bytes: [UInt8]; var at = 0; init(_ b: [UInt8]) { bytes = b } }
        let reader = Unmanaged.passRetained(Reader(bytes))
        defer { reader.release() }
        let read: cairo_read_func_t = { closure, data, length in
            guard let closure, let data else { return CAIRO_STATUS_READ_ERROR }
            let r = Unmanaged<Reader>.fromOpaque(closure).takeUnretainedValue()
            let n = Int(length)
            guard r.at + n <= r.bytes.count else { return CAIRO_STATUS_READ_ERROR }
            r.bytes.withUnsafeBufferPointer { data.update(from: $0.baseAddress! + r.at, count: n) }
            r.at += n
            return CAIRO_STATUS_SUCCESS
        }
        guard let surface = cairo_image_surface_create_from_png_stream(read, reader.toOpaque()) else { return nil }
        guard cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS else {
            cairo_surface_destroy(surface)
            return nil
        }
        return surface
    }

    private mutating func drawImage(_ surface: OpaquePointer, x: Double, y: Double, w: Double, h: Double) {
        let iw = Double(cairo_image_surface_get_width(surface)), ih = Double(cairo_image_surface_get_height(surface))
        guard iw > 0, ih > 0 else { return }
        cairo_save(cr)
        cairo_new_path(cr)
        cairo_rectangle(cr, x, y, w, h)
        cairo_clip(cr)
        cairo_translate(cr, x, y)
        cairo_scale(cr, w / iw, h / ih)
        cairo_set_source_surface(cr, surface, 0, 0)
        cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_GOOD)
        cairo_paint_with_alpha(cr, alpha)
        cairo_restore(cr)
    }
}

/// The key under which a decoded JPEG's or GIF's surface keeps its pixels (only its
/// address matters).
nonisolated(unsafe) private let decodedPixelsKey = UnsafeMutablePointer<cairo_user_data_key_t>.allocate(capacity: 1)

extension Double {
    /// The angle in 0 ..< 2π, but a whole turn stays a whole turn's remainder (0).
    fileprivate var positiveAngle: Double { self < 0 ? self + 2 * Double.pi : self }
}
