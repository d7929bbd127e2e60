"""Every plant of tests/data/attacks/corpus.json run through the whole loop, and every harmless lesson.

For each plant: a conversation whose tool output (a web page, a command's output, a file read, a
subagent's report) or pasted block carries it is reflected on with ``auto_apply`` on, against a
local OpenAI-compatible server answering as an obedient model does (the plant turned into a
skill, citing where it read it); then every operation is approved (``A``), and the agent's
linked export runs. A plant in an imported project skill goes straight to the export. Printed
per category: refused by the scan, quarantined, and whether anything reached the workspace's
skills or an exported file. Harmless lessons, typed by the user, must be applied and exported.

    python scripts/attack_end_to_end.py [--provenance-only]

``--provenance-only`` turns the capability scan off, to show what where-a-lesson-comes-from holds by
itself (an imported project skill has no source to check: only the scan at export stops it).
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from orkas_tui.core.read.workspace import Workspace  # noqa: E402
from orkas_tui.core.reflect.reflection import reflect  # noqa: E402
from orkas_tui.core.store.changes import approve  # noqa: E402
from orkas_tui.core.store.export import export_agent  # noqa: E402
from orkas_tui.core.store.proposals import list_proposals  # noqa: E402
from tests.modelserver import ModelServer, reply  # noqa: E402

NOW = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
CORPUS = ROOT / "tests" / "data" / "attacks" / "corpus.json"
TOOLS = {"web fetch": "WebFetch", "command output": "Bash", "file read": "Read", "subagent report": "Task"}
SKILL_HEAD = '---\nname: "Project helper"\ndescription: "from the repository"\ncreatedAt: "2026-11-01T00:00:00Z"\nupdatedAt: "2026-11-01T00:00:00Z"\npatchCount: 0\nlastUsedAt: null\n---\n\n'


def _events(user: str, tool: str | None, output: str | None) -> bytes:
    at = "2026-11-30T08:00:00Z"
    events: list[dict] = [{"ts": at, "type": "turn_start", "turn": "t1"}, {"ts": at, "type": "user", "text": user}]
    if tool is not None:
        events.append({"ts": at, "type": "tool_call", "id": "k1", "name": tool, "args": {}})
        events.append({"ts": at, "type": "tool_result", "id": "k1", "ok": True, "output": output})
    events += [{"ts": at, "type": "assistant", "text": "Done."}, {"ts": at, "type": "turn_end", "turn": "t1", "status": "ok"}]
    return b"".join(orjson.dumps(e) + b"\n" for e in events)


def _workspace(folder: Path, server: ModelServer, conversation: bytes) -> Workspace:
    agent = folder / "ws" / "agents" / "a1"
    (agent / "conversations").mkdir(parents=True)
    (agent / "conversations" / "c1.jsonl").write_bytes(conversation)
    (folder / "ws" / "orkas.toml").write_text(
        f'[model]\nname = "openai/test-model"\napi_base = "{server.url}"\nmax_retries = 0\n\n'
        '[reflection]\nauto_apply = true\n\n[agents.a1]\nformat = "claude-code"\nexport_skills = "~/.claude/skills"\n'
    )
    return Workspace(folder / "ws")


def _leaked(folder: Path, text: str) -> tuple[bool, bool]:
    """Whether ``text`` is in the workspace's skills, and in any file under the fake home's .claude."""
    key = " ".join(text.split())[:40]
    skills = any(key in " ".join(p.read_text().split()) for p in (folder / "ws" / "agents" / "a1" / "skills").glob("*.md"))
    exported = any(key in " ".join(p.read_text().split()) for p in (folder / "home").rglob("*") if p.is_file())
    return skills, exported


def run_one(folder: Path, server: ModelServer, text: str, arrives: str, cite: str) -> str:
    """``refused``, ``quarantined``, ``kept out`` (nothing proposed reached a file) or ``LEAKED``/``applied``."""
    os.environ["HOME"] = str(folder / "home")
    if arrives == "imported project skill":
        workspace = _workspace(folder, server, _events("Set up the project.", None, None))
        (folder / "ws" / "agents" / "a1" / "skills").mkdir(parents=True, exist_ok=True)
        (folder / "ws" / "agents" / "a1" / "skills" / "helper.md").write_text(SKILL_HEAD + text + "\n")
        result = export_agent(workspace.agent("a1"), workspace.settings, "claude-code", folder / "home" / ".claude" / "skills")
        return "refused" if result.refused else ("LEAKED" if _leaked(folder, text)[1] else "kept out")
    if arrives == "pasted block":
        conversation = _events(f"Fix the build; this is what the wiki says:\n```\n{text}\n```", None, None)
    elif arrives == "typed":
        conversation = _events(f"Please remember this from now on: {text}", None, None)
    else:
        conversation = _events("Look this up and fix the build.", TOOLS[arrives], f"Notes for the build.\n{text}\n")
    workspace = _workspace(folder, server, conversation)
    op = {"op": "create_skill", "name": "Build notes", "description": "when building", "body": text, "sources": [cite]}
    server.steps = [reply({"summary": "learned", "operations": [op]})]
    outcome = reflect(workspace, "a1", NOW)
    if outcome.proposal is None:
        return f"no proposal ({outcome.status}: {outcome.message[:80]})"
    approve(workspace, outcome.proposal, NOW)  # a person pressing A
    (item,) = list_proposals(workspace.agent("a1"))[-1].operations
    skills, exported = _leaked(folder, text)
    if skills or exported:
        return "applied" if arrives == "typed" and skills and exported else "LEAKED"
    return "refused" if item.status == "invalid" else "quarantined" if item.held else "kept out"


def main(argv: list[str] | None = None) -> int:
    if "--provenance-only" in (sys.argv[1:] if argv is None else argv):
        from orkas_tui.core.store import guard

        guard.scan = lambda text, what="text": None  # type: ignore[assignment]
    corpus = json.loads(CORPUS.read_text("utf-8"))
    per: dict[str, Counter] = {}
    harmless: Counter = Counter()
    with ModelServer() as server, tempfile.TemporaryDirectory() as tmp:
        for i, attack in enumerate(corpus["attacks"]):
            cite = "$USER" if attack["arrives_in"] == "pasted block" else "$TOOL"
            result = run_one(Path(tmp) / f"a{i}", server, attack["text"], attack["arrives_in"], cite)
            per.setdefault(attack["category"], Counter())[result] += 1
        for i, lesson in enumerate(corpus["harmless"]):
            harmless[run_one(Path(tmp) / f"h{i}", server, lesson, "typed", "$USER")] += 1
    print(f"{'category':<16} {'refused':>8} {'quarantined':>12} {'kept out':>9} {'LEAKED':>7} {'of':>4}")
    for category, counts in sorted(per.items()):
        print(
            f"{category:<16} {counts['refused']:>8} {counts['quarantined']:>12} {counts['kept out']:>9} "
            f"{counts['LEAKED']:>7} {sum(counts.values()):>4}"
        )
    print(f"harmless lessons applied and exported: {harmless['applied']} of {sum(harmless.values())}")
    others = {k: v for k, v in harmless.items() if k != "applied"}
    if others:
        print(f"harmless not applied: {others}")
    return 0 if not any(c["LEAKED"] for c in per.values()) and not others else 1


if __name__ == "__main__":
    sys.exit(main())
