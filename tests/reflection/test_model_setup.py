"""Model setup a newcomer hits first: a local server with no key, and a server that is not running."""

from __future__ import annotations

import socket

from orkas_tui.core.reflect.reflection import reflect
from tests.reflection.conftest import NOW, configure, set_reflected, trigger_turn


def _workspace(root):
    set_reflected(root, "coder", NOW.replace(day=28))
    trigger_turn(root, "coder", NOW.replace(hour=4))
    return root


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_a_local_model_works_with_api_key_env_set_but_the_variable_unset(root, server, monkeypatch):
    monkeypatch.delenv("ORKAS_TEST_UNSET_KEY", raising=False)
    ws = configure(_workspace(root), server)
    toml = root / "orkas.toml"
    toml.write_text(toml.read_text().replace("[model]\n", '[model]\napi_key_env = "ORKAS_TEST_UNSET_KEY"\n'))
    outcome = reflect(ws, "coder", NOW)
    assert outcome.status == "nothing_to_save", outcome.message
    assert len(server.requests) == 1


def test_a_refused_connection_is_named_with_its_address_not_http_500(root):
    ws = configure(_workspace(root))
    port = _closed_port()
    (root / "orkas.toml").write_text(
        f'[model]\nname = "openai/test-model"\napi_base = "http://127.0.0.1:{port}/v1"\n'
        "timeout_s = 2\nmax_retries = 1\nretry_backoff_s = 0.01\n"
    )
    outcome = reflect(ws, "coder", NOW)
    assert outcome.status == "transient_failure"
    assert f"connection refused at http://127.0.0.1:{port}/v1" in outcome.message
    assert "500" not in outcome.message.replace(str(port), "")  # the port itself may hold the digits
