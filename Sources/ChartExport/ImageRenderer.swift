import CCairo
import CExport
import ChartSession
import FontStack
import Foundation
import LayoutEngine

/// The image formats a display list is exported to.
public enum ImageFormat: String, CaseIterable, Sendable {
    case png, svg, pdf

    public var contentType: String {
        switch self {
        case .png: return "image/png"
        case .svg: return "image/svg+xml"
        case .pdf: return "application/pdf"
        }
    }
}

public struct ExportError: Error, Equatable, CustomStringConvertible, Sendable {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Draws display lists as `web/client.js` `draw()` draws them on its canvases, with
/// Cairo: the same device-pixel scaling, rectangle insets, marker cells, whole-pixel
/// bars, column stretches, joins, caps and dashes, and text shaped by HarfBuzz in the
/// chart font's own files, face by face as `FallbackShaper` chooses them.
///
/// A PNG is drawn on an image surface of the canvas' device pixels and encoded in one
/// fast pass (`cw_png_encode`); SVG and PDF are drawn on Cairo's vector
/// surfaces with one unit per device pixel. Safe to use from several threads: each call
/// has its own surface.
public struct ImageRenderer: Sendable {
    public let fonts: GlyphFonts
    /// The bytes of an `image` command's source (a path on the server), or nil.
    public let images: @Sendable (String) -> [UInt8]?

    /// Largest export, device pixels (width × height × dpr²): 32 Mi pixels, 128 MB of
    /// surface. Each side is also at most `maxDeviceSide`.
    public static let maxDevicePixels = 32 << 20
    public static let maxDeviceSide = 16_384

    public init(fonts: GlyphFonts, images: @escaping @Sendable (String) -> [UInt8]? = { _ in nil }) {
        self.fonts = fonts; self.images = images
    }

    /// The device-pixel size of a list's canvas, as the page sizes its canvases.
    public static func deviceSize(width: Int, height: Int, dpr: Double) -> (width: Int, height: Int) {
        (Int((Double(width) * dpr).rounded()), Int((Double(height) * dpr).rounded()))
    }

    /// Why a canvas of this size cannot be exported, or nil.
    public static func sizeProblem(width: Int, height: Int, dpr: Double) -> String? {
        let d = deviceSize(width: width, height: height, dpr: dpr)
        if d.width < 1 || d.height < 1 { return "the image would be \(d.width)×\(d.height) device pixels" }
        if d.width > maxDeviceSide || d.height > maxDeviceSide || d.width * d.height > maxDevicePixels {
            return "the image would be \(d.width)×\(d.height) device pixels (width × dpr by height × dpr); "
                + "at most \(maxDeviceSide) a side and \(maxDevicePixels) in all"
        }
        return nil
    }

    /// The list in `format`, as bytes of a file.
    public func render(_ list: DisplayList, format: ImageFormat) throws(ExportError) -> [UInt8] {
        switch format {
        case .png: return try png(list)
        case .svg, .pdf: return try vector(list, format: format)
        }
    }

    /// The PNG of the list: drawn, then encoded (`encodePNG`) straight from the surface.
    public func png(_ list: DisplayList) throws(ExportError) -> [UInt8] {
        let bytes = try withSurface(list) { data, width, height, stride in
            Self.encodePNG(data, width: width, height: height, stride: stride)
        }
        guard !bytes.isEmpty else { throw ExportError("the PNG encoder ran out of memory") }
        return bytes
    }

    /// Pixels as a PNG: RGB when opaque, rows Up-filtered, deflated in one pass with
    /// fixed codes and runs only (`cw_png_encode` level 0; docs/export.md has the
    /// measurements behind the choice). Empty when out of memory.
    public static func encodePNG(_ pixels: Pixels) -> [UInt8] {
        encodePNG(pixels.bytes, width: pixels.width, height: pixels.height, stride: pixels.stride)
    }

    static func encodePNG(_ bytes: UnsafePointer<UInt8>, width: Int, height: Int, stride: Int) -> [UInt8] {
        var length = 0
        guard let data = cw_png_encode(bytes, Int32(width), Int32(height), Int32(stride),
                                       0, 0, CW_PNG_FILTER_UP, &length) else { return [] }
        defer { cw_png_free(data) }
        return Array(UnsafeBufferPointer(start: data, count: length))
    }

