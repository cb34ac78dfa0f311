import ChartSession
import Foundation

/// The rest of a response body, written a piece at a time by the transport (chunked
/// transfer encoding): `next` appends bytes until the buffer holds `max` or the end;
/// false once everything is written. Used on the event loop's thread only.
final class BodyStream: @unchecked Sendable, Equatable {
    let next: (inout [UInt8], Int) -> Bool
    init(_ next: @escaping (inout [UInt8], Int) -> Bool) { self.next = next }
    static func == (a: BodyStream, b: BodyStream) -> Bool { a === b }
}

extension HTTPResponse {
    /// The whole body, the stream's rest included (tests, and callers that need bytes).
    func wholeBody() -> [UInt8] {
        var out = body
        if let stream { while stream.next(&out, Int.max) {} }
        return out
    }
}

extension Router {
    /// Bytes an answer holds before the rest is streamed (one transport write).
    static let streamFirstChunk = 64 * 1024

    /// `GET /api/sessions/{s}/data.csv` and `data.json` (docs/export.md, "Data"): the
    /// data in view, or `from`–`to`, of the series asked for. Open to read, as
    /// `frame.json` is. An export larger than one write is streamed from copies of the
    /// series' data (shared chunks), never held as one string.
    func exportData(session id: String, csv: Bool, query: [String: String]) -> HTTPResponse {
        guard let session = hub.session(id) else { return .error(404, "no session \"\(id)\"") }
        let export: DataExport
        do {
            let options = try DataExport.options(query: query, chart: session.chart)
            export = try DataExport(chart: session.chart, session: id, options: options)
        } catch {
            return .error(error.status, error.message)
        }
        let writer = csv ? export.csvWriter() : export.jsonWriter()
        var first: [UInt8] = []
        first.reserveCapacity(Self.streamFirstChunk + 1024)
        let more = writer.next(into: &first, max: Self.streamFirstChunk)
        let safe = String(id.unicodeScalars.map { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "._-".unicodeScalars.contains($0)) ? Character($0) : "_" })
        var response = HTTPResponse(status: 200, contentType: csv ? "text/csv; charset=utf-8; header=present" : "application/json",
                                    body: first)
        response.headers["Content-Disposition"] = "attachment; filename=\"\(safe)-data.\(csv ? "csv" : "json")\""
        if more { response.stream = BodyStream { out, max in writer.next(into: &out, max: max) } }
        return response
    }
}
