"""Starts the real wsserver for the integration and browser tests.

The binary comes from CHARTWIRE_BIN, or from `swift build --show-bin-path`
(the test script builds it first)."""
import os
import pathlib
import select
import socket
import subprocess
import time

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
FIXTURES = pathlib.Path(__file__).resolve().parent / "fixtures"


def server_binary():
    if os.environ.get("CHARTWIRE_BIN"):
        return os.environ["CHARTWIRE_BIN"]
    bin_dir = subprocess.run(["swift", "build", "--show-bin-path"], cwd=ROOT, capture_output=True, text=True,
                             check=True).stdout.strip()
    return os.path.join(bin_dir, "wsserver")


class Server:
    def __init__(self, *args, port=0, env=None):
        # Memory only unless a test names a data folder: tests must not share state
        # through, or leave data in, the repository's default ./chartwire-data.
        data = [] if "--data" in args else ["--data", "none"]
        self.args = [server_binary(), "--port", str(port), "--quiet", *data, *args]
        self.env = {**os.environ, **env} if env else None
        self.proc = None
        self.port = None

    def start(self):
        self.proc = subprocess.Popen(self.args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                     env=self.env)
        ready, _, _ = select.select([self.proc.stdout], [], [], 20)
        if not ready:
            self.stop()
            raise RuntimeError("wsserver did not print its listening line within 20 s")
        line = self.proc.stdout.readline().strip()
        if not line.startswith("listening on http://"):
            err = self.proc.stderr.read()
            raise RuntimeError(f"unexpected first line {line!r}; stderr: {err}")
        self.port = int(line.rsplit(":", 1)[1])
        return self

    @property
    def http(self):
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws(self):
        return f"ws://127.0.0.1:{self.port}"

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def static_server():
    s = Server("--config", str(FIXTURES / "static.json")).start()
    yield s
    assert s.alive(), "the server died during the test"
    s.stop()


@pytest.fixture
def demo_server():
    s = Server().start()
    yield s
    assert s.alive(), "the server died during the test"
    s.stop()


@pytest.fixture
def artifacts():
    d = ROOT / "artifacts"
    d.mkdir(exist_ok=True)
    return d
