"""The real client page in headless Chromium: what a person sees and does."""
import json
import os
import random
import time
import urllib.parse
import urllib.request

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.actions.wheel_input import ScrollOrigin
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from conftest import FIXTURES, ROOT, Server, free_port
from pngread import pixel, read_png

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")


def browser(width=1100, height=700, scale=1):
    o = webdriver.ChromeOptions()
    o.binary_location = CHROMIUM
    for a in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
              f"--window-size={width},{height}", f"--force-device-scale-factor={scale}"]:
        o.add_argument(a)
    return webdriver.Chrome(service=Service(CHROMEDRIVER), options=o)


@pytest.fixture
def driver():
    d = browser()
    yield d
    d.quit()


def wait_for(d, script, timeout=15, message="condition"):
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = d.execute_script(script)
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {message}")


# The bottom axis' tick labels as the page holds them (from the server's layers).
X_LABELS_JS = """(() => {
    const bg = window.chartwire.layers.background; if (!bg) return [];
    const plot = bg.commands.filter(c => c.op === 'rect')[1];
    return bg.commands.filter(c => c.op === 'text' && c.y > plot.y + plot.h && !c.angle && c.align === 'center'
                                  && c.text !== '' && !isNaN(Number(c.text)))
                      .map(c => c.text); })()"""


def x_labels(d):
    return d.execute_script("return " + X_LABELS_JS)


def plot_rect(d):
    return d.execute_script("""
        const plot = window.chartwire.layers.background.commands.filter(c => c.op === 'rect')[1];
        const box = document.getElementById('chart').getBoundingClientRect();
        return [plot.x + box.left, plot.y + box.top, plot.w, plot.h];""")


def hex_rgb(h):
    return tuple(int(h[i:i + 2], 16) for i in (1, 3, 5))


def test_demo_draws_its_series_in_their_colours(demo_server, driver, artifacts):
    driver.get(f"{demo_server.http}/s/demo")
    wait_for(driver, "return window.chartwire && window.chartwire.frames > 0", message="first frame")
    time.sleep(1.5)   # let some data arrive
    png = driver.get_screenshot_as_png()
    (artifacts / "demo.png").write_bytes(png)
    img = read_png(png)
    x, y, w, h = [int(v) for v in plot_rect(driver)]
    colours = {"sine": "#1f77b4", "walk": "#d62728", "saw": "#2ca02c"}
    counts = {k: 0 for k in colours}
    for py in range(y + 1, y + h - 1):
        for px in range(x + 1, x + w - 1):
            p = pixel(img, px, py)
            for name, c in colours.items():
                if max(abs(a - b) for a, b in zip(p, hex_rgb(c))) <= 12:
                    counts[name] += 1
    assert all(n >= 40 for n in counts.values()), counts
    assert driver.execute_script("return window.chartwire.errors.length") == 0
    title = driver.find_element(By.ID, "title").text
    assert title == "Live signals"


def test_text_measured_by_the_server_matches_chromium(demo_server, driver):
    driver.get(f"{demo_server.http}/s/demo")
    wait_for(driver, "return window.chartwire && window.chartwire.frames > 0", message="first frame")
    latin = ["0", "-0.25", "12345.678", "Time (s)", "Value", "Random walk", "AVAWAY To", "Temperature (°C)",
             "Pressure (kPa)", "office fluffy", "Live signals", "1e-12", "WAVE · über"]
    # Scripts DejaVu lacks (CJK, Devanagari, Thai: the Noto fallbacks served as
    # unicode-range subsets) or shapes (Arabic joining, Hebrew), and mixes of them.
    world = ["温度 (°C)", "東京 2026年11月23日", "カタカナ・ひらがな", "서울 기온", "درجة الحرارة", "السرعة ١٢٣ كم/س",
             "तापमान (°C)", "क्षत्रिय हिन्दी", "ภาษาไทย", "שלום עולם", "Ελληνικά Привет", "Mixed 温度 तापमान ok"]
    worst = {}
    for bold in (False, True):
        for size in (11, 12, 13, 16):
            for s in latin + world:
                q = urllib.parse.urlencode({"text": s, "size": size, "bold": int(bold)})
                with urllib.request.urlopen(f"{demo_server.http}/api/measure?{q}") as r:
                    server = json.load(r)
                # As the client does: load the subsets the string needs, then measure.
                chromium = driver.execute_async_script(
                    "const [font, text, done] = arguments;"
                    "document.fonts.load(font, text).then(() => {"
                    "  const c = document.createElement('canvas').getContext('2d');"
                    "  c.font = font; done([c.measureText(text).width, document.fonts.check(font, text)]); });",
                    server["font"], s)
                width, covered = chromium
                assert covered, (s, "a character of it has no face of the chart font")
                key = "latin" if s in latin else s
                worst[key] = max(worst.get(key, 0), abs(width - server["width"]))
                assert abs(width - server["width"]) <= 1, (s, size, bold, server["width"], width)
    print("worst width difference (px): " + ", ".join(f"{k} {v:.3f}" for k, v in worst.items()))
    # The page drew those scripts with the fallback subsets the server served, not with
    # fonts that happen to be installed on this machine.
    loaded = driver.execute_script(
        "return performance.getEntriesByType('resource').map(e => e.name).filter(n => n.includes('/fonts/'))")
    for face in ("noto-sans-cjk-jp-regular-", "noto-sans-cjk-jp-bold-", "noto-sans-devanagari-regular.",
                 "noto-sans-devanagari-bold.", "noto-sans-thai-regular.", "regular-rest.", "bold-rest."):
        assert any(face in name for name in loaded), (face, loaded)


def test_wheel_zooms_and_drag_pans_and_double_click_resumes(static_server, driver):
    driver.get(f"{static_server.http}/s/static")
    wait_for(driver, "return window.chartwire && window.chartwire.frames > 0", message="first frame")
    before = x_labels(driver)
    assert before[0] == "0" and before[-1] == "1000"
    canvas = driver.find_element(By.CSS_SELECTOR, "canvas[data-layer=overlay]")
    x, y, w, h = plot_rect(driver)
    box = canvas.rect
    # Wheel up at the plot's centre: zoom in, the labels change.
    origin = ScrollOrigin.from_viewport(int(x + w / 2), int(y + h / 2))
    ActionChains(driver).scroll_from_origin(origin, 0, -300).perform()
    wait_for(driver, f"return {json.dumps(before)}.join() !== {X_LABELS_JS}.join()",
             message="labels to change after the wheel")
    after_zoom = x_labels(driver)
    assert after_zoom != before
    assert float(after_zoom[-1]) - float(after_zoom[0]) < 1000
    # Drag to the right: the view moves to smaller x.
    ActionChains(driver).move_to_element_with_offset(canvas, int(x + w / 2 - box["x"] - box["width"] / 2),
                                                     int(y + h / 2 - box["y"] - box["height"] / 2)) \
        .click_and_hold().move_by_offset(60, 0).move_by_offset(60, 0).release().perform()
    wait_for(driver, f"return {json.dumps(after_zoom)}.join() !== {X_LABELS_JS}.join()",
             message="labels to change after the drag")
    after_drag = x_labels(driver)
    assert float(after_drag[0]) < float(after_zoom[0])
    # Double-click: back to the full extents.
    ActionChains(driver).double_click(canvas).perform()
    wait_for(driver, f"return (t => t[0] === '0' && t[t.length - 1] === '1000')({X_LABELS_JS})",
             message="full extents after double-click")


