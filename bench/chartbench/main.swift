import ChartExport
import ChartSession
import FontStack
import Foundation
import LayoutEngine
import TestSupport

// chartbench: frame-build figures, each beside a baseline measured in the same run.
// See docs/bench.md. `--quick` for a short run, `--json FILE` to also write figures.

struct Args {
    var quick = false
    var live = true
    var jsonPath: String? = nil
    /// Only these groups of figures (`--only lines,series`): lines, series, demo, layout; and of
    /// the live figures monitor, fanout, ingest, durable, scrape, cluster (none named: all of
    /// them, unless --no-live).
    var only: Set<String>? = nil
    var fontDir = "/usr/share/fonts/truetype/dejavu"
}

var args = Args()
var it = CommandLine.arguments.dropFirst().makeIterator()
while let a = it.next() {
    switch a {
    case "--quick": args.quick = true
    case "--no-live": args.live = false
    case "--json":
        guard let p = it.next() else { FileHandle.standardError.write(Data("chartbench: --json needs a file\n".utf8)); exit(2) }
        args.jsonPath = p
    case "--only":
        guard let p = it.next() else { FileHandle.standardError.write(Data("chartbench: --only needs groups\n".utf8)); exit(2) }
        args.only = Set(p.split(separator: ",").map(String.init))
    case "--font-dir":
        guard let p = it.next() else { FileHandle.standardError.write(Data("chartbench: --font-dir needs a folder\n".utf8)); exit(2) }
        args.fontDir = p
    default:
        FileHandle.standardError.write(Data("chartbench: unknown argument \(a)\nusage: chartbench [--quick] [--no-live] [--only lines,series,demo,export,layout,monitor,fanout,ingest,durable,scrape,memory,cluster] [--json FILE] [--font-dir DIR]\n".utf8))
        exit(2)
    }
}

/// Whether a group of figures is to be measured.
@MainActor func wants(_ group: String) -> Bool { args.only?.contains(group) ?? true }

// The chart font as the server loads it (DejaVu, fallbacks, HarfBuzz shaping).
let chartFonts: ChartFonts = {
    do { return try ChartFonts.load(primaryDir: args.fontDir) } catch {
        FileHandle.standardError.write(Data("chartbench: \(error)\n".utf8))
        exit(2)
    }
}()
let measurer: TextMeasurer = chartFonts.measurer

// MARK: Measuring

/// Median wall time of `body` in milliseconds over `runs` runs (after one warm-up).
func medianMs(runs: Int, _ body: () -> Void) -> Double {
    body()
    var times: [Double] = []
    for _ in 0..<runs {
        let start = DispatchTime.now().uptimeNanoseconds
        body()
        times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
    }
    times.sort()
    return times[times.count / 2]
}

func residentMB() -> Double {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return .nan }
    let fields = text.split(separator: " ")
    guard fields.count > 1, let pages = Double(fields[1]) else { return .nan }
    return pages * Double(sysconf(Int32(_SC_PAGESIZE))) / 1_048_576
}

struct Row { var name: String; var value: Double; var baselineName: String; var baseline: Double; var unit: String }
var rows: [Row] = []
var figures: [(String, Double)] = []

@MainActor func record(_ name: String, _ value: Double, baseline: (String, Double)? = nil, unit: String) {
    rows.append(Row(name: name, value: value, baselineName: baseline?.0 ?? "", baseline: baseline?.1 ?? .nan, unit: unit))
    figures.append((name, value))
    if let b = baseline { figures.append((b.0, b.1)) }
}

// MARK: Frames

/// A chart with one line series of `n` points (a random walk, x = 0..<n; `irregular`:
/// each x moved by up to a quarter step at random, so no chunk's x lies on a line and
/// x is stored as plain float64s, not as ramps).
func lineChart(points n: Int, irregular: Bool = false) -> Chart {
    var rng = UInt64(0x9E37_79B9_7F4A_7C15)
    var xs = [Double](repeating: 0, count: n), ys = [Double](repeating: 0, count: n)
    var y = 0.0
    for i in 0..<n {
        rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17
        y += Double(Int64(bitPattern: rng % 2001) - 1000) / 1000
        xs[i] = irregular ? Double(i) + Double(rng % 1024) / 4096 : Double(i); ys[i] = y
    }
    var data = XYData()
    try! data.append(xs: xs, ys: ys)
    return Chart(title: "Bench", xAxes: [AxisConfig(id: "x", alignment: .bottom, title: "X")],
                 yAxes: [AxisConfig(id: "y", alignment: .left, title: "Y", mode: .visible, growBy: (0.05, 0.05))],
                 series: [Series(id: "s", name: "Line", color: "#1f77b4", xAxisId: "x", yAxisId: "y", data: data)])
}

