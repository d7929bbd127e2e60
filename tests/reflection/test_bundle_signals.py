"""The signal-first bundle: what triggered comes first, with its evidence; then the rest of the activity."""

from __future__ import annotations

import re
from datetime import timedelta

from orkas_tui.core.read.settings import Settings
from orkas_tui.core.read.workspace import Workspace
from orkas_tui.core.reflect.bundle import build_bundle
from orkas_tui.core.reflect.tokens import count_tokens
from orkas_tui.core.reflect.triggering import _redact_lines, clip_chars, clip_tokens
from orkas_tui.core.store.redact import Redactor
from orkas_tui.core.summary.scan import AgentScan
from tests.reflection.conftest import CORRECTION, NOW, add_events, add_turn, run_cli, run_json, ts

M = timedelta(minutes=1)
SECRET = "sk-proj-" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4"


def low_threshold(root, extra: str = "") -> None:
    """One real error that the agent recovered from (0.6) triggers."""
    (root / "orkas.toml").write_text(f"threshold = 0.5\n{extra}", "utf-8")


def scan_of(root, agent="a"):
    ws = Workspace(root)
    scan = AgentScan(ws.agent(agent), ws.settings)
    scan.refresh()
    return scan


def failing_turn(root, at, turn, prompt, *, conversation="c1", transient=False, output=None, correction=None):
    """A turn of real shape: a prompt, a failed edit (its output long), the agent's next step, a correction, ok."""
    events = [
        {"ts": ts(at), "type": "turn_start", "turn": turn, "skills_indexed": []},
        {"ts": ts(at), "type": "user", "text": prompt},
        {
            "ts": ts(at),
            "type": "tool_call",
            "id": f"{turn}-1",
            "name": "edit_file",
            "args": {"path": "src/api/client.ts", "find": "x" * 500},
        },
        {
            "ts": ts(at + M),
            "type": "tool_result",
            "id": f"{turn}-1",
            "ok": False,
            "error": f"old_string not found in src/api/client.ts ({turn})",
            **({"output": output} if output else {}),
        },
        {"ts": ts(at + M), "type": "tool_call", "id": f"{turn}-2", "name": "read_file", "args": {"path": "src/api/client.ts"}},
        {"ts": ts(at + M), "type": "tool_result", "id": f"{turn}-2", "ok": True, "output": "export function fetchUser() {}"},
    ]
    if transient:
        events += [
            {"ts": ts(at + M), "type": "tool_call", "id": f"{turn}-3", "name": "bash", "args": {"cmd": "pnpm i"}},
            {"ts": ts(at + M), "type": "tool_result", "id": f"{turn}-3", "ok": False, "error": "ETIMEDOUT registry.npmjs.org"},
        ]
    if correction:
        events.append({"ts": ts(at + 2 * M), "type": "user", "text": correction})
    events += [
        {"ts": ts(at + 3 * M), "type": "assistant", "text": "Done."},
        {"ts": ts(at + 3 * M), "type": "turn_end", "turn": turn, "status": "ok"},
    ]
    add_events(root, "a", conversation, events)


def test_triggering_turns_come_first_most_recent_first_with_their_evidence(root):
    low_threshold(root)
    add_turn(root, "a", NOW - timedelta(hours=5), user="an ordinary request before", calls=2)
    failing_turn(root, NOW - timedelta(hours=4), "older", "OLDER: rename fetchUser", correction=CORRECTION)
    add_turn(root, "a", NOW - timedelta(hours=3), user="an ordinary request between", calls=2)
    failing_turn(root, NOW - timedelta(hours=2), "newer", "NEWER: add retries", conversation="c2", transient=True)
    bundle = build_bundle(scan_of(root), None)
    text = bundle.text
    newer, older, activity = text.index("## Turn newer"), text.index("## Turn older"), text.index("# Activity")
    assert newer < older < activity
    section = text[newer:older]
    assert "NEWER: add retries" in section and "error_recovery" in section
    assert "`edit_file` " in section and "… [cut" in section  # the call, its arguments cut
    assert "old_string not found in src/api/client.ts (newer)" in section
    assert 'next: `read_file` {"path":"src/api/client.ts"}' in section  # what the agent did next
    assert "ETIMEDOUT" not in section and "1 transient error(s) not shown" in section
    older_section = text[older:activity]
    said = 'disputed what the agent said: "That\'s wrong"'  # the reason, beside the message in full
    assert re.search(rf"the user \({re.escape(said)}\) \{{u\d+\}}: {re.escape(CORRECTION)}", older_section)
    assert f"{said}, in the user's message" in older_section  # the signal's evidence
    assert [t["turn"] for t in bundle.turns] == ["newer", "older"]


