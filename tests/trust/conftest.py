"""Trust tests: shared helpers for running the CLI in-process and building hostile workspaces.

Fuzzing is bounded by the ``trust`` hypothesis profile (derandomized, so CI is
deterministic). For a longer hunt run
``ORKAS_FUZZ_PROFILE=trust-long pytest tests/trust`` (thousands of examples, random seed).
"""

from __future__ import annotations

import io
import json
import os
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

from hypothesis import HealthCheck, settings

from orkas_tui.cli import main

NOW = "2026-11-30T09:00:00Z"

_QUIET = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture]
settings.register_profile("trust", max_examples=25, deadline=None, derandomize=True, suppress_health_check=_QUIET)
settings.register_profile("trust-long", max_examples=3000, deadline=None, suppress_health_check=_QUIET)
FUZZ = settings(settings.get_profile(os.environ.get("ORKAS_FUZZ_PROFILE", "trust")))


def cli(*args: str) -> tuple[int, str, str]:
    """Run ``orkas-tui ARGS`` in-process; return exit code, stdout and stderr."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue(), err.getvalue()


def status_json(root: Path) -> dict:
    """``status --json`` must exit 0 and print one JSON document."""
    code, out, err = cli("status", "--workspace", str(root), "--now", NOW, "--json")
    assert code == 0, err
    return json.loads(out)


def only_agent(doc: dict) -> dict:
    (agent,) = doc["agents"]
    return agent