/// State to encoded bytes: render every layer and encode the frame.
func buildFrame(_ chart: Chart, _ renderer: ChartRenderer, width: Int = 1920, height: Int = 1080) -> Int {
    let out = renderer.render(chart, size: Size(width: Double(width), height: Double(height)), dpr: 1)
    let layers = LayerID.allCases.map { id in
        BinaryFrame.encodeLayer(Layer(id: id, version: 1, commands: out.layers[id] ?? []))
    }
    return BinaryFrame.frame(width: width, height: height, dpr: 1, encodedLayers: layers).count
}

let reduced = ChartRenderer(measurer: measurer)
let naive = ChartRenderer(measurer: measurer, reducesLines: false)
let runs = args.quick ? 3 : 9
let naiveRuns = args.quick ? 1 : 3

if wants("lines") {
for (label, n) in [("1e4", 10_000), ("1e6", 1_000_000), ("1e7", 10_000_000)] {
    let before = residentMB()
    let chart = lineChart(points: n)
    if n == 10_000_000 {
        record("memory_mb_series_1e7", residentMB() - before, baseline: ("memory_mb_raw_arrays_1e7", Double(n * 16) / 1_048_576), unit: "MB")
    }
    var bytes = 0, naiveBytes = 0
    let ms = medianMs(runs: runs) { bytes = buildFrame(chart, reduced) }
    let naiveMs = medianMs(runs: naiveRuns) { naiveBytes = buildFrame(chart, naive) }
    let name = n == 10_000_000 ? "frame_build_ms_line_1e7_full" : "frame_build_ms_line_\(label)"
    record(name, ms, baseline: ("naive_build_ms_line_\(label)", naiveMs), unit: "ms")
    record(n == 10_000_000 ? "frame_bytes_line_1920" : "frame_bytes_line_\(label)", Double(bytes),
           baseline: ("naive_bytes_line_\(label)", Double(naiveBytes)), unit: "B")

    if n == 10_000_000, ProcessInfo.processInfo.environment["CHARTBENCH_PHASES"] == "1" {
        // Where a full frame's time goes (not a figure: for whoever tunes it).
        chart.setUserRange("x", DoubleRange(0, Double(n)))
        let layout = reduced.layout(chart, size: Size(width: 1920, height: 1080), dpr: 1)
        let xl = layout.axis("x")!, yl = layout.axis("y")!
        let reduceMs = medianMs(runs: runs) {
            _ = ColumnReducer.reduce(chart.series[0].data, x: xl.calculator, y: yl.calculator, dpr: 1, plot: layout.plotRect,
                                     stroke: "#000", width: 1, dash: [])
        }
        let layoutMs = medianMs(runs: runs) { _ = reduced.layout(chart, size: Size(width: 1920, height: 1080), dpr: 1) }
        let rangesMs = medianMs(runs: runs) { _ = chart.resolvedRanges() }
        print("phases: reduce \(reduceMs) ms, layout \(layoutMs) ms, ranges \(rangesMs) ms")
        chart.resetUserRanges()
    }
    if n == 10_000_000 {
        // The worst of several zoom windows (fractions of the data, at several offsets).
        var worst = 0.0, worstNaive = 0.0
        for (fraction, offset) in [(0.5, 0.25), (0.1, 0.6), (0.01, 0.3), (0.001, 0.9), (0.00005, 0.5)] {
            chart.setUserRange("x", DoubleRange(Double(n) * offset, Double(n) * (offset + fraction)))
            worst = max(worst, medianMs(runs: runs) { _ = buildFrame(chart, reduced) })
            worstNaive = max(worstNaive, medianMs(runs: naiveRuns) { _ = buildFrame(chart, naive) })
        }
        record("frame_build_ms_line_1e7_zoom", worst, baseline: ("naive_build_ms_line_1e7_zoom", worstNaive), unit: "ms")

        // The same with x that lies on no line (stored plain): memory and full-frame time
        // beside the regular x's (stored as ramps) of this run.
        let regularMs = ms
        let plainBefore = residentMB()
        let plain = lineChart(points: n, irregular: true)
        record("memory_mb_series_1e7_irregular_x", residentMB() - plainBefore,
               baseline: ("memory_mb_raw_arrays_1e7", Double(n * 16) / 1_048_576), unit: "MB")
        let plainMs = medianMs(runs: runs) { _ = buildFrame(plain, reduced) }
        record("frame_build_ms_line_1e7_full_irregular_x", plainMs, baseline: ("frame_build_ms_line_1e7_full", regularMs), unit: "ms")
    }
}

}

