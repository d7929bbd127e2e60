"""Claude Code session files (``~/.claude/projects/<project>/<session>.jsonl``).

Each line is a record: ``user`` (typed text, tool results, injected context),
``assistant`` (text, thinking, ``tool_use``; ``isApiErrorMessage`` when the API
failed), ``system`` (``api_error`` with retry metadata, local commands, compaction
boundaries) and bookkeeping records. A turn starts at text the user typed, at a
slash command the model then answers, and at a background task notification the
model then answers; agent work with no turn open opens a ``resumed`` turn, so no
tool call or result is ever dropped. docs/importers.md states every rule with the
record shape it handles.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import orjson

from orkas_tui.core.disk.confine import open_regular
from orkas_tui.importers import tools
from orkas_tui.importers.writer import ConversationWriter

NAME = "claude-code"
LABEL = "Claude Code"
NOTIFICATION = "<task-notification>"
INJECTED = (
    "<local-command-",
    "<bash-input>",
    "<bash-stdout>",
    "<bash-stderr>",
    "<system-reminder>",
    "<user-prompt-submit-hook>",
    "<ide_opened_file>",
    "<ide_selection>",
    "<ide_diagnostics>",
    NOTIFICATION,
    "<user-memory-input>",
    "Caveat: The messages below",
    "This session is being continued from a previous conversation",
)
INJECTED_TAG = re.compile(r"^\s*(<[a-z_-]+>|[^<\n]{0,40})")
COMMAND = re.compile(r"<command-name>\s*(/?[^<\s]+)\s*</command-name>(?:.*?<command-args>(.*?)</command-args>)?", re.DOTALL)
BOOKKEEPING = frozenset(
    {
        "summary",
        "file-history-snapshot",
        "progress",
        "queue-operation",
        "custom-title",
        "tag",
        "agent-name",
        "pr-link",
        "last-prompt",
        "attachment",
        "mode",  # the session's permission mode ({"type": "mode", "mode": "normal"}), Claude Code 2.1.2xx
    }
)
# "fallback": the model the turn fell back to ({"from": {"model": …}, "to": …}), no work of its own
KNOWN_BLOCKS = frozenset({"text", "thinking", "redacted_thinking", "tool_use", "tool_result", "image", "document", "fallback"})
WORK_BLOCKS = frozenset({"text", "tool_use", "tool_result"})  # the blocks a turn is read from
SYSTEM_IGNORED = frozenset(
    {
        "init",
        "local_command",
        "compact_boundary",
        "microcompact_boundary",
        "turn_duration",
        "informational",
        "stop_hook_summary",
        "away_summary",
        "bridge_status",
        "agents_killed",
        "model_refusal_fallback",
    }
)
SYNTHETIC = "<synthetic>"  # the model name of text Claude Code writes itself
SESSION_BYTES = 64 * 1024  # an older subagent file's first records name its session
SESSION_LINES = 20
# Claude Code's own helper agents: the compaction summariser and prompt suggestions do no work on the user's task
HELPER_AGENTS = ("agent-acompact", "agent-aprompt_suggestion")


def default_sources(home: Path) -> list[Path]:
    return [config_dir(home) / "projects"]


def config_dir(home: Path) -> Path:
    return Path(os.environ["CLAUDE_CONFIG_DIR"]) if os.environ.get("CLAUDE_CONFIG_DIR") else home / ".claude"


def conversation_id(path: Path) -> str:
    """``claude-<session>``; a subagent file is ``claude-<session>-<agent>``, the link its parent's results point at."""
    if is_subagent(path):
        return f"claude-{session_of(path)}-{path.stem}"
    return f"claude-{path.stem}"


def session_of(path: Path) -> str:
    """The session a file belongs to: its own name, the folder of ``<session>/subagents/``, or, for an older
    ``agent-<id>.jsonl`` beside the sessions, the ``sessionId`` its records carry (else its project folder's
    name, so two projects' ``agent-<same id>`` never merge)."""
    if path.parent.name == "subagents":
        return path.parent.parent.name
    if not path.stem.startswith("agent-"):
        return path.stem
    try:
        with open_regular(path) as handle:
            head = handle.read(SESSION_BYTES)
    except OSError:
        head = b""
    for raw in head.splitlines()[:SESSION_LINES]:
        try:
            record = orjson.loads(raw)
        except orjson.JSONDecodeError:
            continue
        session = record.get("sessionId") if isinstance(record, dict) else None
        if isinstance(session, str) and session:
            return session
    return path.parent.name