def cdp_mouse(d, kind, x, y, **fields):
    """A mouse event as a device's reaches the browser (DevTools input injection)."""
    d.execute_cdp_cmd("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y, **fields})


def test_a_drags_moves_leave_as_the_device_reports_them_once_each(static_server, driver):
    """A move is sent from `pointerrawupdate`, before the browser dispatches the same
    move as `pointermove` (which waits for an animation frame), and only once."""
    driver.get(f"{static_server.http}/s/static")
    wait_for(driver, "return window.chartwire && window.chartwire.draws > 0", message="first draw")
    driver.execute_script("""
        window.__log = [];
        const send = WebSocket.prototype.send;
        WebSocket.prototype.send = function (data) {
          const m = JSON.parse(data);
          if (m.type === 'pointer' && m.phase === 'move') window.__log.push(['sent', Math.round(m.x)]);
          return send.call(this, data);
        };
        // (On the window, capturing: runs before the page's own handler on the canvas.)
        window.addEventListener('pointermove', (ev) => window.__log.push(['pointermove', Math.round(ev.offsetX)]), true);""")
    x, y, w, h = plot_rect(driver)
    cx, cy = int(x + w / 2), int(y + h / 2)
    cdp_mouse(driver, "mousePressed", cx, cy, button="left", buttons=1, clickCount=1)
    for k in range(1, 4):
        cdp_mouse(driver, "mouseMoved", cx - 20 * k, cy, button="left", buttons=1)
        time.sleep(0.1)
    cdp_mouse(driver, "mouseReleased", cx - 60, cy, button="left", buttons=0, clickCount=1)
    time.sleep(0.2)
    log = driver.execute_script("return window.__log")
    sent = [e for e in log if e[0] == "sent"]
    assert len(sent) == 3, log
    # Each move is sent before its pointermove is dispatched.
    for k in range(1, 4):
        assert log.index(["sent", cx - 20 * k]) < log.index(["pointermove", cx - 20 * k]), log


def drag_left(d, cx, cy, steps):
    """A drag from (cx, cy) to the left, 30 px a step 50 ms apart, and the wait for the X
    labels it moves."""
    before = x_labels(d)
    cdp_mouse(d, "mousePressed", cx, cy, button="left", buttons=1, clickCount=1)
    for k in range(1, steps + 1):
        cdp_mouse(d, "mouseMoved", cx - 30 * k, cy, button="left", buttons=1)
        time.sleep(0.05)
    cdp_mouse(d, "mouseReleased", cx - 30 * steps, cy, button="left", buttons=0, clickCount=1)
    wait_for(d, f"return {json.dumps(before)}.join() !== {X_LABELS_JS}.join()", message="the pan's labels")


def test_a_layer_changing_frame_after_frame_is_drawn_direct_then_handed_over_again(static_server, driver):
    """The background, redrawn by every frame of a pan, is drawn into a 2D canvas of its
    own while that goes on, and a second after the last change back into its
    bitmaprenderer canvas: the same picture on the screen either way."""
    driver.get(f"{static_server.http}/s/static")
    wait_for(driver, "return window.chartwire && window.chartwire.draws > 0", message="first draw")
    state = """const d = document.querySelector('canvas[data-direct=background]'),
                     b = document.querySelector('canvas[data-layer=background]');
               return [d !== null && !d.hidden, b.style.opacity]"""
    # (Frames coming close together as the page starts also put the layer on its direct
    # canvas, for a second after the last of them.)
    wait_for(driver, f"return (() => {{ {state} }})().join() === 'false,'", timeout=5, message="the background on its own canvas")
    x, y, w, h = plot_rect(driver)
    cx, cy = int(x + w / 2), int(y + h / 2)
    # Zoomed in first: at the data's extents a pan along X is held where it is.
    before = x_labels(driver)
    cdp_mouse(driver, "mouseWheel", cx, cy, deltaX=0, deltaY=-300)
    wait_for(driver, f"return {json.dumps(before)}.join() !== {X_LABELS_JS}.join()", message="the zoom's labels")
    wait_for(driver, f"return (() => {{ {state} }})().join() === 'false,'", timeout=5, message="the zoom's layers handed over")
    drag_left(driver, cx, cy, steps=5)
    # Drawn direct: the 2D canvas shows, the handed-over one is transparent.
    assert driver.execute_script(state) == [True, "0"]
    wait_for(driver, "const s = window.chartwire, n = s.draws; return new Promise(r => setTimeout(() => r(s.draws === n), 300))",
             message="the pan's last frame")
    shot_direct = driver.get_screenshot_as_png()
    wait_for(driver, f"return (() => {{ {state} }})().join() === 'false,'", timeout=3, message="the layer handed over again")
    shot_after = driver.get_screenshot_as_png()
    a, b = read_png(shot_direct), read_png(shot_after)
    assert a == b, "the picture changed when the layer went back to its bitmaprenderer canvas"


def test_a_pointer_over_the_chart_readies_the_direct_canvases_a_gesture_draws_on(static_server, driver):
    """A direct canvas's bitmap is made when the canvas is first drawn at its size (some
    ms for a chart's background), so it is made before a gesture needs it: a pointer
    coming over the chart sizes each handed-over layer's direct canvas to its layer's
    box, hidden; a pan draws on it at that size; handed back, it keeps it while the
    pointer stays over the chart."""
    driver.get(f"{static_server.http}/s/static")
    wait_for(driver, "return window.chartwire && window.chartwire.draws > 0", message="first draw")
    handed = """return ['background', 'overlay'].every(id => {
                    const d = document.querySelector('canvas[data-direct=' + id + ']');
                    return d === null || d.hidden; })"""
    wait_for(driver, handed, timeout=5, message="the layers on their own canvases")
    sizes = """return ['background', 'overlay'].map(id => {
                   const d = document.querySelector('canvas[data-direct=' + id + ']'),
                         c = document.querySelector('canvas[data-layer=' + id + ']');
                   return [c.width, c.height, d && d.width, d && d.height, d && d.hidden]; })"""
    x, y, w, h = plot_rect(driver)
    cx, cy = int(x + w / 2), int(y + h / 2)
    cdp_mouse(driver, "mouseMoved", cx, cy)
    wait_for(driver, "return document.querySelectorAll('canvas[data-direct]').length >= 2", message="the direct canvases")
    for cw, ch, dw, dh, hidden in driver.execute_script(sizes):
        assert (dw, dh, hidden) == (cw, ch, True) and cw * ch > 1
    before = x_labels(driver)
    cdp_mouse(driver, "mouseWheel", cx, cy, deltaX=0, deltaY=-300)   # (zoomed in: a pan at the extents is held)
    wait_for(driver, f"return {json.dumps(before)}.join() !== {X_LABELS_JS}.join()", message="the zoom's labels")
    wait_for(driver, handed, timeout=5, message="the zoom's layers handed over")
    drag_left(driver, cx, cy, steps=3)
    background = driver.execute_script(sizes)[0]
    assert background[4] is False and background[2:4] == background[0:2]   # drawn direct, at the box's size
    wait_for(driver, handed, timeout=3, message="the layers handed over again")
    for cw, ch, dw, dh, hidden in driver.execute_script(sizes):
        assert (dw, dh, hidden) == (cw, ch, True)


def test_each_canvas_covers_its_layers_box(static_server, driver):
    """The series canvas covers the plot (its layer's clip, in whole device pixels), not
    the chart; the background's covers the chart and shows a handed-over picture (a
    bitmaprenderer canvas: it has no 2D context to give); the viewer's own covers the
    chart (it takes the pointer)."""
    driver.get(f"{static_server.http}/s/static")
    wait_for(driver, "const s = window.chartwire; return s && s.draws > 0 && s.layers.series", message="series layer drawn")
    got = driver.execute_script("""const st = window.chartwire, dpr = st.size.dpr;
        const el = (id) => document.querySelector('canvas[data-layer=' + id + ']');
        const box = (id) => { const c = el(id); return [Math.round(parseFloat(c.style.left) * dpr),
            Math.round(parseFloat(c.style.top) * dpr), c.width, c.height]; };
        const clip = st.layers.series.commands.find(c => c.op === 'clip');
        return {dpr, full: [Math.round(st.size.width * dpr), Math.round(st.size.height * dpr)], clip: [clip.x, clip.y, clip.w, clip.h],
                series: box('series'), background: box('background'), modifier: box('modifier'),
                background2d: el('background').getContext('2d') !== null}""")
    W, H = got["full"]
    x, y, w, h = (v * got["dpr"] for v in got["clip"])
    sx, sy, sw, sh = got["series"]
    # The clip and a device pixel of antialiasing on either side, no more.
    assert x - 2 <= sx <= x and y - 2 <= sy <= y, got
    assert x + w <= sx + sw <= x + w + 2 and y + h <= sy + sh <= y + h + 2, got
    assert sw < W and sh < H, got
    assert got["background"] == [0, 0, W, H] and got["modifier"] == [0, 0, W, H], got
    assert got["background2d"] is False, got


def test_two_windows_stay_in_sync(static_server):
    a, b = browser(1000, 650), browser(700, 500)
    try:
        for d in (a, b):
            d.get(f"{static_server.http}/s/static")
            wait_for(d, "return window.chartwire && window.chartwire.frames > 0", message="first frame")
        x, y, w, h = plot_rect(a)
        # Zoomed in first (at its full extents the chart does not pan along x: zoomPan's
        # clipMode clipAtExtents); both windows show the zoom.
        ActionChains(a).scroll_from_origin(ScrollOrigin.from_viewport(int(x + w / 2), int(y + h / 2)), 0, -300).perform()
        for d in (a, b):
            wait_for(d, f"return {X_LABELS_JS}[0] !== '0'", message="the zoom to reach this window")
        time.sleep(0.5)   # the zoom's frames are all in
        zoomed = {id(d): x_labels(d) for d in (a, b)}
        x, y, w, h = plot_rect(a)
        canvas = a.find_element(By.CSS_SELECTOR, "canvas[data-layer=overlay]")
        box = canvas.rect
        ActionChains(a).move_to_element_with_offset(canvas, int(x + w / 2 - box["x"] - box["width"] / 2),
                                                    int(y + h / 2 - box["y"] - box["height"] / 2)) \
            .click_and_hold().move_by_offset(-150, 0).release().perform()
        # Both windows show the pan (to larger x): their first X label moves on.
        for d in (a, b):
            wait_for(d, f"return {json.dumps(zoomed[id(d)])}.join() !== {X_LABELS_JS}.join()",
                     message="the pan to reach this window")
            assert float(x_labels(d)[0]) > float(zoomed[id(d)][0])
    finally:
        a.quit()
        b.quit()


def test_page_reconnects_after_a_server_restart(driver):
    port = free_port()
    server = Server(port=port).start()
    try:
        driver.get(f"{server.http}/s/demo")
        wait_for(driver, "return window.chartwire && window.chartwire.frames > 0", message="first frame")
        server.stop()
        wait_for(driver, "return window.chartwire.connected === false", message="the page to see the drop")
        frames = driver.execute_script("return window.chartwire.frames")
        time.sleep(0.5)
        server = Server(port=port).start()
        wait_for(driver, f"return window.chartwire.connected && window.chartwire.frames > {frames}", timeout=20,
                 message="frames after the restart")
        assert driver.execute_script("return window.chartwire.reconnects") >= 1
    finally:
        server.stop()


def test_resizing_the_window_resizes_the_frames(static_server, driver):
    driver.get(f"{static_server.http}/s/static")
    wait_for(driver, "return window.chartwire && window.chartwire.frames > 0", message="first frame")
    v1 = driver.execute_script("return window.chartwire.layers.background.version")
    driver.set_window_size(800, 600)
    wait_for(driver, f"return window.chartwire.layers.background.version > {v1}", message="a frame for the new size")
    width = driver.execute_script("return window.chartwire.layers.background.commands[0].w")
    canvas_w = driver.execute_script("return document.querySelector('canvas').width")
    assert width < 1100 and canvas_w == int(width)


def test_page_notices_a_silent_dead_connection(driver):
    """The server stops answering without closing anything (as when the network
    vanishes): missed heartbeats make the page reconnect, and it carries on."""
    import signal
    server = Server("--heartbeat", "0.3", port=free_port()).start()
    try:
        driver.get(f"{server.http}/s/demo")
        wait_for(driver, "return window.chartwire && window.chartwire.frames > 0", message="first frame")
        server.proc.send_signal(signal.SIGSTOP)
        try:
            wait_for(driver, "return window.chartwire.stale > 0", timeout=10, message="the page to notice")
        finally:
            server.proc.send_signal(signal.SIGCONT)
        frames = driver.execute_script("return window.chartwire.frames")
        wait_for(driver, f"return window.chartwire.connected && window.chartwire.frames > {frames}", timeout=20,
                 message="frames after the server woke")
    finally:
        server.stop()


# The page's layers in a JSON-friendly form (typed arrays as plain arrays).
PAGE_LAYERS_JS = """return JSON.parse(JSON.stringify(window.chartwire.layers,
    (k, v) => (v instanceof Float32Array ? Array.from(v) : v)))"""


def test_page_acknowledges_follows_patches_and_shows_the_full_frame(static_server, driver):
    """Appends while the page watches: it is sent patches, acknowledges every frame it
    draws, and what it holds is then exactly what frame.json gives at its size."""
    driver.get(f"{static_server.http}/s/static")
    wait_for(driver, "return window.chartwire && window.chartwire.draws > 0", message="first drawn frame")
    for i in range(10):
        xs = [1000 + i * 10 + k for k in range(10)]
        body = json.dumps({"x": xs, "y": [(x * 7) % 100 for x in xs]}).encode()
        urllib.request.urlopen(urllib.request.Request(
            f"{static_server.http}/api/sessions/static/series/line/append", data=body, method="POST")).read()
        time.sleep(0.05)
    # Settled: every frame received was drawn and acknowledged.
    wait_for(driver, "const s = window.chartwire; return s.frames >= 5 && s.acks === s.frames && s.draws > 1",
             message="all frames acknowledged")
    time.sleep(0.3)
    state = driver.execute_script("return {frames: window.chartwire.frames, acks: window.chartwire.acks, "
                                  "patches: window.chartwire.patches, size: window.chartwire.size, "
                                  "errors: window.chartwire.errors}")
    assert state["errors"] == [] and state["acks"] == state["frames"]
    assert state["patches"] > 0
    held = driver.execute_script(PAGE_LAYERS_JS)
    size = state["size"]
    q = urllib.parse.urlencode({"width": size["width"], "height": size["height"], "dpr": size["dpr"]})
    with urllib.request.urlopen(f"{static_server.http}/api/sessions/static/frame.json?{q}") as r:
        full = json.load(r)
    for l in full["layers"]:
        page = held[l["id"]]["commands"]
        assert [c["op"] for c in page] == [c["op"] for c in l["commands"]], l["id"]
        for a, b in zip(page, l["commands"]):
            if b["op"] == "columns":
                want = [{"column": e[0], "lo": e[1], "hi": e[2], "first": e[3], "last": e[4], "joined": e[5] == 1}
                        for e in b["entries"]]
                assert a["entries"] == want
                assert abs(a["x0"] - b["x0"]) < 1e-3
            elif b["op"] == "text":
                assert a["text"] == b["text"] and abs(a["x"] - b["x"]) < 1e-3
            elif b["op"] == "segments":
                assert len(a["coords"]) == len(b["coords"])
                assert max(abs(p - q) for p, q in zip(a["coords"], b["coords"])) < 1e-3


def test_entry_animation_runs_on_the_server_and_images_draw(demo_server, driver, artifacts):
    """The first viewer of an animated session sees the server's animation frames:
    the markers fade in (opacity steps between 0 and 1), then the series stand as
    they are (no opacity left). An image annotation draws from its served path."""
    driver.get(f"{demo_server.http}/s/gallery-series-animation")
    wait_for(driver, "return window.chartwire && window.chartwire.frames > 0", message="first frame")
    seen, start = set(), time.time()
    while time.time() - start < 3:
        alphas = driver.execute_script(
            "const l = window.chartwire.layers.series;"
            "return l ? l.commands.filter(c => c.op === 'opacity').map(c => c.alpha) : [];")
        # (Kept as sent: an ease-out's last steps lie within 0.00005 of 1, and rounded
        # they read as 1.)
        seen.update(a for a in alphas if a < 1)
        time.sleep(0.03)
    # Every frame's steps are checked over a WebSocket (test_websocket.py); the page,
    # polled, sees at least one of them.
    assert seen and all(0 < a < 1 for a in seen), seen
    assert driver.execute_script(
        "return window.chartwire.layers.series.commands.filter(c => c.op === 'opacity').length") == 0
    assert driver.execute_script("return window.chartwire.frames") >= 10
    (artifacts / "animation-end.png").write_bytes(driver.get_screenshot_as_png())

    driver.get(f"{demo_server.http}/s/gallery-annotations")
    wait_for(driver, "return window.chartwire && window.chartwire.frames > 0", message="first frame")
    image = driver.execute_script(
        "return window.chartwire.layers.series.commands.find(c => c.op === 'image');")
    box = driver.execute_script("const b = document.getElementById('chart').getBoundingClientRect(); return [b.left, b.top];")
    time.sleep(0.5)   # the image loads, then the layer is drawn again
    png = driver.get_screenshot_as_png()
    (artifacts / "image-annotation.png").write_bytes(png)
    # The badge's dark background at its centre (between its bars, above its wave).
    p = pixel(read_png(png), int(box[0] + image["x"] + image["w"] / 2), int(box[1] + image["y"] + image["h"] / 2 - 6))
    assert max(p[:3]) < 80, p
    assert driver.execute_script("return window.chartwire.errors.length") == 0


def solid_png(w, h, rgb):
    """A w×h PNG of one opaque colour."""
    import struct
    import zlib

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    raw = b"".join(b"\x00" + bytes(rgb) * w for _ in range(h))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def test_a_faded_image_annotation_is_drawn_faded(driver, artifacts):
    """An image annotation's `opacity` (issue 29): the page draws the black image at 0.5
    half way to the plot's background, the opaque one black."""
    import base64
    from test_control import call
    srv = Server("--no-demo").start()
    try:
        black = "data:image/png;base64," + base64.b64encode(solid_png(40, 40, (0, 0, 0))).decode()
        spec = {"id": "fade", "chart": {
            "xAxes": [{"id": "x", "mode": "fixed", "range": [0, 10]}], "yAxes": [{"id": "y", "mode": "fixed", "range": [0, 10]}],
            "images": {"black": black},
            "annotations": [{"type": "image", "image": "black", "x": 3, "y": 5},
                            {"type": "image", "image": "black", "x": 7, "y": 5, "opacity": 0.5}],
            "series": [{"id": "s", "data": {"x": [0, 10], "y": [1, 1]}}]}}
        assert call(srv, "POST", "/api/sessions", spec)[0] == 201
        driver.get(f"{srv.http}/s/fade")
        wait_for(driver, "return window.chartwire && window.chartwire.frames > 0", message="first frame")
        ops = driver.execute_script("return window.chartwire.layers.series.commands.map(c => c.op === 'opacity' ? c.alpha : c.op);")
        i = [k for k, op in enumerate(ops) if op == "image"]
        assert len(i) == 2 and ops[i[0] - 1] != 0.5 and ops[i[1] - 1] == 0.5 and ops[i[1] + 1] == 1, ops
        images = driver.execute_script("return window.chartwire.layers.series.commands.filter(c => c.op === 'image');")
        box = driver.execute_script("const b = document.getElementById('chart').getBoundingClientRect(); return [b.left, b.top];")
        time.sleep(0.5)   # the image loads, then the layer is drawn again
        png = driver.get_screenshot_as_png()
        (artifacts / "image-opacity.png").write_bytes(png)
        img = read_png(png)

        def centre(im, dx=0):
            return pixel(img, int(box[0] + im["x"] + im["w"] / 2 + dx), int(box[1] + im["y"] + im["h"] / 2))
        opaque, faded = centre(images[0]), centre(images[1])
        background = centre(images[1], dx=-images[1]["w"] / 2 - 15)   # beside it, on the plot
        assert max(opaque[:3]) < 10, opaque
        assert min(background[:3]) > 200, background
        assert all(abs(faded[c] - background[c] / 2) <= 8 for c in range(3)), (faded, background)
        assert driver.execute_script("return window.chartwire.errors.length") == 0
    finally:
        srv.stop()


MODIFIER_OPS_JS = "(() => { const l = window.chartwire.layers.modifier; return l ? l.commands.map(c => c.op) : []; })()"


def touch(driver, kind, points):
    """Touch points through the DevTools protocol: Chromium turns them into touch
    pointer events, as a phone's screen does."""
    driver.execute_cdp_cmd("Input.dispatchTouchEvent", {
        "type": kind, "touchPoints": [{"x": x, "y": y, "id": i} for i, (x, y) in enumerate(points)]})


def test_modifiers_in_the_page(demo_server, driver, artifacts):
    """Hover, a shift-drag box zoom, a pinch with two touch points, a legend tap and a
    long press, in Chromium against the real server: what each draws and changes."""
    # Long press on a touch screen: the cursor chart shows its lines while held. (First:
    # after a two-finger touch, Chromium's emulated touch sends no more pointer events.)
    driver.get(f"{demo_server.http}/s/gallery-cursor")
    wait_for(driver, "return window.chartwire && window.chartwire.frames > 0", message="first frame")
    assert driver.execute_script("return window.chartwire.welcome.consumes") == []
    assert driver.execute_script("return document.getElementById('chart').style.touchAction") == "auto"
    x, y, w, h = plot_rect(driver)
    touch(driver, "touchStart", [(x + w / 2, y + h / 2)])
    wait_for(driver, f"return ({MODIFIER_OPS_JS}).includes('segments')", message="cursor after a long press")
    (artifacts / "long-press-cursor.png").write_bytes(driver.get_screenshot_as_png())
    touch(driver, "touchEnd", [])
    wait_for(driver, f"return ({MODIFIER_OPS_JS}).length === 0", message="cursor gone on release")

    driver.get(f"{demo_server.http}/s/gallery-interaction")
    wait_for(driver, "return window.chartwire && window.chartwire.frames > 0", message="first frame")
    assert driver.execute_script("return window.chartwire.welcome.consumes") == ["drag", "pinch", "wheel"]
    canvas = driver.find_element(By.CSS_SELECTOR, "canvas[data-layer=modifier]")
    x, y, w, h = plot_rect(driver)
    box = canvas.rect

    def at(px, py):   # an offset from the canvas centre, for ActionChains
        return int(px - box["x"] - box["width"] / 2), int(py - box["y"] - box["height"] / 2)

    # Hover: this viewer's own layer shows the rollover (a line, a marker per series).
    ActionChains(driver).move_to_element_with_offset(canvas, *at(x + w * 0.4, y + h / 2)).perform()
    wait_for(driver, f"return ({MODIFIER_OPS_JS}).includes('markers')", message="rollover drawn")
    ops = driver.execute_script("return " + MODIFIER_OPS_JS)
    assert ops.count("markers") == 3 and "segments" in ops
    (artifacts / "rollover.png").write_bytes(driver.get_screenshot_as_png())

    # Shift-drag: a box in the viewer's layer while dragging, then the X range is the box's.
    before = x_labels(driver)
    chain = ActionChains(driver).move_to_element_with_offset(canvas, *at(x + w * 0.3, y + h * 0.3)) \
        .key_down(Keys.SHIFT).click_and_hold().move_by_offset(40, 20).move_by_offset(int(w * 0.2) - 40, int(h * 0.3) - 20)
    chain.perform()
    wait_for(driver, f"return ({MODIFIER_OPS_JS}).includes('rect')", message="zoom box drawn")
    (artifacts / "box-zoom.png").write_bytes(driver.get_screenshot_as_png())
    ActionChains(driver).release().key_up(Keys.SHIFT).perform()
    wait_for(driver, f"return {json.dumps(before)}.join() !== {X_LABELS_JS}.join()", message="zoomed into the box")
    zoomed = x_labels(driver)
    assert float(zoomed[-1]) - float(zoomed[0]) < (float(before[-1]) - float(before[0])) / 3

    # Pinch: two touch points moving apart zoom in further.
    cx, cy = box["x"] + (x - box["x"]) + w / 2, y + h / 2
    touch(driver, "touchStart", [(cx - 40, cy), (cx + 40, cy)])
    for k in range(1, 6):
        touch(driver, "touchMove", [(cx - 40 - 16 * k, cy), (cx + 40 + 16 * k, cy)])
        time.sleep(0.03)
    touch(driver, "touchEnd", [])
    wait_for(driver, f"return {json.dumps(zoomed)}.join() !== {X_LABELS_JS}.join()", message="pinched")
    pinched = x_labels(driver)
    assert float(pinched[-1]) - float(pinched[0]) < float(zoomed[-1]) - float(zoomed[0])

    # A legend tap hides its series, for everyone: the event says so too.
    row = driver.execute_script("""
        const o = window.chartwire.layers.overlay.commands.find(c => c.op === 'text' && c.text === 'Flow');
        const b = document.getElementById('chart').getBoundingClientRect();
        return [o.x + b.left + 10, o.y + b.top - 4];""")
    ActionChains(driver).move_to_element_with_offset(canvas, *at(row[0], row[1])).click().perform()
    wait_for(driver, "return window.chartwire.events.some(e => e.event === 'visibilityToggled' && e.series === 'b' && e.hidden)",
             message="legend toggled the series")
    assert driver.execute_script("return window.chartwire.errors.length") == 0


def test_a_viewer_token_window_cannot_pan(demo_server, driver):
    """The demo's read-only session: the page watches, a drag moves nothing and the
    page is told why; the page still scrolls over it (it consumes no drag)."""
    driver.get(f"{demo_server.http}/s/monitor")
    wait_for(driver, "return window.chartwire && window.chartwire.frames > 0", message="first frame")
    assert driver.execute_script("return window.chartwire.welcome.role") == "viewer"
    assert driver.execute_script("return window.chartwire.welcome.consumes") == []
    canvas = driver.find_element(By.CSS_SELECTOR, "canvas[data-layer=modifier]")
    x, y, w, h = plot_rect(driver)
    box = canvas.rect
    before = driver.execute_script("return window.chartwire.events.length")
    ActionChains(driver).move_to_element_with_offset(canvas, int(x + w / 2 - box["x"] - box["width"] / 2),
                                                     int(y + h / 2 - box["y"] - box["height"] / 2)) \
        .click_and_hold().move_by_offset(-80, 0).move_by_offset(-80, 0).release().perform()
    wait_for(driver, "return window.chartwire.errors.some(e => e.code === 'read_only')", message="read_only error")
    assert driver.execute_script("return window.chartwire.events.length") == before, "no pan happened"


def test_two_windows_on_an_independent_session_zoom_separately(tmp_path):
    """viewMode independent: a's wheel zoom and b's drag each change only their own
    window; data appended meanwhile reaches both."""
    spec = json.loads((FIXTURES / "static.json").read_text())
    spec["sessions"][0]["viewMode"] = "independent"
    # b pans from home, past the data's end: unclipped (the default clipAtExtents stops it).
    spec["sessions"][0]["chart"]["modifiers"][0]["clipMode"] = "none"
    srv = spec_server(tmp_path, spec)
    a, b = browser(1000, 650), browser(800, 560)
    try:
        for d in (a, b):
            d.get(f"{srv.http}/s/static")
            wait_for(d, "return window.chartwire && window.chartwire.frames > 0", message="first frame")
        home = x_labels(a)
        assert home[0] == "0" and home[-1] == "1000"
        assert a.execute_script("return window.chartwire.welcome.viewMode") == "independent"
        x, y, w, h = plot_rect(a)
        ActionChains(a).scroll_from_origin(ScrollOrigin.from_viewport(int(x + w / 2), int(y + h / 2)), 0, -300).perform()
        wait_for(a, f"return {json.dumps(home)}.join() !== {X_LABELS_JS}.join()", message="a's zoom")
        zoomed = x_labels(a)
        # b is unmoved; now b pans its own view, a stays zoomed where it was.
        time.sleep(0.5)
        assert x_labels(b) == x_labels(b) and x_labels(b)[0] == "0" and x_labels(b)[-1] == "1000"
        x, y, w, h = plot_rect(b)
        canvas = b.find_element(By.CSS_SELECTOR, "canvas[data-layer=overlay]")
        box = canvas.rect
        ActionChains(b).move_to_element_with_offset(canvas, int(x + w / 2 - box["x"] - box["width"] / 2),
                                                    int(y + h / 2 - box["y"] - box["height"] / 2)) \
            .click_and_hold().move_by_offset(-150, 0).release().perform()
        wait_for(b, f"return {X_LABELS_JS}[0] !== '0'", message="b's pan")
        time.sleep(0.5)
        assert x_labels(a) == zoomed, "a kept its own zoom"
        # New data reaches both: b (panned, not zoomed) sees the extents grow once it zooms home.
        post = urllib.request.Request(f"{srv.http}/api/sessions/static/series/line/append", method="POST",
                                      data=json.dumps({"x": [1200], "y": [50]}).encode())
        urllib.request.urlopen(post).read()
        ActionChains(b).double_click(canvas).perform()
        wait_for(b, f"return {X_LABELS_JS}.includes('1200')", message="b back home, with the new point")
        assert x_labels(a) == zoomed
    finally:
        a.quit()
        b.quit()
        srv.stop()


def test_dashboard_shows_all_its_charts_live_over_one_connection(demo_server, artifacts):
    d = browser(1200, 1000)
    try:
        # Count the page's WebSockets.
        d.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": """
            window.__sockets = [];
            const Native = window.WebSocket;
            window.WebSocket = function (url, p) { window.__sockets.push(url); return new Native(url, p); };
            window.WebSocket.prototype = Native.prototype; window.WebSocket.OPEN = 1; window.WebSocket.CLOSED = 3;"""})
        d.get(f"{demo_server.http}/d/ops")
        wait_for(d, "return window.chartwire.charts.length === 4 && window.chartwire.charts.every(c => c.frames > 0)",
                 timeout=20, message="every chart's first frame")
        first = d.execute_script("return window.chartwire.charts.map(c => c.frames)")
        # Every chart keeps coming (each is fed by its own generator).
        wait_for(d, f"return window.chartwire.charts.every((c, i) => c.frames > {json.dumps(first)}[i] + 1)",
                 timeout=20, message="every chart to keep updating")
        sessions = d.execute_script("return window.chartwire.charts.map(c => c.session)")
        assert sessions == ["servers", "monitor", "queue", "demo"]
        # One WebSocket for all of them.
        assert d.execute_script("return window.__sockets") == [demo_server.ws + "/ws/d/ops"]
        assert d.execute_script("return window.chartwire.connected") is True
        png = d.get_screenshot_as_png()
        (artifacts / "dashboard.png").write_bytes(png)
        shot = read_png(png)
        # Each cell's plot shows its series' colour somewhere (web-01's blue, the queue's green).
        cells = d.execute_script("""return [...document.querySelectorAll('.cell .plot')].map(p => {
            const r = p.getBoundingClientRect(); return [r.left, r.top, r.width, r.height]; })""")
        assert len(cells) == 4

        def has_colour(cell, rgb):
            x0, y0, w, h = (int(v) for v in cell)
            return any(max(abs(a - b) for a, b in zip(pixel(shot, x, y)[:3], rgb)) < 40
                       for y in range(y0, y0 + h, 3) for x in range(x0, x0 + w, 3))
        assert has_colour(cells[0], hex_rgb("#1f5fb4")) and has_colour(cells[2], hex_rgb("#2ca02c"))
        errors = d.execute_script("return window.chartwire.charts.flatMap(c => c.errors)")
        assert errors == []
    finally:
        d.quit()


# Compares two PNG data URLs (each decoded the same way), premultiplied (a colour
# weighs by its alpha): the pixels that differ, the largest difference of a channel,
# how many pixels differ by more than `limit`, and the columns (x) where those are.
PNG_DIFF_JS = """const [a, b, limit, done] = arguments;
const load = (src) => new Promise((ok) => { const i = new Image(); i.onload = () => ok(i); i.src = src; });
Promise.all([load(a), load(b)]).then(([x, y]) => {
  const px = (img) => { const c = document.createElement('canvas'); c.width = img.width; c.height = img.height;
    const g = c.getContext('2d'); g.drawImage(img, 0, 0); return g.getImageData(0, 0, c.width, c.height).data; };
  const p = px(x), q = px(y); let n = 0, worst = 0, over = 0; const cols = new Set();
  for (let i = 0; i < p.length; i += 4) {
    let d = Math.abs(p[i + 3] - q[i + 3]);
    for (let k = 0; k < 3; k++) d = Math.max(d, Math.abs(p[i + k] * p[i + 3] - q[i + k] * q[i + 3]) / 255);
    if (d >= 1) { n++; worst = Math.max(worst, d); }
    if (d > limit) { over++; cols.add((i / 4) % x.width); }
  }
  done([n, Math.round(worst), over, p.length / 4, [...cols].sort((a, b) => a - b)]);
});"""


@pytest.mark.parametrize("x_axis, scale", [({"mode": "extents"}, 1), ({"mode": "follow", "window": 100}, 1),
                                          ({"mode": "follow", "window": 100}, 2), ({"mode": "follow", "window": 2}, 1)])
def test_a_scrolling_line_is_shifted_and_drawn_as_a_whole_redraw_would(tmp_path, x_axis, scale):
    """A live chart (a FIFO window; X on its extents, where the columns stay and the
    ends change, or following the data, where they move): the page shifts the series
    canvas by the columns' move and draws only the strips that changed (scrollDraws,
    scrollMoves count them). After many such frames its series pixels are those of a
    page that drew the same layer whole, a second page opened on the settled chart
    (also at a device pixel ratio of 2, where a column is half a CSS pixel, and with a
    2 s window, where points stand some 10 px apart: lines across empty columns)."""
    spec = {"sessions": [{"id": "scroll", "title": "Scroll", "chart": {
        "xAxes": [dict({"id": "t", "alignment": "bottom"}, **x_axis)],
        "yAxes": [{"id": "v", "alignment": "left", "mode": "visible"}],
        "series": [{"id": f"s{i}", "name": f"S{i}", "capacity": 20000} for i in range(3)]}}]}
    srv = spec_server(tmp_path, spec)
    feed = WalkFeed(srv, "scroll", [f"s{i}" for i in range(3)], seed=7)
    # x in seconds since the epoch, as a monitoring feed sends it: at 1.76e9 a double
    # holds a time to 2.4e-7 s, so the columns' x0 moves by some 1e-5 device pixels
    # from frame to frame besides their whole-pixel scroll.
    t0 = 1_764_000_000.0
    a = browser(1000, 650, scale)
    b = None
    try:
        feed.append([t0 + k * 0.02 for k in range(20000)])
        a.get(f"{srv.http}/s/scroll")
        wait_for(a, "return window.chartwire && window.chartwire.draws > 0", message="first drawn frame")
        for step in range(60):
            feed.append([t0 + (20000 + step * 10 + k) * 0.02 for k in range(10)])
            time.sleep(0.03)
        all_drawn(a)
        time.sleep(0.5)
        state = a.execute_script("const s = window.chartwire; return {scroll: s.scrollDraws, series: s.layerDraws.series,"
                                 " moves: s.scrollMoves,"
                                 " errors: s.errors, version: s.layers.series.version}")
        assert state["errors"] == []
        # The data frames were drawn by shifting: whole, only the first draw and a frame
        # whose patch did not follow the one drawn (a page that fell behind). A move of
        # x0 by 1e-5 px (x near 1.76e9) is a whole-pixel move: the page drew a third of
        # a following chart's frames whole for it, at 20 ms each for a 1600x900 chart.
        assert state["scroll"] >= 20 and state["series"] - state["scroll"] <= 4, state
        assert (state["moves"] >= 10) if x_axis["mode"] == "follow" else (state["moves"] == 0), state
        # A frame that moved the lines was drawn on the series canvas' twin, which was
        # then shown in place of the other: one of the two is shown. Without a move
        # there is no twin.
        twin = a.execute_script("const d = document.querySelector('canvas[data-direct=series]'),"
                                " c = document.querySelector('canvas[data-layer=series]');"
                                " return d && [d.hidden, c.style.opacity, d.width === c.width && d.height === c.height]")
        # Frames drawn in place (X on its extents) went to the tiles: low-latency
        # canvases side by side over the plot, each drawn only where the frame changed
        # something (a frame changes the newest end: one tile, two when the oldest end
        # changed too), and shown in place of the canvases. A following chart, which
        # shifts every frame, does not use them.
        tiles = a.execute_script("const t = [...document.querySelectorAll('canvas[data-tile]')];"
                                 " return {n: t.length, shown: t.filter((e) => !e.hidden).length, draws: window.chartwire.tileDraws,"
                                 " lowLatency: t.every((e) => e.getContext('2d').getContextAttributes().desynchronized),"
                                 " opacity: document.querySelector('canvas[data-layer=series]').style.opacity}")
        if x_axis["mode"] == "follow":
            assert twin is not None and (twin[0] != (twin[1] == "0")) and twin[2], twin
            assert tiles["shown"] == 0 and tiles["draws"] == 0, tiles
        else:
            assert twin is None, twin
            assert tiles["n"] >= 3 and tiles["shown"] == tiles["n"] and tiles["lowLatency"] and tiles["opacity"] == "0", tiles
            assert 0 < tiles["draws"] <= 2 * state["scroll"], (tiles, state)
        b = page_at_version(f"{srv.http}/s/scroll", state["version"], scale)
        assert b.execute_script("return window.chartwire.scrollDraws") == 0
        assert_series_pictures_alike(a, b, "scroll")
    finally:
        a.quit()
        if b:
            b.quit()
        srv.stop()


def spec_server(tmp_path, spec):
    """A server started on `spec` (a config of sessions), written into `tmp_path`."""
    config = tmp_path / (spec["sessions"][0]["id"] + ".json")
    config.write_text(json.dumps(spec))
    return Server("--config", str(config)).start()


class WalkFeed:
    """Random walks fed to a session's series over HTTP, one walk a series: each x
    appended takes every walk's next step (each within +-`bound` when given)."""

    def __init__(self, srv, session, series, seed, bound=None):
        self.url = f"{srv.http}/api/sessions/{session}/series/"
        self.series, self.bound = series, bound
        self.rng, self.walks = random.Random(seed), [0.0] * len(series)
        self.points, self.last = 0, None   # xs appended so far, and the last of them

    def append(self, xs):
        for i, sid in enumerate(self.series):
            ys = []
            for _ in xs:
                w = self.walks[i] + self.rng.uniform(-1, 1)
                self.walks[i] = w if self.bound is None else max(-self.bound, min(self.bound, w))
                ys.append(round(self.walks[i], 3))
            urllib.request.urlopen(urllib.request.Request(self.url + sid + "/append", method="POST",
                                                          data=json.dumps({"x": xs, "y": ys}).encode())).read()
        self.points += len(xs)
        self.last = xs[-1]


