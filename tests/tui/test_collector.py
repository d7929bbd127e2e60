"""The app's collector: young generations on every tick, one full pass once things are quiet after a change."""

from __future__ import annotations

import gc
import weakref

from orkas_tui.tui.collector import BUSY_S, IDLE_S, YOUNG_S, Collector


class Node:
    me: object = None


def test_full_pass_only_when_idle_after_a_change_then_frozen_and_thawed_after_a_switch() -> None:
    now = [100.0]
    generations: list[int] = []

    def seen(phase: str, info: dict) -> None:
        if phase == "start":
            generations.append(info["generation"])

    collector = Collector(clock=lambda: now[0])
    was_enabled = gc.isenabled()
    gc.unfreeze()
    gc.callbacks.append(seen)
    try:
        collector.start()
        assert not gc.isenabled()
        collector.tick()
        collector.changed()
        now[0] += IDLE_S / 2
        collector.tick()  # a change, but not quiet long enough
        now[0] += IDLE_S
        assert 2 not in generations  # no full pass before things are quiet
        collector.tick()  # quiet: the full pass, and what survived it is frozen
        collector.tick()  # and only one
        assert generations.count(2) == 1
        frozen = gc.get_freeze_count()
        assert frozen > 0

        node = Node()
        node.me = node  # a cycle: only the cyclic collector can reclaim it
        ref = weakref.ref(node)
        collector.changed()
        now[0] += IDLE_S
        collector.tick()  # it survives the full pass and is frozen with the rest
        del node
        collector.changed()
        now[0] += IDLE_S
        collector.tick()
        assert ref() is not None  # frozen: a plain pass leaves it
        collector.changed(thaw=True)  # another agent shown
        now[0] += IDLE_S
        collector.tick()
        assert ref() is None  # the thawed pass reclaimed it

        generations.clear()
        for _ in range(int(BUSY_S / YOUNG_S) + 1):  # changes every second, never quiet
            collector.changed()
            now[0] += YOUNG_S
            collector.tick()
        assert generations.count(2) == 1  # still one full pass a minute

        generations.clear()
        with collector.reading():  # a whole workspace being read: no pass at all until it is done
            collector.tick()
        assert generations == []
    finally:
        gc.callbacks.remove(seen)
        collector.stop()
    assert gc.isenabled() == was_enabled
    assert gc.get_freeze_count() == 0
