"""``orkas-tui status`` imports and reads only what it uses: start-up time is part of its half-second budget.

Each check runs a fresh interpreter, since this test process has long since imported everything.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import orjson

from orkas_tui.cli import main

NOW = "2026-11-30T09:00:00Z"

# Modules status never needs, each with everything under it.
HEAVY = (
    "textual",
    "rich",
    "litellm",
    "tiktoken",
    "watchfiles",
    "detect_secrets",
    "frontmatter",
    "yaml",
    "multiprocessing",  # a cold scan of several agents forks; a warm one does not
    "concurrent.futures",
    "orkas_tui.tui",
    "orkas_tui.importers",
    "orkas_tui.demo",
    "orkas_tui.core.reflect.llm",
    "orkas_tui.core.reflect.bundle",
    "orkas_tui.core.reflect.cycle",
    "orkas_tui.core.store.answer",  # pydantic's models of the reflection's answer
    "orkas_tui.core.store.operations",
    "orkas_tui.core.store.guard",
    "orkas_tui.core.store.redact",
    "orkas_tui.core.store.changes",  # the apply machinery: only an agent with a journal to finish needs it
    "orkas_tui.core.store.proposals",  # what only the app's details read
    "orkas_tui.core.store.provenance",
    "orkas_tui.core.store.export",
    "orkas_tui.core.store.scopes",
    "pydantic",  # the answer schema only; pydantic's plugin loader alone pulled in what follows
    "pydantic_core",
    "importlib.metadata",
    "email",
    "socket",
)
# tempfile is left out: writing a cache (a cold run) needs it; the warm run is checked below.
# (shutil is argparse's, for the terminal's width.)


def loaded(code: str, modules: tuple[str, ...] = HEAVY) -> list[str]:
    """Which of ``modules`` (or modules under them) are loaded once ``code`` has run in a fresh interpreter."""
    report = f"""
import sys, orjson
print(orjson.dumps(sorted(m for m in sys.modules if any(m == h or m.startswith(h + ".") for h in {modules!r}))).decode())
"""
    out = subprocess.run([sys.executable, "-c", code + report], capture_output=True, text=True, check=True).stdout
    return orjson.loads(out.splitlines()[-1])


def test_importing_the_status_command_leaves_the_heavy_modules_out() -> None:
    assert loaded("import orkas_tui.cli, orkas_tui.commands.status") == []


def test_the_file_helpers_load_tempfile_only_to_write() -> None:
    assert loaded("import orkas_tui.core.disk.confine, orkas_tui.core.disk.write", ("tempfile", "shutil")) == []


def test_a_warm_status_run_leaves_them_out_too(demo_ws: Path, capsys) -> None:
    # the first run builds the caches (writing them needs tempfile); the next ones only read
    assert main(["status", "--workspace", str(demo_ws), "--now", NOW]) == 0
    capsys.readouterr()
    run = (
        "import contextlib, io\n"
        "from orkas_tui.cli import main\n"
        "for extra in ([], ['--json']):\n"
        "    with contextlib.redirect_stdout(io.StringIO()):\n"
        f"        assert main(['status', '--workspace', {str(demo_ws)!r}, '--now', {NOW!r}, *extra]) == 0\n"
    )
    assert loaded(run, (*HEAVY, "tempfile")) == []


def test_a_status_run_reads_each_agents_profile_once(demo_ws: Path) -> None:
    # the scan needs the profile (the tools it names) and the view shows it: one read serves both
    run = (
        "import collections, contextlib, io, sys\n"
        "from orkas_tui.cli import main\n"
        "opened = collections.Counter()\n"
        "sys.addaudithook(lambda event, args: event == 'open' and str(args[0]).endswith('profile.md') and opened.update([str(args[0])]))\n"
        "for extra in ([], ['--json']):\n"
        "    with contextlib.redirect_stdout(io.StringIO()):\n"
        f"        assert main(['status', '--workspace', {str(demo_ws)!r}, '--now', {NOW!r}, *extra]) == 0\n"
        "print(orjson.dumps(opened).decode())\n"
    )
    out = subprocess.run([sys.executable, "-c", "import orjson\n" + run], capture_output=True, text=True, check=True).stdout
    opened = orjson.loads(out.splitlines()[-1])
    assert len(opened) == len(list((demo_ws / "agents").iterdir()))
    assert set(opened.values()) == {2}  # once by each of the two runs


def test_the_correction_reader_compiles_no_pattern_at_import() -> None:
    # a warm status reads no prompt: the reader's own patterns wait for the first one
    run = (
        "import re\n"
        "import orkas_tui.core.observe.corrections, orkas_tui.core.observe.gates, orkas_tui.core.observe.origins\n"
        "compiled = []\n"
        "real = re.compile\n"
        "re.compile = lambda pattern, flags=0: compiled.append(pattern) or real(pattern, flags)\n"
        "import orkas_tui.core.observe.in_context\n"
        "print(orjson.dumps(compiled).decode())\n"
    )
    out = subprocess.run([sys.executable, "-c", "import orjson\n" + run], capture_output=True, text=True, check=True).stdout
    assert orjson.loads(out.splitlines()[-1]) == []
