import ChartExport
import ChartSession
import ChartWireServer
import Foundation
import LayoutEngine
import Testing

/// `ChartServer.image`: the image export from a Swift program hosting its own charts.
@Suite struct ChartServerImageTests {
    @Test func aHostedChartAsPNGSVGAndPDF() throws {
        let web = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("web").path
        var config = ChartServer.Configuration()
        config.webDir = web
        let server = try ChartServer(config)
        var data = XYData()
        try data.append(xs: [0, 1, 2, 3], ys: [1, 3, 2, 4])
        let chart = Chart(title: "Plant", xAxes: [AxisConfig(id: "x", alignment: .bottom)],
                          yAxes: [AxisConfig(id: "y", alignment: .left)],
                          series: [Series(id: "p", name: "P", color: "#ff0000", xAxisId: "x", yAxisId: "y", data: data)])
        server.host(chart, id: "plant")
        let png = try server.image(session: "plant", width: 300, height: 200, dpr: 2)
        let pixels = try #require(ImageRenderer.decodePNG(png))
        #expect(pixels.width == 600 && pixels.height == 400)
        // The red line has ink somewhere.
        var red = 0
        for y in 0..<400 { for x in 0..<600 { let p = pixels.rgba(x, y); if p.r > 200 && p.g < 80 && p.b < 80 { red += 1 } } }
        #expect(red > 100)
        #expect(try server.image(session: "plant", format: .svg).starts(with: Array("<?xml".utf8)))
        #expect(try server.image(session: "plant", format: .pdf, theme: "dark").starts(with: Array("%PDF-".utf8)))
        #expect(chart.theme == Theme(), "theme: leaves the chart's own")
        #expect(throws: ExportError.self) { try server.image(session: "nope") }
        #expect(throws: ExportError.self) { try server.image(session: "plant", width: 0) }
        #expect(throws: ExportError.self) { try server.image(session: "plant", theme: "neon") }
    }
}
