"""The in-context correction reader's cost per prompt, in a child process.

Every prompt of the labelled real corpus (tests/data/corrections/real/) and of the benchmark
workspace's own prompts, read as the observer reads them (typed words split off, the context
kept), against the phrase matcher alone on the same texts: what each prompt of a cold scan
pays for reading in context. Prints one JSON object (microseconds per prompt, best of 5).
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

import orjson

from benchmarks.workspace import ASKS, CORRECTIONS
from orkas_tui.core.observe.corrections import matcher_for
from orkas_tui.core.observe.in_context import Context, judge, words_of
from orkas_tui.core.observe.origins import split_pasted
from orkas_tui.core.read.settings import Settings

CORPUS = Path(__file__).resolve().parents[1] / "tests" / "data" / "corrections" / "real" / "prompts.jsonl"


def _per_prompt(texts: list[str], said: list[str]) -> tuple[float, float]:
    matcher = matcher_for(Settings().correction_phrases)
    phrases, reader = [], []
    for _ in range(5):
        start = time.perf_counter()
        for text in texts:
            matcher.find(text)
        phrases.append(time.perf_counter() - start)
        context = Context(before="ok", prompts=1)
        start = time.perf_counter()
        for text, agent in zip(texts, said, strict=True):
            context.said(agent)
            typed = split_pasted(text)[0]
            words = words_of(typed)
            judge(text, context, matcher, typed, words)
            context.prompted(typed, words)
        reader.append(time.perf_counter() - start)
    return min(phrases) / len(texts) * 1e6, min(reader) / len(texts) * 1e6


def main() -> None:
    rows = [orjson.loads(line) for line in CORPUS.read_bytes().splitlines() if line.strip()]
    real = _per_prompt([row["text"] for row in rows], [row["agent_said"] for row in rows])
    rng = random.Random(3)
    synthetic = [rng.choice(CORRECTIONS) if rng.random() < 0.2 else rng.choice(ASKS) for _ in range(20_000)]
    shaped = _per_prompt(synthetic, ["Done. Here is the summary of the change."] * len(synthetic))
    sys.stdout.write(
        orjson.dumps(
            {
                "real_prompts": len(rows),
                "real_phrases_us": real[0],
                "real_reader_us": real[1],
                "workspace_phrases_us": shaped[0],
                "workspace_reader_us": shaped[1],
            }
        ).decode()
    )


if __name__ == "__main__":
    main()
