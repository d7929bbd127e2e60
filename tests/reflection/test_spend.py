"""What reflections cost, the daily budget, and a next cycle promised only when something runs it.

The model is the local server over HTTP (it reports 1,200 prompt and 80 completion tokens);
litellm prices ``openai/gpt-4o-mini`` from its bundled map, offline, and knows no price for
``openai/test-model``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from orkas_tui.core.read.settings import ConfigError, read_settings
from orkas_tui.core.read.timefmt import UTC, format_ts
from orkas_tui.core.read.workspace import Workspace
from orkas_tui.core.reflect.cycle import run_cycle
from orkas_tui.core.reflect.keepers import NOTHING, daemon_pid
from orkas_tui.core.reflect.queue import workspace_queue
from orkas_tui.core.reflect.reflection import reflect
from orkas_tui.core.reflect.spend import OVER_BUDGET, Usage, over_budget, totals, usage_of
from orkas_tui.core.store.first_run import SETTINGS_TEMPLATE
from tests.modelserver import ModelServer
from tests.reflection.conftest import NOW, run_cli, run_json, set_reflected, trigger_turn

PRICED = "openai/gpt-4o-mini"  # $0.15 per million prompt tokens, $0.60 per million completion tokens
ONE_CALL = 1200 * 0.15e-6 + 80 * 0.6e-6  # what the local server's usage costs at that price


def use(root: Path, server: ModelServer, model: str = PRICED, budget: float | None = None) -> Workspace:
    cap = f"daily_budget_usd = {budget}\n" if budget is not None else ""
    (root / "orkas.toml").write_text(f'[model]\nname = "{model}"\napi_base = "{server.url}"\nmax_retries = 0\n{cap}', "utf-8")
    return Workspace(root)


def reachable(root: Path) -> None:
    """A model the workspace can reflect with (a local server needs no key): without one no cycle is promised."""
    (root / "orkas.toml").write_text('[model]\nname = "openai/test-model"\napi_base = "http://127.0.0.1:9/v1"\n', "utf-8")


def due(root: Path, agent: str) -> None:
    set_reflected(root, agent, NOW - timedelta(days=2))
    trigger_turn(root, agent, NOW - timedelta(hours=5))


def status(capsys, root: Path) -> dict:
    return run_json(capsys, "status", "--workspace", str(root), "--now", format_ts(NOW))


def test_a_reflections_tokens_and_cost_are_in_its_event_status_and_the_totals(root: Path, server, capsys) -> None:
    due(root, "coder")
    ws = use(root, server)
    assert reflect(ws, "coder", NOW).status == "nothing_to_save"
    (event,) = [json.loads(line) for line in (root / "agents/coder/events.jsonl").read_text().splitlines()]
    assert (event["prompt_tokens"], event["completion_tokens"]) == (1200, 80)
    assert event["cost_usd"] == pytest.approx(ONE_CALL)
    doc = status(capsys, root)
    (agent,) = doc["agents"]
    (entry,) = agent["reflections"]
    assert entry["cost"] == "$0.000228" and entry["prompt_tokens"] == 1200 and entry["model"] == PRICED
    assert doc["spending"]["today"]["usd"] == pytest.approx(ONE_CALL) and doc["spending"]["month"]["reflections"] == 1
    code, out, _ = run_cli(capsys, "status", "--workspace", str(root), "--now", format_ts(NOW))
    assert code == 0 and "$0.000228 · 1,200 in / 80 out tokens" in out and "reflections cost: today $0.000228" in out


def test_a_model_litellm_cannot_price_reads_price_unknown_never_zero(root: Path, server, capsys) -> None:
    due(root, "coder")
    assert reflect(use(root, server, "openai/test-model"), "coder", NOW).status == "nothing_to_save"
    doc = status(capsys, root)
    (entry,) = doc["agents"][0]["reflections"]
    assert entry["cost_usd"] is None and entry["cost"] == "price unknown" and entry["prompt_tokens"] == 1200
    assert doc["spending"]["today"] == {"usd": 0.0, "reflections": 1, "unpriced": 1, "text": "price unknown (1 reflection)"}
    _, out, _ = run_cli(capsys, "status", "--workspace", str(root), "--now", format_ts(NOW))
    assert "price unknown · 1,200 in / 80 out tokens" in out and "$0.0000" not in out


@pytest.fixture
def eastern(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("TZ", "America/New_York")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def test_today_and_this_month_are_the_local_calendars(eastern) -> None:
    """At 02:00 UTC on December 1st it is still November 30th, 21:00, in New York."""
    now = datetime(2026, 12, 1, 2, 0, tzinfo=UTC)

    def spent(at: datetime, usd: float | None) -> Usage:
        return Usage("a", at, "proposed", PRICED, 1, 1, usd)

    found = [
        spent(datetime(2026, 11, 30, 4, 59, tzinfo=UTC), 1.0),  # 23:59 on the 29th, local: this month, not today
        spent(datetime(2026, 11, 30, 5, 0, tzinfo=UTC), 2.0),  # local midnight: today
        spent(datetime(2026, 12, 1, 1, 0, tzinfo=UTC), None),  # today, no price
        spent(datetime(2026, 11, 1, 3, 0, tzinfo=UTC), 8.0),  # October 31st, local: neither
    ]
    result = totals(found, now, budget_usd=2.0)
    assert (result.today.usd, result.today.reflections, result.today.unpriced) == (2.0, 2, 1)
    assert (result.month.usd, result.month.reflections) == (3.0, 3)
    assert result.over and result.over_reason().startswith(OVER_BUDGET)
    assert result.today.text() == "$2.0000 + 1 at an unknown price"


def test_over_the_daily_budget_due_agents_wait_and_reflect_needs_force(root: Path, server, capsys) -> None:
    due(root, "coder")
    due(root, "other")
    ws = use(root, server, budget=0.0002)  # one call costs 0.000228
    assert over_budget(ws, NOW) is None
    assert reflect(ws, "coder", NOW).status == "nothing_to_save"
    assert over_budget(ws, NOW).startswith(OVER_BUDGET)

    queue = run_json(capsys, "queue", "--workspace", str(root), "--now", format_ts(NOW))
    other = next(a for a in queue["agents"] if a["id"] == "other")
    assert not other["selected"] and other["reason"].startswith("over today's budget")
    assert queue["spending"]["over_budget"].startswith(OVER_BUDGET)

    code, _, err = run_cli(capsys, "reflect", "other", "--workspace", str(root), "--now", format_ts(NOW))
    assert code == 2 and "over today's budget" in err and "--force" in err and len(server.requests) == 1
    report = run_cycle(ws, NOW)
    assert report.plan.selected == [] and len(server.requests) == 1
    code, _, err = run_cli(capsys, "reflect", "other", "--force", "--workspace", str(root), "--now", format_ts(NOW))
    assert code == 0, err
    assert len(server.requests) == 2

    tomorrow = NOW + timedelta(days=1)
    assert over_budget(ws, tomorrow) is None  # a new day, a new budget
    decision = workspace_queue(ws, tomorrow).decision("other")
    assert decision is not None and not (decision.reason or "").startswith(OVER_BUDGET)


def test_a_cycle_stops_reflecting_once_the_budget_is_spent(root: Path, server) -> None:
    due(root, "coder")
    due(root, "other")
    ws = use(root, server, budget=0.0002)  # under it before the first call (0.000228), over it after
    report = run_cycle(ws, NOW)
    assert [o.status for o in report.outcomes] == ["nothing_to_save", "over_budget"]
    assert len(server.requests) == 1


def test_the_queue_promises_a_next_cycle_only_when_hooks_will_run_it(root: Path, capsys) -> None:
    due(root, "coder")
    reachable(root)
    queue = run_json(capsys, "queue", "--workspace", str(root), "--now", format_ts(NOW))
    assert queue["next_cycle_at"] is None and queue["cycle_due_at"] == format_ts(NOW)
    assert queue["run_by"]["text"] == NOTHING
    code, out, _ = run_cli(capsys, "queue", "--workspace", str(root), "--now", format_ts(NOW))
    assert "next cycle none" in out and "install the hooks" in out

    code, _, err = run_cli(capsys, "hooks", "install", "claude-code", "--agent", "coder", "--workspace", str(root))
    assert code == 0, err
    queue = run_json(capsys, "queue", "--workspace", str(root), "--now", format_ts(NOW))
    assert queue["next_cycle_at"] == format_ts(NOW)
    assert queue["run_by"]["hooks"] == ["claude-code hooks (~/.claude/settings.json)"]

    code, _, err = run_cli(capsys, "hooks", "uninstall", "claude-code", "--workspace", str(root))
    assert code == 0, err
    assert run_json(capsys, "queue", "--workspace", str(root), "--now", format_ts(NOW))["next_cycle_at"] is None


def test_a_hook_for_another_workspace_or_someone_elses_command_promises_nothing(root: Path, tmp_path: Path, capsys) -> None:
    reachable(root)
    settings = Path.home() / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    other = tmp_path / "elsewhere"
    hooks = [
        {"type": "command", "command": f"/opt/bin/orkas-tui hook claude-code --agent a --workspace {other}"},
        {"type": "command", "command": "/usr/bin/notify-send done"},
    ]
    settings.write_text(json.dumps({"hooks": {"Stop": [{"hooks": hooks}]}}))
    (Path.home() / ".codex").mkdir()
    (Path.home() / ".codex" / "config.toml").write_text("notify = [\n")  # malformed: read as nothing, never fatal
    assert run_json(capsys, "queue", "--workspace", str(root), "--now", format_ts(NOW))["next_cycle_at"] is None
    (Path.home() / ".codex" / "config.toml").write_text(
        f'notify = ["orkas-tui", "hook", "codex", "--agent", "codex", "--workspace", "{root}"]\n'
    )
    queue = run_json(capsys, "queue", "--workspace", str(root), "--now", format_ts(NOW))
    assert queue["next_cycle_at"] == format_ts(NOW) and queue["run_by"]["hooks"] == ["codex hooks (~/.codex/config.toml)"]


def test_a_running_daemon_holds_its_lock_and_the_queue_names_it(root: Path, capsys) -> None:
    reachable(root)
    ws = Workspace(root)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    command = [sys.executable, "-m", "orkas_tui", "daemon", "--workspace", str(root), "--poll", "0.2"]
    daemon = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    try:
        deadline = time.monotonic() + 30
        while daemon_pid(ws) is None and time.monotonic() < deadline and daemon.poll() is None:
            time.sleep(0.05)
        assert daemon_pid(ws) == daemon.pid
        queue = run_json(capsys, "queue", "--workspace", str(root))
        assert queue["next_cycle_at"] is not None and queue["run_by"]["daemon_pid"] == daemon.pid
        code, _, err = run_cli(capsys, "daemon", "--workspace", str(root), "--cycles", "1")
        assert code == 2 and "a daemon already runs" in err
    finally:
        daemon.terminate()
        daemon.wait(timeout=30)
    assert daemon_pid(ws) is None  # the lock went with the process; the pid left in the file proves nothing
    assert run_json(capsys, "queue", "--workspace", str(root))["next_cycle_at"] is None


def test_the_budget_setting_is_checked_and_documented(root: Path) -> None:
    (root / "orkas.toml").write_text("[model]\ndaily_budget_usd = -1\n")
    with pytest.raises(ConfigError, match=r"model.daily_budget_usd: -1 is out of range \(allowed 0 to 1,000,000\)"):
        read_settings(root)
    assert "# daily_budget_usd = " in SETTINGS_TEMPLATE  # what --init writes names it, commented out


def test_a_hook_starts_no_cycle_over_the_budget(root: Path, server) -> None:
    """The hooks' cycle start asks ``over_budget`` first: no cycle process, no cycle recorded, the reason logged."""
    from orkas_tui.importers.hook import _start_cycle

    due(root, "coder")
    ws = use(root, server, budget=0)  # nothing may be spent today
    reason = _start_cycle(ws)
    assert reason is not None and reason.startswith(OVER_BUDGET)
    assert not (root / ".orkas" / "cycle.log").exists() and not (root / ".orkas" / "cycle.lock").exists()


