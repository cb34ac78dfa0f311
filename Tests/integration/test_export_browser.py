"""The page's download menu in headless Chromium (docs/export.md): it opens from the
keyboard, lists the five formats with links sized as the chart is shown and carrying
the page's token, the CSV link downloads the session's data, and the button never
covers the chart (a dashboard tile of 480x320, a large window)."""
import json
import os
import time
import urllib.request

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from conftest import Server
from test_browser import browser, wait_for

T0 = 1_790_000_000
TOKEN = "viewer-token-1"
SPEC = {
    "id": "shapes", "title": "Export",
    "access": {"viewerTokens": [TOKEN]},
    "chart": {
        "title": "Export",
        "xAxes": [{"id": "t", "type": "time", "timeZone": "Europe/Berlin", "mode": "fixed", "range": [T0, T0 + 100]}],
        "series": [
            {"id": "l", "name": 'Temp, "inside"', "data": {"x": [T0, T0 + 1.5, T0 + 60, T0 + 200], "y": [1, None, 2.5, 9]}},
            {"id": "c", "type": "candlestick", "name": "Candles",
             "data": {"x": [T0 + 10], "open": [10], "high": [12.25], "low": [9], "close": [11]}},
        ],
    },
}


@pytest.fixture
def server():
    s = Server("--no-demo").start()
    req = urllib.request.Request(s.http + "/api/sessions", data=json.dumps(SPEC).encode(), method="POST",
                                 headers={"content-type": "application/json"})
    assert urllib.request.urlopen(req).status == 201
    yield s
    assert s.alive(), "the server died during the test"
    s.stop()


def viewport(d, width, height):
    """The page's own size exactly (--window-size counts the window's frame too)."""
    d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})


# Where a chart's plot is on the page: its background layer's second rect.
PLOT_JS = """const c = window.chartwire.charts[arguments[0]], root = arguments[1].getBoundingClientRect();
    const p = c.layers.background.commands.filter(k => k.op === 'rect')[1];
    return [root.left + p.x, root.top + p.y, root.left + p.x + p.w, root.top + p.y + p.h];"""


def rect(d, selector):
    return d.execute_script("const r = document.querySelector(arguments[0]).getBoundingClientRect();"
                            "return [r.left, r.top, r.right, r.bottom];", selector)


def overlaps(a, b):
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def test_the_menu_opens_lists_five_formats_and_downloads_the_csv(server, tmp_path, artifacts):
    d = browser(1100, 700)
    try:
        d.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(tmp_path)})
        d.get(f"{server.http}/s/shapes?token={TOKEN}")
        wait_for(d, "return window.chartwire && window.chartwire.frames > 0", message="first frame")
        button = d.find_element(By.CSS_SELECTOR, "header .export-button")
        assert button.get_attribute("aria-expanded") == "false"
        assert not overlaps(rect(d, "header .export-button"), rect(d, "#chart"))
        # The keyboard: focus the button, Enter opens the menu on its first item.
        d.execute_script("arguments[0].focus()", button)
        button.send_keys(Keys.ENTER)
        wait_for(d, "return !document.querySelector('.export-menu').hidden", message="menu open")
        assert button.get_attribute("aria-expanded") == "true"
        items = d.find_elements(By.CSS_SELECTOR, ".export-menu [role=menuitem]")
        assert [i.text for i in items] == ["PNG", "SVG", "PDF", "CSV", "JSON"]
        assert d.switch_to.active_element == items[0]
        size = d.execute_script("return window.chartwire.size")
        box = rect(d, "#chart")
        assert (size["width"], size["height"]) == (int(box[2] - box[0]), int(box[3] - box[1]))
        api = f"{server.http}/api/sessions/shapes/"
        dims = f"width={size['width']}&height={size['height']}&dpr=1&token={TOKEN}"
        assert [i.get_attribute("href") for i in items] == [
            api + "image.png?" + dims, api + "image.svg?" + dims, api + "image.pdf?" + dims,
            api + f"data.csv?token={TOKEN}", api + f"data.json?token={TOKEN}"]
        # Arrows move through the items (wrapping); Escape closes back to the button.
        d.switch_to.active_element.send_keys(Keys.ARROW_UP)
        assert d.switch_to.active_element == items[4]
        d.switch_to.active_element.send_keys(Keys.ARROW_DOWN)
        d.switch_to.active_element.send_keys(Keys.ARROW_DOWN)
        assert d.switch_to.active_element == items[1]
        d.switch_to.active_element.send_keys(Keys.ESCAPE)
        assert d.execute_script("return document.querySelector('.export-menu').hidden")
        assert d.switch_to.active_element == button
        # Open again, go to CSV and take it: the file is the server's export.
        button.send_keys(Keys.ENTER)
        for _ in range(3):
            d.switch_to.active_element.send_keys(Keys.ARROW_DOWN)
        assert d.switch_to.active_element.text == "CSV"
        d.switch_to.active_element.send_keys(Keys.ENTER)
        target = tmp_path / "shapes-data.csv"
        deadline = time.time() + 15
        while not target.exists() and time.time() < deadline:
            time.sleep(0.1)
        assert target.exists(), os.listdir(tmp_path)
        expected = urllib.request.urlopen(server.http + f"/api/sessions/shapes/data.csv?token={TOKEN}").read()
        assert target.read_bytes() == expected
        assert expected.decode().splitlines()[1] == 'l,"Temp, ""inside""",2026-09-21T16:13:20+02:00,1,,,,'
        assert d.execute_script("return document.querySelector('.export-menu').hidden"), "a choice closes the menu"
        assert d.switch_to.active_element == button, "and gives the focus back to the button"
        # A click elsewhere closes an open menu.
        button.click()
        assert not d.execute_script("return document.querySelector('.export-menu').hidden")
        d.find_element(By.ID, "title").click()
        assert d.execute_script("return document.querySelector('.export-menu').hidden")
    finally:
        d.quit()


