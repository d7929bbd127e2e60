"""The correction heuristic measured on the labelled set, against the figures docs/rules.md publishes.

The set is tests/data/corrections/labelled.jsonl; the table sits under the
``<!-- correction-figures -->`` marker in docs/rules.md. A change that lowers a
language's precision or recall below its published "after" figure fails here.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from orkas_tui.core.observe.corrections import matcher_for
from orkas_tui.core.read.settings import DEFAULT_CORRECTION_PHRASES, Settings

REPO = Path(__file__).resolve().parents[2]
SET = REPO / "tests" / "data" / "corrections" / "labelled.jsonl"
RULES = REPO / "docs" / "rules.md"
LANGUAGES = ("en", "es", "zh")
SPEC_PHRASES = {
    "en": ("wrong", "actually", "instead", "that's not", "I meant", "should be", "try again"),
    "zh": ("不对", "应该是", "重新", "错了"),
    "es": ("incorrecto", "en realidad", "debería ser", "en vez de", "otra vez"),
}


def labelled() -> list[dict]:
    return [json.loads(line) for line in SET.read_text("utf-8").splitlines() if line.strip()]


def _number(cell: str) -> float:
    """``0.86 (46/53)`` -> 0.86."""
    return float(re.match(r"[\d.]+", cell).group(0))


def published() -> dict[tuple[str, str], tuple[float, float]]:
    """(language, set) -> (precision after, recall after), from the table under the marker."""
    text = RULES.read_text("utf-8").split("<!-- correction-figures -->", 1)[1]
    figures = {}
    for line in text.splitlines()[3:]:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 8:
            break
        figures[(cells[0], cells[1])] = (_number(cells[5]), _number(cells[7]))
    return figures


def measure(rows: list[dict]) -> tuple[float, float]:
    matcher = matcher_for(Settings().correction_phrases)
    found = [(row["is_correction"], matcher.find(row["text"]) is not None) for row in rows]
    true_pos = sum(1 for truth, hit in found if truth and hit)
    flagged = sum(1 for _truth, hit in found if hit)
    return true_pos / flagged, true_pos / sum(1 for truth, _hit in found if truth)


def test_the_set_is_well_formed_and_large_enough() -> None:
    rows = labelled()
    assert len(rows) >= 150
    for row in rows:
        assert set(row) == {"text", "language", "is_correction", "note"}, row
        assert isinstance(row["text"], str) and row["text"].strip() and isinstance(row["is_correction"], bool)
        assert row["language"] in LANGUAGES and isinstance(row["note"], str) and row["note"]
    for language in LANGUAGES:
        mine = [r for r in rows if r["language"] == language]
        assert len(mine) >= 40 and sum(not r["is_correction"] for r in mine) >= 15
    assert len({r["text"] for r in rows}) == len(rows)


def test_the_published_table_covers_every_language() -> None:
    assert set(published()) == {(lang, part) for lang in LANGUAGES for part in ("all", "held-out")}


@pytest.mark.parametrize("part", ["all", "held-out"])
@pytest.mark.parametrize("language", LANGUAGES)
def test_precision_and_recall_do_not_drop_below_the_published_figures(language: str, part: str) -> None:
    rows = [r for r in labelled() if r["language"] == language and (part == "all" or r["note"].startswith("held-out"))]
    precision, recall = measure(rows)
    want_precision, want_recall = published()[(language, part)]
    assert precision >= want_precision, f"{language}/{part}: precision {precision:.3f} < {want_precision}"
    assert recall >= want_recall, f"{language}/{part}: recall {recall:.3f} < {want_recall}"


@pytest.mark.parametrize("phrase", [p for phrases in SPEC_PHRASES.values() for p in phrases])
def test_every_spec_phrase_is_still_honoured(phrase: str) -> None:
    assert phrase in DEFAULT_CORRECTION_PHRASES
    assert matcher_for(DEFAULT_CORRECTION_PHRASES).find(f"ok. {phrase} x") is not None
    assert matcher_for((phrase,)).find(f"ok. {phrase.upper()} x") is not None


@pytest.mark.parametrize(
    ("text", "evidence"),
    [
        ("No, the port is 5433.", "No,"),
        ("nah, keep the old name", "nah,"),
        ("Not right: the total should exclude tax.", "Not right"),
        ("That's incorrect.", "incorrect"),
        ("Use the other one, the v2 endpoint.", "Use the other one"),
        ("La otra hoja, no esta.", "La otra hoja"),
        ("不是这个文件，是 utils/dates.py。", "不是这个"),
        ("别用 requests，用 httpx。", "别用 requests，用"),
        ("頁面還是空白", "還是空白"),
        ("還是不行，一樣的錯誤", "還是不行"),
        ("不是這個檔案，是 utils/dates.py。", "不是這個"),
        ("別用 requests，用 httpx。", "別用 requests，用"),
    ],
)
def test_a_form_is_named_as_the_evidence(text: str, evidence: str) -> None:
    assert matcher_for(("zzz",)).find(text) == evidence  # the forms work with any phrase list


@pytest.mark.parametrize("text", ["應該是 v2 的端點", "不對，是登入頁", "錯了，重來", "不是這樣", "你應該是用 pnpm"])
def test_traditional_chinese_reads_as_the_simplified_phrases(text: str) -> None:
    """The spec lists its Chinese phrases in Simplified characters; people type Traditional too."""
    found = matcher_for(DEFAULT_CORRECTION_PHRASES).find(text)
    assert found is not None and found in text  # quoted as written, not as folded


@pytest.mark.parametrize(
    "text",
    ["No problem", "no, thanks", "Not right now", "not exactly sure", "On the other hand", "no está mal", "不错", "不用改回去"],
)
def test_hard_negatives_are_not_corrections(text: str) -> None:
    assert matcher_for(("zzz",)).find(text) is None
