"""History entries, proposals and the journal are untrusted input: checked before revert or approve acts on them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from orkas_tui.core.read.workspace import Workspace
from orkas_tui.core.store.changes import approve
from orkas_tui.core.store.proposals import create_proposal
from orkas_tui.core.store.skills import SkillStore
from tests.trust.conftest import NOW, cli, status_json
from tests.trust.workers import START

OPS = [
    {"op": "patch_skill", "skill": "s", "find": "step one", "replace": "step two"},
    {"op": "update_self", "note": "profile", "content": "- careful\n"},
]


@pytest.fixture
def applied(tmp_path: Path) -> Path:
    """A workspace whose proposal a1.p1 is applied: changes a1.c1 (skill) and a1.c2 (note)."""
    root = tmp_path / "ws"
    (root / "agents" / "a1").mkdir(parents=True)
    workspace = Workspace(root)
    paths = workspace.agent("a1")
    SkillStore(paths, workspace.settings).create("s", "d", "Do step one.\n", START)
    create_proposal(paths, workspace.settings, "two", OPS, START, {})
    approve(workspace, "a1.p1", START)
    return root


def history_file(root: Path, n: int) -> Path:
    return root / "agents" / "a1" / ".orkas" / "history" / f"c{n}.json"


def tamper(path: Path, **fields) -> None:
    data = json.loads(path.read_text())
    data.update(fields)
    path.write_text(json.dumps(data))


@pytest.mark.parametrize(
    "fields",
    [
        {"target": "../../../../tmp/x"},
        {"target": "../../../../tmp/x", "kind": "note"},
        {"kind": "folder"},
        {"after": 5},
        {"before": ["x"]},
        {"action": "rm_rf"},
        {"op_index": "0"},
        {"id": "a1.c9"},
        {"target": None},
    ],
    ids=lambda f: ",".join(f"{k}={v}" for k, v in f.items()),
)
def test_a_tampered_history_entry_is_refused_by_revert_in_one_line(applied: Path, tmp_path: Path, fields) -> None:
    tamper(history_file(applied, 1), **fields)
    before = {p: p.read_bytes() for p in applied.rglob("*.md")}
    code, out, err = cli("revert", "a1.c1", "--workspace", str(applied), "--now", NOW)
    assert code == 2 and out == "" and "Traceback" not in err
    assert err.startswith("orkas-tui: change a1.c1 is damaged (") and len(err.splitlines()) == 1
    assert {p: p.read_bytes() for p in applied.rglob("*.md")} == before
    assert not (tmp_path.parent / "x").exists() and not Path("/tmp/x.md").exists()
    code, out, err = cli("history", "a1", "--workspace", str(applied), "--json")  # the damaged one is left out
    assert code == 0 and [c["id"] for c in json.loads(out)] == ["a1.c2"]


@pytest.mark.parametrize(
    "change",
    [
        {"operations": "all"},
        {"operations": [{"index": 0, "op": {}, "status": "weird"}]},
        {"operations": [{"index": 3, "op": {}, "status": "pending"}]},
        {"operations": [{"index": 0, "op": {}, "status": "pending", "changes": ["../x"]}]},
        {"summary": 7},
        {"id": "a1.p2"},
    ],
    ids=range(6),
)
def test_a_tampered_proposal_is_refused_in_one_line(applied: Path, change) -> None:
    tamper(applied / "agents" / "a1" / ".orkas" / "proposals" / "p1.json", **change)
    for action in ("approve", "reject", "show"):
        code, _out, err = cli(
            "proposals", action, "a1.p1", "--workspace", str(applied), *(["--now", NOW] if action != "show" else [])
        )
        assert code == 2 and "Traceback" not in err
        assert err.startswith("orkas-tui: proposal a1.p1 is damaged (") and len(err.splitlines()) == 1


def test_a_pending_operation_of_the_wrong_shape_is_a_failed_operation(applied: Path) -> None:
    path = applied / "agents" / "a1" / ".orkas" / "proposals" / "p1.json"
    data = json.loads(path.read_text())
    data["operations"].append({"index": 2, "op": {"op": ["create_skill"]}, "status": "pending"})
    path.write_text(json.dumps(data))
    code, _out, err = cli("proposals", "approve", "a1.p1", "--workspace", str(applied), "--now", NOW)
    assert code == 2 and "Traceback" not in err
    assert (
        err.strip()
        == "orkas-tui: operation 2: unknown op ['create_skill'] (one of create_skill, patch_skill, delete_skill, update_self)"
    )


@pytest.mark.parametrize(
    "journal",
    [
        '{"kind": "apply"',
        "[]",
        '{"kind": "apply", "at": "2026-11-30T09:00:00Z", "by": "x", '
        '"proposal": "a1.p1", "op_index": 0, "steps": [{"action": "create_skill", "kind": "skill", '
        '"target": "../../x", "before": null, "after": "x", "change": "", "event": null}]}',
        '{"kind": "revert", "at": "2026-11-30T09:00:00Z", "by": "x", "revert": "a1.p1", "steps": [{"action": '
        '"update_self", "kind": "note", "target": "profile", "before": "- careful\\n", "after": "", "change": "", "event": null}]}',
        '{"kind": "apply", "at": "2026-11-30T09:00:00Z", "by": "x", "proposal": "a1.p1", "op_index": 0, "steps": [{"action": '
        '"update_self", "kind": "note", "target": "profile", "before": "- careful\\n", "after": "", "change": "../c9", "event": null}]}',
    ],
)
def test_a_damaged_journal_stops_approve_and_revert_but_not_status(applied: Path, journal: str) -> None:
    (applied / "agents" / "a1" / ".orkas" / "journal.json").write_text(journal)
    for argv in (("proposals", "approve", "a1.p1"), ("revert", "a1.c2")):
        code, _, err = cli(*argv, "--workspace", str(applied), "--now", NOW)
        assert code == 2 and "Traceback" not in err and "journal.json" in err and len(err.splitlines()) == 1
    assert (applied / "agents" / "a1" / "self" / "profile.md").read_text() == "- careful\n"  # nothing reverted
    assert not list(applied.parent.glob("x*"))
    status_json(applied)  # reports nothing it cannot finish, and still works


def test_a_proposal_copied_under_another_name_is_left_out_of_the_list(applied: Path) -> None:
    folder = applied / "agents" / "a1" / ".orkas" / "proposals"
    (folder / "p7.json").write_bytes((folder / "p1.json").read_bytes())
    code, out, _ = cli("proposals", "list", "--workspace", str(applied), "--json")
    assert code == 0 and [p["id"] for p in json.loads(out)] == ["a1.p1"]
