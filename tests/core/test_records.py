"""The numbered-record store: ids that know their agent, the on-disk bytes, errors with the field's path."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from orkas_tui.core.read.timefmt import format_ts
from orkas_tui.core.read.workspace import AgentPaths, Workspace
from orkas_tui.core.store.history import CHANGES, HistoryError, list_changes, load_change, record_change
from orkas_tui.core.store.proposals import PROPOSALS, Proposal, ProposalError, ProposedOp, list_proposals, load_proposal
from orkas_tui.core.store.records import RecordId
from tests.conftest import NOW

AT = format_ts(NOW)


@pytest.fixture
def workspace(tmp_path: Path) -> Workspace:
    (tmp_path / "agents" / "a1").mkdir(parents=True)
    return Workspace(tmp_path)


def change(paths: AgentPaths, **fields) -> None:
    record_change(paths, NOW, by="approval", action="patch_skill", kind="skill", target="s", before="a", after="b", **fields)


def test_an_id_knows_its_agent_letter_and_number() -> None:
    ref = RecordId.parse("my-agent_2.p17")
    assert ref == RecordId("my-agent_2", "p", 17) and ref.stem == "p17" and str(ref) == "my-agent_2.p17"
    assert RecordId.parse("a1.p3", "p") == RecordId("a1", "p", 3) and RecordId.parse("a1.p3", "c") is None
    assert [RecordId.parse(t) for t in ("a1", "a1.x1", "A1.p1", "a1.p", "a1.p1.json", None, 7)] == [None] * 7
    with pytest.raises(ProposalError, match=r"not a proposal id: 'a1\.c1' \(like coder\.p1\)"):
        PROPOSALS.parse("a1.c1")


def test_a_change_is_written_in_the_documented_layout(workspace: Workspace) -> None:
    change(workspace.agent("a1"))
    text = (workspace.agent("a1").private / "history" / "c1.json").read_text()
    assert text == (
        "{\n"
        '  "id": "a1.c1",\n  "agent": "a1",\n'
        f'  "at": "{AT}",\n'
        '  "by": "approval",\n  "action": "patch_skill",\n  "kind": "skill",\n  "target": "s",\n'
        '  "before": "a",\n  "after": "b",\n  "proposal": null,\n  "op_index": null,\n  "reverted_at": null\n'
        "}\n"
    )


def test_a_proposal_is_written_with_its_status_last(workspace: Workspace) -> None:
    paths = workspace.agent("a1")
    op = ProposedOp(index=0, op={"op": "delete_skill", "skill": "s"}, status="applied", changes=["a1.c1"], decided_at=AT)
    PROPOSALS.save(paths, Proposal(id="a1.p1", agent="a1", created_at=AT, summary="one", operations=[op]))
    assert json.loads((paths.private / "proposals" / "p1.json").read_text()) == {
        "id": "a1.p1",
        "agent": "a1",
        "created_at": AT,
        "summary": "one",
        "operations": [
            {
                "index": 0,
                "op": {"op": "delete_skill", "skill": "s"},
                "status": "applied",
                "reason": None,
                "changes": ["a1.c1"],
                "decided_at": AT,
                "quarantine": None,
                "cwds": None,
                "files": None,
            }
        ],
        "reflection": {},
        "status": "applied",
    }
    assert (paths.private / "proposals" / "p1.json").read_text().splitlines()[-2] == '  "status": "applied"'
    assert load_proposal(workspace, "a1.p1")[1] == PROPOSALS.get(paths, RecordId("a1", "p", 1))


def test_a_damaged_record_is_refused_with_the_path_of_its_field(workspace: Workspace) -> None:
    paths = workspace.agent("a1")
    change(paths)
    entry = paths.private / "history" / "c1.json"
    entry.write_text(entry.read_text().replace('"after": "b"', '"after": 5'))
    with pytest.raises(HistoryError, match=r"change a1\.c1 is damaged \(Expected `str \| null`, got `int` - at `\$\.after`\)"):
        load_change(workspace, "a1.c1")
    proposal = paths.private / "proposals" / "p1.json"
    proposal.parent.mkdir(parents=True)
    ops = [{"index": 0, "op": {}, "status": "pending"}, {"index": 1, "op": {}, "status": "pending", "changes": ["../x"]}]
    data = {"id": "a1.p1", "agent": "a1", "created_at": AT, "summary": "s", "operations": ops}
    proposal.write_text(json.dumps(data))
    with pytest.raises(ProposalError, match=r"malformed change ids - at `\$\.operations\[1\]`"):
        load_proposal(workspace, "a1.p1")
    assert list_changes(paths) == [] and list_proposals(paths) == []


def test_the_list_is_in_number_order_and_leaves_out_copied_records(workspace: Workspace) -> None:
    paths = workspace.agent("a1")
    for _ in range(11):
        change(paths)
    folder = paths.private / "history"
    (folder / "c12.json").write_bytes((folder / "c3.json").read_bytes())  # a copy names a1.c3, not a1.c12
    assert [c.id for c in list_changes(paths)] == [f"a1.c{n}" for n in range(1, 12)]
    assert CHANGES.get(paths, RecordId("a1", "c", 12)) is None
    assert CHANGES.next_number(paths) == 13  # the copy's number is taken all the same
    with pytest.raises(HistoryError, match=r"it names 'a1\.c3'"):
        load_change(workspace, "a1.c12")


def test_a_legacy_applying_operation_reads_as_pending(workspace: Workspace) -> None:
    paths = workspace.agent("a1")
    proposal = paths.private / "proposals" / "p1.json"
    proposal.parent.mkdir(parents=True)
    ops = [{"index": 0, "op": {}, "status": "applying"}]
    proposal.write_text(json.dumps({"id": "a1.p1", "agent": "a1", "created_at": AT, "summary": "s", "operations": ops}))
    assert [o.status for o in load_proposal(workspace, "a1.p1")[1].operations] == ["pending"]