def all_drawn(d):
    """Waits until page `d` has drawn (and acknowledged) every frame it was sent."""
    wait_for(d, "const s = window.chartwire; return s.acks === s.frames", message="all frames drawn")


def page_at_version(url, version, scale=1, width=1000, height=650):
    """A second page on a chart, once it holds the series layer at `version` (the one
    the first page settled on): it drew that layer whole."""
    b = browser(width, height, scale)
    try:
        # (A page's first draw may come before its series layer: wait for that layer.)
        b.get(url)
        wait_for(b, "const s = window.chartwire; return s && s.draws > 0 && s.layers.series"
                    f" && s.layers.series.version === {int(version)}", message="second page's series layer")
    except BaseException:
        b.quit()
        raise
    return b


def test_a_chart_on_tiles_resized_lays_its_tiles_again(tmp_path):
    """A live chart showing its whole window (a FIFO, X on its extents) draws its frames
    in place on the tiles; resized, its tiles are laid again over the new plot (as many
    as its width takes, side by side from its left edge), and the picture they show is
    that of a page opened at the new size."""
    spec = {"sessions": [{"id": "fifo", "title": "FIFO", "chart": {
        "xAxes": [{"id": "t", "alignment": "bottom", "mode": "extents"}],
        "yAxes": [{"id": "v", "alignment": "left", "mode": "fixed", "range": [-60, 60]}],
        "series": [{"id": "s", "name": "S", "capacity": 5000}]}}]}
    srv = spec_server(tmp_path, spec)
    feed = WalkFeed(srv, "fifo", ["s"], seed=5, bound=50.0)

    def append(count):
        feed.append([(feed.points + k) * 0.1 for k in range(count)])

    tiles = ("const t = [...document.querySelectorAll('canvas[data-tile]')], s = document.querySelector('canvas[data-layer=series]');"
             " return {n: t.length, shown: t.filter((e) => !e.hidden).map((e) => [parseFloat(e.style.left), parseFloat(e.style.top), e.width, e.height]),"
             " series: [parseFloat(s.style.left), parseFloat(s.style.top), s.width, s.height], draws: window.chartwire.tileDraws}")
    a = browser(1200, 700)
    b = None
    try:
        append(5000)
        a.get(f"{srv.http}/s/fifo")
        wait_for(a, "return window.chartwire && window.chartwire.draws > 0", message="first drawn frame")
        for _ in range(6):
            append(1)
            time.sleep(0.05)
        wait_for(a, "return window.chartwire.tileDraws > 0", message="a frame drawn on the tiles")
        a.set_window_size(700, 500)
        wait_for(a, "return window.chartwire.size.width <= 700", message="the page resized")
        for _ in range(6):
            append(1)
            time.sleep(0.05)
        all_drawn(a)
        time.sleep(0.3)
        got = a.execute_script(tiles)
        x, y, w, h = got["series"]
        assert got["n"] == (w + 255) // 256 and len(got["shown"]) == got["n"], got
        assert [t[0] for t in got["shown"]] == [x + 256 * i for i in range(got["n"])], got
        assert all(t[1] == y and t[3] == h for t in got["shown"]) and sum(t[2] for t in got["shown"]) == w, got
        b = page_at_version(f"{srv.http}/s/fifo", a.execute_script("return window.chartwire.layers.series.version"),
                            width=700, height=500)
        assert a.execute_script("return window.chartwire.size") == b.execute_script("return window.chartwire.size")
        assert_series_pictures_alike(a, b, "tiles-resized")
    finally:
        a.quit()
        if b:
            b.quit()
        srv.stop()


