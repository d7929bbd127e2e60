"""What the bundle and a turn's evidence call transient is what the score counted as transient: both
read the verdict the turn's summary holds, wherever the failure sits in the turn's span."""

from __future__ import annotations

from pathlib import Path

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from orkas_tui.core.observe.corrections import matcher_for
from orkas_tui.core.observe.signals import score_turn
from orkas_tui.core.observe.transient import TransientRule
from orkas_tui.core.observe.turns import ConversationObserver
from orkas_tui.core.read.settings import Settings
from orkas_tui.core.reflect.evidence import turn_evidence
from orkas_tui.core.summary.transcript import Spans, describe, with_verdicts
from orkas_tui.core.summary.turn import Turn, summarize, trace

RULE = TransientRule.from_settings(Settings())
VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-1, 600),
    st.sampled_from(["", "exit 2: no such file", "429 Too Many Requests", "connection reset by peer", "failed"]),
    st.builds(lambda n: "x" * n + " timed out", st.integers(200, 300)),  # a pattern past the output's kept head
    st.dictionaries(st.sampled_from(["a", "error"]), st.just("timed out"), max_size=1),
)


@settings(max_examples=300, deadline=None)
@given(
    result=st.fixed_dictionaries(
        {},
        optional={"ok": VALUES, "error": VALUES, "output": VALUES, "status": VALUES, "transient": VALUES},
    ),
    end=st.fixed_dictionaries({"status": VALUES}, optional={"error": VALUES, "transient": VALUES}),
)
def test_every_label_agrees_with_the_observers_verdict(tmp_path_factory, result: dict, end: dict) -> None:
    events = [
        {"ts": "2026-11-30T08:00:00Z", "type": "turn_start", "turn": "t1"},
        {"ts": "2026-11-30T08:00:01Z", "type": "tool_call", "id": "k", "name": "bash", "args": {}},
        {"ts": "2026-11-30T08:00:02Z", **result, "type": "tool_result", "id": "k"},
        {"ts": "2026-11-30T08:00:03Z", **end, "type": "turn_end", "turn": "t1"},
    ]
    data = b"".join(orjson.dumps(event) + b"\n" for event in events)
    observer = ConversationObserver("c", RULE, matcher_for(()))
    observer.feed_block(data, 0)
    (record,) = observer.turns
    path = Path(tmp_path_factory.mktemp("c")) / "c.jsonl"
    path.write_bytes(data)
    turn = Turn(0, summarize(record, score_turn(record, Settings(), frozenset())), trace(record))
    with Spans(1 << 20) as spans:
        read = with_verdicts(spans.read(path, 0, len(data)), [turn])
    evidence = turn_evidence(read, turn)

    assert evidence.transient == sum(e.transient for e in record.errors)
    assert len(evidence.errors) == sum(not e.transient for e in record.errors)
    failures = [step for step in read if step.event.type in ("tool_result", "turn_end")]
    described = [describe(step) for step in failures]
    said = [("TRANSIENT" in d.text) for d in described if "error" in d.text]
    assert said == [e.transient for e in record.errors]
    assert [step.verdict.transient for step in failures if step.verdict] == [e.transient for e in record.errors]