// The demo chart, after a minute of live data.
let demoSpec = try! ConfigSpec.decode(foundationJSON(DemoSpec.json))[0]
// Scatter and columns of 10^6 points, the whole range in view.
func pointsChart(points n: Int, kind: SeriesKind) -> Chart {
    var rng = UInt64(0x2545_F491_4F6C_DD1D)
    var xs = [Double](repeating: 0, count: n), ys = [Double](repeating: 0, count: n)
    for i in 0..<n {
        rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17
        // A cloud about a slow wave: dense in the middle, sparse at the edges.
        let u = Double(rng % 1_000_001) / 1_000_000, v = Double((rng >> 20) % 1_000_001) / 1_000_000
        xs[i] = Double(i); ys[i] = 100 * sin(Double(i) / 50_000) + 40 * (u + v - 1)
    }
    var data = XYData()
    try! data.append(xs: xs, ys: ys)
    return Chart(title: "Bench", xAxes: [AxisConfig(id: "x", alignment: .bottom, title: "X")],
                 yAxes: [AxisConfig(id: "y", alignment: .left, title: "Y", mode: .visible, growBy: (0.05, 0.05))],
                 series: [Series(id: "s", name: kind.rawValue, kind: kind, color: "#1f77b4", xAxisId: "x", yAxisId: "y", data: data)])
}
/// `frame_build_ms_<suffix>` and `frame_bytes_<suffix>`, each beside the naive
/// baseline (every point in view drawn) measured in the same run.
@MainActor func recordFrame(_ suffix: String, _ chart: Chart) {
    var bytes = 0, naiveBytes = 0
    let ms = medianMs(runs: runs) { bytes = buildFrame(chart, reduced) }
    let naiveMs = medianMs(runs: naiveRuns) { naiveBytes = buildFrame(chart, naive) }
    record("frame_build_ms_\(suffix)", ms, baseline: ("naive_build_ms_\(suffix)", naiveMs), unit: "ms")
    record("frame_bytes_\(suffix)", Double(bytes), baseline: ("naive_bytes_\(suffix)", Double(naiveBytes)), unit: "B")
}

