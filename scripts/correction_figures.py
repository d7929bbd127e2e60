"""Precision and recall of the in-context correction reader on labelled real prompts (issue 30).

Reads ``tests/data/corrections/real/prompts.jsonl`` and ``heldout2.jsonl`` to ``heldout7.jsonl`` (built by
``scripts/correction_corpus.py``, labelled by the rule in docs/rules.md) and prints, for each part, precision overall and per language and recall per kind and per language, with the
counts behind each figure; then how far a second labeller of set 6 (``heldout6-second.jsonl``,
labelled blind) agrees with the first, read the same way. ``--misses`` lists what the reader got
wrong on the parts it may be tuned on (the held-out sets are read only to measure).
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path

from orkas_tui.core.observe.corrections import matcher_for
from orkas_tui.core.observe.in_context import Context, Verdict, judge
from orkas_tui.core.observe.origins import split_pasted
from orkas_tui.core.read.settings import Settings

REAL = Path(__file__).resolve().parents[1] / "tests" / "data" / "corrections" / "real"
CORPUS = REAL / "prompts.jsonl"  # the first set: its tuning part, and its held-out part (opened for tuning in round 2)
SECOND = REAL / "heldout2.jsonl"  # the second set, labelled blind: held out in round 2, tuned on in round 3
THIRD = REAL / "heldout3.jsonl"  # the third set, labelled blind: held out in round 3, tuned on in round 4
FOURTH = REAL / "heldout4.jsonl"  # the fourth set, labelled blind: measured once at 539cd64, tuned on in round 5
FIFTH = REAL / "heldout5.jsonl"  # the fifth set, labelled blind: measured once at 74dfd72 (round 5), tuned on in round 6
SIXTH = REAL / "heldout6.jsonl"  # the sixth set, labelled blind: measured at e22c34e (round 5) and 00af1ac (round 6), held out
SECOND_READING = REAL / "heldout6-second.jsonl"  # set 6 labelled again, blind, by another labeller: how far people agree
SEVENTH = REAL / "heldout7.jsonl"  # the seventh set, labelled blind: measured once at 97a5ef9 (round 6), held out
PARTS = ("tune", "held-out", "held-out-2", "held-out-3", "held-out-4", "held-out-5", "held-out-6", "held-out-7")
TUNING = PARTS[:-2]  # the parts the reader may be tuned on; --misses lists only these (sets 6 and 7 stay held out)
KINDS = ("interrupt", "failed", "diagnosis", "redirect", "restated", "review")


def load(*paths: Path) -> list[dict]:
    """Rows of the given sets (default: all seven), in order."""
    return [
        json.loads(line)
        for path in paths or (CORPUS, SECOND, THIRD, FOURTH, FIFTH, SIXTH, SEVENTH)
        for line in path.read_text("utf-8").splitlines()
        if line.strip()
    ]


def context_of(row: dict, by_id: dict[str, dict]) -> Context:
    """The context the observer holds when it reads this prompt, from what the corpus recorded."""
    context = Context()
    for earlier in row["earlier"]:
        context.prompted(split_pasted(by_id[earlier]["text"])[0])
    context.agent, context.before, context.prompts = row["agent_said"], row["before"], row["n"]
    context.acted = row.get("acted") is not False  # not recorded (before set 4): as if it had
    return context


def verdicts(rows: list[dict]) -> list[Verdict | None]:
    matcher = matcher_for(Settings().correction_phrases)
    by_id = {row["id"]: row for row in rows}
    return [judge(row["text"], context_of(row, by_id), matcher) for row in rows]


def _ratio(hits: int, total: int) -> str:
    return f"{hits / total:.2f} ({hits}/{total})" if total else "n/a (0/0)"


def table(rows: list[dict], found: list[Verdict | None]) -> list[str]:
    flagged: dict[str, list[int]] = defaultdict(lambda: [0, 0])  # language, agent or kind read -> [right, flagged]
    recalled: dict[str, list[int]] = defaultdict(lambda: [0, 0])  # kind labelled, language or agent -> [found, labelled]
    for row, verdict in zip(rows, found, strict=True):
        truth = row["label"] is not None
        if verdict is not None:  # precision by the kind the reader gave (a phrase match is its own kind)
            flagged[verdict.kind][1] += 1
            flagged[verdict.kind][0] += truth
        for key in ("all", row["language"], row["agent"]):
            if verdict is not None:
                flagged[key][1] += 1
                flagged[key][0] += truth
            if truth:
                recalled[key][1] += 1
                recalled[key][0] += verdict is not None
        if truth:
            recalled[row["label"]][1] += 1
            recalled[row["label"]][0] += verdict is not None
    lines = ["| measure | precision | recall |", "|---|---|---|"]
    kinds = (*KINDS, "phrase")
    for key in ("all", *sorted(k for k in flagged.keys() | recalled.keys() if k not in ("all", *kinds))):  # languages, agents
        lines.append(f"| {key} | {_ratio(*flagged[key])} | {_ratio(*recalled[key])} |")
    for kind in kinds:
        recall = _ratio(*recalled[kind]) if kind in KINDS else "(a reading, no label)"
        lines.append(f"| kind: {kind} | {_ratio(*flagged[kind])} | {recall} |")
    return lines


def agreement(rows: list[dict]) -> str:
    """The second labeller of set 6 read against the first, as the reader is: what two people reach."""
    second = {row["id"]: row["label"] for row in map(json.loads, SECOND_READING.read_text("utf-8").splitlines())}
    first = [row["label"] for row in rows if row["part"] == "held-out-6"]
    theirs = [second[row["id"]] for row in rows if row["part"] == "held-out-6"]
    both = sum(a is not None and b is not None for a, b in zip(first, theirs, strict=True))
    flagged, labelled = sum(b is not None for b in theirs), sum(a is not None for a in first)
    agree = sum((a is None) == (b is None) for a, b in zip(first, theirs, strict=True)) / len(first)
    chance = (labelled * flagged + (len(first) - labelled) * (len(first) - flagged)) / len(first) ** 2
    return (
        f"set 6, the second labeller against the first: precision {_ratio(both, flagged)}, "
        f"recall {_ratio(both, labelled)}, Cohen's kappa {(agree - chance) / (1 - chance):.2f}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--misses", action="store_true", help="list the tuning parts' misses and false alarms")
    args = parser.parse_args(argv)
    rows = load()
    found = verdicts(rows)
    for part in PARTS:
        mine = [(row, verdict) for row, verdict in zip(rows, found, strict=True) if row["part"] == part]
        if not any(row["label"] is not None for row, _ in mine):
            print(f"\n{part}: not labelled yet")
            continue
        sessions = len({row["session"] for row, _ in mine})
        print(f"\n{part}: {len(mine)} prompts from {sessions} sessions")
        print("\n".join(table([row for row, _ in mine], [verdict for _, verdict in mine])))
    print("\n" + agreement(rows))
    if args.misses:
        for row, verdict in zip(rows, found, strict=True):
            if row["part"] in TUNING and (row["label"] is not None) != (verdict is not None):
                said = " ".join(row["agent_said"].split())[-160:]
                print(
                    f"\n{row['id']} label={row['label']} got={verdict} before={row['before']}\n  A: {said}\n  U: {' '.join(row['text'].split())[:300]}"
                )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
