"""The chart font as the page gets it: WOFF2 subsets by unicode-range, loaded before
the WebSocket opens, small on the wire, and drawing exactly what the server measures."""
import json
import pathlib
import urllib.error
import urllib.parse
import urllib.request

from fontTools.ttLib import TTFont

from test_browser import browser, wait_for

ROOT = pathlib.Path(__file__).resolve().parents[2]
FONTS = ROOT / "web" / "fonts"
TTF = {"regular": "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
       "bold": "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"}


def manifest():
    return json.loads((FONTS / "manifest.json").read_text())


def test_subsets_keep_every_advance_and_kerning_pair_of_the_ttf():
    """A regeneration can never drift from what the server measures."""
    m = manifest()
    for face, path in TTF.items():
        ttf = TTFont(path)
        cmap, hmtx = ttf.getBestCmap(), ttf["hmtx"]
        src = m["sources"][face]
        assert src["size"] == pathlib.Path(path).stat().st_size
        assert src["checkSumAdjustment"] == ttf["head"].checkSumAdjustment
        covered = set()
        for f in (f for f in m["files"] if f["face"] == face):
            sub = TTFont(FONTS / f["file"])
            scmap, shmtx = sub.getBestCmap(), sub["hmtx"]
            for cp, glyph in scmap.items():
                assert shmtx[glyph][0] == hmtx[cmap[cp]][0], (f["file"], hex(cp))
            covered |= set(scmap)
            assert "GPOS" in sub or "kern" in sub            # kerning kept
            assert "GSUB" in sub                             # ligatures kept
        assert covered == set(cmap)                          # every code point in some subset


def test_font_routes(static_server):
    m = manifest()
    latin = next(f["file"] for f in m["files"] if f["face"] == "regular" and f["range"] == "latin")
    with urllib.request.urlopen(f"{static_server.http}/fonts/{latin}") as r:
        assert r.headers["content-type"] == "font/woff2"
        assert "immutable" in r.headers["cache-control"]
        assert r.read() == (FONTS / latin).read_bytes()
    for bad in ["nope.woff2", "manifest.json", "regular-latin.woff2"]:
        try:
            urllib.request.urlopen(f"{static_server.http}/fonts/{bad}")
            raise AssertionError(f"{bad} was served")
        except urllib.error.HTTPError as e:
            assert e.code in (403, 404)
    with urllib.request.urlopen(f"{static_server.http}/s/static") as r:
        page = r.read().decode()
    assert f'rel="preload" href="../fonts/{latin}"' in page and "unicode-range" in page
    # The fallback subsets (read from disk when asked for, not held): the same bytes.
    fallback = json.loads((FONTS / "fallback" / "manifest.json").read_text())
    cjk = next(f["file"] for f in fallback["files"] if f["font"] == "Noto Sans CJK JP" and f["weight"] == 700)
    assert f"url(../fonts/{cjk})" in page
    with urllib.request.urlopen(f"{static_server.http}/fonts/{cjk}") as r:
        assert r.headers["content-type"] == "font/woff2" and "immutable" in r.headers["cache-control"]
        assert r.read() == (FONTS / "fallback" / cjk).read_bytes()
    with urllib.request.urlopen(f"{static_server.http}/font/regular.ttf") as r:   # still there for other tools
        assert r.read() == pathlib.Path(TTF["regular"]).read_bytes()


def test_page_loads_only_the_subsets_it_needs_and_draws_soon(static_server):
    d = browser()
    try:
        d.get(f"{static_server.http}/s/static")
        wait_for(d, "return window.chartwire && window.chartwire.draws > 0", message="first drawn frame")
        entries = d.execute_script("""return performance.getEntriesByType('resource')
            .map(e => ({name: e.name, size: e.transferSize, start: e.startTime}))""")
        fonts = [e for e in entries if "/font" in e["name"]]
        assert fonts and all(e["name"].endswith(".woff2") and "latin" in e["name"] for e in fonts), fonts
        total = sum(e["size"] for e in entries) + d.execute_script(
            "return performance.getEntriesByType('navigation')[0].transferSize")
        assert total < 300_000, total
    finally:
        d.quit()