def test_a_hook_or_the_plugin_without_workspace_serves_the_home_workspace(capsys) -> None:
    home_ws = Path.home() / ".orkas"
    (home_ws / "agents").mkdir(parents=True)
    reachable(home_ws)
    settings = Path.home() / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    deep = "[" * 1000 + "]" * 1000  # JSON nested deeper than Python's recursion limit lets a naive walk go
    settings.write_text('{"enabledPlugins": {"orkas-tui@orkas": true}, "other": ' + deep + "}")
    queue = run_json(capsys, "queue", "--workspace", str(home_ws), "--now", format_ts(NOW))
    assert queue["run_by"]["hooks"] == ["the claude-code plugin (~/.claude/settings.json)"]
    hooks = [{"type": "command", "command": "orkas-tui hook claude-code --agent claude"}]
    settings.write_text(json.dumps({"hooks": {"SessionStart": [{"hooks": hooks}]}}))
    queue = run_json(capsys, "queue", "--workspace", str(home_ws), "--now", format_ts(NOW))
    assert queue["run_by"]["hooks"] == ["claude-code hooks (~/.claude/settings.json)"] and queue["next_cycle_at"]
    elsewhere = Path.home() / "other-ws"
    (elsewhere / "agents").mkdir(parents=True)  # a hook with no --workspace does not serve another workspace
    reachable(elsewhere)
    assert run_json(capsys, "queue", "--workspace", str(elsewhere), "--now", format_ts(NOW))["next_cycle_at"] is None


