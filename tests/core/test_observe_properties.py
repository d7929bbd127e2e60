"""Properties of the observer that pin its behaviour without a second implementation of it.

Conversations are drawn from a plan (turns with their index, reads, tool results, end and
edit); each property changes the input in a way the spec says cannot matter (transient
errors added, the file read in arbitrary chunks, conversations in another order) or
checks what the spec defines straight from the plan (impressions, invocations, rates).
The spec's worked examples are pinned in ``test_signals.py`` and ``test_metrics.py``.
"""

from __future__ import annotations

import tempfile
from itertools import pairwise
from pathlib import Path

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from orkas_tui.core.observe.corrections import matcher_for
from orkas_tui.core.observe.signals import score_turn
from orkas_tui.core.observe.skill_metrics import skill_metrics
from orkas_tui.core.observe.transient import TransientRule
from orkas_tui.core.observe.turns import ConversationObserver, TurnRecord
from orkas_tui.core.read.settings import Settings
from orkas_tui.core.read.workspace import AgentPaths
from orkas_tui.core.summary.scan import AgentScan
from tests.core.helpers import make_agent, write_lines

SETTINGS = Settings()
RULE = TransientRule.from_settings(SETTINGS)
WEAK = frozenset({"bash", "web"})  # the tools the profile names: known_weakness can fire
SKILLS = ["a", "b", "c", "d"]
# a runtime's index seldom changes between turns (the observer then shares one list); two of a length
INDEXES = [[], ["a"], ["a", "b"], ["c", "d"], ["b", "c", "d"]]
TOOLS = ["bash", "edit", "web"]
REAL = st.one_of(
    st.builds(dict, ok=st.just(False), error=st.sampled_from(["file not found", "syntax error", "no such option"])),
    st.builds(dict, ok=st.just(False), status=st.sampled_from([400, 404, 422, 501]), error=st.just("refused")),
    st.builds(dict, ok=st.just(False), error=st.just("connection reset"), transient=st.just(False)),  # the flag wins
    st.builds(dict, output=st.just("exit 1")),  # no ``ok``: not a success
)
TRANSIENT = st.one_of(
    st.builds(dict, ok=st.just(False), error=st.sampled_from(["file not found", "boom"]), transient=st.just(True)),
    st.builds(dict, ok=st.just(False), status=st.sampled_from(SETTINGS.transient_statuses), error=st.just("refused")),
    st.builds(
        dict,
        ok=st.just(False),
        error=st.sampled_from(["Read timed out", "connection reset by peer", "429 Too Many Requests", "overloaded"]),
    ),
    st.builds(dict, ok=st.just(False), output=st.just("getaddrinfo ENOTFOUND api.example.com")),
)
RESULT = st.one_of(st.just({"ok": True}), REAL, TRANSIENT)
ENDS = st.sampled_from(  # each with how the spec's ineffectiveness rate takes it
    [
        ({"status": "ok"}, "ok"),
        ({"status": "aborted"}, "aborted"),
        ({"status": "error", "error": "assertion failed"}, "real"),
        ({"status": "error"}, "real"),
        ({"status": "error", "error": "upstream overloaded"}, "transient"),
        ({"status": "error", "error": "boom", "transient": True}, "transient"),
    ]
)


@st.composite
def planned_turn(draw, turn_id: str, last: bool) -> dict:
    indexed = draw(st.sampled_from(INDEXES))
    return {
        "turn": turn_id,
        "indexed": indexed,
        "read": draw(st.lists(st.sampled_from(SKILLS), max_size=3)),  # repeats and skills not indexed too
        "read_by_tool": draw(st.booleans()),
        "user": draw(st.sampled_from(["please do it", "that's wrong, try again", "ok thanks"])),
        "calls": draw(st.lists(st.tuples(st.sampled_from(TOOLS), RESULT), max_size=10)),
        "end": draw(st.one_of(st.none(), ENDS) if last else ENDS),  # (end, kind); only the last turn may still run
        "edited": draw(st.booleans()),
    }