def test_server_widths_match_chromium_in_every_subset(demo_server):
    d = browser()
    try:
        d.get(f"{demo_server.http}/s/demo")
        wait_for(d, "return window.chartwire && window.chartwire.draws > 0", message="first frame")
        strings = ["office fluffy AV To", "Ærøskøbing ŁÓDŹ ő", "Αθήνα λόγος", "Москва съезд", "−12.5 × 10³",
                   "naïve café", "Ωμέγα 42 Ж"]
        for bold in (False, True):
            for s in strings:
                q = urllib.parse.urlencode({"text": s, "size": 13, "bold": int(bold)})
                with urllib.request.urlopen(f"{demo_server.http}/api/measure?{q}") as r:
                    server = json.load(r)
                d.execute_script("return document.fonts.load(arguments[0], arguments[1])", server["font"], s)
                wait_for(d, f"return document.fonts.check({json.dumps(server['font'])}, {json.dumps(s)})",
                         message=f"the subsets for {s!r}")
                chromium = d.execute_script(
                    "const c = document.createElement('canvas').getContext('2d');"
                    "c.font = arguments[0]; return c.measureText(arguments[1]).width;", server["font"], s)
                assert abs(chromium - server["width"]) <= 1, (s, bold, server["width"], chromium)
    finally:
        d.quit()


def test_canvas_text_in_other_scripts_is_drawn_with_its_own_subset():
    """Greek and Cyrillic titles and legend names: the page loads those subsets when a
    layer needs them and draws the layer again, so no text stays in a fallback font."""
    from conftest import FIXTURES, Server
    server = Server("--config", str(FIXTURES / "scripts.json")).start()
    d = browser()
    try:
        d.get(f"{server.http}/s/scripts")
        wait_for(d, "return window.chartwire && window.chartwire.draws > 0", message="first frame")
        wait_for(d, "return window.chartwire.fontRedraws > 0", message="a redraw once a subset loaded")
        missing = wait_for(d, """
            const texts = Object.values(window.chartwire.layers).flatMap(l => l.commands.filter(c => c.op === 'text'));
            const missing = texts.filter(c => !document.fonts.check(c.font, c.text)).map(c => c.text);
            return missing.length === 0 ? ['none'] : null;""", message="every text's subset loaded")
        assert missing == ["none"]
        fonts = d.execute_script("return performance.getEntriesByType('resource').map(e => e.name)"
                                 ".filter(n => n.includes('/fonts/'))")
        assert any("greek" in f for f in fonts) and any("cyrillic" in f for f in fonts), fonts
        d.save_screenshot(str(ROOT / "artifacts" / "scripts.png"))
    finally:
        d.quit()
        server.stop()


LIBERATION = pathlib.Path("/usr/share/fonts/truetype/liberation")
FAMILIES = FONTS / "families"


def family_manifest():
    return json.loads((FAMILIES / "manifest.json").read_text())


def test_family_subsets_keep_every_advance_and_kerning_pair_of_the_ttf():
    """The --fonts families' subsets (made at setup by make-fonts --families from the
    Liberation files): every code point of each file in one subset, with its advance,
    and the layout tables kept."""
    m = family_manifest()
    assert len(m["sources"]) == 16, sorted(m["sources"])
    for served, src in m["sources"].items():
        path = LIBERATION / served
        ttf = TTFont(path)
        cmap, hmtx = ttf.getBestCmap(), ttf["hmtx"]
        assert src["size"] == path.stat().st_size and src["checkSumAdjustment"] == ttf["head"].checkSumAdjustment
        covered = set()
        subsets = [f for f in m["files"] if f["source"] == served]
        assert {f["range"] for f in subsets} == {"latin", "latin-ext", "greek", "cyrillic", "rest"}, served
        for f in subsets:
            sub = TTFont(FAMILIES / f["file"])
            assert sub.flavor == "woff2"
            scmap, shmtx = sub.getBestCmap(), sub["hmtx"]
            for cp, glyph in scmap.items():
                assert shmtx[glyph][0] == hmtx[cmap[cp]][0], (f["file"], hex(cp))
            covered |= set(scmap)
            assert ("GPOS" in sub) == ("GPOS" in ttf) and ("GSUB" in sub) == ("GSUB" in ttf)
            assert "fpgm" not in sub and "prep" not in sub              # hinting dropped
        assert covered == set(cmap), served