# The series layer's picture as shown, as a PNG data URL: its canvas, or the twin
# (canvas[data-direct=series]) a frame that moved the lines is drawn on and shown in its
# place, or the tiles (canvas[data-tile]) frames drawn in place go to, side by side over it.
SERIES_PICTURE_JS = """const d = document.querySelector('canvas[data-direct=series]'),
  c = d && !d.hidden ? d : document.querySelector('canvas[data-layer=series]'),
  tiles = [...document.querySelectorAll('canvas[data-tile]')].filter((t) => !t.hidden);
if (!tiles.length) return c.toDataURL('image/png');
const out = document.createElement('canvas'), dpr = window.chartwire.size.dpr;
out.width = c.width; out.height = c.height;
for (const t of tiles) out.getContext('2d').drawImage(t, Math.round((parseFloat(t.style.left) - parseFloat(c.style.left)) * dpr),
  Math.round((parseFloat(t.style.top) - parseFloat(c.style.top)) * dpr));
return out.toDataURL('image/png');"""


def assert_series_pictures_alike(a, b, name):
    """Page a's series picture, drawn frame after frame by strips, is page b's, drawn
    whole, but for antialiasing at the strips' seams."""
    drawn, whole = a.execute_script(SERIES_PICTURE_JS), b.execute_script(SERIES_PICTURE_JS)
    if drawn == whole:
        return
    import base64
    (ROOT / "artifacts").mkdir(exist_ok=True)
    for kind, url in (("drawn", drawn), ("whole", whole)):
        (ROOT / "artifacts" / f"{name}-{kind}.png").write_bytes(base64.b64decode(url.split(",", 1)[1]))
    differing, worst, over, total, columns = a.execute_async_script(PNG_DIFF_JS, drawn, whole, 64)
    # A strip's path is a part of the line, drawn inside a clip at the strip's
    # edges, and Skia may antialias it otherwise than the whole line: a
    # stroke's edge pixels may differ in coverage by some levels, nothing more
    # (a stroke one pixel off differs by up to 255 in thousands of pixels). The
    # seams add up over the frames drawn by strips alone since the last whole
    # drawing (itself drawn in strips of 128 device pixels): after the 60
    # frames of the test above, in probes, 365-873 of 394,796 pixels at a ratio of 1
    # (up to 30 levels) and 1,901 of 1,579,184 at 2 (up to 33).
    assert over == 0 and differing < total / 200, \
        f"{differing} of {total} pixels differ, {over} by more than 64 (up to {worst}), in columns {columns}"


