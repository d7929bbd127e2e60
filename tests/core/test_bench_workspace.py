"""The benchmark's workspace generator: the two index shapes issue 24 measures (untimed)."""

from __future__ import annotations

from pathlib import Path

import orjson

from benchmarks.workspace import Params, generate

SMALL = {"agents": 1, "events": 3_000, "skills": 50, "conversations": 3}


def _indexes(root: Path) -> list[list[list[str]]]:
    """Per conversation, each turn's ``skills_indexed``."""
    conversations = []
    for path in sorted(root.glob("agents/*/conversations/*.jsonl")):
        events = [orjson.loads(line) for line in path.read_bytes().splitlines()]
        conversations.append([e["skills_indexed"] for e in events if e["type"] == "turn_start"])
    return conversations


def test_shared_index_is_one_list_per_conversation(tmp_path: Path) -> None:
    generate(tmp_path, Params(**SMALL, indexed=8))
    for turns in _indexes(tmp_path):
        assert len(turns) > 10
        assert all(index == turns[0] for index in turns)
        assert len(set(turns[0])) == 8


def test_per_turn_index_is_drawn_for_each_turn(tmp_path: Path) -> None:
    generate(tmp_path, Params(**SMALL, indexed=8, index="per-turn"))
    skills = {p.stem for p in tmp_path.glob("agents/*/skills/*.md")}
    for turns in _indexes(tmp_path):
        assert len(turns) > 10
        assert all(len(set(index)) == 8 and set(index) <= skills for index in turns)
        assert len({tuple(index) for index in turns}) > len(turns) * 0.9  # 8 of 50: a repeat is rare


def test_the_shapes_are_cached_apart_and_the_shared_key_is_kept() -> None:
    shared = Params()
    assert shared.key() != Params(index="per-turn").key()
    assert shared.key() == "ac88245c361d8f17"  # the key before the option: cached workspaces stay valid