def is_subagent(path: Path) -> bool:
    """Subagent transcripts: ``<session>/subagents/agent-*.jsonl``, or ``agent-*.jsonl`` beside sessions (older versions)."""
    return path.parent.name == "subagents" or path.stem.startswith("agent-")


def reads_as_no_work(label: str) -> bool:
    """A kind imports counted as not read (``run._label``, or ``<kind> block/<type>``) that this version
    knows and reads as no work: an older version's count of it stands for nothing missed."""
    kind, _, block = label.partition(" block/")
    if block:
        return block in KNOWN_BLOCKS - WORK_BLOCKS
    kind, _, subtype = label.partition("/")
    return kind == "system" and subtype in SYSTEM_IGNORED if subtype else kind in BOOKKEEPING


def looks_like(record: dict) -> bool:
    """A Claude Code record: a known ``type`` with the fields Claude Code writes on every message record."""
    kind = record.get("type")
    if kind in ("user", "assistant", "system"):
        return "sessionId" in record or "uuid" in record or isinstance(record.get("message"), dict)
    return kind in BOOKKEEPING and "payload" not in record


class Parser:
    def __init__(self, writer: ConversationWriter, path: Path) -> None:
        self.w = writer
        self.subagent = is_subagent(path)
        self.helper = path.stem.startswith(HELPER_AGENTS)
        self.session = session_of(path)
        writer.state.setdefault("command", None)
        writer.state.setdefault("notified", None)

    @property
    def complete(self) -> bool:
        """Claude Code writes no end-of-turn marker; the turn settles when the file goes quiet."""
        return False

    def feed(self, record: dict) -> bool:
        kind = record.get("type")
        ts = self.w.stamp(record.get("timestamp"))
        if kind in BOOKKEEPING:
            self.w.skip(kind)
            return True
        if kind not in ("user", "assistant", "system"):
            return False
        if self.helper:
            self.w.skip("Claude Code helper agent (compaction summary, prompt suggestion)")
            return True
        if record.get("isSidechain") and not self.subagent:
            self.w.skip("inline subagent (sidechain) record")
            return True
        cwd = record.get("cwd")
        if isinstance(cwd, str) and cwd and not self.w.open:
            self.w.state["cwd"] = cwd
        if kind == "system":
            return self._system(record, ts)
        message = record.get("message")
        if not isinstance(message, dict):
            return False
        content = message.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content if isinstance(content, list) else []
        for block in blocks:
            block_type = block.get("type") if isinstance(block, dict) else None
            if block_type not in KNOWN_BLOCKS:
                self.w.stats.unknown[f"{kind} block/{block_type}"] += 1
        if kind == "user":
            self._user(record, blocks, ts)
        else:
            self._assistant(record, blocks, ts)
        return True

    def _system(self, record: dict, ts: str | None) -> bool:
        subtype = record.get("subtype")
        if subtype == "api_error":
            error = record.get("error")
            status = error.get("status") if isinstance(error, dict) else None
            status = status if isinstance(status, int) else None
            message = record.get("content") or _error_text(error) or (f"API error {status}" if status else "API error")
            self.w.fail(str(message), status, retried="retryAttempt" in record)
            return True
        if subtype in SYSTEM_IGNORED:
            self.w.skip(f"system/{subtype}")
            return True
        return False

    def _user(self, record: dict, blocks: list, ts: str | None) -> None:
        if record.get("isCompactSummary"):
            self.w.skip("compaction summary")  # neither ends nor starts a turn, never a prompt
            return
        if record.get("isMeta") or record.get("isVisibleInTranscriptOnly"):
            self.w.skip("injected context (isMeta)")
            return
        texts, results = [], False
        for block in blocks:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "tool_result":
                results = True
                self._tool_result(block, record.get("toolUseResult"), ts)
            elif block.get("type") == "text" and isinstance(block.get("text"), str):
                texts.append(block["text"])
        injected = [t for t in texts if t.lstrip().startswith(INJECTED)]
        text = "\n".join(t for t in texts if t not in injected).strip()
        if not text:
            if any(t.lstrip().startswith(NOTIFICATION) for t in injected):
                self._drop_notification()
                self.w.state["notified"] = ts  # the model's answer to it opens a turn; counted skipped only if none comes
                return
            if any(t.lstrip().startswith("<local-command-") for t in injected):
                self.w.state["command"] = None
            if not results:
                self.w.skip("injected " + _tag(injected[0]) if injected else "empty user record")
            return
        if text.startswith(tools.INTERRUPTED):
            self.w.abort(ts)
            return
        self._drop_notification()
        command = COMMAND.search(text)
        if command:
            args = (command.group(2) or "").strip()
            self.w.state["command"] = {"text": f"{command.group(1)} {args}".strip(), "ts": ts}
            return
        self.w.state["command"] = None
        if self.subagent:
            if not self.w.open:
                self.w.start_turn(ts, None, delegated=True, trigger="delegated", parent=f"claude-{self.session}")
            return
        self.w.start_turn(ts, text)

    def _drop_notification(self) -> None:
        """A notification the user spoke over before the model answered it: no agent work came of it."""
        if self.w.state["notified"]:
            self.w.skip("unanswered <task-notification>")
            self.w.state["notified"] = None

    def _assistant(self, record: dict, blocks: list, ts: str | None) -> None:
        command, notified = self.w.state["command"], self.w.state["notified"]
        if command:
            self.w.start_turn(command["ts"], command["text"])
        elif notified:
            self.w.start_turn(notified, None, trigger="task-notification")
        self.w.state.update(command=None, notified=None)
        text = "\n".join(
            b["text"] for b in blocks if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)
        )
        if record.get("isApiErrorMessage") or text.startswith("API Error"):
            if text.startswith(tools.INTERRUPTED) or "Request was aborted" in text:
                self.w.skip("assistant echo of an interrupt")
                return
            status = record.get("apiErrorStatus")
            code = record.get("error")
            self.w.fail(
                text or str(code or "API error"),
                status if isinstance(status, int) else None,
                code if isinstance(code, str) else None,
            )
            return
        if not self.w.open and _synthetic(record, blocks):
            self.w.skip("Claude Code's own reply after an interrupt (<synthetic>)")  # no agent work: it opens no turn
            return
        if self.w.open:
            self.w.recover()
        self.w.assistant(ts, text)
        for block in blocks:
            if isinstance(block, dict) and block.get("type") == "tool_use":
                name = given if isinstance(given := block.get("name"), str) else "?"
                args = fields if isinstance(fields := block.get("input"), dict) else {}
                call_id = str(block.get("id") or self.w.anon_id())
                self.w.tool_call(ts, call_id, name, args, tools.skill_reads(name, args), args.get("command"))

    def _tool_result(self, block: dict, meta: object, ts: str | None) -> None:
        call_id = str(block.get("tool_use_id") or "?")
        text = _content_text(block.get("content"))
        if block.get("is_error") is not True:
            agent = meta.get("agentId") if isinstance(meta, dict) else None
            link = {"subagent": f"claude-{self.session}-agent-{agent}"} if isinstance(agent, str) and agent else {}
            self.w.tool_ok(ts, call_id, text, **link)
            return
        name, command = self.w.call_info(call_id)
        if text.startswith(tools.REJECTED):
            self.w.tool_error(ts, call_id, "rejected by the user", rejected=True)
            feedback = tools.rejection_feedback(text)
            if feedback:
                self.w.user_feedback(ts, feedback, call_id)
        elif tools.INTERRUPTED in text:
            self.w.tool_interrupted(ts, call_id)
        elif tools.SIBLING in text.lower():
            self.w.tool_error(ts, call_id, "cancelled: a sibling tool call errored", collateral=True)
        elif tools.no_match(command, tools.exit_code(text), text):
            self.w.tool_ok(ts, call_id, text)
        else:
            self.w.tool_error(ts, call_id, _strip_tags(text) or f"{name or 'tool'} failed", exit_code=tools.exit_code(text))
            if name == "Skill":  # the skill was loaded and its own content failed: it was used, and failed
                self.w.read_skills(ts, call_id)


def _synthetic(record: dict, blocks: list) -> bool:
    """Text Claude Code writes itself, not the model (``model: "<synthetic>"``, no tool call): after an interrupt,
    "No response requested."."""
    message = record.get("message")
    return (
        isinstance(message, dict)
        and message.get("model") == SYNTHETIC
        and not any(isinstance(b, dict) and b.get("type") == "tool_use" for b in blocks)
    )


def _tag(text: str) -> str:
    """``<system-reminder>`` or the first words, to name a skipped kind of injected text."""
    found = INJECTED_TAG.match(text)
    return found.group(1).strip() if found else "text"


def _content_text(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(b["text"] for b in content if isinstance(b, dict) and isinstance(b.get("text"), str))
    return ""


def _strip_tags(text: str) -> str:
    return re.sub(r"</?tool_use_error>", "", text).strip()


def _error_text(error: object) -> str | None:
    if isinstance(error, dict):
        inner = error.get("error")
        if isinstance(inner, dict):
            return _error_text(inner)
        message = error.get("message")
        return message if isinstance(message, str) else None
    return error if isinstance(error, str) else None
