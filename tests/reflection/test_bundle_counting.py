"""Counting only the lines a bundle can keep gives exactly the bundle that counting every line gave."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from orkas_tui.core.read.workspace import Workspace
from orkas_tui.core.reflect import bundle as bundle_module
from orkas_tui.core.reflect.bundle import PINNED, PINNED_HEAD, _collect, _header, build_bundle, unseen_conversations
from orkas_tui.core.reflect.sources import SourceIds
from orkas_tui.core.reflect.tokens import count_tokens, cut_middle_to_tokens, truncate_to_tokens
from orkas_tui.core.store.redact import Redactor
from orkas_tui.core.summary.scan import AgentScan
from tests.reflection.conftest import NOW, add_turn, configure


def counted_eagerly(scan: AgentScan) -> tuple[str, int, int, int]:
    """The rules done the plain way: every line redacted and counted up front; (text, tokens, items kept, outputs cut)."""
    settings = scan.settings.bundle
    budget, limit, cap = settings.max_tokens, settings.tool_output_chars, settings.max_tokens // 4
    chosen = unseen_conversations(scan, {}, settings.max_conversations)
    raw, conversations, _, _, _ = _collect(scan, None, {}, chosen, SourceIds(settings.redact_patterns))
    raw = [item.described() for item in raw]
    redact = Redactor(settings.redact_patterns)
    clean = [replace(i, text=redact(i.text), output=redact(i.output) if i.output else i.output) for i in raw]

    def render(item, stage):
        if stage >= 1 and item.output is not None and len(item.output) > limit:
            item = replace(item, output=item.output[:limit] + f" … [cut {len(item.output) - limit} chars]")
        if stage >= 2 and count_tokens(item.line() + "\n") > cap:
            room = cap - count_tokens(replace(item, text="", output=None if item.output is None else "").line() + "\n")
            if item.output is None:
                item = replace(item, text=cut_middle_to_tokens(item.text, room))
            else:
                item = replace(
                    item,
                    text=cut_middle_to_tokens(item.text, room // 2),
                    output=cut_middle_to_tokens(item.output, room - room // 2),
                )
        return item.line() + "\n"

    stage, cut = 0, 0
    for candidate in (0, 1, 2):
        stage = candidate
        if candidate == 1:
            cut = sum(1 for i in raw if i.output is not None and len(i.output) > limit)
        if count_tokens(_header(None, conversations, 0)) + sum(count_tokens(render(i, stage)) for i in clean) <= budget:
            break
    lines = [render(i, stage) for i in clean]
    costs = [count_tokens(line) for line in lines]

    def fit(pinned: str) -> tuple[int, str]:
        start = 0
        while True:
            room = budget - count_tokens(_header(None, conversations, start)) - (count_tokens(pinned) if pinned else 0)
            used = sum(costs[start:])
            while start < len(lines) - 1 and used > room:
                used -= costs[start]
                start += 1
            text = _header(None, conversations, start) + pinned + "".join(lines[start:])
            if count_tokens(text) <= budget:
                return start, text
            if start < len(lines) - 1:
                start += 1
                continue
            return start, truncate_to_tokens(text, budget)

    start, text = fit("")
    pinned: list[int] = []
    if not any(item.kind == "user" for item in clean[start:]):  # the user's newest words kept above the cut
        pinned = [i for i in range(start) if clean[i].kind == "user"][-PINNED:]
        if pinned:
            start, text = fit(PINNED_HEAD + "".join(lines[i] for i in pinned))
            pinned = [i for i in pinned if i < start]
    return text, count_tokens(text), len(lines) - start + len(pinned), cut


@hsettings(max_examples=25, deadline=None)
@given(
    budget=st.integers(min_value=500, max_value=3000),
    sizes=st.lists(st.integers(0, 3000), min_size=1, max_size=10),
    outputs=st.integers(0, 2000),
)
def test_lazy_counting_equals_counting_every_line(tmp_path_factory, budget, sizes, outputs) -> None:
    """Turns that trigger nothing: the bundle is the activity alone, as the spec first described it."""
    root = tmp_path_factory.mktemp("ws")
    configure(root, extra=f"[bundle]\nmax_tokens = {budget}\ntool_output_chars = 300\n")
    for i, size in enumerate(sizes):
        add_turn(
            root,
            "a",
            NOW - timedelta(hours=len(sizes) - i),
            user="déjà vu 好的 " * (size // 10),
            calls=2,
            output="output line\n    " * (outputs // 16),
        )
    workspace = Workspace(root)
    scan = AgentScan(workspace.agent("a"), workspace.settings)
    scan.refresh()
    built = build_bundle(scan, None)
    assert (built.text, built.tokens, built.items_kept, built.outputs_cut) == counted_eagerly(scan)
    assert built.tokens <= budget


def test_only_the_kept_lines_and_the_next_are_counted(tmp_path, monkeypatch) -> None:
    configure(tmp_path, extra="[bundle]\nmax_tokens = 1500\n")
    for i in range(60):
        add_turn(tmp_path, "a", NOW - timedelta(hours=60 - i), user="please " * 40, calls=1, output="short")
    workspace = Workspace(tmp_path)
    scan = AgentScan(workspace.agent("a"), workspace.settings)
    scan.refresh()
    calls = []
    monkeypatch.setattr(bundle_module, "count_tokens", lambda text: calls.append(text) or count_tokens(text))
    built = build_bundle(scan, None)
    assert built.items_kept < built.items_total
    assert len(calls) < built.items_total / 2