if wants("series") {
for kind in [SeriesKind.scatter, .column] {
    let chart = pointsChart(points: 1_000_000, kind: kind)
    recordFrame("\(kind.rawValue)_1e6", chart)
}

// An unsorted line (spec `unsorted`): a Lissajous figure of 10^6 points, drawn in the
// order given (UnsortedLineReducer: one pass, a point per device pixel entered).
do {
    let n = 1_000_000
    var data = XYData(ordered: false)
    let ts = (0..<n).map { Double($0) / Double(n - 1) * 2 * Double.pi }
    try! data.append(xs: ts.map { sin(3 * $0) }, ys: ts.map { sin(2 * $0) })
    let chart = Chart(title: "Bench", xAxes: [AxisConfig(id: "x", alignment: .bottom, title: "X")],
                      yAxes: [AxisConfig(id: "y", alignment: .left, title: "Y", mode: .visible, growBy: (0.05, 0.05))],
                      series: [Series(id: "s", name: "Lissajous", color: "#1f77b4", xAxisId: "x", yAxisId: "y", data: data)])
    recordFrame("unsorted_1e6", chart)
}

// 10^6 candles (a random walk of minute bars), zoomed out to the whole range.
func candleChart(count n: Int) -> Chart {
    var rng = UInt64(0x8CB9_2BA7_2F3D_8DD7)
    func unit() -> Double { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; return Double(rng % 1_000_001) / 1_000_000 }
    var xs = [Double](repeating: 0, count: n), o = xs, h = xs, l = xs, c = xs
    var price = 100.0
    for i in 0..<n {
        xs[i] = Double(i); o[i] = price
        price += (unit() - 0.5) * 0.4
        c[i] = price; h[i] = max(o[i], price) + unit() * 0.2; l[i] = min(o[i], price) - unit() * 0.2
    }
    var s = Series(id: "s", name: "Candles", kind: .candlestick, color: "#1f77b4", xAxisId: "x", yAxisId: "y")
    try! s.append(xs: xs, values: [o, h, l, c])
    return Chart(title: "Bench", xAxes: [AxisConfig(id: "x", alignment: .bottom, title: "X")],
                 yAxes: [AxisConfig(id: "y", alignment: .left, title: "Y", mode: .visible, growBy: (0.05, 0.05))], series: [s])
}
do {
    let chart = candleChart(count: 1_000_000)
    recordFrame("candles_1e6", chart)
}

// Four stacked areas of 10^6 points each, the whole range in view.
do {
    var rng = UInt64(0x1234_5678_9ABC_DEF1)
    let n = 1_000_000
    let xs = (0..<n).map(Double.init)
    let series = (0..<4).map { k -> Series in
        var v = 10.0
        let ys = xs.map { _ -> Double in
            rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17
            v = max(0, v + Double(Int64(bitPattern: rng % 2001) - 1000) / 1000)
            return v
        }
        var data = XYData()
        try! data.append(xs: xs, ys: ys)
        var s = Series(id: "s\(k)", name: "Area \(k)", kind: .area, color: ["#1f77b4", "#2ca02c", "#ff7f0e", "#d62728"][k],
                       xAxisId: "x", yAxisId: "y", data: data)
        s.stackIndex = 0
        return s
    }
    let chart = Chart(title: "Bench", xAxes: [AxisConfig(id: "x", alignment: .bottom, title: "X")],
                      yAxes: [AxisConfig(id: "y", alignment: .left, title: "Y", mode: .visible, growBy: (0.05, 0.05))], series: series)
    recordFrame("stacked_area_4x1e6", chart)
}

// A pie of 10^3 slices, labels where they fit, beside the same pie drawn as polygons
// (each slice's arc cut into chords of at most 2 px, as a client without arcs needs).
do {
    var rng = UInt64(0x0F1E_2D3C_4B5A_6978)
    let values = (0..<1_000).map { _ -> Double in rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; return Double(rng % 1000) + 1 }
    var s = Series(id: "p", name: "Pie", kind: .pie, color: "#1f77b4", xAxisId: "x", yAxisId: "y")
    try! s.append(xs: values.indices.map(Double.init), values: [values])
    s.style.sliceLabels = .percent
    let chart = Chart(title: "Bench", xAxes: [AxisConfig(id: "x", alignment: .bottom)], yAxes: [AxisConfig(id: "y", alignment: .left)],
                      series: [s])
    var bytes = 0, polygonBytes = 0
    let ms = medianMs(runs: runs) { bytes = buildFrame(chart, reduced) }
    func polygons() -> Int {
        let out = reduced.render(chart, size: Size(width: 1920, height: 1080), dpr: 1)
        var commands: [DrawCommand] = []
        for case let .wedges(w) in out.layers[.series] ?? [] {
            for wedge in w.wedges {
                let steps = max(1, Int((Double(wedge.a1 - wedge.a0) * Double(w.r1) / 2).rounded(.up)))
                var pts: [Float] = [w.cx, w.cy]
                for k in 0...steps {
                    let a = Double(wedge.a0) + Double(wedge.a1 - wedge.a0) * Double(k) / Double(steps)
                    pts += [w.cx + w.r1 * Float(sin(a)), w.cy - w.r1 * Float(cos(a))]
                }
                commands.append(.polygon(points: pts, fill: wedge.fill, gradient: nil))
            }
        }
        return BinaryFrame.encodeLayer(Layer(id: .series, version: 1, commands: commands)).count
    }
    let polygonMs = medianMs(runs: naiveRuns) { polygonBytes = polygons() }
    record("frame_build_ms_pie_1e3", ms, baseline: ("polygon_build_ms_pie_1e3", polygonMs), unit: "ms")
    record("frame_bytes_pie_1e3", Double(bytes), baseline: ("polygon_bytes_pie_1e3", Double(polygonBytes)), unit: "B")
}
}