def test_server_widths_match_chromium_in_a_charts_own_fonts(demo_server):
    """The width test for a chart's own font (`--fonts`, by default Debian's Liberation):
    every face of each family, strings with kerning pairs, digits and a character the
    family lacks (it falls back to the chart font in both): Chromium's canvas measures
    what the server measures, within 1 px."""
    d = browser()
    try:
        d.get(f"{demo_server.http}/s/demo")
        wait_for(d, "return window.chartwire && window.chartwire.draws > 0", message="first frame")
        strings = ["office fluffy AV To Wa", "Harbour tide 06:12", "−12.5 × 10³", "naïve café Ωμέγα", "Tide ≅ ⌘ 42"]
        worst = 0.0
        for family in ["Liberation Sans", "Liberation Serif", "Liberation Mono", "Liberation Sans Narrow"]:
            for bold in (False, True):
                for italic in (False, True):
                    for s in strings:
                        q = urllib.parse.urlencode({"text": s, "size": 13, "bold": int(bold), "italic": int(italic),
                                                    "family": family})
                        with urllib.request.urlopen(f"{demo_server.http}/api/measure?{q}") as r:
                            server = json.load(r)
                        assert server["family"] == family and f'"{family}", ChartWire Sans' in server["font"]
                        d.execute_script("return document.fonts.load(arguments[0], arguments[1])", server["font"], s)
                        wait_for(d, f"return document.fonts.check({json.dumps(server['font'])}, {json.dumps(s)})",
                                 message=f"{family} for {s!r}")
                        chromium = d.execute_script(
                            "const c = document.createElement('canvas').getContext('2d');"
                            "c.font = arguments[0]; return c.measureText(arguments[1]).width;", server["font"], s)
                        worst = max(worst, abs(chromium - server["width"]))
                        assert abs(chromium - server["width"]) <= 1, (family, bold, italic, s, server["width"], chromium)
        # Measured with the WOFF2 subsets, never the files themselves.
        fetched = d.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
        assert not [f for f in fetched if "/font/Liberation" in f], fetched
        assert len([f for f in fetched if "/fonts/liberation" in f and f.endswith(".woff2")]) >= 16 * 2, fetched
        # The chart's own font is not the chart font: the same string measures differently.
        q = urllib.parse.urlencode({"text": strings[0], "size": 13})
        with urllib.request.urlopen(f"{demo_server.http}/api/measure?{q}") as r:
            assert abs(json.load(r)["width"] - server["width"]) > 5
        print(f"largest difference: {worst:.4f} px")
    finally:
        d.quit()