def test_a_reflection_event_that_names_no_model_called_none() -> None:
    """The demo's made-up reflections (and a failure before any answer) cost nothing to count;
    one that reached a model and got no usage back is a reflection at an unknown price."""
    base = {"type": "reflection", "source": "orkas-tui", "ts": format_ts(NOW), "status": "proposed"}
    assert usage_of("a", {**base, "by": "demo"}) is None
    assert usage_of("a", {**base, "type": "reflection_failed", "error": "connection refused"}) is None
    assert usage_of("a", {**base, "source": "runtime", "model": "m", "cost_usd": 1.0}) is None  # not ours
    unknown = usage_of("a", {**base, "model": "openai/local"})
    assert unknown is not None and unknown.text() == "price unknown, tokens not reported"


def test_codex_hooks_as_installed_promise_the_next_cycle(root: Path, capsys) -> None:
    reachable(root)
    (Path.home() / ".codex").mkdir(parents=True, exist_ok=True)
    code, _, err = run_cli(capsys, "hooks", "install", "codex", "--agent", "codex", "--workspace", str(root))
    assert code == 0, err
    queue = run_json(capsys, "queue", "--workspace", str(root), "--now", format_ts(NOW))
    assert queue["next_cycle_at"] == format_ts(NOW) and queue["run_by"]["hooks"][0].startswith("codex hooks (~/.codex/")
    code, _, err = run_cli(capsys, "hooks", "uninstall", "codex", "--workspace", str(root))
    assert code == 0, err
    assert run_json(capsys, "queue", "--workspace", str(root), "--now", format_ts(NOW))["next_cycle_at"] is None


def test_hooks_with_no_model_to_reflect_with_promise_no_cycle(root: Path, capsys) -> None:
    """Without a model the hooks only import: the queue promises no cycle and says what to set."""
    due(root, "coder")
    code, _, err = run_cli(capsys, "hooks", "install", "claude-code", "--agent", "coder", "--workspace", str(root))
    assert code == 0, err
    (root / "orkas.toml").write_text("", "utf-8")  # no [model]
    queue = run_json(capsys, "queue", "--workspace", str(root), "--now", format_ts(NOW))
    assert queue["next_cycle_at"] is None and queue["run_by"]["hooks"] == ["claude-code hooks (~/.claude/settings.json)"]
    _, out, _ = run_cli(capsys, "queue", "--workspace", str(root), "--now", format_ts(NOW))
    assert "no next cycle: reflection is not configured: no model is set" in out