def test_a_line_drawn_on_tiles_then_shifted_is_drawn_as_a_whole_redraw_would(tmp_path):
    """A following chart fed slowly (new points in its newest device-pixel column: frames
    drawn in place, on the tiles), then on past several columns (a frame that shifts the
    picture, taken from the tiles into the twin canvas): its series pixels are those of
    a page that drew the same layer whole."""
    spec = {"sessions": [{"id": "tiles", "title": "Tiles", "chart": {
        "xAxes": [{"id": "t", "alignment": "bottom", "mode": "follow", "window": 100}],
        "yAxes": [{"id": "v", "alignment": "left", "mode": "fixed", "range": [-60, 60]}],
        "series": [{"id": f"s{i}", "name": f"S{i}", "capacity": 20000} for i in range(3)]}}]}
    srv = spec_server(tmp_path, spec)
    feed = WalkFeed(srv, "tiles", [f"s{i}" for i in range(3)], seed=11, bound=50.0)
    a = browser(1000, 650)
    b = None
    try:
        feed.append([k * 0.05 for k in range(4000)])
        a.get(f"{srv.http}/s/tiles")
        wait_for(a, "return window.chartwire && window.chartwire.draws > 0", message="first drawn frame")
        figures = "const s = window.chartwire; return {tiles: s.tileDraws, moves: s.scrollMoves, scroll: s.scrollDraws," \
                  " shown: [...document.querySelectorAll('canvas[data-tile]')].filter((t) => !t.hidden).length, errors: s.errors}"
        # A hundredth of a column each (100 s over some 900 px): in place, unless they
        # cross into the next column (then the picture shifts, and the tiles wait half
        # a second: tried again).
        for _ in range(4):
            time.sleep(0.7)
            for _ in range(10):
                feed.append([feed.last + 0.001])
                time.sleep(0.05)
            all_drawn(a)
            before = a.execute_script(figures)
            if before["shown"] > 0:
                break
        assert before["errors"] == [] and before["tiles"] > 0 and before["shown"] > 0, before
        # On by 3 s, some 27 columns: the picture shifts, from the tiles.
        feed.append([feed.last + 0.5 * k for k in range(1, 7)])
        all_drawn(a)
        moved = a.execute_script(figures)
        assert moved["moves"] > before["moves"] and moved["shown"] == 0, moved
        b = page_at_version(f"{srv.http}/s/tiles", a.execute_script("return window.chartwire.layers.series.version"))
        assert_series_pictures_alike(a, b, "tiles-shifted")
    finally:
        a.quit()
        if b:
            b.quit()
        srv.stop()
