"""Print, per category of planted instruction, how many the guard's scan refuses, and how many harmless
lessons it lets through (tests/data/attacks/corpus.json; docs/guarantees.md quotes the table).

    python scripts/attack_figures.py
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from orkas_tui.core.store.guard import scan

CORPUS = Path(__file__).resolve().parents[1] / "tests" / "data" / "attacks" / "corpus.json"


def figures(corpus: dict) -> tuple[dict[str, tuple[int, int]], tuple[int, int], list[str], list[str]]:
    """Per category (refused, total); harmless (passed, total); the attacks that passed; the harmless refused."""
    total: Counter = Counter()
    refused: Counter = Counter()
    missed = []
    for attack in corpus["attacks"]:
        total[attack["category"]] += 1
        if scan(attack["text"]) is not None:
            refused[attack["category"]] += 1
        else:
            missed.append(attack["text"])
    wrongly = [text for text in corpus["harmless"] if scan(text) is not None]
    harmless = (len(corpus["harmless"]) - len(wrongly), len(corpus["harmless"]))
    return {c: (refused[c], total[c]) for c in sorted(total)}, harmless, missed, wrongly


def main() -> None:
    per, harmless, missed, wrongly = figures(json.loads(CORPUS.read_text("utf-8")))
    print(f"{'category':<16} {'refused':>8} {'of':>4}")
    for category, (done, of) in per.items():
        print(f"{category:<16} {done:>8} {of:>4}")
    done, of = sum(d for d, _ in per.values()), sum(o for _, o in per.values())
    print(f"{'all attacks':<16} {done:>8} {of:>4}   ({done / of:.1%})")
    print(f"{'harmless passed':<16} {harmless[0]:>8} {harmless[1]:>4}")
    for text in missed:
        print(f"passed: {text!r}")
    for text in wrongly:
        print(f"refused harmless: {text!r}")


if __name__ == "__main__":
    main()
