"""The effect of each applied change: the skill's rates over the N turns showing it before and after."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from orkas_tui.core.read.settings import ConfigError, load_settings
from orkas_tui.core.read.timefmt import format_ts
from orkas_tui.core.read.workspace import AgentPaths, Workspace
from orkas_tui.core.reflect.bundle import build_bundle
from orkas_tui.core.reflect.effects import change_effects
from orkas_tui.core.store.history import Change, list_changes, mark_reverted, record_change
from orkas_tui.core.summary.scan import AgentScan
from orkas_tui.demo.workspace import write_demo
from tests.reflection.conftest import NOW, add_turn, run_cli, run_json, write_skill

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
    effect = change_effects([change], scan_of(root).turns(), 5)[change.id]
    assert (effect.status, effect.after, effect.turns_after) == ("too few turns yet", None, 3)
    assert effect.phrase() == "too few turns yet (3 of 5 after)"
    assert (effect.before.turns, effect.before.invocation_rate, effect.before.ineffective_rate) == (5, 1.0, 0.8)

    turns_with(root, start + 8 * H, ["ok", "error"])
    effect = change_effects([change], scan_of(root).turns(), 5)[change.id]
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
    effect = change_effects([change], scan_of(root).turns(), 2)[change.id]
    assert effect.before.turns == 2 and effect.after.turns == 2 and effect.after.ineffective_rate == 0.0


def test_a_removed_skill_has_no_after_and_note_changes_have_no_effect(root):
    start = NOW - timedelta(days=1)
    turns_with(root, start, ["error"])
    paths = AgentPaths(root / "agents" / "a")
    deleted = patch_at(root, start + H, action="delete_skill")
    note = record_change(
        paths, start + H, by="approval", action="update_self", kind="note", target="profile", before="", after="x"
    )
    effects = change_effects([deleted, note], scan_of(root).turns(), 20)
    assert set(effects) == {deleted.id} and effects[deleted.id].status == "skill removed"
    assert effects[deleted.id].phrase().startswith("skill removed; before (1 turns): invocation 100%")


def test_history_shows_each_changes_effect_in_text_and_json(root, capsys):
    start = NOW - timedelta(days=2)
    turns_with(root, start, ["error", "error"])
    patch_at(root, start + 3 * H)
    turns_with(root, start + 4 * H, ["ok"] * 20)
    data = run_json(capsys, "history", "a", "--workspace", str(root))
    effect = data[0]["effect"]
    assert effect["status"] == "measured" and effect["window"] == 20
    assert effect["before"] == {"turns": 2, "invocation_rate": 1.0, "edit_rate": 0.0, "ineffective_rate": 1.0}
    assert effect["after"]["ineffective_rate"] == 0.0 and effect["turns_after"] == 20
    code, out, _ = run_cli(capsys, "history", "a", "--workspace", str(root))
    assert code == 0 and "ineffective 100% → 0% (2 turns before, 20 after)" in out


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
    assert effect["status"] == "measured"
    assert effect["after"]["ineffective_rate"] < effect["before"]["ineffective_rate"]