// The image export (docs/export.md): the demo chart at 1920x1080 drawn and encoded as
// a PNG, as GET /api/sessions/demo/image.png does, beside building its frame.
if wants("export") {
    let demo = demoSpec.makeSession(measurer: measurer)
    demo.advance(to: 0)
    demo.advance(to: 60)
    let demoMs = medianMs(runs: runs * 3) { _ = buildFrame(demo.chart, reduced) }
    let exporter = ImageRenderer(fonts: GlyphFonts(fonts: chartFonts))
    func export(_ chart: Chart) -> Int {
        let out = reduced.render(chart, size: Size(width: 1920, height: 1080), dpr: 1)
        let list = DisplayList(width: 1920, height: 1080, dpr: 1,
                               layers: LayerID.shared.map { Layer(id: $0, version: 1, commands: out.layers[$0] ?? []) })
        return try! exporter.png(list).count
    }
    var pngBytes = 0
    let pngMs = medianMs(runs: runs * 3) { pngBytes = export(demo.chart) }
    record("export_png_ms_1920", pngMs, baseline: ("frame_build_ms_demo_1920", demoMs), unit: "ms")
    // The encoder alone against Cairo's own PNG writer (libpng, zlib's default level).
    let out = reduced.render(demo.chart, size: Size(width: 1920, height: 1080), dpr: 1)
    let list = DisplayList(width: 1920, height: 1080, dpr: 1,
                           layers: LayerID.shared.map { Layer(id: $0, version: 1, commands: out.layers[$0] ?? []) })
    let pixels = try! exporter.raster(list)
    var cairoBytes = 0
    let encodeMs = medianMs(runs: runs * 3) { pngBytes = ImageRenderer.encodePNG(pixels).count }
    let cairoMs = medianMs(runs: runs * 3) { cairoBytes = ImageRenderer.encodePNGWithCairo(pixels).count }
    if ProcessInfo.processInfo.environment["CHARTBENCH_PHASES"] == "1" {
        let listMs = medianMs(runs: runs * 3) { _ = reduced.render(demo.chart, size: Size(width: 1920, height: 1080), dpr: 1) }
        let rasterMs = medianMs(runs: runs * 3) { _ = try! exporter.raster(list) }
        let emptyMs = medianMs(runs: runs * 3) { _ = try! exporter.raster(DisplayList(width: 1920, height: 1080, dpr: 1, layers: [])) }
        func cpuMs(_ body: () -> Void) -> Double {
            var times: [Double] = []
            for _ in 0..<(runs * 3) {
                var a = timespec(), b = timespec()
                clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a); body(); clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b)
                times.append(Double(b.tv_sec - a.tv_sec) * 1e3 + Double(b.tv_nsec - a.tv_nsec) / 1e6)
            }
            return times.sorted()[times.count / 2]
        }
        print("export phases (CPU): png \(cpuMs { _ = try! exporter.png(list) }) ms, raster + copy \(cpuMs { _ = try! exporter.raster(list) }) ms, "
              + "empty raster + copy \(cpuMs { _ = try! exporter.raster(DisplayList(width: 1920, height: 1080, dpr: 1, layers: [])) }) ms, "
              + "encode \(cpuMs { _ = ImageRenderer.encodePNG(pixels) }) ms")
        print("export phases: display list \(listMs) ms, raster + copy \(rasterMs) ms, empty raster + copy \(emptyMs) ms, encode \(encodeMs) ms")
    }
    record("export_png_encode_ms_1920", encodeMs, baseline: ("cairo_png_encode_ms_1920", cairoMs), unit: "ms")
    record("export_png_bytes_1920", Double(pngBytes), baseline: ("cairo_png_bytes_1920", Double(cairoBytes)), unit: "B")
    let line = lineChart(points: 10_000_000)
    let lineMs = medianMs(runs: runs) { _ = export(line) }
    let lineFrameMs = medianMs(runs: runs) { _ = buildFrame(line, reduced) }
    record("export_png_ms_line_1e7", lineMs, baseline: ("frame_build_ms_line_1e7", lineFrameMs), unit: "ms")
}