@pytest.mark.parametrize("width,height", [(480, 320), (1600, 900)])
def test_the_button_never_covers_the_chart(server, artifacts, width, height):
    d = browser(width, height)
    try:
        viewport(d, width, height)
        d.get(f"{server.http}/s/shapes?token={TOKEN}")
        wait_for(d, "return window.chartwire && window.chartwire.frames > 0", message="first frame")
        assert d.execute_script("return [innerWidth, innerHeight]") == [width, height]
        chart = rect(d, "#chart")
        assert not overlaps(rect(d, "header .export-button"), chart)
        assert chart[3] - chart[1] > height * 0.6, "the header leaves the chart most of the window"
        time.sleep(0.3)
        (artifacts / f"export-menu-closed-{width}x{height}.png").write_bytes(d.get_screenshot_as_png())
        d.find_element(By.CSS_SELECTOR, "header .export-button").click()
        menu = rect(d, ".export-menu")
        assert menu[2] <= width and menu[3] <= height, "the open menu fits in the window"
        (artifacts / f"export-menu-open-{width}x{height}.png").write_bytes(d.get_screenshot_as_png())
    finally:
        d.quit()


def test_dashboard_cells_have_their_own_menu(demo_server, artifacts):
    """The ops dashboard at a size where its small tiles are about 480x320: each cell has
    a menu for its own session, in the cell's top-right corner, off the chart's plot."""
    d = browser(1000, 1100)
    try:
        viewport(d, 1000, 1040)
        d.get(f"{demo_server.http}/d/ops")
        wait_for(d, "return window.chartwire.charts.length > 0 && window.chartwire.charts.every(c => c.frames > 0)",
                 message="every chart's first frame")
        time.sleep(0.5)
        cells = d.find_elements(By.CSS_SELECTOR, "body.dashboard .cell")
        sessions = d.execute_script("return window.chartwire.charts.map(c => c.session)")
        assert len(cells) == len(sessions) >= 3
        sizes = d.execute_script("return window.chartwire.charts.map(c => c.size)")
        small = min(sizes, key=lambda s: s["width"] * s["height"])
        assert 460 <= small["width"] <= 500 and 280 <= small["height"] <= 330, small
        for i, (cell, session, size) in enumerate(zip(cells, sessions, sizes)):
            button = cell.find_element(By.CSS_SELECTOR, ".cell-export .export-button")
            plot = d.execute_script(PLOT_JS, i, cell.find_element(By.CSS_SELECTOR, ".plot"))
            b = d.execute_script("const r = arguments[0].getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]", button)
            assert not overlaps(b, plot), (session, b, plot)
            d.execute_script("arguments[0].focus()", button)
            assert d.execute_script("return getComputedStyle(arguments[0].closest('.cell-export')).opacity", button) == "1"
            button.send_keys(Keys.ENTER)
            links = [a.get_attribute("href") for a in cell.find_elements(By.CSS_SELECTOR, "[role=menuitem]")]
            assert links[0] == f"{demo_server.http}/api/sessions/{session}/image.png?width={size['width']}&height={size['height']}&dpr=1"
            assert links[3] == f"{demo_server.http}/api/sessions/{session}/data.csv"
            d.switch_to.active_element.send_keys(Keys.ESCAPE)
        d.execute_script("document.activeElement.blur()")
        (artifacts / "export-dashboard.png").write_bytes(d.get_screenshot_as_png())
    finally:
        d.quit()
