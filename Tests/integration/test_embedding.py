"""Charts embedded in pages of other origins (docs/embedding.md): the <chartwire-chart>
element and a plain iframe of /e/{session}, from a page served on another port, in
headless Chromium; and the same page from an origin outside the allow-list, refused
by frame-ancestors and at the WebSocket upgrade."""
import functools
import http.server
import json
import threading
import time
import urllib.error
import urllib.request

import pytest
import websocket
from selenium.webdriver.common.by import By

from conftest import ROOT, Server, free_port
from pngread import pixel, read_png
from test_browser import browser, hex_rgb, wait_for

TOKEN = "embed-viewer-token-1"
LINE = "#1f77b4"
SECRET = "#d62728"


def spec(allowed):
    def session(id, color, access=None):
        s = {"id": id, "title": id.capitalize(),
             "chart": {"title": id.capitalize(),
                       "xAxes": [{"id": "x", "title": "X", "mode": "extents"}],
                       "yAxes": [{"id": "y", "title": "Y", "mode": "fixed", "range": [-10, 110]}],
                       "series": [{"id": "line", "name": "Line", "color": color, "strokeWidth": 3,
                                   "data": {"x": list(range(0, 1001, 100)), "y": list(range(0, 101, 10))}}]}}
        if access:
            s["access"] = access
        return s
    return {"server": {"allowOrigins": allowed},
            "sessions": [session("line", LINE), session("secret", SECRET, {"viewerTokens": [TOKEN]})]}


HOST_PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><title>someone else's page</title>
<style>body {{ margin: 0; font: 14px sans-serif; }} .row {{ display: flex; gap: 8px; padding: 8px; }}
chartwire-chart, iframe {{ width: 480px; height: 320px; border: 0; }}</style>
<script src="{server}/embed.js"></script></head>
<body>
<div class="row">
  <chartwire-chart id="element" server="{server}" session="line"></chartwire-chart>
  <iframe id="frame" src="{server}/e/line"></iframe>
</div>
<div class="row">
  <chartwire-chart id="token" server="{server}" session="secret" token="{token}"></chartwire-chart>
  <chartwire-chart id="notoken" server="{server}" session="secret"></chartwire-chart>
</div>
<script>
  window.reports = {{}};
  for (const el of document.querySelectorAll("chartwire-chart"))
    el.addEventListener("chartwire-status", (ev) => {{ (window.reports[el.id] ||= []).push(ev.detail); }});
  window.frameReports = [];
  window.addEventListener("message", (ev) => {{
    if (ev.source === document.getElementById("frame").contentWindow) window.frameReports.push(ev.data);
  }});
