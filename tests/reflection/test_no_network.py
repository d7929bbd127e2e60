"""``status``, ``queue`` and ``reflect --dry-run`` open no network connection and never import litellm."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest

from orkas_tui import cli
from tests.reflection.conftest import NOW, configure, set_reflected, trigger_turn

GUARD = r"""
import json, socket, sys
attempts = []
def refuse(*args, **kwargs):
    attempts.append(repr(args[:2]))
    raise OSError("network disabled by the test")
socket.socket.connect = refuse
socket.socket.connect_ex = refuse
socket.create_connection = refuse
socket.getaddrinfo = refuse
from orkas_tui import cli
codes = [cli.main(argv) for argv in json.loads(sys.argv[1])]
print(json.dumps({"codes": codes, "attempts": attempts, "litellm": "litellm" in sys.modules}), file=sys.stderr)
"""

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def busy_ws(root):
    set_reflected(root, "coder", NOW - timedelta(days=2))
    trigger_turn(root, "coder", NOW - timedelta(hours=3))
    (root / "orkas.toml").write_text('[model]\nname = "openai/gpt-test"\napi_base = "http://203.0.113.7:9/v1"\n')
    return root


def test_status_queue_and_dry_run_in_a_fresh_process_touch_no_network(busy_ws):
    ws = str(busy_ws)
    argvs = [
        ["status", "--json", "--workspace", ws],
        ["queue", "--json", "--workspace", ws],
        ["reflect", "coder", "--dry-run", "--workspace", ws],
        ["reflect", "coder", "--dry-run", "--json", "--workspace", ws],
    ]
    done = subprocess.run(
        [sys.executable, "-c", GUARD, json.dumps(argvs)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        env={"PATH": "/usr/bin:/bin", "HOME": str(busy_ws.parent), "ORKAS_MODEL": "openai/x"},
    )
    report = json.loads(done.stderr.strip().splitlines()[-1])
    assert report == {"codes": [0, 0, 0, 0], "attempts": [], "litellm": False}
    assert "dry run for coder: nothing is sent" in done.stdout


def test_the_guard_itself_catches_a_real_reflection(busy_ws, monkeypatch, capsys):
    attempts = []

    def refuse(self, address):
        attempts.append(address)
        raise OSError("network disabled by the test")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    configure(
        busy_ws, extra='[model]\nname = "openai/gpt-test"\napi_base = "http://127.0.0.1:9/v1"\ntimeout_s = 1\nmax_retries = 0\n'
    )
    code = cli.main(["reflect", "coder", "--workspace", str(busy_ws)])
    assert code == 3 and attempts
    assert "transient_failure" in capsys.readouterr().err
