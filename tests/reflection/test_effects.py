"""The effect of each applied change: the agent's corrections and real errors per real turn, and the
skill's rates over the N turns showing it, before and after."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from orkas_tui.core.read.settings import ConfigError, load_settings
from orkas_tui.core.read.timefmt import format_ts
from orkas_tui.core.read.workspace import AgentPaths, Workspace
from orkas_tui.core.reflect.bundle import build_bundle
from orkas_tui.core.reflect.effects import change_effects
from orkas_tui.core.reflect.tokens import count_tokens
from orkas_tui.core.store.history import Change, list_changes, mark_reverted, record_change
from orkas_tui.core.summary.scan import AgentScan
from orkas_tui.demo.workspace import write_demo
from tests.reflection.conftest import CORRECTION, NOW, add_events, add_turn, run_cli, run_json, write_skill

H = timedelta(hours=1)
SLUG = "deploy"


def turns_with(root: Path, start, outcomes: list[str]) -> None:
    """One turn an hour from ``start`` per outcome: the skill read, the turn ending ``ok`` or ``error``."""
    for i, status in enumerate(outcomes):
        end = {"error": "kubectl: deployment exceeded its progress deadline"} if status == "error" else None
        add_turn(root, "a", start + i * H, status=status, end=end, read=[SLUG], user="deploy the docs")


def patch_at(root: Path, at, action: str = "patch_skill") -> Change:
    paths = AgentPaths(root / "agents" / "a")
    return record_change(paths, at, by="approval", action=action, kind="skill", target=SLUG, before="a", after="b")


def scan_of(root):
    ws = Workspace(root)
    scan = AgentScan(ws.agent("a"), ws.settings)
    scan.refresh()
    return scan


def test_too_few_turns_after_then_the_rates_before_and_after(root):
    start = NOW - timedelta(days=2)
    turns_with(root, start, ["error"] * 4 + ["ok"])
    change = patch_at(root, start + 4.5 * H)
    turns_with(root, start + 5 * H, ["ok"] * 3)
    effect = change_effects([change], scan_of(root).turns(), 5)[change.id].skill
    assert (effect.status, effect.after, effect.window.turns_after) == ("too few turns yet", None, 3)
    assert effect.phrase() == "too few turns yet (3 of 5 after)"
    assert (effect.before.turns, effect.before.invocation_rate, effect.before.ineffective_rate) == (5, 1.0, 0.8)

    turns_with(root, start + 8 * H, ["ok", "error"])
    effect = change_effects([change], scan_of(root).turns(), 5)[change.id].skill
    assert effect.status == "measured" and effect.after.turns == 5 and effect.after.ineffective_rate == 0.2
    assert effect.phrase() == ("invocation 100% → 100%, edit 0% → 0%, ineffective 80% → 20% (5 turns before, 5 after)")


def test_only_turns_showing_the_skill_count_and_a_revert_ends_the_window(root):
    start = NOW - timedelta(days=2)
    turns_with(root, start, ["error", "error"])
    for i in range(6):  # turns that never showed the skill: not part of its window
        add_turn(root, "a", start + (2 + i * 0.1) * H, user="something else")
    change = patch_at(root, start + 3 * H)
    turns_with(root, start + 4 * H, ["ok", "ok"])
    mark_reverted(AgentPaths(root / "agents" / "a"), change, format_ts(start + 5.5 * H))
    turns_with(root, start + 6 * H, ["error"] * 5)  # after the revert: not the change's doing
    effect = change_effects([change], scan_of(root).turns(), 2)[change.id].skill
    assert effect.before.turns == 2 and effect.after.turns == 2 and effect.after.ineffective_rate == 0.0


def test_a_removed_skill_has_no_after_and_note_changes_have_only_the_agents(root):
    start = NOW - timedelta(days=1)
    turns_with(root, start, ["error"])
    paths = AgentPaths(root / "agents" / "a")
    deleted = patch_at(root, start + H, action="delete_skill")
    note = record_change(
        paths, start + H, by="approval", action="update_self", kind="note", target="profile", before="", after="x"
    )
    effects = change_effects([deleted, note], scan_of(root).turns(), 20)
    assert set(effects) == {deleted.id, note.id} and effects[deleted.id].skill.status == "skill removed"
    assert effects[deleted.id].skill.phrase().startswith("skill removed; before (1 turns): invocation 100%")
    assert effects[note.id].skill is None and effects[note.id].agent.before.turns == 1


def test_history_shows_each_changes_effect_in_text_and_json(root, capsys):
    start = NOW - timedelta(days=2)
    turns_with(root, start, ["error", "error"])
    patch_at(root, start + 3 * H)
    turns_with(root, start + 4 * H, ["ok"] * 20)
    data = run_json(capsys, "history", "a", "--workspace", str(root))
    effect = data[0]["effect"]
    assert set(effect) == {"change", "agent", "skill"} and effect["change"] == data[0]["id"]
    skill = effect["skill"]
    assert skill["status"] == "measured" and skill["window"] == 20 and skill["skill"] == SLUG
    assert skill["before"] == {"turns": 2, "invocation_rate": 1.0, "edit_rate": 0.0, "ineffective_rate": 1.0}
    assert skill["after"]["ineffective_rate"] == 0.0 and skill["turns_after"] == 20
    agent = effect["agent"]
    assert agent["status"] == "measured" and agent["window"] == 20 and agent["turns_after"] == 20
    assert agent["before"] == {
        "turns": 2,
        "corrections": 0,
        "real_errors": 2,
        "corrections_per_turn": 0.0,
        "real_errors_per_turn": 1.0,
    }
    assert agent["after"]["real_errors_per_turn"] == 0.0 and agent["after"]["turns"] == 20
    assert agent["completed_at"] == format_ts(start + 23 * H + timedelta(seconds=30))
    code, out, _ = run_cli(capsys, "history", "a", "--workspace", str(root))
    assert code == 0 and f"a.c1 skill {SLUG}: invocation 100% → 100%" in out
    assert "ineffective 100% → 0% (2 turns before, 20 after)" in out
    assert (
        "a.c1 agent: corrections/turn 0.00 (2 turns) → 0.00 (20 turns); real errors/turn 1.00 (2 turns) → 0.00 (20 turns)" in out
    )


def test_the_window_is_a_setting_with_a_range(tmp_path):
    (tmp_path / "orkas.toml").write_text("[reflection]\neffect_window = 5\n")
    assert load_settings(tmp_path).effect_window == 5
    (tmp_path / "orkas.toml").write_text("[reflection]\neffect_window = 0\n")
    with pytest.raises(ConfigError, match="effect_window"):
        load_settings(tmp_path)


def test_the_bundle_shows_the_effect_of_the_latest_change_to_a_skill_read(root):
    write_skill(root, "a", SLUG, "Deploy", "1. deploy")
    start = NOW - timedelta(days=2)
    turns_with(root, start, ["error", "error"])
    patch_at(root, start + 3 * H)
    turns_with(root, start + 4 * H, ["ok"])
    bundle = build_bundle(scan_of(root), None)
    assert "# Effect of the latest change to each skill read" in bundle.text
    assert f"- {SLUG}: a.c1 (patch_skill, {format_ts(start + 3 * H)}): too few turns yet (1 of 20 after)" in bundle.text
    assert bundle.parts["effects"] > 0


def test_the_demo_shows_a_change_that_helped(tmp_path, capsys):
    root = write_demo(tmp_path / "demo")
    changes = list_changes(Workspace.open(root).agent("ops"))
    assert [(c.action, c.target) for c in changes] == [("patch_skill", "rollback-deployment")]
    effect = run_json(capsys, "history", "ops", "--workspace", str(root))[0]["effect"]
    assert effect["skill"]["status"] == "measured" == effect["agent"]["status"]
    assert effect["skill"]["after"]["ineffective_rate"] < effect["skill"]["before"]["ineffective_rate"]
    agent = effect["agent"]
    assert agent["after"]["real_errors_per_turn"] < agent["before"]["real_errors_per_turn"]


def note_at(root: Path, at) -> Change:
    paths = AgentPaths(root / "agents" / "a")
    return record_change(paths, at, by="approval", action="update_self", kind="note", target="profile", before="", after="x")


def test_the_agents_corrections_and_real_errors_per_real_turn_before_and_after(root, capsys):
    start = NOW - timedelta(days=2)
    add_turn(root, "a", start - 1 * H)  # the conversation's task (its first prompt: never a correction), out of the window
    add_turn(root, "a", start, user=CORRECTION)
    add_turn(root, "a", start + 0.5 * H, user=CORRECTION, status="aborted")  # aborted: not a real turn
    add_turn(root, "a", start + 1 * H, user="no, only the docs folder")  # after the interruption (the same words: a retry)
    add_turn(root, "a", start + 2 * H, errors=[{"error": "exit status 2"}, {"error": "exit status 2"}])
    add_turn(root, "a", start + 2.5 * H, status="error", end={"error": "ETIMEDOUT registry"})  # ended transient
    add_turn(root, "a", start + 3 * H, errors=[{"error": "ETIMEDOUT registry"}])  # a transient error: real, 0 errors
    change = note_at(root, start + 3.5 * H)  # a self-note change: measured on the agent too
    add_turn(root, "a", start + 4 * H)
    add_turn(root, "a", start + 5 * H, status="aborted")
    add_turn(root, "a", start + 6 * H, user="no, only the API docs")  # after the interruption, new words
    effect = change_effects([change], scan_of(root).turns(), 4)[change.id]
    assert effect.skill is None and effect.agent.window.status == "too few turns yet" and effect.agent.after is None
    assert (effect.agent.before.turns, effect.agent.before.corrections, effect.agent.before.real_errors) == (4, 2, 2)
    assert effect.agent.phrase() == (
        "corrections/turn 0.50 (4 turns), real errors/turn 0.50 (4 turns) before; too few turns yet (2 of 4 after)"
    )

    add_turn(root, "a", start + 7 * H, status="error", end={"error": "kubectl: deployment exceeded its progress deadline"})
    add_turn(root, "a", start + 8 * H)
    add_turn(root, "a", start + 9 * H, user=CORRECTION)  # the fifth turn after: past the window
    effect = change_effects([change], scan_of(root).turns(), 4)[change.id]
    assert effect.agent.window.status == "measured"
    assert effect.agent.window.completed_at == start + 8 * H + timedelta(seconds=30)
    # the prompt typed after the interrupted turn (+5 h) redirects the agent: a correction
    assert (effect.agent.after.turns, effect.agent.after.corrections, effect.agent.after.real_errors) == (4, 1, 1)
    assert effect.agent.phrase() == (
        "corrections/turn 0.50 (4 turns) → 0.25 (4 turns); real errors/turn 0.50 (4 turns) → 0.25 (4 turns)"
    )
    (root / "orkas.toml").write_text("[reflection]\neffect_window = 4\n")
    data = run_json(capsys, "history", "a", "--workspace", str(root))
    assert data[0]["effect"]["skill"] is None and data[0]["effect"]["agent"]["after"]["real_errors"] == 1


def test_a_revert_cuts_both_windows_and_their_status_is_final(root):
    start = NOW - timedelta(days=2)
    turns_with(root, start, ["ok", "error"])
    change = patch_at(root, start + 2.5 * H)
    add_turn(root, "a", start + 3 * H, user=CORRECTION, read=[SLUG])
    mark_reverted(AgentPaths(root / "agents" / "a"), change, format_ts(start + 3.5 * H))
    turns_with(root, start + 4 * H, ["error"] * 5)  # after the revert: not the change's doing
    effect = change_effects([change], scan_of(root).turns(), 3)[change.id]
    assert effect.agent.window.status == "reverted early" == effect.skill.status
    assert effect.agent.window.completed_at is None and effect.completed_at() is None
    assert effect.agent.phrase() == (
        "corrections/turn 0.00 (2 turns) → 1.00 (1 turn); real errors/turn 0.50 (2 turns) → 0.00 (1 turn)"
        " (reverted after 1 of 3 turns)"
    )
    assert effect.skill.phrase().endswith("ineffective 50% → 0% (2 turns before, 1 after) (reverted after 1 of 3 turns)")


def recent_changes(root: Path) -> list[Change]:
    """a.c1, whose window (3 turns) filled before the reflection at 5.5 h; a.c2, whose window filled after
    it; a.c3, a note change applied after it, 1 turn after it so far."""
    (root / "orkas.toml").write_text("[reflection]\neffect_window = 3\n")
    start = NOW - timedelta(days=2)
    turns_with(root, start, ["error", "ok", "error"])
    first = patch_at(root, start + 2.5 * H)
    turns_with(root, start + 3 * H, ["ok", "ok"])
    second = patch_at(root, start + 4.5 * H)
    turns_with(root, start + 5 * H, ["ok", "ok"])
    third = note_at(root, start + 6.5 * H)
    turns_with(root, start + 7 * H, ["ok"])
    return [first, second, third]


def test_the_bundle_has_a_line_for_each_change_applied_or_measured_since_the_last_reflection(root):
    first, second, third = recent_changes(root)
    since = NOW - timedelta(days=2) + 5.5 * H
    bundle = build_bundle(scan_of(root), since)
    assert "# Effect of recent changes on the agent: corrections and real errors per real turn over the 3" in bundle.text
    lines = [line for line in bundle.text.splitlines() if line.startswith("- effect of change")]
    assert lines == [
        f"- effect of change a.c3 (update_self profile, applied {third.at}): corrections/turn 0.00 (3 turns), "
        "real errors/turn 0.00 (3 turns) before; too few turns yet (1 of 3 after)",
        f"- effect of change a.c2 (patch_skill {SLUG}, applied {second.at}): corrections/turn 0.00 (3 turns) → "
        "0.00 (3 turns); real errors/turn 0.33 (3 turns) → 0.00 (3 turns); "
        f"skill {SLUG} ineffective 33% (3 turns showing it) → 0% (3 turns)",
    ]
    assert first.id not in bundle.text
    everything = [line for line in build_bundle(scan_of(root), None).text.splitlines() if "- effect of change" in line]
    assert [line.split()[4] for line in everything] == ["a.c3", "a.c2", "a.c1"]  # never reflected: every change


def test_the_change_lines_fit_the_budget_newest_first(root):
    recent_changes(root)
    whole = build_bundle(scan_of(root), None)
    assert whole.text.count("- effect of change") == 3 and "older change(s) left out" not in whole.text
    seen = set()
    for budget in range(500, 2000, 20):
        (root / "orkas.toml").write_text(f"[reflection]\neffect_window = 3\n[bundle]\nmax_tokens = {budget}\n")
        bundle = build_bundle(scan_of(root), None)
        assert bundle.tokens == count_tokens(bundle.text) <= budget
        shown = [line.split()[4] for line in bundle.text.splitlines() if line.startswith("- effect of change")]
        assert shown == ["a.c3", "a.c2", "a.c1"][: len(shown)]  # the newest kept
        if 0 < len(shown) < 3:
            assert f"[{3 - len(shown)} older change(s) left out to fit the token budget]" in bundle.text
        seen.add(len(shown))
    assert seen == {0, 1, 2, 3}


def test_a_skill_read_without_being_indexed_shows_it_once(root):
    start = NOW - timedelta(days=1)
    change = patch_at(root, start)
    for i in range(3):
        at = format_ts(start + (i + 1) * H)
        events = [{"ts": at, "type": "turn_start", "turn": f"r{i}", "skills_indexed": ["other"] if i else [SLUG]}]
        events += [{"ts": at, "type": "skill_read", "skill": SLUG}] * 2  # read twice: one turn
        events.append({"ts": at, "type": "turn_end", "turn": f"r{i}", "status": "ok"})
        add_events(root, "a", "c1", events)
    add_turn(root, "a", start + 5 * H, read=["other"])  # never showed it
    effect = change_effects([change], scan_of(root).turns(), 3)[change.id].skill
    assert effect.status == "measured" and effect.after.turns == 3 and effect.window.completed_at == start + 3 * H