    /// A PNG decoded by Cairo (libpng): the tests read the encoder's output back with it.
    public static func decodePNG(_ png: [UInt8]) -> Pixels? {
        guard let surface = Painter.decodePNG(png) else { return nil }
        defer { cairo_surface_destroy(surface) }
        guard let data = cairo_image_surface_get_data(surface) else { return nil }
        let w = Int(cairo_image_surface_get_width(surface)), h = Int(cairo_image_surface_get_height(surface))
        let stride = Int(cairo_image_surface_get_stride(surface))
        return Pixels(width: w, height: h, stride: stride, bytes: Array(UnsafeBufferPointer(start: data, count: stride * h)))
    }

    /// The same pixels through Cairo's own PNG writer (libpng at zlib's default level):
    /// the benchmark's baseline for `encodePNG`.
    public static func encodePNGWithCairo(_ pixels: Pixels) -> [UInt8] {
        final class Sink { var bytes: [UInt8] = [] }
        let sink = Sink()
        var copy = pixels.bytes
        let status: cairo_status_t = copy.withUnsafeMutableBufferPointer { buf in
            guard let surface = cairo_image_surface_create_for_data(buf.baseAddress, CAIRO_FORMAT_ARGB32, Int32(pixels.width),
                                                                    Int32(pixels.height), Int32(pixels.stride)) else { return CAIRO_STATUS_NO_MEMORY }
            defer { cairo_surface_destroy(surface) }
            let box = Unmanaged.passRetained(sink)
            defer { box.release() }
            return cairo_surface_write_to_png_stream(surface, { closure, data, length in
                guard let closure, let data else { return CAIRO_STATUS_WRITE_ERROR }
                Unmanaged<Sink>.fromOpaque(closure).takeUnretainedValue().bytes.append(contentsOf: UnsafeBufferPointer(start: data, count: Int(length)))
                return CAIRO_STATUS_SUCCESS
            }, box.toOpaque())
        }
        return status == CAIRO_STATUS_SUCCESS ? sink.bytes : []
    }

    /// Premultiplied ARGB32 pixels (Cairo's native-endian words), rows `stride` bytes apart.
    public struct Pixels: Sendable {
        public var width: Int, height: Int, stride: Int
        public var bytes: [UInt8]
        public init(width: Int, height: Int, stride: Int, bytes: [UInt8]) {
            self.width = width; self.height = height; self.stride = stride; self.bytes = bytes
        }
        /// The un-premultiplied colour at (x, y), bytes 0...255.
        public func rgba(_ x: Int, _ y: Int) -> (r: Int, g: Int, b: Int, a: Int) {
            let o = y * stride + x * 4
            let v = UInt32(bytes[o]) | UInt32(bytes[o + 1]) << 8 | UInt32(bytes[o + 2]) << 16 | UInt32(bytes[o + 3]) << 24
            let a = Int(v >> 24)
            guard a > 0 else { return (0, 0, 0, 0) }
            func un(_ c: UInt32) -> Int { min(255, (Int(c & 0xff) * 255 + a / 2) / a) }
            return (un(v >> 16), un(v >> 8), un(v), a)
        }
    }

    /// The list drawn on an image surface of its device pixels.
    public func raster(_ list: DisplayList) throws(ExportError) -> Pixels {
        try withSurface(list) { data, width, height, stride in
            Pixels(width: width, height: height, stride: stride, bytes: Array(UnsafeBufferPointer(start: data, count: stride * height)))
        }
    }

    /// Draws the list on an image surface and hands its pixels to `body` (valid only there).
    func withSurface<T>(_ list: DisplayList, _ body: (UnsafePointer<UInt8>, Int, Int, Int) -> T) throws(ExportError) -> T {
        if let problem = Self.sizeProblem(width: list.width, height: list.height, dpr: list.dpr) { throw ExportError(problem) }
        let d = Self.deviceSize(width: list.width, height: list.height, dpr: list.dpr)
        guard let surface = SurfacePool.shared.take(width: d.width, height: d.height) else {
            throw ExportError("cannot make a \(d.width)×\(d.height) surface")
        }
        defer { SurfacePool.shared.give(surface, width: d.width, height: d.height) }
        try draw(list, on: surface, raster: true)
        cairo_surface_flush(surface)
        let stride = Int(cairo_image_surface_get_stride(surface))
        guard let data = cairo_image_surface_get_data(surface) else { throw ExportError("the surface has no pixels") }
        return body(UnsafePointer(data), d.width, d.height, stride)
    }

    private final class Sink { var bytes: [UInt8] = [] }