@st.composite
def conversation(draw, name: str = "c") -> tuple[list[dict], list[dict]]:
    """A plan and its events, in the order a runtime writes them (edits after their turn)."""
    count = draw(st.integers(0, 5))
    plan = [draw(planned_turn(f"{name}-t{i}", i == count - 1)) for i in range(count)]
    events: list[dict] = []
    for turn in plan:
        events.append({"type": "turn_start", "turn": turn["turn"], "skills_indexed": turn["indexed"]})
        events.append({"type": "user", "text": turn["user"]})
        for slug in turn["read"]:
            if turn["read_by_tool"]:
                events.append({"type": "tool_call", "id": f"r-{slug}", "name": "read_skill", "args": {"name": slug}})
            else:
                events.append({"type": "skill_read", "skill": slug})
        for i, (tool, result) in enumerate(turn["calls"]):
            call = f"{turn['turn']}-c{i}"
            events.append({"type": "tool_call", "id": call, "name": tool, "args": {}})
            events.append({"type": "tool_result", "id": call, **result})
        if turn["end"] is not None:
            events.append({"type": "turn_end", "turn": turn["turn"], **turn["end"][0]})
    for turn in plan:
        if turn["edited"] and turn["end"] is not None:
            events.append({"type": "output_edited", "turn": turn["turn"]})
    for before, turn in pairwise(plan):  # docs/rules.md: a correcting prompt marks the turn before it edited
        if before["end"][1] == "aborted":  # any new words after an interruption; the same words are a retry
            before["edited"] |= turn["user"] != before["user"]
        else:
            before["edited"] |= turn["user"] == "that's wrong, try again"
    for second, event in enumerate(events):
        event["ts"] = f"2026-11-20T10:{second // 60:02d}:{second % 60:02d}Z"
    return plan, events


def _lines(events: list[dict]) -> bytes:
    return b"".join(orjson.dumps(event) + b"\n" for event in events)


def _observe(events: list[dict]) -> list[TurnRecord]:
    observer = ConversationObserver("c", RULE, matcher_for(SETTINGS.correction_phrases))
    observer.feed_block(_lines(events), 0)
    return observer.turns


def _scores(turns: list[TurnRecord]) -> list:
    return [(t.turn, t.status, score_turn(t, SETTINGS, WEAK)) for t in turns]


def _scanned(conversations: dict[str, list[bytes]]) -> dict:
    """What an agent's scan reports when each conversation file is written in the given chunks,
    the scan refreshed after each chunk (the incremental tail), and everything read."""
    with tempfile.TemporaryDirectory() as root:
        agent = make_agent(Path(root))
        (agent / "self").mkdir()
        (agent / "self" / "profile.md").write_text("I misuse `bash` and `web`.\n")
        scan = AgentScan(AgentPaths(agent), SETTINGS, persist=False)
        for name, chunks in conversations.items():
            path = agent / "conversations" / f"{name}.jsonl"
            path.touch()
            for chunk in chunks:
                write_lines(path, [chunk])
                scan.refresh()
        fields = scan.status_fields()
        return {
            "rows": {(row.conversation, row.turn): row for row in fields.pop("turns")},
            "fields": fields,
            "skills": scan.skill_use(),
            "observed": skill_metrics(scan.records()),
            "activity": scan.activity(),
        }


@settings(max_examples=200, deadline=None)
@given(conversation(), st.lists(st.tuples(st.integers(0, 200), TRANSIENT, st.integers(0, 12)), min_size=1, max_size=6))
def test_a_transient_error_changes_no_score_and_no_metric(drawn, inserted) -> None:
    """Failed results the transient rule excuses, anywhere in the stream, citing a call of any
    tool (one the profile names too): every turn scores the same, every skill's metrics hold."""
    _plan, events = drawn
    noisy = list(events)
    for at, result, call in sorted(inserted, key=lambda item: -item[0]):
        assert RULE.classify(result.get("error", result.get("output")), result.get("status"), result.get("transient")).transient
        at = min(at, len(noisy))
        turn = next((e["turn"] for e in reversed(noisy[:at]) if e["type"] == "turn_start"), "x")
        noisy.insert(at, {"ts": "2026-11-20T10:00:00Z", "type": "tool_result", "id": f"{turn}-c{call}", **result})
    quiet, loud = _observe(events), _observe(noisy)
    assert _scores(loud) == _scores(quiet)
    assert skill_metrics(loud) == skill_metrics(quiet)
    scanned, noisy_scanned = _scanned({"c": [_lines(events)]}), _scanned({"c": [_lines(noisy)]})
    assert noisy_scanned["skills"] == scanned["skills"]
    assert noisy_scanned["fields"]["triggering_turns"] == scanned["fields"]["triggering_turns"]
    assert [r.score for r in noisy_scanned["rows"].values()] == [r.score for r in scanned["rows"].values()]