if wants("demo") {
let demo = demoSpec.makeSession(measurer: measurer)
demo.advance(to: 0)
demo.advance(to: 60)
let demoMs = medianMs(runs: runs * 3) { _ = buildFrame(demo.chart, reduced) }
let demoNaiveMs = medianMs(runs: runs * 3) { _ = buildFrame(demo.chart, naive) }
var demoBytes = 0, demoNaiveBytes = 0
demoBytes = buildFrame(demo.chart, reduced)
demoNaiveBytes = buildFrame(demo.chart, naive)
record("frame_build_ms_demo", demoMs, baseline: ("naive_build_ms_demo", demoNaiveMs), unit: "ms")
record("frame_bytes_demo", Double(demoBytes), baseline: ("naive_bytes_demo", Double(demoNaiveBytes)), unit: "B")

// A frame that only appends data to the scrolling demo: what an up-to-date viewer is
// sent after one 20 ms tick (the median over 50 ticks), beside its first, full frame.
let viewer = demo.connect()
_ = demo.receive(.hello(ViewerSize(width: 1920, height: 1080, dpr: 1), format: .binary, token: nil), from: viewer)
demo.publish(now: 60)
var fullFrameBytes = 0
if case let .binary(b)? = demo.nextFrame(for: viewer) { fullFrameBytes = b.count }
_ = demo.receive(.ack, from: viewer)
var tickBytes: [Int] = []
for tick in 1...50 {
    let now = 60 + Double(tick) * 0.02
    demo.advance(to: now)
    demo.publish(now: now)
    if case let .binary(b)? = demo.nextFrame(for: viewer) { tickBytes.append(b.count) } else { tickBytes.append(0) }
    _ = demo.receive(.ack, from: viewer)
}
tickBytes.sort()
record("frame_bytes_scroll_append", Double(tickBytes[tickBytes.count / 2]),
       baseline: ("frame_bytes_scroll_full", Double(fullFrameBytes)), unit: "B")

// Appends into a 10^7-point FIFO series while a 1920x1080 frame of it is built 30 times
// a second, on one thread as the server does: points stored per second of wall time.
do {
    let capacity = 10_000_000
    var data = XYData(capacity: capacity)
    let batch = 10_000
    var xs = [Double](repeating: 0, count: batch), ys = [Double](repeating: 0, count: batch)
    var x = 0.0
    func fill() { for i in 0..<batch { x += 1; xs[i] = x; ys[i] = (x * 0.001).truncatingRemainder(dividingBy: 7) } }
    while data.count < capacity { fill(); try! data.append(xs: xs, ys: ys) }   // full: every append evicts
    let chart = Chart(title: "FIFO", xAxes: [AxisConfig(id: "x", alignment: .bottom, mode: .extents)],
                      yAxes: [AxisConfig(id: "y", alignment: .left, mode: .visible)],
                      series: [Series(id: "s", name: "S", color: "#1f77b4", xAxisId: "x", yAxisId: "y", data: data)])
    data = XYData()
    let seconds = args.quick ? 1.0 : 3.0
    let start = DispatchTime.now().uptimeNanoseconds
    var appended = 0, frames = 0, elapsed = 0.0
    while elapsed < seconds {
        fill()
        try! chart.append(seriesId: "s", xs: xs, ys: ys)
        appended += batch
        elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        if Double(frames) < elapsed * 30 { _ = buildFrame(chart, reduced); frames += 1 }
    }
    record("append_points_per_s_fifo_1e7", Double(appended) / elapsed,
           baseline: ("frames_per_s_while_appending", Double(frames) / elapsed), unit: "/s")
}

}

if wants("layout") {
// Layout: one full measure/layout pass with 8 axes, beside 2.
func axes(_ count: Int) -> [AxisSpec] {
    let sides: [AxisAlignment] = [.bottom, .left, .top, .right]
    return (0..<count).map { i in
        AxisSpec(id: "a\(i)", alignment: sides[i % 4], visibleRange: DoubleRange(-Double(i + 1) * 123.4, Double(i + 1) * 987.6),
                 title: "Axis \(i)")
    }
}
let engine = ChartLayoutEngine(measurer: measurer)
let spec8 = ChartLayoutSpec(size: Size(width: 1920, height: 1080), title: "Layout", axes: axes(8))
let spec2 = ChartLayoutSpec(size: Size(width: 1920, height: 1080), title: "Layout", axes: axes(2))
record("layout_ms_8_axes", medianMs(runs: runs * 20) { _ = engine.layout(spec8) },
       baseline: ("layout_ms_2_axes", medianMs(runs: runs * 20) { _ = engine.layout(spec2) }), unit: "ms")

// Date-time ticks: the worst of spans from a millisecond to a century (one axis of
// 1920 px in Berlin, labels measured), beside numeric ticks over the same ranges.
do {
    let berlin = TimeZones.offsets("Europe/Berlin", over: DoubleRange(1.7e9 - 3.2e9, 1.7e9 + 3.2e9))
    let spans = [0.001, 1, 60, 3600, 86_400, 604_800, 2_629_746, 31_556_952, 315_569_520, 3_155_695_200]
    func worst(_ kind: AxisKind) -> Double {
        spans.map { span in
            let axis = AxisSpec(id: "t", alignment: .bottom, visibleRange: DoubleRange(1.7e9, 1.7e9 + span), kind: kind)
            let spec = ChartLayoutSpec(size: Size(width: 1920, height: 300), axes: [axis])
            return medianMs(runs: runs * 5) { _ = engine.layout(spec) }
        }.max()!
    }
    record("layout_ms_time_axis_worst_span", worst(.dateTime(berlin)),
           baseline: ("layout_ms_numeric_axis_worst_span", worst(.numeric(.auto))), unit: "ms")
}

}