</script>
</body></html>
"""


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


class HostSite:
    """A second origin: a plain static site on its own port, serving the host page."""

    def __init__(self, directory):
        handler = functools.partial(QuietHandler, directory=str(directory))
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), handler)
        self.origin = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def sites(tmp_path):
    allowed, foreign = HostSite(tmp_path), HostSite(tmp_path)
    config = tmp_path / "embed.json"
    config.write_text(json.dumps(spec([allowed.origin])))
    server = Server("--config", str(config)).start()
    (tmp_path / "host.html").write_text(HOST_PAGE.format(server=server.http, token=TOKEN))
    yield server, allowed, foreign
    assert server.alive(), "the server died during the test"
    server.stop()
    allowed.close()
    foreign.close()


def headers(url, origin=None):
    req = urllib.request.Request(url, headers={"Origin": origin} if origin else {})
    with urllib.request.urlopen(req, timeout=5) as r:
        return {k.lower(): v for k, v in r.headers.items()}


def colour_share(shot, box, rgb, tolerance=40):
    """Of the pixels of box (x, y, w, h in CSS pixels at dpr 1), the share near rgb and
    the share that is not white (the chart drew something)."""
    x0, y0, w, h = (int(round(v)) for v in box)
    near = drawn = total = 0
    for y in range(y0 + 1, y0 + h - 1, 2):
        for x in range(x0 + 1, x0 + w - 1, 2):
            p = pixel(shot, x, y)[:3]
            total += 1
            near += max(abs(a - b) for a, b in zip(p, rgb)) < tolerance
            drawn += min(p) < 235
    return near / total, drawn / total


def box(d, element_id):
    return d.execute_script(f"""const r = document.getElementById("{element_id}").getBoundingClientRect();
                                return [r.left, r.top, r.width, r.height];""")


def last(d, element_id):
    return d.execute_script(f"const r = window.reports['{element_id}'] || []; return r[r.length - 1] || null;")


def test_embedded_from_an_allowed_origin_draws_through_element_and_iframe(sites, artifacts):
    server, allowed, _ = sites
    # The pages say who may frame them: the server itself and the allowed origin.
    csp = headers(f"{server.http}/e/line")["content-security-policy"]
    assert csp == f"frame-ancestors 'self' {allowed.origin}"
    # Fonts, the script and the client's files may be read from the allowed origin (CORS).
    font = sorted(p.name for p in (ROOT / "web" / "fonts").glob("regular-latin.*.woff2"))[0]
    for path in ["/embed.js", "/client.js", "/client.css", "/fonts/" + font]:
        assert headers(server.http + path, allowed.origin).get("access-control-allow-origin") == allowed.origin
    d = browser(1000, 860)
    try:
        d.get(f"{allowed.origin}/host.html")
        wait_for(d, "const e = document.getElementById('element').chartwire; return e.frames > 0 && e.draws > 0 && e.connected",
                 timeout=20, message="the element's chart to draw")
        wait_for(d, "return window.frameReports.some(r => r.frames > 0 && r.draws > 0)", timeout=20, message="the iframe's chart to draw")
        wait_for(d, "return document.getElementById('token').chartwire.frames > 0", timeout=20,
                 message="the token session to draw")
        # Frames keep coming to the element (the chart is live, not a single picture).
        element = last(d, "element")
        assert element["title"] == "Line" and element["status"] == "live" and element["size"]["width"] == 480 \
            and element["size"]["height"] == 320, element
        # The element's CSS box sizes the chart (a dashboard tile made larger).
        d.execute_script("const e = document.getElementById('element'); e.style.width = '400px'; e.style.height = '360px';")
        wait_for(d, "const s = document.getElementById('element').chartwire.size; return s.width === 400 && s.height === 360",
                 timeout=10, message="the element's chart to follow its box")
        d.execute_script("const e = document.getElementById('element'); e.style.width = ''; e.style.height = '';")
        wait_for(d, "const s = document.getElementById('element').chartwire.size; return s.width === 480 && s.height === 320",
                 timeout=10, message="the element's chart back at 480x320")
        # A session that needs a token still needs it when embedded.
        wait_for(d, "const r = window.reports.notoken || []; return r.some(x => (x.errors || []).includes('unauthorized'))",
                 timeout=20, message="the token-less element to be refused")
        assert d.execute_script("return document.getElementById('notoken').chartwire.frames") == 0
        # The element's page is the server's own: the host page cannot reach into it.
        assert d.execute_script("""try { return document.getElementById('element').shadowRoot
                                     .querySelector('iframe').contentWindow.chartwire === undefined ? 'hidden' : 'read'; }
                                   catch (e) { return 'blocked'; }""") in ("hidden", "blocked")
        # Inside the plain iframe: the client's own figures.
        d.switch_to.frame(d.find_element(By.ID, "frame"))
        inner = d.execute_script("return {frames: window.chartwire.frames, header: !!document.querySelector('header'),"
                                 " w: innerWidth, h: innerHeight, errors: window.chartwire.errors.length}")
        d.switch_to.default_content()
        assert inner["frames"] > 0 and not inner["header"] and (inner["w"], inner["h"]) == (480, 320) \
            and inner["errors"] == 0, inner
        time.sleep(0.5)
        png = d.get_screenshot_as_png()
        (artifacts / "embed-allowed.png").write_bytes(png)
        d.find_element(By.ID, "element").screenshot(str(artifacts / "embed-element-480x320.png"))
        shot = read_png(png)
        for id, rgb in [("element", LINE), ("frame", LINE), ("token", SECRET)]:
            near, drawn = colour_share(shot, box(d, id), hex_rgb(rgb))
            # The line's colour is there, and axes and labels drew (not a blank frame).
            assert near > 0.002 and drawn > 0.01, (id, near, drawn)
        near, drawn = colour_share(shot, box(d, "notoken"), hex_rgb(SECRET))
        assert near == 0, ("the token-less element shows the series", near)
        # A WebSocket from the allowed origin's page itself is accepted too.
        assert d.execute_async_script(f"""const done = arguments[0];
            const ws = new WebSocket("{server.ws}/ws/line", "chartwire.v1");
            ws.onopen = () => {{ ws.close(); done("open"); }}; ws.onerror = () => done("error");""") == "open"
    finally:
        d.quit()


def test_an_origin_outside_the_allow_list_is_refused(sites, artifacts):
    server, allowed, foreign = sites
    csp = headers(f"{server.http}/e/line")["content-security-policy"]
    assert foreign.origin not in csp
    # Its reads get no CORS permission.
    assert "access-control-allow-origin" not in headers(f"{server.http}/embed.js", foreign.origin)
    d = browser(1000, 860)
    try:
        d.get(f"{foreign.origin}/host.html")
        # The element's frame never starts (frame-ancestors): after its start-up wait it
        # says so and tries again later, and never draws.
        wait_for(d, "return document.getElementById('element').chartwire.status === 'unreachable'", timeout=15,
                 message="the element to give up on its frame")
        assert d.execute_script("return document.getElementById('element').chartwire.frames") == 0
        assert d.execute_script("return window.frameReports.length") == 0
        # The plain iframe holds no chart page: Chromium put its error page there.
        d.switch_to.frame(d.find_element(By.ID, "frame"))
        inner = d.execute_script("return {chartwire: typeof window.chartwire, canvases: document.querySelectorAll('canvas').length}")
        d.switch_to.default_content()
        assert inner == {"chartwire": "undefined", "canvases": 0}, inner
        png = d.get_screenshot_as_png()
        (artifacts / "embed-refused.png").write_bytes(png)
        shot = read_png(png)
        for id in ["element", "frame"]:
            near, _ = colour_share(shot, box(d, id), hex_rgb(LINE))
            assert near == 0, (id, near)
        # A WebSocket from the foreign page is refused at the upgrade.
        assert d.execute_async_script(f"""const done = arguments[0];
            const ws = new WebSocket("{server.ws}/ws/line", "chartwire.v1");
            ws.onopen = () => done("open"); ws.onclose = (ev) => done("closed " + ev.code);""") == "closed 1006"
    finally:
        d.quit()
    with pytest.raises(websocket.WebSocketBadStatusException) as e:
        websocket.create_connection(f"{server.ws}/ws/line", subprotocols=["chartwire.v1"], origin=foreign.origin,
                                    timeout=5)
    assert e.value.status_code == 403
    ok = websocket.create_connection(f"{server.ws}/ws/line", subprotocols=["chartwire.v1"], origin=allowed.origin,
                                     timeout=5)
    ok.close()


def test_pages_refuse_frames_by_default_and_e_needs_a_session(demo_server):
    h = headers(f"{demo_server.http}/e/demo")
    assert h["content-security-policy"] == "frame-ancestors 'self'" and h["x-frame-options"] == "SAMEORIGIN"
    for path in ["/", "/s/demo", "/d/ops", "/gallery"]:
        assert headers(demo_server.http + path)["content-security-policy"] == "frame-ancestors 'self'", path
    # Not pages: no frame policy.
    assert "content-security-policy" not in headers(f"{demo_server.http}/api/sessions")
    with pytest.raises(urllib.error.HTTPError) as e:
        urllib.request.urlopen(f"{demo_server.http}/e/nothing", timeout=5)
    assert e.value.code == 404 and json.loads(e.value.read()) == {"error": 'no session "nothing"'}


def test_allow_origin_flag_replaces_the_config_files_list(tmp_path):
    config = tmp_path / "embed.json"
    config.write_text(json.dumps(spec(["https://file.example"])))
    s = Server("--config", str(config)).start()
    try:
        assert headers(f"{s.http}/e/line")["content-security-policy"] == "frame-ancestors 'self' https://file.example"
    finally:
        s.stop()
    s = Server("--config", str(config), "--allow-origin", "https://flag.example").start()
    try:
        assert headers(f"{s.http}/e/line")["content-security-policy"] == "frame-ancestors 'self' https://flag.example"
        with pytest.raises(websocket.WebSocketBadStatusException) as e:
            websocket.create_connection(f"{s.ws}/ws/line", subprotocols=["chartwire.v1"], origin="https://file.example",
                                        timeout=5)
        assert e.value.status_code == 403
    finally:
        s.stop()
    # A bad entry in the file stops the start with its path and why.
    config.write_text(json.dumps(spec(["https://portal.example/dash"])))
    bad = Server("--config", str(config))
    with pytest.raises(RuntimeError) as e:
        bad.start()
    assert '$.server.allowOrigins[0]: "https://portal.example/dash" is not an origin: an origin has no path' in str(e.value)


def test_element_loads_its_frame_again_when_the_server_comes_up_late(tmp_path):
    site = HostSite(tmp_path)
    port = free_port()
    config = tmp_path / "embed.json"
    config.write_text(json.dumps(spec([site.origin])))
    server_http = f"http://127.0.0.1:{port}"
    # The script comes from the host site here (the server is down); it names the server.
    (tmp_path / "embed.js").write_bytes((ROOT / "web" / "embed.js").read_bytes())
    (tmp_path / "late.html").write_text(f"""<!doctype html><body style="margin:0">
        <script src="embed.js"></script>
        <chartwire-chart id="element" server="{server_http}" session="line" style="width:480px;height:320px">
        </chartwire-chart></body>""")
    d = browser(600, 400)
    server = None
    try:
        d.get(f"{site.origin}/late.html")
        wait_for(d, "return document.getElementById('element').chartwire.reloads >= 1", timeout=20,
                 message="the element to notice the server is not there")
        server = Server("--config", str(config), port=port).start()
        wait_for(d, "return document.getElementById('element').chartwire.frames > 0", timeout=30,
                 message="the element to draw once the server is up")
        assert d.execute_script("return document.getElementById('element').chartwire.status") == "live"
    finally:
        d.quit()
        if server:
            server.stop()
        site.close()
