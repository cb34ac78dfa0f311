"""The viewer's "Reconnecting to data…" state in headless Chromium (docs/cluster.md,
"Viewers while Redis is away"): a node's Redis is stopped, and the banner shows on a
light chart's page, on a dark chart embedded at 480x320 (/e/) and in a dashboard's
cells; Redis is started again and it goes. Screenshots of each go to artifacts/.

Starts its own redis-server and node; skipped where redis-server is not installed."""
import shutil
import time

import pytest

from conftest import FIXTURES, Server
from pngread import pixel, read_png
from test_browser import browser, wait_for
from test_cluster import Redis

pytestmark = pytest.mark.skipif(shutil.which("redis-server") is None, reason="redis-server is not installed")

BANNERS_JS = "return [...document.querySelectorAll('.data-state')]"
SHOWN_JS = BANNERS_JS + ".map(e => !e.hidden && e.getBoundingClientRect().width > 0)"
# Where each banner sits, inside the chart that holds it, and its colours.
BOX_JS = """return [...document.querySelectorAll('.data-state')].map(e => {
    const b = e.getBoundingClientRect(), r = e.parentElement.getBoundingClientRect(), s = getComputedStyle(e);
    return {x: b.x, y: b.y, w: b.width, h: b.height, rx: r.x, ry: r.y, rw: r.width, rh: r.height,
            text: e.textContent, color: s.color, background: s.backgroundColor, events: s.pointerEvents,
            clipped: e.scrollWidth > e.clientWidth}; })"""


def luminance(css):
    """Relative luminance of rgb()/rgba() (alpha ignored: the banner's is 0.94)."""
    parts = [float(p) for p in css[css.index("(") + 1:-1].split(",")[:3]]
    lin = [c / 255 / 12.92 if c / 255 <= 0.03928 else ((c / 255 + 0.055) / 1.055) ** 2.4 for c in parts]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


@pytest.fixture
def node():
    redis = Redis().start()
    n = Server("--config", str(FIXTURES / "cluster-live.json"), "--redis", redis.url).start()
    yield redis, n
    n.stop()
    redis.stop()
    shutil.rmtree(redis.dir, ignore_errors=True)


def test_the_banner_shows_while_redis_is_away_and_goes_when_it_is_back(node, artifacts):
    redis, n = node
    pages = {"light": (browser(1000, 640), f"{n.http}/s/static"),
             "embed-dark-480x320": (browser(480, 320), f"{n.http}/e/dark"),
             "dashboard": (browser(1000, 640), f"{n.http}/d/both")}
    try:
        # (A headless window's viewport is not its window size: the tile is set exactly.)
        pages["embed-dark-480x320"][0].execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                                       {"width": 480, "height": 320, "deviceScaleFactor": 1, "mobile": False})
        for d, url in pages.values():
            d.get(url)
        for name, (d, _) in pages.items():
            first = "window.chartwire.charts.every(c => c.draws > 0)" if name == "dashboard" else "window.chartwire.draws > 0"
            wait_for(d, f"return window.chartwire && {first}", message=f"{name}: first frame")
            assert d.execute_script(SHOWN_JS) == [False] * (2 if name == "dashboard" else 1), name

        redis.proc.kill()
        redis.proc.wait()
        for name, (d, _) in pages.items():
            wait_for(d, SHOWN_JS + ".every(Boolean)", timeout=8, message=f"{name}: banner")
            state = "window.chartwire.charts.map(c => c.data)" if name == "dashboard" else "[window.chartwire.data]"
            assert set(d.execute_script("return " + state)) == {"reconnecting"}, name
            if name.endswith("480x320"):
                assert d.execute_script("return [innerWidth, innerHeight]") == [480, 320]
            for box in d.execute_script(BOX_JS):
                assert box["text"] == "Reconnecting to data\u2026"
                # Inside its chart, near the top, whole (not cut) even at 480x320.
                assert box["rx"] <= box["x"] and box["x"] + box["w"] <= box["rx"] + box["rw"], (name, box)
                assert box["ry"] <= box["y"] <= box["ry"] + 12, (name, box)
                assert not box["clipped"], (name, box)
                # Light text on its own dark pill: readable over any chart theme.
                assert (luminance(box["color"]) + 0.05) / (luminance(box["background"]) + 0.05) > 7, (name, box)
                # Gestures go through to the chart.
                assert box["events"] == "none"
            time.sleep(0.3)   # (the page has painted)
            shot = d.get_screenshot_as_png()
            (artifacts / f"cluster-reconnecting-{name}.png").write_bytes(shot)
            # The pill is on the screen, in its colour: dark left of its text.
            png = read_png(shot)
            box = d.execute_script(BOX_JS)[0]
            r, g, b = pixel(png, int(box["x"] + 4), int(box["y"] + box["h"] / 2))[:3]
            assert max(r, g, b) < 80, (name, (r, g, b))

        redis.start()                           # same folder: the append-only file is replayed
        for name, (d, _) in pages.items():
            wait_for(d, SHOWN_JS + ".every(v => !v)", timeout=10, message=f"{name}: banner gone")
            state = "window.chartwire.charts.map(c => c.data)" if name == "dashboard" else "[window.chartwire.data]"
            assert set(d.execute_script("return " + state)) == {"live"}, name
            assert d.execute_script("return window.chartwire.connected"), name
        pages["light"][0].save_screenshot(str(artifacts / "cluster-reconnecting-light-after.png"))
    finally:
        for d, _ in pages.values():
            d.quit()
