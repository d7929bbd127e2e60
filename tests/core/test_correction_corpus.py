"""The real-prompt correction corpus (issue 30): well formed, split by session, and the figures
docs/rules.md publishes are the ones ``scripts/correction_figures.py`` measures. Every set says, after
an interruption, whether the agent had acted (``acted``: written for set 4, backfilled for sets 1 to 3)."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "scripts"))

import correction_figures  # noqa: E402

KINDS = {None, *correction_figures.KINDS}
FIELDS = {
    "id", "source", "agent", "session", "n", "text", "agent_said", "before", "refused", "interrupted", "acted", "earlier", "language", "part", "label",
}  # fmt: skip
SETS = ("prompts.jsonl", *(f"heldout{number}.jsonl" for number in range(2, 8)))
REAL = REPO / "tests" / "data" / "corrections" / "real"
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def test_the_corpus_is_large_enough_labelled_and_split_by_session() -> None:
    rows = correction_figures.load()
    assert len(rows) >= 400 and len({row["session"] for row in rows}) >= 20
    ids = {row["id"] for row in rows}
    assert len(ids) == len(rows)
    for row in rows:
        assert FIELDS <= set(row) <= FIELDS | {"note"}, row["id"]  # a labeller's note
        assert row["label"] in KINDS and row["part"] in correction_figures.PARTS
        assert row["before"] in (None, "ok", "error", "aborted", "feedback")
        assert set(row["earlier"]) <= ids
        assert "sk-ant-" not in row["text"] and "AKIA" not in row["text"]
    parts = {row["session"]: row["part"] for row in rows}
    assert all(parts[row["session"]] == row["part"] for row in rows), "a session is in both parts"
    assert all(sum(row["label"] is not None for row in rows if row["part"] == part) >= 50 for part in correction_figures.PARTS)


def test_every_set_says_whether_the_agent_acted_before_a_stop() -> None:
    """``acted`` is on every row of every set, right after ``interrupted``: true or false on a prompt
    after an interruption (the turn before ended aborted, or a tool call in it was interrupted), null
    on every other; each set has rows after a stop with the agent having acted and not."""
    for name in SETS:
        rows = [json.loads(line) for line in (REAL / name).read_text("utf-8").splitlines() if line]
        seen = set()
        for row in rows:
            keys = list(row)
            assert "acted" in keys and keys[keys.index("interrupted") + 1] == "acted", (name, row["id"])
            stopped = row["interrupted"] or row["before"] == "aborted"
            assert row["acted"] in ((True, False) if stopped else (None,)), (name, row["id"])
            seen.add(row["acted"])
        assert seen == {True, False, None}, name


@pytest.mark.parametrize(("number", "sessions"), [(4, 40), (5, 20), (6, 20), (7, 20)])
def test_a_blind_set_is_well_formed_and_shares_nothing_with_the_earlier_ones(number: int, sessions: int) -> None:
    """Sets 4 to 7 have the corpus's row shape, both agents, no secret-looking string, and no
    session, prompt id or long prompt text of the sets before them (BMAD-method agent-activation
    templates aside: the same command text starts sessions of sets 4 to 7 of one developer)."""
    from orkas_tui.core.read.settings import Settings
    from orkas_tui.core.store.redact import Redactor

    def read(name: str) -> list[dict]:
        return [json.loads(line) for line in (REAL / name).read_text("utf-8").splitlines() if line]

    rows = read(f"heldout{number}.jsonl")
    assert len(rows) >= 300 and len({row["session"] for row in rows}) >= sessions
    assert {row["agent"] for row in rows} == {"claude-code", "codex"}
    ids = {row["id"] for row in rows}
    assert len(ids) == len(rows)
    redact = Redactor(Settings().bundle.redact_patterns)
    for row in rows:
        assert FIELDS <= set(row) <= FIELDS | {"note"}, row["id"]
        assert row["part"] == f"held-out-{number}" and row["label"] in KINDS
        assert row["before"] in (None, "ok", "error", "aborted", "feedback")
        assert set(row["earlier"]) <= ids and (row["n"] > 0 or row["label"] is None), row["id"]
        assert redact(row["text"]) == row["text"] and redact(row["agent_said"]) == row["agent_said"], row["id"]
    earlier = [row for name in SETS[: number - 1] for row in read(name)]
    seen = {uuid for row in earlier for uuid in UUID.findall(row["session"])} | {row["session"] for row in earlier}
    assert not [row["id"] for row in rows if row["session"] in seen or seen & set(UUID.findall(row["session"]))]
    assert not ids & {row["id"] for row in earlier}
    template = "You must fully embody this agent's persona"
    texts = {row["text"].strip() for row in earlier if len(row["text"].strip()) >= 60}
    assert not [row["id"] for row in rows if row["text"].strip() in texts and not row["text"].startswith(template)]


def test_docs_publish_what_the_script_measures() -> None:
    rows = correction_figures.load()
    found = correction_figures.verdicts(rows)
    published = (REPO / "docs" / "rules.md").read_text("utf-8").split("<!-- correction-context-figures -->", 1)[1]
    for part in correction_figures.PARTS:
        mine = [(row, verdict) for row, verdict in zip(rows, found, strict=True) if row["part"] == part]
        table = correction_figures.table([row for row, _ in mine], [verdict for _, verdict in mine])
        precision, recall = (cell.strip() for cell in table[2].strip("|").split("|")[1:3])  # the "all" row
        line = next(line for line in published.splitlines() if line.startswith(f"| {part} |"))
        assert f"| {precision} | {recall} |" in line, (part, precision, recall, line)
    assert correction_figures.agreement(rows).split(": ", 1)[1] in " ".join(published.split())


def test_the_second_reading_of_set_6_labels_every_row_of_it_and_nothing_else() -> None:
    second = [json.loads(line) for line in correction_figures.SECOND_READING.read_text("utf-8").splitlines()]
    sixth = [row["id"] for row in correction_figures.load(correction_figures.SIXTH)]
    assert [row["id"] for row in second] == sixth
    assert all(set(row) <= {"id", "label", "note"} and row["label"] in KINDS for row in second)


def test_the_script_prints_both_parts() -> None:
    from contextlib import redirect_stdout
    from io import StringIO

    out = StringIO()
    with redirect_stdout(out):
        assert correction_figures.main([]) == 0
    printed = out.getvalue()
    assert re.search(r"held-out: \d+ prompts from \d+ sessions", printed)
    assert re.search(r"held-out-2: \d+ prompts from \d+ sessions", printed)
    assert re.search(r"held-out-3: \d+ prompts from \d+ sessions", printed)
    assert re.search(r"held-out-4: \d+ prompts from \d+ sessions", printed)
    assert re.search(r"held-out-5: \d+ prompts from \d+ sessions", printed)
    assert re.search(r"held-out-6: \d+ prompts from \d+ sessions", printed)
    assert re.search(r"held-out-7: \d+ prompts from \d+ sessions", printed)
    assert "| kind: interrupt |" in printed


def test_every_gates_needles_let_through_whatever_its_pattern_finds() -> None:
    """The literal prefilter changes no verdict: on every real and synthetic prompt (and the agents'
    messages), a pattern that matches is always tried; the phrase matcher's built-in forms likewise."""
    from orkas_tui.core.observe.corrections import FORMS
    from orkas_tui.core.observe.in_context import GATES, words_of

    gates = (*GATES, FORMS)

    texts = [text for row in correction_figures.load() for text in (row["text"], row["agent_said"])]
    synthetic = (REPO / "tests" / "data" / "corrections" / "labelled.jsonl").read_text("utf-8").splitlines()
    texts += [json.loads(line)["text"] for line in synthetic if line.strip()]

    read = [(text, text.lower(), words_of(text)) for text in texts]
    missed = [
        (compiled.pattern.pattern[:40], text[:80])
        for gate in gates
        for compiled in gate.alternatives
        for text, lowered, words in read
        if compiled.pattern.search(text) and not compiled.admits(lowered, words.set, words.seq[0] if words.seq else "")
    ]
    assert missed == []
    one = [re.compile("|".join(c.pattern.pattern for c in gate.alternatives), re.IGNORECASE) for gate in gates]
    for gate, alternation in zip(gates, one, strict=True):  # the leftmost match, as one alternation gives
        for text in texts:
            found, expected = gate.search(text, text.lower()), alternation.search(text)
            assert (found and found.span()) == (expected and expected.span()), text[:80]


def test_the_phrase_matchers_word_lookup_changes_no_finding() -> None:
    """Given the text's words, the matcher skips its phrase search when no phrase's first word is there:
    on every real and synthetic prompt it finds what it finds without them."""
    from orkas_tui.core.observe.corrections import matcher_for
    from orkas_tui.core.observe.in_context import words_of
    from orkas_tui.core.read.settings import Settings

    matcher = matcher_for(Settings().correction_phrases)
    synthetic = (REPO / "tests" / "data" / "corrections" / "labelled.jsonl").read_text("utf-8").splitlines()
    texts = [row["text"] for row in correction_figures.load()] + [json.loads(line)["text"] for line in synthetic if line]
    assert [matcher.find(text, words_of(text).set) for text in texts] == [matcher.find(text) for text in texts]
