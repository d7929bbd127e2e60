"""``status --json`` prints a conversation from the cache's bytes exactly as from its rows decoded."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from orkas_tui.commands.status_json import _printed
from orkas_tui.core.observe.corrections import matcher_for
from orkas_tui.core.observe.transient import TransientRule
from orkas_tui.core.summary.cache import ROW_KEYS, _pack, _packed
from orkas_tui.core.summary.fold import ConversationState

TEXT = st.text(st.characters(codec="utf-8"), max_size=12)  # quotes, backslashes, control characters, any script
SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**63), 2**63 - 1), st.floats(allow_nan=False, allow_infinity=False), TEXT
)
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3), max_leaves=8)
STAMPS = st.one_of(st.none(), st.sampled_from(["2026-11-20T09:00:00Z", "2026-11-20T10:00:00.5Z", "x"]))
INDEXES = st.lists(st.lists(TEXT, max_size=3), min_size=1, max_size=6)


@st.composite
def rows(draw) -> list[dict]:
    indexes = draw(INDEXES)
    made = []
    for _ in range(draw(st.integers(1, 6))):
        row = {key: draw(VALUES) for key in ROW_KEYS}
        row |= {
            "started_at": draw(STAMPS),
            "ended_at": draw(STAMPS),
            "score": draw(st.floats(0, 50)),
            "triggers": draw(st.booleans()),
        }
        row["skills_indexed"] = draw(st.sampled_from(indexes))
        made.append(row)
    return made


def _state(made: list[dict]) -> ConversationState:
    state = ConversationState(Path("/nowhere/c.jsonl"), TransientRule((), ()), matcher_for(()), 1024)
    state.rows = [dict(row) for row in made]
    state.facts = [[{}, False, None, None, 0, 0] for _ in made]
    return state


@settings(max_examples=200, deadline=None)
@given(rows())
def test_a_packed_conversation_prints_the_bytes_its_decoded_rows_print(made: list[dict]) -> None:
    from_rows, from_cache = _state(made), _state(made)
    indexes, turns = _pack(from_cache, range(len(made) - 1, -1, -1))  # as the cache writes a whole entry
    from_cache.packed = _packed(turns, indexes)
    assert _printed(from_cache) == _printed(from_rows)
    assert from_cache.sort_keys() == from_rows.sort_keys() and list(from_cache.triggered()) == list(from_rows.triggered())
    assert from_cache.rows == from_rows.rows  # unpacked: the same rows, in turn order
