"""The schedule: every reason, force-after, the cap and the order, evaluated with --now."""

from __future__ import annotations

from datetime import timedelta

from orkas_tui.core.read.timefmt import format_ts
from orkas_tui.core.read.workspace import Workspace
from orkas_tui.core.reflect.queue import plan_queue, record_cycle, refreshed_scans, workspace_queue
from tests.reflection.conftest import NOW, add_turn, configure, run_cli, run_json, set_reflected, trigger_turn

H = timedelta(hours=1)
D = timedelta(days=1)


def decisions(root, now=NOW):
    plan = workspace_queue(Workspace(root), now)
    return plan, {d.id: d for d in plan.decisions}


def test_each_reason_in_the_spec_order(root):
    # no changes: reflected after its last turn (even though that turn triggered)
    trigger_turn(root, "quiet", NOW - 10 * H)
    set_reflected(root, "quiet", NOW - 9 * H)
    # cooling down beats no trigger: new turn, but reflected 1h ago and no trigger either
    set_reflected(root, "cool", NOW - 3 * H)
    add_turn(root, "cool", NOW - 2 * H)
    # no trigger: pending changes, cooldown over, nothing triggering
    set_reflected(root, "calm", NOW - 2 * D)
    add_turn(root, "calm", NOW - 1 * D, calls=3)
    # selected
    set_reflected(root, "hot", NOW - 2 * D)
    trigger_turn(root, "hot", NOW - 1 * D)
    # never reflected, no turn yet: no changes
    (root / "agents" / "empty").mkdir()
    plan, by_id = decisions(root)
    assert by_id["quiet"].reason == "no changes" and not by_id["quiet"].pending_changes
    assert by_id["empty"].reason == "no changes"
    assert by_id["cool"].reason == f"cooling down (until {format_ts(NOW + 1 * H)})"
    assert by_id["cool"].cooldown_until == NOW + H
    assert by_id["calm"].reason == "no trigger" and by_id["calm"].pending_changes
    assert by_id["hot"].selected and by_id["hot"].reason is None
    assert by_id["hot"].trigger_score == 1.4
    assert [d.id for d in plan.selected] == ["hot"]


def test_cooling_down_wins_over_no_trigger_and_over_a_trigger(root):
    set_reflected(root, "a", NOW - 1 * H)
    trigger_turn(root, "a", NOW - 30 * timedelta(minutes=1))
    _, by_id = decisions(root)
    assert by_id["a"].reason.startswith("cooling down (until 2026-11-30T12:00:00Z")
    _, later = decisions(root, NOW + 3 * H + timedelta(seconds=1))
    assert later["a"].selected


def test_force_after_for_a_reflected_agent(root):
    set_reflected(root, "old", NOW - 8 * D)
    add_turn(root, "old", NOW - 2 * D)
    set_reflected(root, "young", NOW - 6 * D)
    add_turn(root, "young", NOW - 2 * D)
    _, by_id = decisions(root)
    assert by_id["old"].selected and by_id["old"].forced
    assert not by_id["young"].forced and by_id["young"].reason == "no trigger"


def test_forced_agent_without_changes_is_not_selected(root):
    set_reflected(root, "idle", NOW - 30 * D)
    add_turn(root, "idle", NOW - 40 * D)
    _, by_id = decisions(root)
    assert by_id["idle"].forced and by_id["idle"].reason == "no changes"


def test_never_reflected_is_forced_only_once_its_first_turn_is_older_than_force_after(root):
    add_turn(root, "fresh", NOW - 6 * D)
    add_turn(root, "seasoned", NOW - 7 * D)
    _, by_id = decisions(root)
    assert by_id["fresh"].reason == "no trigger" and not by_id["fresh"].forced
    assert by_id["fresh"].cooldown_until is None and by_id["fresh"].last_reflection_at is None
    assert by_id["seasoned"].selected and by_id["seasoned"].forced


def test_a_turn_whose_only_errors_are_transient_never_makes_an_agent_due(root):
    set_reflected(root, "net", NOW - 2 * D)
    add_turn(
        root,
        "net",
        NOW - 1 * D,
        user="deploy it",
        status="error",
        errors=[
            {"error": "ETIMEDOUT registry.npmjs.org"},
            {"error": "upstream said no", "status": 503},
            {"error": "odd failure", "transient": True},
            {"error": "connection reset by peer"},
        ],
        end={"error": "429 Too Many Requests"},
    )
    plan, by_id = decisions(root)
    assert by_id["net"].trigger_score == 0 and by_id["net"].reason == "no trigger"
    assert plan.selected == []
    # control: a real end error after reading a skill does trigger (skill_ineffective 0.8)
    add_turn(root, "real", NOW - 1 * D, read=["deploy"], status="error", end={"error": "exit status 2"})
    set_reflected(root, "real", NOW - 2 * D)
    _, by_id = decisions(root)
    assert by_id["real"].selected and by_id["real"].trigger_score == 0.8


