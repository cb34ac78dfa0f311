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
    assert ('font-family: "Liberation Serif"; src: url(../font/LiberationSerif-BoldItalic.ttf) format("truetype"); '
            "font-weight: 700; font-style: italic;") in page


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
        fetched = d.execute_script("return performance.getEntriesByType('resource').map(e => e.name)"
                                   ".filter(n => n.includes('/font/Liberation'))")
        # Only the faces the chart uses (of 16 served).
        names = sorted(f.rsplit("/", 1)[1] for f in fetched)
        assert names == sorted(["LiberationSerif-BoldItalic.ttf", "LiberationSerif-Italic.ttf", "LiberationSerif-Regular.ttf",
                                "LiberationMono-Regular.ttf", "LiberationSansNarrow-Bold.ttf",
                                "LiberationSansNarrow-Regular.ttf", "LiberationSans-Bold.ttf"]), names
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
