"""After a failed reflection that was not transient, the queue backs off: cooldown × 2^(n-1), at most force_after."""

from __future__ import annotations

from datetime import timedelta

from orkas_tui.core.read.timefmt import format_ts
from orkas_tui.core.read.workspace import read_state
from orkas_tui.core.reflect.queue import workspace_queue
from orkas_tui.core.reflect.reflection import reflect
from tests.modelserver import error, reply
from tests.reflection.conftest import NOW, configure, run_json, set_reflected, trigger_turn

BAD = {"summary": "s", "operations": [{"op": ["create_skill"]}]}
H = timedelta(hours=1)


def decision(ws, at):
    return workspace_queue(ws, at).decision("a1")


def test_bad_answers_back_off_doubling_and_a_good_one_ends_it(root, server, capsys):
    set_reflected(root, "a1", NOW - timedelta(days=2))
    trigger_turn(root, "a1", NOW - 3 * H)
    server.steps = [reply(BAD)]
    ws = configure(root, server)  # cooldown 4 h, force_after 7 days
    assert decision(ws, NOW).selected
    assert reflect(ws, "a1", NOW).status == "invalid_reply"
    waiting = decision(ws, NOW + 3 * H)
    assert not waiting.selected
    assert waiting.reason.startswith(
        f"backing off after 1 failed reflection(s) (until {format_ts(NOW + 4 * H)}): "
        "operation 0 does not fit the answer's schema: unknown op ['create_skill']"
    )
    doc = run_json(capsys, "status", "--workspace", str(root), "--now", format_ts(NOW + 3 * H))
    assert doc["agents"][0]["queue"]["reason"] == waiting.reason  # visible in status (and the app, same plan)
    assert decision(ws, NOW + 4 * H).selected
    assert reflect(ws, "a1", NOW + 4 * H).status == "invalid_reply"
    assert decision(ws, NOW + 11 * H).reason.startswith(
        f"backing off after 2 failed reflection(s) (until {format_ts(NOW + 12 * H)})"
    )
    assert decision(ws, NOW + 12 * H).selected
    for _ in range(6):
        reflect(ws, "a1", NOW + 12 * H)
    assert decision(ws, NOW + 12 * H).reason.startswith(  # 4 h × 2^7 is over force_after: 7 days
        f"backing off after 8 failed reflection(s) (until {format_ts(NOW + 12 * H + timedelta(days=7))})"
    )
    server.steps = [reply({"summary": "fine", "operations": []})]
    assert reflect(ws, "a1", NOW + 13 * H).status == "nothing_to_save"
    assert read_state(ws.agent("a1"))["backoff"] is None
    trigger_turn(root, "a1", NOW + 20 * H)
    assert decision(ws, NOW + 21 * H).selected  # cooldown over, no back-off left


def test_a_transient_failure_does_not_back_off(root, server):
    set_reflected(root, "a1", NOW - timedelta(days=2))
    trigger_turn(root, "a1", NOW - 3 * H)
    server.steps = [error(503)]
    ws = configure(root, server)
    assert reflect(ws, "a1", NOW).status == "transient_failure"
    assert "backoff" not in read_state(ws.agent("a1")) and decision(ws, NOW + H).selected
