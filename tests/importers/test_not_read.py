"""Records of kinds the importers do not know: counted by kind with their first example, kept per agent, shown by
``status`` (importers/not_read.py). None of the real samples holds one (a new agent version's first new kind will):
these are the test session's, one new record type, one new ``system`` subtype and one new content block."""

from __future__ import annotations

import json

from orkas_tui.cli import main
from tests.importers.test_claude_code import session
from tests.importers.transcripts import write_lines


def status(workspace, capsys, *extra: str) -> str:
    assert main(["status", "--workspace", str(workspace.root), "--agent", "coder", *extra]) == 0
    return capsys.readouterr().out


def test_unknown_records_are_counted_with_their_first_example_in_status(tmp_path, workspace, capsys):
    source = write_lines(tmp_path / "src" / "s1.jsonl", session())
    args = ["import", "claude-code", str(source), "--agent", "coder", "--workspace", str(workspace.root), "--settle", "0"]
    assert main(args) == 0
    capsys.readouterr()
    (row,) = json.loads(status(workspace, capsys, "--json"))["agents"]
    unread = row["not_read"]
    assert (unread["records"], unread["malformed_lines"]) == (3, 3)
    assert {kind: entry["count"] for kind, entry in unread["kinds"].items()} == {
        "mystery-record": 1,
        "system/brand_new_subtype": 1,
        "assistant block/hologram": 1,
    }
    first = unread["kinds"]["mystery-record"]["first"]
    assert first.startswith(f"{source}: ") and '"type": "mystery-record"' in first
    assert '"hologram"' in unread["kinds"]["assistant block/hologram"]["first"]
    assert "not read: 3 imported records of unknown kinds, assistant block/hologram (1)" in status(workspace, capsys)
    # a second import reads nothing new: the counts stay
    assert main(args) == 0
    capsys.readouterr()
    (again,) = json.loads(status(workspace, capsys, "--json"))["agents"]
    assert again["not_read"] == unread


def test_an_agent_whose_imports_read_everything_shows_none(samples, workspace, capsys):
    codex = samples / "codex" / "formats"
    assert main(["import", "codex", str(codex), "--agent", "coder", "--workspace", str(workspace.root), "--settle", "0"]) == 0
    capsys.readouterr()
    (row,) = json.loads(status(workspace, capsys, "--json"))["agents"]
    assert row["not_read"] == {"records": 0, "kinds": {}, "malformed_lines": 0}
    assert "not read" not in status(workspace, capsys)


def test_kinds_an_older_version_counted_and_this_one_reads_as_no_work_are_dropped(tmp_path, workspace, agent, capsys):
    """An older importer counted Claude Code's ``mode`` record and ``fallback`` block as not read; this
    one knows both carry no work, so the next import drops them and keeps what it still cannot read."""
    agent.private.mkdir()
    older = {"count": 80, "first": "s0.jsonl: {}"}
    (agent.private / "not-read.json").write_text(
        json.dumps(
            {
                "kinds": {
                    "mode": older,
                    "assistant block/fallback": {**older, "count": 9},
                    "pixie-record": {**older, "count": 2},
                },
                "malformed_lines": 1,
                "records": 91,
            }
        )
    )
    source = write_lines(tmp_path / "src" / "s1.jsonl", session()[:4])
    args = ["import", "claude-code", str(source), "--agent", "coder", "--workspace", str(workspace.root), "--settle", "0"]
    assert main(args) == 0
    capsys.readouterr()
    (row,) = json.loads(status(workspace, capsys, "--json"))["agents"]
    assert row["not_read"] == {
        "records": 2,
        "kinds": {"pixie-record": {"count": 2, "first": "s0.jsonl: {}"}},
        "malformed_lines": 1,
    }
