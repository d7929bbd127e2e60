"""Fixtures shared by the core tests."""

from __future__ import annotations

import pytest

from orkas_tui.core.observe.turns import ConversationObserver


@pytest.fixture
def fed(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int, int]]:
    """Every block the observers parse: (conversation, first byte, length)."""
    calls: list[tuple[str, int, int]] = []
    original = ConversationObserver.feed_block

    def spy(self, data: bytes, base: int):
        calls.append((self.conversation, base, len(data)))
        return original(self, data, base)

    monkeypatch.setattr(ConversationObserver, "feed_block", spy)
    return calls
