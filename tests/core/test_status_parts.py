"""The printed turns array is spliced to exactly what building it again gives; metric totals add and take back."""

from __future__ import annotations

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from orkas_tui.core.summary.status_parts import INDENT, Metrics, Printed

STEMS = ["a", "b", "c", "d"]
WHEN = st.sampled_from(["", "2026-11-30T09:00:00Z", "2026-11-30T09:00:00.500Z", "2026-11-30T10:00:00Z", "2026-12-01T00:00:00Z"])


def turns_of(stem: str, whens: list[str], salt: int) -> list:
    rows = []
    for seq, when in enumerate(whens):
        turn = {"conversation": stem, "turn": f"t{seq}", "ended_at": when or None, "note": "x" * ((seq + salt) % 7)}
        rows.append((when, stem, seq, orjson.dumps(turn, option=orjson.OPT_INDENT_2).replace(b"\n", b"\n        ")))
    return rows


HISTORY = st.dictionaries(st.sampled_from(STEMS), st.lists(WHEN, max_size=6), max_size=4)


def printed_whole(history: dict[str, list[str]], salt: int = 0) -> Printed:
    return Printed.empty().splice(set(), [row for stem, whens in history.items() for row in turns_of(stem, whens, salt)])


def test_the_whole_array_is_what_orjson_prints_for_the_list() -> None:
    history = {"a": ["2026-11-30T09:00:00Z", ""], "b": ["2026-11-30T10:00:00Z"]}
    rows = sorted((row for stem, whens in history.items() for row in turns_of(stem, whens, 0)), reverse=True)
    turns = [orjson.loads(text) for *_, text in rows]
    assert printed_whole(history).text == orjson.dumps(turns, option=orjson.OPT_INDENT_2).replace(b"\n", INDENT)
    assert Printed.empty().splice(set(), []).text == b"[]"


@settings(max_examples=300, deadline=None)
@given(HISTORY, HISTORY, st.sets(st.sampled_from(STEMS)))
def test_a_splice_equals_building_again(before: dict, after: dict, gone: set) -> None:
    """Conversations in ``after`` are redone (their turns replaced), those in ``gone`` removed."""
    old = printed_whole(before)
    redo = set(after) | gone
    spliced = old.splice(redo, [row for stem, whens in after.items() for row in turns_of(stem, whens, 1)])
    expected_history = {stem: whens for stem, whens in before.items() if stem not in redo}
    expected = Printed.empty().splice(
        set(),
        [
            *[row for stem, whens in expected_history.items() for row in turns_of(stem, whens, 0)],
            *[row for stem, whens in after.items() for row in turns_of(stem, whens, 1)],
        ],
    )
    assert spliced == expected
    assert Printed.from_columns(spliced.text, spliced.columns()) == spliced


@pytest.mark.parametrize(
    "tamper",
    [
        lambda c: {**c, "length": [*c["length"][:-1], c["length"][-1] + 1]},
        lambda c: {**c, "seq": c["seq"][:-1]},
        lambda c: {**c, "stem": [1] * len(c["stem"])},
        lambda c: {**c, "length": [-1, *c["length"][1:]]},
        lambda c: {**c, "when": "no list"},
    ],
    ids=["length-off", "short-column", "stem-not-text", "negative", "not-a-list"],
)
def test_columns_that_do_not_describe_the_text_are_refused(tamper) -> None:
    printed = printed_whole({"a": ["2026-11-30T09:00:00Z", "2026-11-30T10:00:00Z"], "b": [""]})
    with pytest.raises((ValueError, TypeError)):
        Printed.from_columns(printed.text, tamper(printed.columns()))


def test_metrics_taken_back_leave_the_totals_as_before() -> None:
    metrics = Metrics()
    first, second = {"s1": [3, 1, 0, 0, 1]}, {"s1": [2, 2, 1, 1, 2], "s2": [1, 0, 0, 0, 0]}
    metrics.add(first)
    metrics.add(second)
    assert metrics.totals == {"s1": [5, 3, 1, 1, 3], "s2": [1, 0, 0, 0, 0]}
    metrics.take(second)
    assert metrics.totals == first
    with pytest.raises(ValueError):
        metrics.take(second)
    with pytest.raises(ValueError):
        Metrics.checked({"s1": [1, 2, 3]})