// Where a live publication's time goes (not a figure: for whoever tunes it).
if ProcessInfo.processInfo.environment["CHARTBENCH_PHASES"] == "1" {
    let spec = try! ConfigSpec.decode(foundationJSON(monitorSpec))[0]
    let s = spec.makeSession(measurer: measurer)
    var walk = [0.0, 0.0, 0.0, 0.0]
    var x = 0.0
    let xs = (1...250_000).map { Double($0) * 0.02 }
    for i in 0..<4 {
        let ys = xs.indices.map { k in Double((k * 7919 + i * 104729) % 1000) / 1000 - 0.5 }
        try! s.append(seriesId: "s\(i)", xs: xs, ys: ys)
    }
    x = xs.last!
    let v = s.connect()
    _ = s.receive(.hello(ViewerSize(width: 1600, height: 900, dpr: 1), format: .binary, token: nil), from: v)
    _ = s.nextFrame(for: v)
    _ = s.receive(.ack, from: v)
    var renderMs = 0.0, totalMs = 0.0, bytes = 0, frames = 0
    let size = Size(width: 1600, height: 900)
    for tick in 0..<300 {
        x += 0.02
        // A bounded signal, as the history is: the ranges stand, as on a live monitor.
        for i in 0..<4 { walk[i] = Double((tick * 7919 + i * 104729) % 1000) / 1000 - 0.5
            try! s.append(seriesId: "s\(i)", xs: [x], ys: [walk[i]]) }
        let t0 = DispatchTime.now().uptimeNanoseconds
        s.publish(now: Double(tick))
        if case let .binary(b)? = s.nextFrame(for: v) { bytes += b.count; frames += 1 }
        _ = s.receive(.ack, from: v)
        let t1 = DispatchTime.now().uptimeNanoseconds
        _ = ChartRenderer(measurer: measurer).render(s.chart, size: size, dpr: 1)
        let t2 = DispatchTime.now().uptimeNanoseconds
        totalMs += Double(t1 - t0) / 1e6; renderMs += Double(t2 - t1) / 1e6
    }
    print("live publication: \(totalMs / 300) ms each (a render from scratch \(renderMs / 300) ms), \(frames) frames, "
          + "\(bytes / max(frames, 1)) B a frame")
}

// The independent views' render path in process (not a figure: for whoever tunes it):
// `CHARTBENCH_PHASES=views` with `CHARTBENCH_VIEWS=N` viewers of the `views` session,
// each zoomed in y by a wheel turn of its own (as `cwload viewers --zoom y`), then 150
// publications, each after a point appended to every series, every viewer sent its
// frame and acknowledging it. Prints the process' CPU time per view and publication.
if ProcessInfo.processInfo.environment["CHARTBENCH_PHASES"] == "views" {
    let count = Int(ProcessInfo.processInfo.environment["CHARTBENCH_VIEWS"] ?? "") ?? 200
    let all = try! ConfigSpec.decode(foundationJSON(ingestSpec))
    let s = all.first { $0.id == "views" }!.makeSession(measurer: measurer)
    let xs = (1...250_000).map { Double($0) * 0.02 }
    for i in 0..<4 {
        try! s.append(seriesId: "s\(i)", xs: xs, ys: xs.indices.map { k in Double((k * 7919 + i * 104729) % 1000) / 1000 - 0.5 })
    }
    var x = xs.last!
    let viewers = (0..<count).map { _ in s.connect() }
    func drain(_ v: ViewerID) { while let out = s.nextFrame(for: v) { if case .binary = out { _ = s.receive(.ack, from: v) } } }
    for (i, v) in viewers.enumerated() {
        _ = s.receive(.hello(ViewerSize(width: 1600, height: 900, dpr: 1), format: .binary, token: nil), from: v)
        drain(v)
        let along = 0.2 + 0.6 * Double(i % 97) / 96, across = 0.2 + 0.6 * Double((i * 7919) % 1000) / 999
        _ = s.receive(.wheel(WheelEvent(x: 1600 * across, y: 900 * along, deltaY: -Double(30 + 6 * (i / 97 % 40)),
                                        time: Double(1000 + i), shift: true)), from: v)
    }
    func cpuSeconds() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }
    var cpu = 0.0, wall = 0.0, frames = 0
    for tick in 0..<170 {
        x += 0.02
        for i in 0..<4 { try! s.append(seriesId: "s\(i)", xs: [x], ys: [Double((tick * 7919 + i * 104729) % 1000) / 1000 - 0.5]) }
        let c0 = cpuSeconds(), w0 = DispatchTime.now().uptimeNanoseconds
        s.publish(now: Double(tick))
        for v in viewers {
            while let out = s.nextFrame(for: v) { if case .binary = out { frames += tick >= 20 ? 1 : 0; _ = s.receive(.ack, from: v) } }
        }
        if tick >= 20 { cpu += cpuSeconds() - c0; wall += Double(DispatchTime.now().uptimeNanoseconds - w0) / 1e9 }
    }
    print("views: \(count) viewers, \(frames) frames: \(String(format: "%.1f", cpu / Double(frames) * 1e6)) µs of CPU a view-frame, "
          + "\(String(format: "%.2f", wall / 150 * 1000)) ms a publication (wall)")
    exit(0)
}

