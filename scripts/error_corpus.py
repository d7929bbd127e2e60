"""Build the real error corpus: every error the transient rule judges on the real public samples.

    python scripts/error_corpus.py [--out tests/data/errors/corpus.jsonl]

Imports each transcript of ``tests/data/samples`` (Claude Code and Codex, real public
sessions) into a fresh workspace with the real importer, then scans the workspace as
``status`` does, and records every call of :meth:`TransientRule.classify` in both (the
importer counts errors, the observer scores them): the text, the status, the flag, the
importer's facts and the verdict the code of the day gives. The benchmark's own error
texts (``benchmarks/workspace.py``, synthetic) are added as runtime events, marked so.
One line per distinct input, with where it was first seen and how often.
``tests/observe/test_error_corpus.py`` holds the rule to these verdicts.
"""

from __future__ import annotations

import argparse
import gzip
import shutil
import sys
import tempfile
from pathlib import Path

import msgspec
import orjson

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.workspace import REAL, TRANSIENT  # noqa: E402
from orkas_tui.core.observe.transient import TransientRule  # noqa: E402
from orkas_tui.core.read.events import Failure  # noqa: E402
from orkas_tui.core.read.workspace import Workspace  # noqa: E402
from orkas_tui.core.summary.scan import AgentScan  # noqa: E402
from orkas_tui.importers.run import import_files  # noqa: E402

SAMPLES = ROOT / "tests" / "data" / "samples"
OUT = ROOT / "tests" / "data" / "errors" / "corpus.jsonl"
# error texts the agents wrote, as users quoted them in public issues (machine text; the issue cited)
REPORTED = (
    (
        "https://github.com/anthropics/claude-code/issues/7218",
        "claude-code",
        'API Error (529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":null})'
        " \u00b7 Retrying in 4 seconds\u2026 (attempt 4/10)",
    ),
    ("https://github.com/anthropics/claude-code/issues/7218", "claude-code", "API Error: Operation aborted"),
    (
        "https://github.com/anthropics/claude-code/issues/39745",
        "claude-code",
        'API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded.\n'
        'https://docs.claude.com/en/api/errors"},"request_id":"req_011CZTEFvft13DajMTp9pp64"}',
    ),
    (
        "https://github.com/anthropics/claude-code/issues/72390",
        "claude-code",
        "API Error: 529 Overloaded. This is a server-side issue, usually temporary \u2014 try again in a moment."
        " If it persists, check https://status.claude.com.",
    ),
    ("https://github.com/lbjlaq/Antigravity-Manager/issues/183", "claude-code", "API Error: Repeated 529 Overloaded errors"),
    (
        "https://github.com/openai/codex/issues/41895",
        "codex",
        "stream disconnected before completion: An error occurred while processing your request. You can retry your"
        " request, or contact us through our help center at help.openai.com if the error persists. Please include the"
        " request ID cfaf2c7c-7a57-4817-92fc-4e18058311df in your message.",
    ),
    (
        "https://github.com/openai/codex/issues/12207",
        "codex",
        "stream disconnected before completion: error sending request for url (https://chatgpt.com/backend-api/codex/responses)",
    ),
    ("https://github.com/openai/codex/issues/22472", "codex", "Reconnecting... 5/5"),
    (
        "https://github.com/openai/codex/issues/22472",
        "codex",
        "stream disconnected before completion: Transport error: network error: error decoding",
    ),
)


def unpack(into: Path) -> dict[str, list[Path]]:
    """The samples in their real layout, by format."""
    found: dict[str, list[Path]] = {"claude-code": [], "codex": []}
    for source in sorted(SAMPLES.rglob("*")):
        if not source.is_file() or source.name == "README.md":
            continue
        target = into / source.relative_to(SAMPLES)
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.suffix == ".gz":
            target = target.with_suffix("")
            target.write_bytes(gzip.decompress(source.read_bytes()))
        else:
            shutil.copyfile(source, target)
        found[source.relative_to(SAMPLES).parts[0]].append(target)
    return found


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    seen: dict[bytes, dict] = {}
    where = ["?"]
    original = TransientRule.classify

    def recording(self, message=None, status=None, flag=None, facts=None, written=None):  # type: ignore[no-untyped-def]
        verdict = original(self, message, status, flag, facts, written)
        entry = {
            "message": message,
            "status": status,
            "flag": flag,
            "facts": msgspec.to_builtins(facts),
            "written": written,
        }
        key = orjson.dumps(entry, option=orjson.OPT_SORT_KEYS)
        if key in seen:
            seen[key]["count"] += 1
        else:
            seen[key] = {"source": where[0], "count": 1, **entry, "transient": verdict.transient, "reason": verdict.reason}
        return verdict

    TransientRule.classify = recording  # type: ignore[method-assign]
    with tempfile.TemporaryDirectory() as tmp:
        found = unpack(Path(tmp) / "samples")
        for fmt, files in found.items():
            for path in files:
                relative = path.relative_to(Path(tmp) / "samples")
                where[0] = f"tests/data/samples/{relative} (import {fmt})"
                root = Path(tmp) / "ws" / str(relative).replace("/", "_")
                (root / "agents" / "a").mkdir(parents=True)
                workspace = Workspace(root)
                agent = workspace.agent("a")
                import_files(agent, workspace.settings, fmt, [path], settle=0)
                where[0] = f"tests/data/samples/{relative} (status)"
                AgentScan(agent, workspace.settings, persist=False).refresh()
        rule = TransientRule.from_settings(Workspace(Path(tmp) / "ws-bench").settings)
        for url, vocabulary, message in REPORTED:
            where[0] = f"{url} (quoted by a user; judged as the agent's error)"
            rule.classify(message, None, None, Failure(vocabulary=vocabulary))
            where[0] = f"{url} (quoted by a user; judged as a runtime's error)"
            rule.classify(message)
        where[0] = "benchmarks/workspace.py (synthetic runtime errors)"
        for message in (*REAL, "request timed out", "turn ended in error"):
            rule.classify(message)
        for message, status in TRANSIENT:
            rule.classify(message, status)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    lines = [orjson.dumps(entry) for entry in seen.values()]
    args.out.write_bytes(b"\n".join(lines) + b"\n")
    print(f"{len(lines)} distinct errors, {sum(e['count'] for e in seen.values())} judged -> {args.out}")


if __name__ == "__main__":
    main()
