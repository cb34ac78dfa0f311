"""Fixtures: the real server (chartwire_server.py), a client of it, and session ids.

The tests import the package from src/ (installed or not)."""
from __future__ import annotations

import itertools
import pathlib
import re
import sys
from typing import Iterator

import pytest

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))
sys.path.insert(0, str(HERE))

import chartwire  # noqa: E402
from chartwire_server import Server  # noqa: E402


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    """A server shared by a module's tests (each uses sessions of its own)."""
    s = Server().start()
    yield s
    alive = s.alive()
    s.stop()
    assert alive, f"the server died during the tests: {s.stderr()}"


@pytest.fixture
def client(server: Server) -> chartwire.Client:
    return chartwire.Client(server.url)


_ids = itertools.count(1)


@pytest.fixture
def sid(request: pytest.FixtureRequest) -> str:
    """A session id of this test's own (1-64 letters, digits, '-', '_')."""
    name = re.sub(r"[^A-Za-z0-9_-]", "-", request.node.name.replace("test_", "", 1))
    return f"{name[:50]}-{next(_ids)}"
