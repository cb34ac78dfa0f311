import ChartExport
import ChartSession
import Foundation

/// `GET /api/sessions/{s}/image.png|image.svg|image.pdf` and `ChartServer.image`: what a
/// viewer of a size would see now, drawn on the server (docs/export.md, "Images").
struct ImageExport {
    let renderer: ImageRenderer

    struct Failure: Error, Equatable {
        var status: Int
        var message: String
    }

    /// What a request asks for, checked: the canvas size in CSS pixels (1 to
    /// `ViewerSize.maxSide` a side, 800×500 when not given), the device pixel ratio
    /// (`ViewerSize.dprRange`, 1 when not given), at most `ImageRenderer.maxDeviceSide`
    /// device pixels a side and `maxDevicePixels` in all, and a theme by name.
    struct Request: Equatable {
        var format: ImageFormat
        var size: ViewerSize
        var theme: String?

        static func read(format: ImageFormat, query: [String: String]) throws(Failure) -> Request {
            func side(_ key: String, _ d: Int) throws(Failure) -> Int {
                guard let s = query[key] else { return d }
                guard let v = Int(s), (1...ViewerSize.maxSide).contains(v) else {
                    throw Failure(status: 400, message: "\(key) must be a whole number from 1 to \(ViewerSize.maxSide)")
                }
                return v
            }
            let w = try side("width", 800), h = try side("height", 500)
            let dprText = query["dpr"] ?? "1"
            guard let dpr = Double(dprText), dpr.isFinite, ViewerSize.dprRange.contains(dpr) else {
                throw Failure(status: 400, message: "dpr must be a number from \(ViewerSize.dprRange.lowerBound) to \(ViewerSize.dprRange.upperBound)")
            }
            if let problem = ImageRenderer.sizeProblem(width: w, height: h, dpr: dpr) {
                throw Failure(status: 400, message: problem)
            }
            var theme: String?
            if let t = query["theme"], !t.isEmpty {
                guard Theme.presets[t] != nil else {
                    throw Failure(status: 400, message: "unknown theme \"\(t)\"; expected one of "
                                  + Theme.presets.keys.sorted().map { "\"\($0)\"" }.joined(separator: ", "))
                }
                theme = t
            }
            return Request(format: format, size: ViewerSize(width: w, height: h, dpr: dpr), theme: theme)
        }
    }

    /// What to draw, read from the session on the thread that owns it: the display list
    /// and the images it names. Drawing it needs nothing else, so it may run elsewhere.
    struct Prepared: Sendable {
        var list: DisplayList
        var format: ImageFormat
        var images: [String: ChartImage]
        var imagePath: String

        func render(_ fonts: GlyphFonts) throws(Failure) -> [UInt8] {
            let images = images, prefix = imagePath
            let r = ImageRenderer(fonts: fonts) { src in
                guard src.hasPrefix(prefix) else { return nil }
                let name = src.dropFirst(prefix.count).split(separator: "?", maxSplits: 1).first.map(String.init) ?? ""
                return images[name]?.bytes
            }
            do { return try r.render(list, format: format) } catch {
                throw Failure(status: 500, message: "the \(format.rawValue) export failed: \(error.message)")
            }
        }
    }

    static func prepare(_ session: Session, _ request: Request) -> Prepared {
        let list = request.theme.flatMap { Theme.presets[$0] }.map { session.displayList(size: request.size, theme: $0) }
            ?? session.displayList(size: request.size)
        return Prepared(list: list, format: request.format, images: session.chart.images, imagePath: session.chart.imagePath)
    }

    /// The file's bytes.
    func render(_ session: Session, _ request: Request) throws(Failure) -> [UInt8] {
        try Self.prepare(session, request).render(renderer.fonts)
    }

    /// The answer to a drawn export.
    static func response(_ bytes: Result<[UInt8], Failure>, session: String, format: ImageFormat) -> HTTPResponse {
        switch bytes {
        case let .success(bytes):
            var response = HTTPResponse(status: 200, contentType: format.contentType, body: bytes)
            response.headers["Content-Disposition"] = "inline; filename=\"\(fileName(session: session, format: format))\""
            return response
        case let .failure(error):
            return .error(error.status, error.message)
        }
    }

    /// `chart-{session}.png`: a file name of safe characters for Content-Disposition.
    static func fileName(session: String, format: ImageFormat) -> String {
        let safe = String(session.unicodeScalars.map { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "-_.".unicodeScalars.contains($0)) ? Character($0) : "_" })
        return "\(safe.isEmpty ? "chart" : safe).\(format.rawValue)"
    }
}

/// A value handed to the export queue and back to the loop thread, which alone uses it
/// (a connection's pointer and exchange, only compared and written on the loop).
struct SentAcross<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}

/// Exports drawn on the export queue, waiting for the loop thread to write them.
final class ExportMailbox: @unchecked Sendable {
    typealias Item = (wsi: SentAcross<OpaquePointer>, exchange: SentAcross<HTTPExchange>, response: HTTPResponse)
    private var items: [Item] = []
    private let lock = NSLock()
    func post(_ item: Item) { lock.lock(); items.append(item); lock.unlock() }
    func take() -> [Item] { lock.lock(); defer { items = []; lock.unlock() }; return items }
}