def test_the_activity_leaves_out_what_the_front_shows_and_each_turn_counts_its_lines(root):
    low_threshold(root)
    failing_turn(root, NOW - timedelta(hours=2), "t1", "UNIQUE-PROMPT: add retries")
    bundle = build_bundle(scan_of(root), None)
    assert bundle.text.count("UNIQUE-PROMPT") == 1
    assert "c1 tool_result: error" not in bundle.text and "c1 tool_call: edit_file" not in bundle.text
    turn = bundle.turns[0]
    assert turn["lines"] == 8 and turn["lines_above"] == 3  # the prompt, the failed call and its result
    assert turn["lines_above"] + turn["lines_in_activity"] + turn["lines_left_out"] == turn["lines"]
    assert turn["lines_in_activity"] == 5 and turn["lines_left_out"] == 0
    assert "[this turn has 8 line(s): 3 above, 5 in the activity below, 0 left out; 1 of 1 real error(s) above]" in bundle.text


def test_under_pressure_the_newest_turns_stay_whole_and_the_left_out_are_counted(tmp_path):
    low_threshold(tmp_path, "[bundle]\nmax_tokens = 2500\n")
    for i in range(30):
        failing_turn(tmp_path, NOW - timedelta(hours=40 - i), f"t{i:02d}", f"PROMPT-{i:02d} " + "context " * 200)
    bundle = build_bundle(scan_of(tmp_path), None)
    assert bundle.tokens <= 2500 and count_tokens(bundle.text) == bundle.tokens
    kept = [t["turn"] for t in bundle.turns if t["kept"]]
    assert kept == [f"t{i:02d}" for i in range(29, 29 - len(kept), -1)] and 5 <= len(kept) < 30
    assert all(f"PROMPT-{t[1:]}" in bundle.text for t in kept)
    assert f"[{30 - len(kept)} older triggering turn(s) left out to fit the token budget]" in bundle.text
    assert all(t["prompt_cut"] for t in bundle.turns if t["kept"])


def test_long_outputs_are_cut_head_and_tail_and_the_same_input_gives_the_same_bundle(root):
    low_threshold(root)
    output = "OUT-HEAD " + "frame " * 3000 + " OUT-TAIL"
    failing_turn(root, NOW - timedelta(hours=1), "t1", "fix it", output=output)
    first = build_bundle(scan_of(root), None)
    line = next(line for line in first.text.splitlines() if line.startswith("    output: OUT-HEAD"))
    assert line.endswith("OUT-TAIL") and re.search(r"… \[cut [0-9,]+ chars\] …", line) and len(line) < 400
    assert build_bundle(scan_of(root), None).text == first.text


def test_secrets_in_the_front_are_redacted_and_counted(root):
    low_threshold(root)
    failing_turn(
        root,
        NOW - timedelta(hours=1),
        "t1",
        f"deploy with {SECRET}",
        output=f"auth failed for {SECRET}",
        correction=f"That's wrong, use https://bob:hunter2@example.com/x and {SECRET}",
    )
    bundle = build_bundle(scan_of(root), None)
    assert SECRET not in bundle.text and "hunter2" not in bundle.text
    assert bundle.text.count("[REDACTED]") == bundle.redactions == 6  # the correction's two also in its signal's evidence


def test_a_secret_at_the_edge_of_a_cut_is_still_found():
    redact = Redactor(Settings().bundle.redact_patterns)
    for head in (90, 100, 106, 110, 120):
        text = "a " * (head // 2) + SECRET + " b" * 4000
        cut = clip_chars(text, 160, redact)
        assert SECRET[:12] not in cut, head
    long = "word " * 5000 + SECRET + " tail"
    clipped, was_cut = clip_tokens(long, 200, redact)
    assert was_cut and SECRET not in clipped and "tail" in clipped and count_tokens(clipped) <= 200


def test_the_dry_run_lists_the_choice_per_turn_with_tokens(root, capsys):
    low_threshold(root)
    failing_turn(root, NOW - timedelta(hours=1), "t1", "fix it", correction=CORRECTION)
    code, out, err = run_cli(capsys, "reflect", "a", "--dry-run", "--workspace", str(root))
    assert code == 0, err
    assert "triggering turns: 1, 1 in the bundle, most recent first" in out
    assert re.search(r"c1 t1 \(score [0-9.]+; user_correction, error_recovery\): opening prompt \d+ tokens", out)
    assert "errors 1/1" in out and "corrections 1/1" in out and "lines 9: 4 above, 5 in the activity, 0 left out" in out
    data = run_json(capsys, "reflect", "a", "--dry-run", "--workspace", str(root))
    turn = data["bundle"]["triggering_turns"][0]
    assert turn["errors"] == {"kept": 1, "total": 1} and set(turn["tokens"]) >= {"prompt", "signals", "errors", "corrections"}
    assert data["bundle"]["parts"]["triggering_turns"] == sum(turn["tokens"].values())


def test_texts_redacted_together_come_back_one_each_even_when_a_secret_runs_across_them():
    redact = Redactor(Settings().bundle.redact_patterns)
    texts = ["key: -----BEGIN RSA PRIVATE KEY-----", "MIIEabc", f"plain {SECRET}"]
    alone = Redactor(Settings().bundle.redact_patterns)
    expected = [alone(text) for text in texts]
    assert _redact_lines(texts, redact) == expected and redact.count == alone.count == 2
    assert _redact_lines(["a", f"b {SECRET}"], redact) == ["a", "b [REDACTED]"] and redact.count == 3
