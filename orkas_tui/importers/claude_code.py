"""Claude Code session files (``~/.claude/projects/<project>/<session>.jsonl``).

Each line is a record: ``user`` (typed text, tool results, injected context),
``assistant`` (text, thinking, ``tool_use``; ``isApiErrorMessage`` when the API
failed), ``system`` (``api_error`` with retry metadata, local commands, compaction
boundaries) and bookkeeping records. A turn starts only at text the user typed;
a slash command starts one only when the model then answers it (a custom command),
not when it ran locally (``<local-command-stdout>`` follows).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from orkas_tui.importers import tools
from orkas_tui.importers.writer import ConversationWriter

NAME = "claude-code"
INJECTED = (
    "<local-command-", "<bash-input>", "<bash-stdout>", "<bash-stderr>", "<system-reminder>",
    "<user-prompt-submit-hook>", "<ide_opened_file>", "<ide_selection>", "<ide_diagnostics>", "<task-notification>",
    "<user-memory-input>", "Caveat: The messages below", "This session is being continued from a previous conversation",
)
COMMAND = re.compile(r"<command-name>\s*(/?[^<\s]+)\s*</command-name>(?:.*?<command-args>(.*?)</command-args>)?", re.DOTALL)
BOOKKEEPING = frozenset({"summary", "file-history-snapshot", "progress", "queue-operation", "custom-title", "tag", "agent-name",
                         "pr-link", "last-prompt", "attachment"})
KNOWN_BLOCKS = frozenset({"text", "thinking", "redacted_thinking", "tool_use", "tool_result", "image", "document"})
SYSTEM_IGNORED = frozenset({"init", "local_command", "compact_boundary", "microcompact_boundary", "turn_duration", "informational",
                            "stop_hook_summary", "away_summary", "bridge_status", "agents_killed", "model_refusal_fallback"})


def default_sources(home: Path) -> list[Path]:
    base = Path(os.environ["CLAUDE_CONFIG_DIR"]) if os.environ.get("CLAUDE_CONFIG_DIR") else home / ".claude"
    return [base / "projects"]


def conversation_id(path: Path) -> str:
    """``claude-<session>``; a subagent file is ``claude-<session>-<agent>``."""
    if path.parent.name == "subagents":
        return f"claude-{path.parent.parent.name}-{path.stem}"
    return f"claude-{path.stem}"


def is_subagent(path: Path) -> bool:
    """Subagent transcripts: ``<session>/subagents/agent-*.jsonl``, or ``agent-*.jsonl`` beside sessions (older versions)."""
    return path.parent.name == "subagents" or path.stem.startswith("agent-")


class Parser:
    def __init__(self, writer: ConversationWriter, path: Path) -> None:
        self.w = writer
        self.subagent = is_subagent(path)
        writer.state.setdefault("command", None)

    @property
    def complete(self) -> bool:
        """Claude Code writes no end-of-turn marker; the turn settles when the file goes quiet."""
        return False

    def feed(self, record: dict) -> bool:
        kind = record.get("type")
        ts = self.w.stamp(record.get("timestamp"))
        if kind in BOOKKEEPING:
            return True
        if kind not in ("user", "assistant", "system"):
            return False
        if record.get("isSidechain") and not self.subagent:
            self.w.stats.sidechain += 1
            return True
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
        return subtype in SYSTEM_IGNORED

    def _user(self, record: dict, blocks: list, ts: str | None) -> None:
        if record.get("isMeta") or record.get("isCompactSummary") or record.get("isVisibleInTranscriptOnly"):
            return
        texts = []
        for block in blocks:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "tool_result":
                self._tool_result(block, ts)
            elif block.get("type") == "text" and isinstance(block.get("text"), str):
                texts.append(block["text"])
        text = "\n".join(t for t in texts if not t.lstrip().startswith(INJECTED)).strip()
        if not text:
            if any(t.lstrip().startswith("<local-command-") for t in texts):
                self.w.state["command"] = None
            return
        if text.startswith(tools.INTERRUPTED):
            self.w.abort(ts)
            return
        command = COMMAND.search(text)
        if command:
            args = (command.group(2) or "").strip()
            self.w.state["command"] = {"text": f"{command.group(1)} {args}".strip(), "ts": ts}
            return
        self.w.state["command"] = None
        if self.subagent:
            if not self.w.open:
                self.w.start_turn(ts, None, delegated=True)
            return
        self.w.start_turn(ts, text)

    def _assistant(self, record: dict, blocks: list, ts: str | None) -> None:
        command = self.w.state["command"]
        if command:
            self.w.start_turn(command["ts"], command["text"])
            self.w.state["command"] = None
        text = "\n".join(b["text"] for b in blocks if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str))
        if record.get("isApiErrorMessage") or text.startswith("API Error"):
            if text.startswith(tools.INTERRUPTED) or "Request was aborted" in text:
                return
            status = record.get("apiErrorStatus")
            code = record.get("error")
            self.w.fail(text or str(code or "API error"), status if isinstance(status, int) else None, code if isinstance(code, str) else None)
            return
        if not self.w.in_turn():
            return
        self.w.recover()
        self.w.assistant(ts, text)
        for block in blocks:
            if isinstance(block, dict) and block.get("type") == "tool_use":
                name = block.get("name") if isinstance(block.get("name"), str) else "?"
                args = block.get("input") if isinstance(block.get("input"), dict) else {}
                call_id = str(block.get("id") or self.w.anon_id())
                self.w.tool_call(ts, call_id, name, args, tools.skill_reads(name, args), args.get("command"))

    def _tool_result(self, block: dict, ts: str | None) -> None:
        call_id = str(block.get("tool_use_id") or "?")
        text = _content_text(block.get("content"))
        if block.get("is_error") is not True:
            self.w.tool_ok(ts, call_id, text)
            return
        name, command = self.w.call_info(call_id)
        if text.startswith(tools.REJECTED):
            self.w.tool_error(ts, call_id, "rejected by the user", True, "the user rejected the call; not a tool failure", rejected=True)
            feedback = tools.rejection_feedback(text)
            if feedback:
                self.w.user_feedback(ts, feedback, call_id)
        elif tools.INTERRUPTED in text:
            self.w.tool_error(ts, call_id, "interrupted by the user", True, "the user interrupted the call; not a tool failure", interrupted=True)
        elif tools.SIBLING in text.lower():
            self.w.tool_error(ts, call_id, "cancelled: a sibling tool call errored", True, "collateral of another call's error", collateral=True)
        elif tools.no_match(command, tools.exit_code(text), text):
            self.w.tool_ok(ts, call_id, text)
        else:
            self.w.tool_error(ts, call_id, _strip_tags(text) or f"{name or 'tool'} failed", exit_code=tools.exit_code(text))


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