// MARK: Live scenarios (a real server, fed and watched by cwload)

if args.live {
    let binDir = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent().path
    let fm = FileManager.default
    if !fm.isExecutableFile(atPath: binDir + "/wsserver") || !fm.isExecutableFile(atPath: binDir + "/cwload") {
        // `swift run chartbench` builds chartbench only: build the two it drives.
        let build = Process()
        build.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        build.arguments = ["swift", "build", "-c", binDir.contains("/debug") ? "debug" : "release"]
        try? build.run()
        build.waitUntilExit()
    }
    // `--only` naming live groups (monitor, fanout, ingest, ...) runs only those; naming
    // only the cluster, none of them; otherwise all.
    let named = args.only.map { $0.intersection(liveGroups) } ?? liveGroups
    let groups = named.isEmpty && !wants("cluster") && !wants("export") ? liveGroups : named
    if !groups.isEmpty {
        do {
            for row in try runLive(binDir: binDir, quick: args.quick, groups: groups).rows {
                record(row.0, row.1, baseline: row.2, unit: row.3)
            }
        } catch {
            FileHandle.standardError.write(Data("chartbench: live figures left out: \(error)\n".utf8))
        }
    }
    // The cluster (Redis, three nodes, nginx: Cluster.swift), a group of its own.
    if wants("cluster") {
        do {
            for row in try runCluster(binDir: binDir, quick: args.quick).rows {
                record(row.0, row.1, baseline: row.2, unit: row.3)
            }
        } catch {
            FileHandle.standardError.write(Data("chartbench: cluster figures left out: \(error)\n".utf8))
        }
    }
}

// MARK: Output

func format(_ v: Double, _ unit: String) -> String {
    guard v.isFinite else { return "-" }
    switch unit {
    case "B": return String(Int(v))
    case "MB": return String(format: "%.1f", v)
    case "/s": return v >= 1e5 ? String(format: "%.3g", v) : String(format: "%.1f", v)
    case "%", "B/s", "viewers", "": return String(format: v >= 100 ? "%.0f" : "%.2f", v)
    default: return v < 1 ? String(format: "%.3f", v) : String(format: "%.2f", v)
    }
}
/// A baseline's unit, from its name where it differs from its figure's.
func unit(of name: String, otherwise: String) -> String {
    if name.hasPrefix("fanout_viewers") { return "viewers" }
    if name.hasSuffix("_pct") { return "%" }
    if name.hasSuffix("_ms") { return "ms" }
    if name.hasSuffix("_mb") { return "MB" }
    if name.contains("fps") || name.contains("frames_per_s") { return "/s" }
    return otherwise
}

let nameWidth = max(30, rows.map(\.name.count).max() ?? 0)
let baseWidth = max(30, rows.map(\.baselineName.count).max() ?? 0)
func pad(_ s: String, _ n: Int) -> String { s + String(repeating: " ", count: max(0, n - s.count)) }
func lpad(_ s: String, _ n: Int) -> String { String(repeating: " ", count: max(0, n - s.count)) + s }
print("chartbench\(args.quick ? " --quick" : "") · 1920x1080, dpr 1 · median of \(runs) runs (naive: \(naiveRuns))")
print(pad("figure", nameWidth) + " " + lpad("value", 14) + "  " + pad("baseline (same run)", baseWidth) + " " + lpad("value", 14) + " " + lpad("ratio", 8))
print(String(repeating: "-", count: nameWidth + baseWidth + 42))
for r in rows {
    let ratio = r.baseline.isFinite && r.value > 0 ? String(format: "%.1fx", r.baseline / r.value) : "-"
    let baseUnit = unit(of: r.baselineName, otherwise: r.unit)
    // A ratio only where the baseline is the same quantity measured another way.
    let shownRatio = baseUnit == r.unit && !r.name.contains("growth") ? ratio : ""
    print(pad(r.name, nameWidth) + " " + lpad(format(r.value, r.unit) + " " + r.unit, 14) + "  " + pad(r.baselineName, baseWidth)
          + " " + lpad(format(r.baseline, baseUnit) + " " + baseUnit, 14) + " " + lpad(shownRatio, 8))
}

if let path = args.jsonPath {
    var text = "{\"figures\":{"
    text += figures.map { "\"\($0.0)\":\($0.1.isFinite ? String($0.1) : "null")" }.joined(separator: ",")
    text += "}}\n"
    do { try text.write(toFile: path, atomically: true, encoding: .utf8) } catch {
        FileHandle.standardError.write(Data("chartbench: cannot write \(path): \(error)\n".utf8))
        exit(1)
    }
}
