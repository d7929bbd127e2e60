"""Every verdict of the transient rule on the real error corpus (tests/data/errors) stays what it was."""

from __future__ import annotations

from pathlib import Path

import msgspec
import orjson
import pytest

from orkas_tui.core.observe.transient import TransientRule
from orkas_tui.core.read.events import Failure
from orkas_tui.core.read.settings import Settings

CORPUS = Path(__file__).resolve().parents[1] / "data" / "errors" / "corpus.jsonl"
ENTRIES = [orjson.loads(line) for line in CORPUS.read_bytes().splitlines()]


def test_the_corpus_holds_real_errors_of_every_kind() -> None:
    """Not a stand-in: errors read from the samples and quoted ones, real and transient verdicts."""
    sources = [entry["source"] for entry in ENTRIES]
    assert any(source.startswith("tests/data/samples/claude-code/") for source in sources)
    assert any(source.startswith("tests/data/samples/codex/") for source in sources)
    assert any(source.startswith("https://github.com/") for source in sources)
    assert {entry["transient"] for entry in ENTRIES} == {True, False}
    assert any(len(entry["message"] or "") >= 2000 for entry in ENTRIES)


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda entry: f"{entry['message']!r:.40}")
def test_each_verdict_is_unchanged(entry: dict) -> None:
    rule = TransientRule.from_settings(Settings())
    facts = None if entry["facts"] is None else msgspec.convert(entry["facts"], Failure)
    verdict = rule.classify(entry["message"], entry["status"], entry["flag"], facts, entry["written"])
    assert (verdict.transient, verdict.reason) == (entry["transient"], entry["reason"])
