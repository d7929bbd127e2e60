"""``--simulate``: a background thread that keeps appending realistic turns to the demo
workspace through the runtime API, paced in real time, so a newcomer sees the app move."""

from __future__ import annotations

import random
import threading
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from orkas_tui.core.read.timefmt import utc_now
from orkas_tui.core.runtime import AgentRuntime, Conversation
from orkas_tui.demo.workspace import CHARACTERS, Character


def play_turn(conv: Conversation, c: Character, rng: random.Random, pause: Callable[[float], bool]) -> bool:
    """Append one turn event by event; ``pause`` sleeps and returns False when asked to stop."""
    conv.start_turn()
    corrected = rng.random() < 0.3
    conv.user(rng.choice(c.corrections) if corrected else rng.choice(c.asks))
    indexed = {s.slug for s in conv.runtime.skill_index()}
    for slug, chance in c.used_skills.items():
        if slug in indexed and rng.random() < chance:
            conv.read_skill(slug)
    calls = rng.randint(*c.tool_range)
    failing_at = rng.randrange(calls) if rng.random() < 0.3 else None
    for i in range(calls):
        if not pause(rng.uniform(0.2, 0.8)):
            return False
        name, args = rng.choice(c.tools)
        call = conv.tool_call(name, args)
        if i == failing_at:
            conv.tool_result(call, ok=False, error=rng.choice(c.real_errors)[1])
        elif rng.random() < 0.1:
            _, message, status = rng.choice(c.transient_errors)
            conv.tool_result(call, ok=False, error=message, status=status)
        else:
            conv.tool_result(call, ok=True, output=f"{name}: ok ({rng.randint(1, 400)} lines)")
    if rng.random() < c.abort_chance:
        conv.end_turn("aborted")
    else:
        conv.assistant(rng.choice(c.replies))
        conv.end_turn("ok")
    return True


def start_simulator(
    root: Path, seed: int | None = None, clock: Callable[[], datetime] = utc_now, speed: float = 1.0
) -> Callable[[], None]:
    """Start appending turns under ``root`` (``speed`` > 1 for tests); return a function that stops it."""
    stop = threading.Event()
    rng = random.Random(seed)

    def pause(seconds: float) -> bool:
        return not stop.wait(seconds / speed)

    def run() -> None:
        runtimes = {c.id: AgentRuntime(root, c.id, clock=clock) for c in CHARACTERS}
        while pause(rng.uniform(1.0, 3.0)):
            character = rng.choice(CHARACTERS)
            conv = runtimes[character.id].conversation(f"live-{clock().strftime('%Y-%m-%d-%H%M')}")
            if not play_turn(conv, character, rng, pause):
                return

    thread = threading.Thread(target=run, name="orkas-simulator", daemon=True)
    thread.start()

    def halt() -> None:
        stop.set()
        thread.join(timeout=5)

    return halt
