"""``--continue`` / ``--resume``: a new session file that repeats the earlier one's records is not counted twice.

Built from real records of the vendored session (``BIG_SESSION``): the original is its
first 700 lines; the resumed file copies those records as Claude Code does (same
``uuid``, the original ``sessionId`` kept) and goes on with the session's next lines
under its own ``sessionId``.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

import orjson
import pytest

from orkas_tui.cli import main
from orkas_tui.importers.run import import_files
from tests.importers.conftest import BIG_SESSION
from tests.importers.test_incremental import conversation_bytes, fresh
from tests.importers.transcripts import write_lines
from tests.trust.test_crashes import killed_run

ORIGINAL = "11111111-1111-4111-8111-111111111111"
RESUMED = "22222222-2222-4222-8222-222222222222"


def real(samples: Path) -> list[dict]:
    return [json.loads(line) for line in (samples / BIG_SESSION).read_text().splitlines()]


def history(samples: Path, folder: Path, copied: int = 700, new: int = 200) -> tuple[Path, Path, list[dict], list[dict]]:
    """The original session file and its resumed copy; the records of each."""
    records = real(samples)
    original = [{**r, "sessionId": ORIGINAL} if "sessionId" in r else r for r in records[:copied]]
    later = [{**r, "sessionId": RESUMED} if "sessionId" in r else r for r in records[copied : copied + new]]
    resumed = original + later
    return write_lines(folder / f"{ORIGINAL}.jsonl", original), write_lines(folder / f"{RESUMED}.jsonl", resumed), original, later


def calls(records: list[dict]) -> set[str]:
    return {
        b["id"]
        for r in records
        if r.get("type") == "assistant" and not r.get("isSidechain")
        for b in r["message"]["content"]
        if isinstance(b, dict) and b.get("type") == "tool_use"
    }


def messages(records: list[dict]) -> int:
    return sum(1 for r in records if r.get("type") in ("user", "assistant", "system") and "uuid" in r)


def events(agent, session: str) -> list[dict]:
    path = agent.conversations / f"claude-{session}.jsonl"
    return [orjson.loads(x) for x in path.read_bytes().splitlines()] if path.exists() else []


def call_ids(agent, session: str) -> list[str]:
    return [e["id"] for e in events(agent, session) if e["type"] == "tool_call"]


def test_the_resumed_file_imports_only_what_it_adds(tmp_path, samples, workspace, agent):
    original, resumed, old, later = history(samples, tmp_path / "src")
    stats = import_files(agent, workspace.settings, "claude-code", [original, resumed], settle=0)
    first, second = call_ids(agent, ORIGINAL), call_ids(agent, RESUMED)
    assert set(first) == calls(old) and set(second) == calls(later) - calls(old)
    assert len(first) + len(second) == len(calls(old + later))  # each call once, in one conversation
    assert stats.repeated == messages(old)
    alone_ws, alone_agent = fresh(tmp_path / "alone")
    import_files(alone_agent, alone_ws.settings, "claude-code", [original], settle=0)
    assert events(alone_agent, ORIGINAL) == events(agent, ORIGINAL)  # the original imports as it would on its own
    again = import_files(agent, workspace.settings, "claude-code", [original, resumed], settle=0)
    assert again.lines == 0


def test_when_the_resumed_file_comes_first_it_keeps_the_records(tmp_path, samples, workspace, agent):
    """Import order is file order: the resumed file took the records first, and the original adds none of them twice."""
    original, resumed, old, later = history(samples, tmp_path / "src")
    import_files(agent, workspace.settings, "claude-code", [resumed], settle=0)
    stats = import_files(agent, workspace.settings, "claude-code", [original], settle=0)
    assert set(call_ids(agent, RESUMED)) == calls(old + later) and call_ids(agent, ORIGINAL) == []
    assert stats.repeated == messages(old) and stats.tool_calls == 0


def test_a_resumed_file_that_grows_adds_its_new_records_once(tmp_path, samples, workspace, agent):
    records = real(samples)
    original, resumed, old, later = history(samples, tmp_path / "src", new=100)
    import_files(agent, workspace.settings, "claude-code", [original, resumed], settle=0)
    more = [{**r, "sessionId": RESUMED} if "sessionId" in r else r for r in records[800:1000]]
    write_lines(resumed, [*old, *later, *more])
    stats = import_files(agent, workspace.settings, "claude-code", [original, resumed], settle=0)
    assert stats.repeated == 0 and stats.lines == len(more)
    assert set(call_ids(agent, RESUMED)) == calls(later + more) - calls(old)
    assert len(call_ids(agent, ORIGINAL)) + len(call_ids(agent, RESUMED)) == len(calls(old + later + more))


@pytest.mark.parametrize("kept", [None, "uuids"], ids=["nothing", "bare-uuids"])
def test_a_session_imported_before_states_kept_its_records_is_still_known(tmp_path, samples, workspace, agent, kept):
    """A state saved before states kept record keys: nothing (the oldest), or the bare uuids of the version before."""
    original, resumed, old, later = history(samples, tmp_path / "src")
    import_files(agent, workspace.settings, "claude-code", [original], settle=0)
    state_path = agent.private / "imports" / f"claude-{ORIGINAL}.json"
    state = orjson.loads(state_path.read_bytes())
    del state["records"]
    if kept:
        state[kept] = [r["uuid"] for r in old if "uuid" in r]
    state_path.write_bytes(orjson.dumps(state))
    stats = import_files(agent, workspace.settings, "claude-code", [original, resumed], settle=0)
    assert stats.repeated == messages(old)
    assert set(call_ids(agent, RESUMED)) == calls(later) - calls(old)


def test_an_import_killed_after_any_write_loses_no_record_and_counts_none_twice(tmp_path, samples):
    """The uuids a killed import took live in the states it did not save: the next import reads those records again."""
    original, resumed, _old, _later = history(samples, tmp_path / "src")
    workspace, agent = fresh(tmp_path / "one-shot")
    import_files(agent, workspace.settings, "claude-code", [original, resumed], settle=0)
    expected = conversation_bytes(agent)
    kill_after = 1
    while True:
        workspace, agent = fresh(tmp_path / f"ws{kill_after}")
        import_files(agent, workspace.settings, "claude-code", [original], settle=0)
        killed, _calls = killed_run(
            functools.partial(import_files, agent, workspace.settings, "claude-code", [original, resumed], settle=0), kill_after
        )
        import_files(agent, workspace.settings, "claude-code", [original, resumed], settle=0)
        assert conversation_bytes(agent) == expected, f"killed after call {kill_after}"
        if not killed:
            break
        kill_after += 1
    assert kill_after > 3


def test_the_summary_says_how_many_records_were_already_imported(tmp_path, samples, capsys):
    projects = Path.home() / ".claude" / "projects" / "-spotter"
    _original, _resumed, old, _later = history(samples, projects)
    root = str(tmp_path / "ws")
    assert main(["import", "claude-code", "--workspace", root, "--settle", "0"]) == 0
    assert f"skipped {messages(old)} records already imported (a resumed session repeats them)" in capsys.readouterr().out
    assert main(["import", "claude-code", "--workspace", root, "--settle", "0", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["repeated"] == 0