def test_order_forced_first_then_score_then_oldest_reflection_and_the_cap(root):
    configure(root, extra="[schedule]\nmax_agents_per_cycle = 3\n")
    set_reflected(root, "forced-low", NOW - 8 * D)
    add_turn(root, "forced-low", NOW - 1 * D)  # forced, score 0
    set_reflected(root, "high", NOW - 2 * D)
    trigger_turn(root, "high", NOW - 1 * D)
    trigger_turn(root, "high", NOW - 1 * D + H, conversation="c2")  # 2.8
    set_reflected(root, "mid-old", NOW - 3 * D)
    trigger_turn(root, "mid-old", NOW - 1 * D)  # 1.4, older reflection
    set_reflected(root, "mid-new", NOW - 2 * D)
    trigger_turn(root, "mid-new", NOW - 1 * D)  # 1.4, newer reflection
    plan, by_id = decisions(root)
    assert [d.id for d in plan.selected] == ["forced-low", "high", "mid-old"]
    assert [d.rank for d in plan.selected] == [1, 2, 3]
    assert by_id["high"].trigger_score == 2.8
    assert by_id["mid-new"].reason == "over the per-cycle cap" and by_id["mid-new"].rank is None


def test_plan_queue_is_a_pure_function_of_scans_and_now(root):
    trigger_turn(root, "a", NOW - D)
    scans = refreshed_scans(Workspace(root))

    def tree():
        return {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}

    before = tree()
    first = plan_queue(scans, NOW, Workspace(root).settings)
    second = plan_queue(scans, NOW, Workspace(root).settings)
    assert first == second and first.selected[0].id == "a"
    assert tree() == before


def test_the_cycle_is_due_by_the_last_cycle(root):
    ws = configure(root)
    assert workspace_queue(ws, NOW).cycle_due_at == NOW
    record_cycle(ws, NOW - H)
    plan = workspace_queue(ws, NOW)
    assert plan.last_cycle_at == NOW - H
    assert plan.cycle_due_at == NOW - H + timedelta(hours=12, minutes=30)
    assert workspace_queue(ws, NOW + 2 * D).cycle_due_at == NOW + 2 * D  # overdue: now


def test_queue_cli_json_and_text(root, capsys):
    set_reflected(root, "hot", NOW - 2 * D)
    trigger_turn(root, "hot", NOW - 1 * D)
    set_reflected(root, "cool", NOW - H)
    add_turn(root, "cool", NOW - timedelta(minutes=5))
    doc = run_json(capsys, "queue", "--workspace", str(root), "--now", format_ts(NOW))
    assert doc["cycle_due_at"] == "2026-11-30T09:00:00Z"
    assert doc["next_cycle_at"] is None  # no hooks and no daemon: nothing will run it
    rows = {a["id"]: a for a in doc["agents"]}
    assert set(rows["hot"]) >= {
        "id",
        "selected",
        "forced",
        "reason",
        "trigger_score",
        "pending_changes",
        "cooldown_until",
        "last_reflection_at",
    }
    assert rows["hot"]["selected"] is True and rows["hot"]["trigger_score"] == 1.4
    assert rows["cool"]["reason"] == "cooling down (until 2026-11-30T12:00:00Z)"
    assert rows["cool"]["last_reflection_at"] == "2026-11-30T08:00:00Z"
    code, out, _ = run_cli(capsys, "queue", "--workspace", str(root), "--now", format_ts(NOW))
    assert code == 0 and "selected #1" in out and "cooling down (until 2026-11-30T12:00:00Z)" in out


def test_status_json_carries_the_queue_object(root, capsys):
    set_reflected(root, "hot", NOW - 2 * D)
    trigger_turn(root, "hot", NOW - 1 * D)
    add_turn(root, "calm", NOW - 1 * D)
    doc = run_json(capsys, "status", "--workspace", str(root), "--now", format_ts(NOW))
    queues = {a["id"]: a["queue"] for a in doc["agents"]}
    assert queues["hot"]["selected"] is True and queues["hot"]["rank"] == 1
    assert queues["calm"]["reason"] == "no trigger"
    only = run_json(capsys, "status", "--workspace", str(root), "--agent", "calm", "--now", format_ts(NOW))
    assert [a["id"] for a in only["agents"]] == ["calm"] and only["agents"][0]["queue"]["reason"] == "no trigger"


def test_bad_now_is_one_line_error(root, capsys):
    code, out, err = run_cli(capsys, "queue", "--workspace", str(root), "--now", "yesterday")
    assert code == 2 and out == "" and err.count("\n") == 1 and "--now" in err


def test_workspace_given_before_the_command_is_kept(root, capsys):
    trigger_turn(root, "hot", NOW - D)
    doc = run_json(capsys, "--workspace", str(root), "queue", "--now", format_ts(NOW))
    assert [a["id"] for a in doc["agents"]] == ["hot"]
    code, out, err = run_cli(capsys, "--workspace", str(root), "proposals", "list")
    assert code == 0 and out.strip() == "no proposals", err