JUNK = st.sampled_from([b"junk", b"[]", b'{"type": 1}', b"", b'{"type": "user", "text": "x"'])


@settings(max_examples=150, deadline=None)
@given(conversation(), st.lists(st.tuples(st.integers(0, 200), JUNK), max_size=3), st.lists(st.integers(0, 10**6)))
def test_a_file_read_in_any_chunks_is_summarised_as_read_whole(drawn, junk, cuts) -> None:
    """Appended a few bytes at a time (cut anywhere, mid-line too) and refreshed after each
    append, a conversation gives the rows, counts, skill metrics and queue activity of one read."""
    _plan, events = drawn
    lines = [orjson.dumps(event) for event in events]
    for at, line in junk:
        lines.insert(min(at, len(lines)), line)
    data = b"".join(line + b"\n" for line in lines)
    bounds = sorted({0, len(data), *(cut % (len(data) + 1) for cut in cuts)})
    chunks = [data[a:b] for a, b in pairwise(bounds)]
    assert _scanned({"c": chunks}) == _scanned({"c": [data]})


@settings(max_examples=100, deadline=None)
@given(st.lists(conversation(), min_size=1, max_size=4), st.randoms(use_true_random=False))
def test_the_order_of_conversations_and_turns_changes_no_skill_total(drawn, rng) -> None:
    """Per-skill totals are sums over turns: the scan's and the observer's, whatever the order
    of the files in the folder or of the turns handed to :func:`skill_metrics`."""
    streams = [_lines(events) for _plan, events in drawn]
    names = [f"c{i}" for i in range(len(streams))]
    shuffled = rng.sample(names, len(names))  # the same streams under names that list in another order
    first = _scanned({name: [data] for name, data in zip(names, streams, strict=True)})
    second = _scanned({name: [data] for name, data in zip(shuffled, streams, strict=True)})
    assert second["skills"] == first["skills"] == first["observed"]
    turns = [t for _plan, events in drawn for t in _observe(events)]
    assert skill_metrics(rng.sample(turns, len(turns))) == skill_metrics(turns) == first["skills"]


@settings(max_examples=300, deadline=None)
@given(st.lists(conversation(), max_size=3))
def test_skill_metrics_count_what_the_spec_defines(drawn) -> None:
    """Impressions are ended turns whose index lists the skill, invocations ended turns that
    read it (once a turn), of which the ineffectiveness rate counts those neither aborted nor
    ended by a transient error, and as ineffective those ended by a real one; a rate is ``None`` exactly when its
    denominator is 0, else the quotient (an invocation rate passes 1 when a skill is read unlisted)."""
    turns = [t for _plan, events in drawn for t in _observe(events)]
    ended = [turn for plan, _events in drawn for turn in plan if turn["end"] is not None]
    table = skill_metrics(turns)
    assert set(table) == {slug for turn in ended for slug in [*turn["indexed"], *turn["read"]]}
    for slug, m in table.items():
        assert m.impressions == sum(slug in turn["indexed"] for turn in ended)
        assert m.invocations == sum(slug in turn["read"] for turn in ended)
        assert m.edited == sum(slug in turn["read"] and turn["edited"] for turn in ended)
        invoked = [turn["end"][1] for turn in ended if slug in turn["read"]]
        assert m.effective_base == sum(kind in ("ok", "real") for kind in invoked)
        assert m.ineffective == invoked.count("real")
        assert m.edited <= m.invocations and m.ineffective <= m.effective_base <= m.invocations
        if all(slug in turn["indexed"] for turn in ended if slug in turn["read"]):
            assert m.invocations <= m.impressions
        for rate, part, whole in (
            (m.invocation_rate, m.invocations, m.impressions),
            (m.edit_rate, m.edited, m.invocations),
            (m.ineffective_rate, m.ineffective, m.effective_base),
        ):
            assert (rate is None) == (whole == 0)
            assert rate is None or rate == round(part / whole, 4)