    /// Image surfaces kept for the next export of the same size: a new 1920×1080
    /// surface is 8 MB of fresh pages to fault in and zero, a third of an export's time
    /// (docs/export.md). At most `maxBytes` are kept, each surface cleared when taken.
    final class SurfacePool: @unchecked Sendable {
        static let shared = SurfacePool()
        static let maxBytes = 48 << 20
        private var kept: [(width: Int, height: Int, surface: OpaquePointer)] = []
        private let lock = NSLock()

        func take(width: Int, height: Int) -> OpaquePointer? {
            lock.lock()
            let i = kept.firstIndex { $0.width == width && $0.height == height }
            let reused = i.map { kept.remove(at: $0).surface }
            lock.unlock()
            if let surface = reused {
                // Transparent again, as a new surface is.
                if let cr = cairo_create(surface) {
                    cairo_set_operator(cr, CAIRO_OPERATOR_CLEAR)
                    cairo_paint(cr)
                    cairo_destroy(cr)
                }
                return surface
            }
            guard let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(width), Int32(height)) else { return nil }
            guard cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS else { cairo_surface_destroy(surface); return nil }
            return surface
        }

        func give(_ surface: OpaquePointer, width: Int, height: Int) {
            let bytes = width * height * 4
            lock.lock()
            var total = kept.reduce(0) { $0 + $1.width * $1.height * 4 }
            // The newest first: drop the oldest until this one fits.
            while !kept.isEmpty && total + bytes > Self.maxBytes {
                let old = kept.removeFirst()
                total -= old.width * old.height * 4
                cairo_surface_destroy(old.surface)
            }
            if bytes <= Self.maxBytes { kept.append((width, height, surface)) } else { cairo_surface_destroy(surface) }
            lock.unlock()
        }
    }

    func vector(_ list: DisplayList, format: ImageFormat) throws(ExportError) -> [UInt8] {
        if let problem = Self.sizeProblem(width: list.width, height: list.height, dpr: list.dpr) { throw ExportError(problem) }
        let d = Self.deviceSize(width: list.width, height: list.height, dpr: list.dpr)
        let sink = Sink()
        let box = Unmanaged.passRetained(sink)
        defer { box.release() }
        let write: cairo_write_func_t = { closure, data, length in
            guard let closure, let data else { return CAIRO_STATUS_WRITE_ERROR }
            Unmanaged<Sink>.fromOpaque(closure).takeUnretainedValue().bytes.append(contentsOf: UnsafeBufferPointer(start: data, count: Int(length)))
            return CAIRO_STATUS_SUCCESS
        }
        let surface: OpaquePointer?
        if format == .svg {
            surface = cairo_svg_surface_create_for_stream(write, box.toOpaque(), Double(d.width), Double(d.height))
            // One SVG unit is one device pixel (a CSS px at dpr 1), not a point.
            if let surface { cairo_svg_surface_set_document_unit(surface, CAIRO_SVG_UNIT_PX) }
        } else {
            surface = cairo_pdf_surface_create_for_stream(write, box.toOpaque(), Double(d.width), Double(d.height))
        }
        guard let surface, cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS else {
            throw ExportError("cannot make a \(format.rawValue) surface")
        }
        do {
            try draw(list, on: surface, raster: false)
        } catch {
            cairo_surface_destroy(surface)
            throw error
        }
        cairo_surface_finish(surface)
        let status = cairo_surface_status(surface)
        cairo_surface_destroy(surface)
        guard status == CAIRO_STATUS_SUCCESS else { throw ExportError("cairo: \(String(cString: cairo_status_to_string(status)))") }
        return sink.bytes
    }

    /// Draws the shared layers, background, series and overlay, in that order (a
    /// viewer's own modifier layer is not part of an export).
    func draw(_ list: DisplayList, on surface: OpaquePointer, raster: Bool) throws(ExportError) {
        guard let cr = cairo_create(surface) else { throw ExportError("cannot draw") }
        defer { cairo_destroy(cr) }
        var painter = Painter(cr: cr, dpr: list.dpr, raster: raster, fonts: fonts, images: images)
        for id in LayerID.shared {
            guard let layer = list.layers.first(where: { $0.id == id }) else { continue }
            painter.layer(layer.commands)
        }
        let status = cairo_status(cr)
        guard status == CAIRO_STATUS_SUCCESS else { throw ExportError("cairo: \(String(cString: cairo_status_to_string(status)))") }
    }
}
