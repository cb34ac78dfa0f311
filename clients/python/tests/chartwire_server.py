"""The real server for the tests: `wsserver --port 0 --quiet --no-demo --data none`, started with
the repository root as its working directory; its first stdout line says where it
listens. The binary comes from CHARTWIRE_BIN, else <repo>/.build/debug/wsserver."""
from __future__ import annotations

import os
import pathlib
import re
import subprocess
import tempfile
import time
from typing import Dict, List, Optional

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]


def server_binary() -> str:
    return os.environ.get("CHARTWIRE_BIN") or str(ROOT / ".build" / "debug" / "wsserver")


class Server:
    """One wsserver process on a free port."""

    def __init__(self, *args: str, env: Optional[Dict[str, str]] = None) -> None:
        # Memory only (--data none): tests share no state through a data folder.
        data = [] if "--data" in args else ["--data", "none"]
        self.args: List[str] = [server_binary(), "--port", "0", "--quiet", "--no-demo", *data, *args]
        self.env = {**os.environ, **(env or {})}
        self.port = 0
        self._out = tempfile.TemporaryFile()
        self._err = tempfile.TemporaryFile()
        self.proc: Optional[subprocess.Popen[bytes]] = None

    def start(self) -> "Server":
        if not os.path.exists(self.args[0]):
            pytest.fail(f"no server binary at {self.args[0]}: build it (swift build) or set CHARTWIRE_BIN")
        self.proc = subprocess.Popen(self.args, cwd=ROOT, stdout=self._out, stderr=self._err, env=self.env)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            self._out.seek(0)
            first = self._out.readline().decode(errors="replace")
            if first.endswith("\n"):
                m = re.match(r"listening on http://127\.0\.0\.1:(\d+)$", first.strip())
                if not m:
                    self.stop()
                    raise RuntimeError(f"unexpected first line {first!r}; stderr: {self.stderr()}")
                self.port = int(m.group(1))
                return self
            if self.proc.poll() is not None:
                raise RuntimeError(f"the server exited with {self.proc.returncode}: {self.stderr()}")
            time.sleep(0.02)
        self.stop()
        raise RuntimeError("the server printed no listening line within 30 s")

    def stderr(self) -> str:
        self._err.seek(0)
        return self._err.read().decode(errors="replace")

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
