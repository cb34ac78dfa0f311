"""The cluster (docs/cluster.md) as people see it, in headless Chromium: two pages of one
shared session on two different nodes; a drag in one pans the other; the node of one
page is killed and that page, loaded through nginx (deploy/nginx-cluster.conf.template),
reconnects by itself to another node and draws the same chart again.

Starts its own redis-server, three nodes and nginx; skipped where redis-server or nginx
is not installed (scripts/setup installs both)."""
import json
import os
import shutil
import signal
import subprocess
import time
import urllib.request

import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.actions.wheel_input import ScrollOrigin
from selenium.webdriver.common.by import By

from conftest import FIXTURES, ROOT, Server, free_port
from test_browser import browser, plot_rect, wait_for, x_labels
from test_cluster import Redis

NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
pytestmark = pytest.mark.skipif(shutil.which("redis-server") is None or not os.path.exists(NGINX),
                                reason="redis-server or nginx is not installed")


def balancer_conf(tmp, listen, nodes):
    """deploy/nginx-cluster.conf.template filled in as scripts/cluster fills it."""
    text = (ROOT / "deploy" / "nginx-cluster.conf.template").read_text()
    upstreams = "".join(f"        server 127.0.0.1:{n.port} max_fails=1 fail_timeout=2s;\n" for n in nodes)
    text = text.replace("@LISTEN@", f"127.0.0.1:{listen}").replace("@DIR@", str(tmp)).replace("@UPSTREAMS@\n", upstreams)
    if os.geteuid() == 0:
        text = "user root;\n" + text   # workers can reach the temporary folders
    for sub in ["body", "proxy", "fastcgi", "uwsgi", "scgi"]:
        (tmp / sub).mkdir(exist_ok=True)
    path = tmp / "nginx.conf"
    path.write_text(text)
    return path


@pytest.fixture
def balanced(tmp_path):
    redis = Redis().start()
    nodes = [Server("--config", str(FIXTURES / "cluster.json"), "--redis", redis.url).start() for _ in range(3)]
    port = free_port()
    conf = balancer_conf(tmp_path, port, nodes)
    nginx = subprocess.Popen([NGINX, "-p", str(tmp_path), "-c", str(conf), "-e", str(tmp_path / "error.log"),
                              "-g", "daemon off;"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.time() + 10
    while True:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1).read()
            break
        except OSError:
            if nginx.poll() is not None or time.time() > deadline:
                raise RuntimeError("nginx did not start: " + nginx.stderr.read().decode(errors="replace"))
            time.sleep(0.05)
    yield f"http://127.0.0.1:{port}", nodes
    nginx.terminate()
    nginx.wait(10)
    for n in nodes:
        n.stop()
    redis.stop()
    shutil.rmtree(redis.dir, ignore_errors=True)


def viewers(node, session="static"):
    with urllib.request.urlopen(node.http + "/api/stats", timeout=5) as r:
        stats = json.loads(r.read())
    return next((s["viewers"] for s in stats["sessions"] if s["id"] == session), 0)


def test_two_pages_on_two_nodes_share_a_pan_and_a_killed_nodes_page_recovers(balanced):
    front, nodes = balanced
    one, two = browser(), browser()
    try:
        # Page one through the balancer; find the node it landed on.
        one.get(f"{front}/s/static")
        wait_for(one, "return window.chartwire && window.chartwire.frames > 0", message="page one's first frame")
        on = [n for n in nodes if viewers(n) > 0]
        assert len(on) == 1, [viewers(n) for n in nodes]
        home = on[0]
        # Page two straight on another node.
        other = next(n for n in nodes if n is not home)
        two.get(f"{other.http}/s/static")
        wait_for(two, "return window.chartwire && window.chartwire.frames > 0", message="page two's first frame")
        assert viewers(other) == 1 and viewers(home) == 1
        before = x_labels(one)
        assert before and x_labels(two) == before

        def shared(previous, message):
            """Waits until page two's labels differ from `previous` and page one shows
            the same labels; returns them."""
            deadline = time.time() + 5
            while time.time() < deadline:
                mine, theirs = x_labels(two), x_labels(one)
                if mine and mine != previous and theirs == mine:
                    return mine
                time.sleep(0.05)
            raise AssertionError((message, previous, x_labels(two), x_labels(one)))

        # A wheel zoom in page two (so that there is room to pan), then a drag: each
        # shows on page one, on the other node.
        x, y, w, h = plot_rect(two)
        ActionChains(two).scroll_from_origin(ScrollOrigin.from_viewport(int(x + w / 2), int(y + h / 2)), 0, -300).perform()
        zoomed = shared(before, "the wheel zoom on page one")
        canvas = two.find_element(By.ID, "chart")
        box = canvas.rect
        ActionChains(two).move_to_element_with_offset(canvas, int(x + w / 2 - box["x"] - box["width"] / 2),
                                                      int(y + h / 2 - box["y"] - box["height"] / 2)) \
            .click_and_hold().move_by_offset(60, 0).move_by_offset(60, 0).release().perform()
        panned = shared(zoomed, "the drag on page one")
        # Dragged to the right: the view moved to smaller x.
        assert float(panned[0]) < float(zoomed[0])

        # Page one's node is killed: the page reconnects through nginx to another node
        # and draws the panned chart again.
        frames = one.execute_script("return window.chartwire.frames")
        os.kill(home.proc.pid, signal.SIGKILL)
        home.proc.wait(10)
        wait_for(one, "return window.chartwire.reconnects >= 1", timeout=10, message="page one noticing its node gone")
        wait_for(one, f"return window.chartwire.connected && window.chartwire.frames > {frames}", timeout=15,
                 message="page one drawing again")
        assert x_labels(one) == panned
        assert sum(viewers(n) for n in nodes if n is not home) == 2
        assert one.execute_script("return window.chartwire.errors.length") == 0
    finally:
        one.quit()
        two.quit()