def test_family_errors_and_files(demo_server):
    for query, why in [({"family": "Garamond"}, 'no font family "Garamond" on this server: it has "Liberation Mono"'),
                       ({"italic": 1}, "the chart font (ChartWire Sans) has no italic")]:
        q = urllib.parse.urlencode({"text": "x", **query})
        try:
            urllib.request.urlopen(f"{demo_server.http}/api/measure?{q}")
            raise AssertionError("measured")
        except urllib.error.HTTPError as e:
            assert e.code == 400 and why in json.load(e)["error"], e
    with urllib.request.urlopen(f"{demo_server.http}/font/LiberationSerif-BoldItalic.ttf") as r:
        assert r.headers["content-type"] == "font/ttf"
        assert r.read() == (LIBERATION / "LiberationSerif-BoldItalic.ttf").read_bytes()
    with urllib.request.urlopen(f"{demo_server.http}/s/gallery-fonts") as r:
        page = r.read().decode()
    # The page names the face's subsets, one rule per unicode-range, not the file.
    m = family_manifest()
    for f in (f for f in m["files"] if f["source"] == "LiberationSerif-BoldItalic.ttf"):
        assert (f'font-family: "Liberation Serif"; src: url(../fonts/{f["file"]}) format("woff2"); '
                f'font-weight: 700; font-style: italic; font-display: block; unicode-range: {f["unicodeRange"]}; }}') in page
        with urllib.request.urlopen(f"{demo_server.http}/fonts/{f['file']}") as r:
            assert r.headers["content-type"] == "font/woff2" and "immutable" in r.headers["cache-control"]
            assert r.read() == (FAMILIES / f["file"]).read_bytes()
    assert "url(../font/Liberation" not in page


TITLE_REDRAWN = """
const text = arguments[0];
const cmd = Object.values(window.chartwire.layers).flatMap(l => l.commands).find(c => c.op === 'text' && c.text === text);
if (!cmd) return null;
// (A layer's canvas covers its box, and most are bitmaprenderer canvases: each is read
// through a 2D copy, at its place in the chart.)
for (const canvas of document.querySelectorAll('canvas')) {
  const rect = canvas.getBoundingClientRect(), host = canvas.parentElement.getBoundingClientRect();
  if (!rect.width || !canvas.width) continue;
  const dpr = canvas.width / rect.width, ox = rect.left - host.left, oy = rect.top - host.top;
  const ref = document.createElement('canvas'); ref.width = canvas.width; ref.height = canvas.height;
  const r = ref.getContext('2d');
  r.drawImage(canvas, 0, 0);
  r.setTransform(dpr, 0, 0, dpr, -ox * dpr, -oy * dpr);
  r.font = cmd.font;
  const w = r.measureText(cmd.text).width, size = parseFloat(cmd.font.match(/([0-9.]+)px/)[1]);
  const left = (cmd.align === 'center' ? cmd.x - w / 2 : cmd.align === 'right' || cmd.align === 'end' ? cmd.x - w : cmd.x) - ox;
  const x0 = Math.max(0, Math.floor((left - 4) * dpr)), x1 = Math.min(canvas.width, Math.ceil((left + w + 4) * dpr));
  const y0 = Math.max(0, Math.floor((cmd.y - oy - 2 * size) * dpr)), y1 = Math.min(canvas.height, Math.ceil((cmd.y - oy + 2 * size) * dpr));
  if (x1 <= x0 || y1 <= y0) continue;
  const before = r.getImageData(x0, y0, x1 - x0, y1 - y0).data;
  const corner = Array.from(before.slice(0, 4));
  if (before.every((v, i) => v === corner[i % 4])) continue;       // not this canvas
  r.setTransform(1, 0, 0, 1, 0, 0);
  r.clearRect(x0, y0, x1 - x0, y1 - y0);
  r.fillStyle = `rgba(${corner[0]}, ${corner[1]}, ${corner[2]}, ${corner[3] / 255})`;
  r.fillRect(x0, y0, x1 - x0, y1 - y0);
  r.setTransform(dpr, 0, 0, dpr, -ox * dpr, -oy * dpr);
  r.fillStyle = cmd.fill; r.textAlign = cmd.align; r.textBaseline = cmd.baseline;
  r.fillText(cmd.text, cmd.x, cmd.y);
  const after = r.getImageData(x0, y0, x1 - x0, y1 - y0).data;
  let ink = 0, differ = 0;
  for (let i = 0; i < after.length; i += 4) {
    const a = [0, 1, 2, 3].some(k => Math.abs(after[i + k] - corner[k]) > 40);
    if (a) ink++;
    if ([0, 1, 2, 3].some(k => Math.abs(after[i + k] - before[i + k]) > 40)) differ++;
  }
  return {ink, differ, font: cmd.font};
}
return null;
"""


