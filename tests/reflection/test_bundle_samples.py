"""Done when: on the real sessions imported together with transcripts of real shapes, every triggering turn's
opening prompt and at least 90% of the real errors inside triggering turns reach the bundle, within budget."""

from __future__ import annotations

import orjson

from orkas_tui.cli import main
from orkas_tui.core.observe.signals import score_turn, weakness_tools
from orkas_tui.core.observe.transient import TransientRule, error_facts
from orkas_tui.core.read.workspace import Workspace
from orkas_tui.core.reflect.bundle import build_bundle
from orkas_tui.core.reflect.evidence import one_line
from orkas_tui.core.reflect.tokens import count_tokens
from orkas_tui.core.summary.scan import AgentScan
from tests.importers.conftest import SHARED, samples  # noqa: F401  (the fixture)
from tests.reflection.conftest import NOW
from tests.reflection.shapes import build_agent


def _import(samples, root, capsys) -> None:  # noqa: F811
    for kind, names in SHARED.items():  # the samples of shared/samples, which the figures below were counted on
        args = [
            "import",
            kind,
            *(str(samples / name) for name in names),
            "--agent",
            "cc",
            "--workspace",
            str(root),
            "--settle",
            "0",
        ]
        assert main(args) == 0
    capsys.readouterr()


def _truth(scan: AgentScan) -> tuple[list[str], list[str]]:
    """Independently of the bundle: each triggering turn's opening prompt, and each real error's message,
    read straight from the conversation files."""
    settings = scan.settings
    rule = TransientRule.from_settings(settings)
    weak = weakness_tools("")
    prompts, errors = [], []
    for state in scan.conversations.values():
        raw = state.path.read_bytes()
        for turn in state.observer.turns:
            if not score_turn(turn, settings, weak).triggers:
                continue
            events = [orjson.loads(line) for line in raw[turn.start : turn.end].splitlines() if line.strip()]
            users = [e for e in events if e.get("type") == "user"]
            if users:  # (a subagent's delegated turn has none)
                prompts.append(str(users[0]["text"]))
            for e in events:
                if e.get("type") == "tool_result" and e.get("ok") is not True:
                    message = e.get("error") if isinstance(e.get("error"), str) else e.get("output")
                    if not rule.classify(message, e.get("status"), e.get("transient"), error_facts(e.get("failure"))).transient:
                        errors.append(one_line(message or ""))
                elif (
                    e.get("type") == "turn_end"
                    and e.get("status") == "error"
                    and not rule.classify(e.get("error"), None, e.get("transient"), error_facts(e.get("failure"))).transient
                ):
                    errors.append(one_line(e.get("error") or ""))
    return prompts, errors


def test_every_opening_prompt_and_nine_in_ten_errors_of_triggering_turns_are_in_the_bundle(
    samples,  # noqa: F811
    tmp_path,
    capsys,
) -> None:
    root = tmp_path / "ws"
    (root / "agents").mkdir(parents=True)
    _import(samples, root, capsys)
    build_agent(root, "cc", NOW.replace(year=2026, month=2, day=12), conversations=5)
    workspace = Workspace(root)
    scan = AgentScan(workspace.agent("cc"), workspace.settings)
    scan.refresh()
    prompts, errors = _truth(scan)
    bundle = build_bundle(scan, None)

    # the real sessions: 4 triggering turns (one a delegated subagent, with no prompt; one the interrupted
    # "...still does not work", a correction), 15 errors; 5 built ones, 25
    assert (len(prompts), len(errors)) == (8, 40)
    assert bundle.tokens <= 12_000 and count_tokens(bundle.text) == bundle.tokens
    missing = [p[:80] for p in prompts if p[:80] not in bundle.text]
    assert missing == []
    found = [e for e in errors if e[:60] in bundle.text]
    assert len(found) >= 0.9 * len(errors), (len(found), len(errors))
    assert len(bundle.turns) == len(prompts) + 1 and all(t["kept"] for t in bundle.turns)
    assert "(none: delegated by claude-8463c716" in bundle.text
    assert bundle.items_kept > 0  # and the rest of the activity still has room
