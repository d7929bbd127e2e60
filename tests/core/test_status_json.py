"""``status --json`` prints a conversation from the cache's bytes exactly as from its summaries
decoded, and those exactly as ``orjson`` indents their fields (what ``json.dump(indent=2)`` writes)."""

from __future__ import annotations

from pathlib import Path

import msgspec
import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from orkas_tui.commands.status_json import INDENT, ROWS_CLOSE, ROWS_OPEN, _printed
from orkas_tui.core.observe.corrections import matcher_for
from orkas_tui.core.observe.transient import TransientRule
from orkas_tui.core.observe.turns import ObservedError
from orkas_tui.core.summary.cache import _packed
from orkas_tui.core.summary.fold import ConversationState, encode_turns
from orkas_tui.core.summary.turn import TurnSummary, TurnTrace

TEXT = st.text(st.characters(codec="utf-8"), max_size=12)  # quotes, backslashes, control characters, any script
OPTIONAL = st.one_of(st.none(), TEXT)
INTS = st.integers(-(2**63), 2**63 - 1)
# weights are at most 10, scores their sum: under 1e16, where msgspec writes "1e16" and orjson "1e+16"
FLOATS = st.floats(-1e15, 1e15)
STAMPS = st.one_of(st.none(), st.sampled_from(["2026-11-20T09:00:00Z", "2026-11-20T10:00:00.5Z", "x"]))
INDEXES = st.lists(st.lists(TEXT, max_size=3), min_size=1, max_size=6)
ERRORS = st.builds(ObservedError, TEXT, TEXT, st.one_of(st.none(), INTS), st.booleans(), TEXT)


@st.composite
def summaries(draw) -> list[TurnSummary]:
    indexes = draw(INDEXES)
    return [
        TurnSummary(
            draw(TEXT),
            draw(TEXT),
            draw(STAMPS),
            draw(STAMPS),
            draw(TEXT),
            draw(INTS),
            draw(INTS),
            draw(INTS),
            draw(st.dictionaries(TEXT, st.one_of(FLOATS, INTS), max_size=3)),
            draw(st.floats(0, 50)),
            draw(st.booleans()),
            draw(st.dictionaries(TEXT, TEXT, max_size=3)),
            draw(st.lists(ERRORS, max_size=3)),
            draw(st.sampled_from(indexes)),
            draw(st.lists(TEXT, max_size=3)),
            draw(st.booleans()),
        )
        for _ in range(draw(st.integers(1, 6)))
    ]


def _state(made: list[TurnSummary]) -> ConversationState:
    state = ConversationState(Path("/nowhere/c.jsonl"), TransientRule((), ()), matcher_for(()), 1024)
    state.set_turns(list(made), [TurnTrace({}, False, [], 0, 0) for _ in made])
    return state


@settings(max_examples=200, deadline=None)
@given(summaries())
def test_a_packed_conversation_prints_the_bytes_its_decoded_summaries_print(made: list[TurnSummary]) -> None:
    from_rows, from_cache = _state(made), _state(made)
    indexes, *turns = encode_turns(made[::-1], from_cache.traces[::-1])  # as the cache writes a whole entry
    from_cache.packed = _packed(tuple(turns), len(indexes))
    assert _printed(from_cache) == _printed(from_rows)
    as_dicts = [msgspec.to_builtins(summary) for summary in made[::-1]]
    assert _printed(from_rows) == orjson.dumps({"a": [{"t": as_dicts}]}, option=INDENT)
    assert _printed(from_rows).startswith(ROWS_OPEN) and _printed(from_rows).endswith(ROWS_CLOSE)
    assert from_cache.sort_keys() == from_rows.sort_keys() and list(from_cache.triggered()) == list(from_rows.triggered())
    assert from_cache.summaries == from_rows.summaries  # unpacked: the same summaries, in turn order
