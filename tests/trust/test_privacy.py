"""Nothing leaves the machine but the reflection request, and that goes only to ``api_base``.

(``status``, ``queue`` and ``reflect --dry-run`` in a fresh process are covered by
tests/reflection/test_no_network.py; here: the TUI, and where a real reflection connects.)
"""

from __future__ import annotations

import socket
from datetime import timedelta
from pathlib import Path
from urllib.parse import urlparse

import pytest

from orkas_tui.core.read.timefmt import UTC
from orkas_tui.core.reflect.reflection import reflect
from orkas_tui.tui.app import make_app
from tests.modelserver import ModelServer, reply
from tests.reflection.conftest import NOW, configure, set_reflected, trigger_turn


@pytest.fixture
def connections(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Every address this process connects or resolves; connections go through (reflect needs one)."""
    seen: list[object] = []
    connect, connect_ex, resolve = socket.socket.connect, socket.socket.connect_ex, socket.getaddrinfo

    def on_connect(self, address):
        if self.family in (socket.AF_INET, socket.AF_INET6):
            seen.append(address[:2])
        return connect(self, address)

    def on_connect_ex(self, address):
        if self.family in (socket.AF_INET, socket.AF_INET6):
            seen.append(address[:2])
        return connect_ex(self, address)

    def on_resolve(host, port, *args, **kwargs):
        seen.append(("resolve", host))
        return resolve(host, port, *args, **kwargs)

    monkeypatch.setattr(socket.socket, "connect", on_connect)
    monkeypatch.setattr(socket.socket, "connect_ex", on_connect_ex)
    monkeypatch.setattr(socket, "getaddrinfo", on_resolve)
    return seen


@pytest.fixture
def busy(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    set_reflected(root, "a1", NOW - timedelta(days=2))
    trigger_turn(root, "a1", NOW - timedelta(hours=3))
    return root


async def test_the_tui_opens_and_browses_without_any_connection(busy: Path, connections) -> None:
    (busy / "orkas.toml").write_text('[model]\nname = "openai/x"\napi_base = "http://203.0.113.7:9/v1"\n')
    app = make_app(busy, clock=lambda: NOW.astimezone(UTC), watch=True, blink=False)
    async with app.run_test(size=(120, 40)) as pilot:
        for key in ("down", "1", "2", "3", "4", "5", "6"):
            await pilot.press(key)
            await pilot.pause()
    assert connections == []


def test_reflect_connects_only_to_the_configured_api_base(busy: Path, connections) -> None:
    answer = {"summary": "nothing new", "operations": []}
    with ModelServer([reply(answer)]) as server:
        outcome = reflect(configure(busy, server), "a1", NOW)
        base = urlparse(server.url)
    assert outcome.status == "nothing_to_save", outcome.message
    addresses = {a for a in connections if a[0] != "resolve"}
    assert addresses == {(base.hostname, base.port)}
    assert {a[1] for a in connections if a[0] == "resolve"} <= {base.hostname}