def test_text_in_a_charts_own_family_is_drawn_only_in_its_face():
    """Every fillText of gallery-fonts happens with its font loaded: a layer with text
    in a family of its own waits for the face (no frame drawn in a stand-in)."""
    from conftest import Server
    server = Server().start()
    d = browser()
    try:
        d.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": """
            window.__fillTexts = [];
            // (The page draws most layers into offscreen canvases: both kinds of context.)
            for (const kind of [CanvasRenderingContext2D, OffscreenCanvasRenderingContext2D]) {
              const orig = kind.prototype.fillText;
              kind.prototype.fillText = function (text, x, y, w) {
                window.__fillTexts.push({font: this.font, text, ready: document.fonts.check(this.font, text)});
                return orig.apply(this, arguments);
              };
            }"""})
        d.get(f"{server.http}/s/gallery-fonts")
        wait_for(d, "return window.chartwire && window.chartwire.draws > 0", message="first frame")
        wait_for(d, "return window.__fillTexts.some(t => t.text === 'Harbour tide and temperature')", message="the title")
        texts = d.execute_script("return window.__fillTexts")
        own = [t for t in texts if "Liberation" in t["font"]]
        assert len(own) >= 30, len(own)
        assert all(t["ready"] for t in own), [t for t in own if not t["ready"]][:3]
        assert any("italic" in t["font"] and "Liberation Serif" in t["font"] for t in own)
        # The title's pixels are those of its own face: drawn again on a copy of its
        # canvas (the title's box cleared to the colour around it), they do not change.
        # (A first draw just after the face loaded once drew the chart font instead.)
        changed = d.execute_script(TITLE_REDRAWN, "Harbour tide and temperature")
        assert changed is not None and changed["ink"] > 100 and changed["differ"] <= changed["ink"] * 0.02, changed
        fetched = d.execute_script("return performance.getEntriesByType('resource').map(e => e.name)"
                                   ".filter(n => n.includes('/font/') || n.includes('/fonts/liberation'))")
        # The faces' WOFF2 subsets, never their TTF files; only the faces the chart uses
        # (of 16 served), and of those only the Latin subsets its Latin text needs.
        by_file = {f["file"]: f for f in family_manifest()["files"]}
        names = [f.rsplit("/", 1)[1] for f in fetched]
        assert names and all(n in by_file for n in names), names
        assert sorted(by_file[n]["source"] for n in names) == sorted([
            "LiberationSerif-BoldItalic.ttf", "LiberationSerif-Italic.ttf", "LiberationSerif-Regular.ttf",
            "LiberationMono-Regular.ttf", "LiberationSansNarrow-Bold.ttf",
            "LiberationSansNarrow-Regular.ttf", "LiberationSans-Bold.ttf"]), names
        assert {by_file[n]["range"] for n in names} == {"latin"}, names
        d.save_screenshot(str(ROOT / "artifacts" / "gallery-fonts.png"))
    finally:
        d.quit()
        server.stop()


def test_a_patch_sets_the_family_and_an_unknown_one_is_refused(demo_server):
    def patch(body):
        req = urllib.request.Request(f"{demo_server.http}/api/sessions/gallery-time", data=json.dumps(body).encode(),
                                     method="PATCH")
        return urllib.request.urlopen(req)
    with patch({"chart": {"fontFamily": "Liberation Serif", "titleFont": {"italic": True}}}) as r:
        assert r.status == 200
    with urllib.request.urlopen(f"{demo_server.http}/api/sessions/gallery-time/frame.json") as r:
        frame = json.load(r)
    fonts = {c["font"] for layer in frame["layers"] for c in layer["commands"] if c["op"] == "text"}
    assert fonts and all('"Liberation Serif", ChartWire Sans' in f for f in fonts), fonts
    assert 'italic bold 16px "Liberation Serif", ChartWire Sans' in fonts
    try:
        patch({"chart": {"fontFamily": "Comic Sans"}})
        raise AssertionError("patched")
    except urllib.error.HTTPError as e:
        assert e.code == 400 and 'no font family "Comic Sans" on this server: it has "Liberation Mono"' in json.load(e)["error"]


def test_a_stale_family_manifest_serves_the_file_itself(tmp_path):
    """A --fonts file that is not the one the subsets were made from (the same name and
    size, another checkSumAdjustment), or that the manifest does not list, is served as
    it is, and the start-up log says why; an unchanged file keeps its subsets."""
    import shutil
    from conftest import FIXTURES, Server
    shutil.copy(LIBERATION / "LiberationSans-Regular.ttf", tmp_path)
    shutil.copy(LIBERATION / "LiberationSerif-Regular.ttf", tmp_path / "MySerif.ttf")
    changed = bytearray((LIBERATION / "LiberationMono-Regular.ttf").read_bytes())
    head = TTFont(LIBERATION / "LiberationMono-Regular.ttf").reader.tables["head"].offset
    changed[head + 8] ^= 0x01                                        # head.checkSumAdjustment
    (tmp_path / "LiberationMono-Regular.ttf").write_bytes(bytes(changed))
    server = Server("--config", str(FIXTURES / "static.json"), "--fonts", str(tmp_path))
    server.args.remove("--quiet")
    server.start()
    d = browser()
    try:
        with urllib.request.urlopen(f"{server.http}/s/static") as r:
            page = r.read().decode()
        assert ('font-family: "Liberation Mono"; src: url(../font/LiberationMono-Regular.ttf) format("truetype"); '
                "font-weight: 400; font-style: normal; font-display: block; }") in page
        assert 'font-family: "Liberation Serif"; src: url(../font/MySerif.ttf) format("truetype");' in page
        sans = [f for f in family_manifest()["files"] if f["source"] == "LiberationSans-Regular.ttf"]
        assert sans and all(f"url(../fonts/{f['file']}) format(\"woff2\")" in page for f in sans)
        assert "liberationmono" not in page and "liberationserif" not in page
        with urllib.request.urlopen(f"{server.http}/font/LiberationMono-Regular.ttf") as r:
            assert r.read() == bytes(changed)
        # The page loads the file itself for the stale face, the subset for the other.
        d.get(f"{server.http}/s/static")
        wait_for(d, "return window.chartwire && window.chartwire.draws > 0", message="first frame")
        for font in ['13px "Liberation Mono"', '13px "Liberation Sans"']:
            d.execute_script("return document.fonts.load(arguments[0], 'Tide 42')", font)
            wait_for(d, f"return document.fonts.check({json.dumps(font)}, 'Tide 42')", message=font)
        fetched = [n.rsplit("/", 1)[1] for n in d.execute_script(
            "return performance.getEntriesByType('resource').map(e => e.name)"
            ".filter(n => n.includes('/font/') || n.includes('/fonts/liberation'))")]
        latin = next(f["file"] for f in sans if f["range"] == "latin")
        assert sorted(fetched) == sorted(["LiberationMono-Regular.ttf", latin]), fetched
    finally:
        d.quit()
        server.stop()
    log = server.proc.stderr.read()
    assert (f"{tmp_path}/LiberationMono-Regular.ttf: the subsets in {FAMILIES} were made from another "
            "LiberationMono-Regular.ttf (size or checkSumAdjustment differ") in log, log
    assert "manifest.json has no subsets of MySerif.ttf" in log, log
    assert f"1 faces of the --fonts families served as WOFF2 subsets from {FAMILIES}" in log, log
