"""A skill counts as offered to a turn only once its file was there: a history that spans an export.

Sessions are the real ``marot-spotter__tool_heavy`` session, its times moved before or after
the export and its ids made its own (each copy is another session). The export is the real
``export_agent``; its state is then given the time of contract 2 (``{"version", "at"}``).
"""

from __future__ import annotations

import json
import os
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import orjson

from orkas_tui.cli import main
from orkas_tui.core.read.timefmt import format_ts, parse_ts
from orkas_tui.core.read.workspace import Workspace
from orkas_tui.core.store.export import export_agent
from orkas_tui.core.store.skills import SkillStore
from tests.conftest import NOW
from tests.importers.test_skills import skill_md, status
from tests.importers.transcripts import write_lines

SAMPLE = "claude-code/marot-spotter__tool_heavy.jsonl"
EXPORTED = datetime(2026, 2, 15, 12, 0, tzinfo=UTC)  # T: the export


def session(samples: Path, home: Path, name: str, start: datetime, cwd: Path) -> Path:
    """The real session as another one: its times moved to begin at ``start``, its ids its own."""
    records = [json.loads(line) for line in (samples / SAMPLE).read_text().splitlines()]
    first = min(parse_ts(r["timestamp"]) for r in records if "timestamp" in r)
    ids = uuid.uuid5(uuid.NAMESPACE_URL, name)
    for record in records:
        if "timestamp" in record:
            record["timestamp"] = format_ts(parse_ts(record["timestamp"]) - first + start)
        for key in ("uuid", "parentUuid"):
            if isinstance(record.get(key), str):
                record[key] = str(uuid.uuid5(ids, record[key]))
        if "sessionId" in record:
            record["sessionId"], record["cwd"] = str(ids), str(cwd)
    return write_lines(home / ".claude" / "projects" / "-spotter" / f"{ids}.jsonl", records)


def user_skill(home: Path, slug: str, mtime: datetime) -> Path:
    path = home / ".claude" / "skills" / slug / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(skill_md(slug, f"{slug} things", "Do it well.\n"))
    os.utime(path, (mtime.timestamp(), mtime.timestamp()))
    return path


def exported_at(root: Path, at: datetime) -> None:
    """Export the agent's skills for real into ``~/.claude/skills``, then record ``at`` as the time each was written."""
    workspace = Workspace(root)
    paths = workspace.agent("claude-code")
    export_agent(paths, workspace.settings, "claude-code", Path.home() / ".claude" / "skills")
    state_path = paths.private / "exports" / "claude-code.json"
    state = orjson.loads(state_path.read_bytes())
    state = {path: {"version": version, "at": format_ts(at)} for path, version in state.items()}
    state_path.write_bytes(orjson.dumps(state))


def turns_of(root: Path) -> dict[str, list[dict]]:
    """Each conversation's turn starts."""
    found: dict[str, list[dict]] = {}
    for path in sorted((root / "agents" / "claude-code" / "conversations").glob("*.jsonl")):
        found[path.stem] = [e for e in map(json.loads, path.read_text().splitlines()) if e["type"] == "turn_start"]
    return found


def imported(root: Path, capsys) -> dict[str, dict]:
    assert main(["import", "claude-code", "--workspace", str(root), "--settle", "0"]) == 0
    return {s["slug"]: s for s in status(root, "claude-code", capsys)["skills"]}


def test_impressions_count_only_the_turns_after_the_export(tmp_path, samples, capsys):
    home, root = Path.home(), tmp_path / "ws"
    (root / "agents" / "claude-code").mkdir(parents=True)
    SkillStore(Workspace(root).agent("claude-code"), Workspace(root).settings).create(
        "Release notes", "Write release notes", "Group by area.\n", NOW
    )
    exported_at(root, EXPORTED)
    user_skill(home, "habit", EXPORTED - timedelta(days=30))  # the user's, long there
    user_skill(home, "newer", EXPORTED - timedelta(hours=12))  # the user's, written after the first session
    before = session(samples, home, "before", EXPORTED - timedelta(days=1), tmp_path / "spotter")
    after = session(samples, home, "after", EXPORTED + timedelta(days=1), tmp_path / "spotter")
    rates = imported(root, capsys)
    starts = turns_of(root)
    early, late = starts[f"claude-{before.stem}"], starts[f"claude-{after.stem}"]
    assert len(early) == len(late) == 2
    assert {tuple(s["skills_indexed"]) for s in early} == {("habit",)}
    assert {tuple(s["skills_indexed"]) for s in late} == {("habit", "newer", "release-notes")}
    impressions = {slug: rates[slug]["impressions"] for slug in ("habit", "newer", "release-notes")}
    assert impressions == {"habit": 2 * len(late), "newer": len(late), "release-notes": len(late)}


def test_a_skill_edited_later_keeps_the_time_it_was_first_seen(tmp_path, samples, capsys):
    """First seen with an mtime before the session; edited now (after every session): still offered to later sessions."""
    home, root = Path.home(), tmp_path / "ws"
    path = user_skill(home, "habit", EXPORTED)
    first = session(samples, home, "first", EXPORTED + timedelta(days=1), tmp_path / "spotter")
    imported(root, capsys)
    path.write_text(skill_md("habit", "habit things", "Do it better.\n"))  # mtime: now, after every session
    second = session(samples, home, "second", EXPORTED + timedelta(days=2), tmp_path / "spotter")
    imported(root, capsys)
    starts = turns_of(root)
    for source in (first, second):
        assert {tuple(s["skills_indexed"]) for s in starts[f"claude-{source.stem}"]} == {("habit",)}
    entry = orjson.loads((root / "agents" / "claude-code" / ".orkas" / "imports" / "skills.json").read_bytes())
    assert entry[str(path.resolve())]["mtime"] == format_ts(EXPORTED)


def test_a_skill_with_no_evidence_is_offered_to_every_turn(tmp_path, samples, capsys):
    """Recorded by an importer that kept no times, never exported with one: offered to every turn, as before."""
    home, root = Path.home(), tmp_path / "ws"
    path = user_skill(home, "habit", EXPORTED)
    imports = root / "agents" / "claude-code" / ".orkas" / "imports"
    imports.mkdir(parents=True)
    (imports / "skills.json").write_bytes(orjson.dumps({str(path.resolve()): {"source": "old", "skill": "old"}}))
    early = session(samples, home, "early", EXPORTED - timedelta(days=1), tmp_path / "spotter")
    imported(root, capsys)
    assert {tuple(s["skills_indexed"]) for s in turns_of(root)[f"claude-{early.stem}"]} == {("habit",)}
