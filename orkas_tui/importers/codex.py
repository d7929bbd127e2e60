"""Codex rollout files (``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl``).

Each line is ``{timestamp, type, payload}``: ``session_meta``, ``turn_context``,
``response_item`` (messages, ``function_call`` / ``custom_tool_call`` /
``local_shell_call`` and their outputs, reasoning) and ``event_msg`` (``user_message``
is what the user typed; ``task_complete``, ``turn_aborted``, ``error`` and
``stream_error`` with ``codex_error_info``). Response items also repeat injected
context (``<environment_context>``, AGENTS.md) as user messages, so turns start at
``user_message`` events only.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

import orjson

from orkas_tui.importers import tools
from orkas_tui.importers.writer import ConversationWriter

NAME = "codex"
LABEL = "Codex"
INJECTED = ("<environment_context>", "<user_instructions>", "# AGENTS.md instructions", "<user_shell_command>", "<turn_aborted>")
CALLS = ("function_call", "custom_tool_call", "local_shell_call", "web_search_call", "tool_search_call")
OUTPUTS = ("function_call_output", "custom_tool_call_output", "local_shell_call_output", "tool_search_output")
QUIET_ITEMS = frozenset({"reasoning", "ghost_snapshot", "compaction", "compaction_summary"})
QUIET_EVENTS = frozenset(
    {
        "task_started",
        "turn_started",
        "token_count",
        "agent_message",
        "agent_reasoning",
        "agent_reasoning_raw_content",
        "agent_reasoning_section_break",
        "exec_command_begin",
        "exec_command_end",
        "exec_command_output_delta",
        "patch_apply_begin",
        "patch_apply_end",
        "turn_diff",
        "mcp_tool_call_begin",
        "mcp_tool_call_end",
        "web_search_begin",
        "web_search_end",
        "view_image_tool_call",
        "plan_update",
        "context_compacted",
        "entered_review_mode",
        "exited_review_mode",
        "warning",
        "background_event",
        "item_started",
        "item_completed",
        "undo_started",
        "undo_completed",
        "deprecation_notice",
        "session_configured",
        "mcp_startup_complete",
    }
)
RECORDS_IGNORED = frozenset({"session_meta", "turn_context", "compacted"})
# an output that says the call failed, whatever its exit code: Codex's own words (codex-rs, 0.40 to 0.72)
FAILED = ("Script failed", "execution error:", "apply_patch verification failed")
# the sandbox refused the command: ``failed in sandbox MacosSeatbelt with execution error: Denied { ... exit_code: 1 ...``,
# or a sandboxed command's own "Operation not permitted" (seatbelt and landlock refuse with EPERM)
SANDBOX_FAILED = "failed in sandbox"
SANDBOX_DENIED = "Operation not permitted"
EXIT_IN_TEXT = re.compile(r"\bexit[_ ]code:?\s*(-?\d+)", re.IGNORECASE)
UNSANDBOXED = frozenset({"danger-full-access", "DangerFullAccess"})


def default_sources(home: Path) -> list[Path]:
    base = Path(os.environ["CODEX_HOME"]) if os.environ.get("CODEX_HOME") else home / ".codex"
    return [base / "sessions"]


def looks_like(record: dict) -> bool:
    """A Codex rollout record: ``{timestamp, type, payload}`` with a rollout record type."""
    return record.get("type") in ("session_meta", "turn_context", "response_item", "event_msg", "compacted") and isinstance(
        record.get("payload"), dict
    )


def reads_as_no_work(label: str) -> bool:
    """A kind imports counted as not read (``run._label``: ``<type>/<payload type>``) that this version
    knows and reads as no work: an older version's count of it stands for nothing missed."""
    kind, _, inner = label.partition("/")
    if kind == "response_item":
        return inner in QUIET_ITEMS
    if kind == "event_msg":
        return inner in QUIET_EVENTS
    return kind in RECORDS_IGNORED


def conversation_id(path: Path) -> str:
    stem = path.stem
    return "codex-" + (stem.split("rollout-", 1)[1] if "rollout-" in stem else stem)


class Parser:
    def __init__(self, writer: ConversationWriter, path: Path) -> None:
        self.w = writer
        writer.state.setdefault("complete", False)

    @property
    def complete(self) -> bool:
        """``task_complete`` (or an abort) already ended the last turn."""
        return bool(self.w.state["complete"])

    def feed(self, record: dict) -> bool:
        kind = record.get("type")
        payload = record.get("payload")
        ts = self.w.stamp(record.get("timestamp"))
        if kind in RECORDS_IGNORED:
            if kind == "turn_context" and isinstance(payload, dict):
                self.w.state["sandboxed"] = _sandboxed(payload.get("sandbox_policy"))
            cwd = payload.get("cwd") if isinstance(payload, dict) else None
            if isinstance(cwd, str) and cwd and not self.w.open:
                self.w.state["cwd"] = cwd
            self.w.skip(kind)
            return True
        if not isinstance(payload, dict):
            return False
        item = payload.get("type")
        if kind == "event_msg":
            return self._event(item, payload, ts)
        if kind != "response_item":
            return False
        if item in QUIET_ITEMS:
            self.w.skip(f"response_item/{item}")
            return True
        if item == "message":
            if payload.get("role") == "assistant":
                if self.w.open:
                    self.w.recover()
                self.w.assistant(ts, _text(payload.get("content")))
            else:
                self.w.skip(f"{payload.get('role')} message item (the prompt comes from user_message events)")
            return True
        if item in CALLS:
            self._call(item, payload, ts)
            return True
        if item in OUTPUTS:
            self._output(payload, ts)
            return True
        return False

    def _event(self, item: object, payload: dict, ts: str | None) -> bool:
        if item == "user_message":
            text = payload.get("message")
            if isinstance(text, str) and text.strip() and not text.lstrip().startswith(INJECTED):
                self.w.state["complete"] = False
                self.w.start_turn(ts, text.strip())
            else:
                self.w.skip("event_msg/user_message (injected context)")
            return True
        if item == "turn_aborted":
            self.w.abort(ts)
            self.w.state["complete"] = True
            return True
        if item in ("task_complete", "turn_complete"):
            error = payload.get("error")
            if isinstance(error, dict):
                self._fail(error, "error")
            self.w.end_turn(ts)
            self.w.state["complete"] = True
            return True
        if item in ("error", "stream_error"):
            self._fail(payload, item)
            return True
        if item == "exec_command_end":  # a failed exit, for an output that does not say it (kept until that output)
            code = payload.get("exit_code")
            if isinstance(code, int) and not isinstance(code, bool) and code and isinstance(call := payload.get("call_id"), str):
                self.w.state.setdefault("exits", {})[call] = code
            self.w.skip("event_msg/exec_command_end")
            return True
        if item in QUIET_EVENTS:
            self.w.skip(f"event_msg/{item}")
            return True
        return False

    def _fail(self, error: dict, item: str) -> None:
        """``stream_error`` is a retry in progress; ``error`` and a failed ``task_complete`` end the turn."""
        kind, status = codex_error_kind(error.get("codex_error_info"))
        message = text if isinstance(text := error.get("message"), str) else item
        self.w.fail(message, status, kind, retried=item == "stream_error")

    def _call(self, item: str, payload: dict, ts: str | None) -> None:
        call_id = str(payload.get("call_id") or payload.get("id") or self.w.anon_id())
        if item == "local_shell_call":
            action = given if isinstance(given := payload.get("action"), dict) else {}
            name, args = "local_shell", {"command": action.get("command")}
        elif item == "web_search_call":
            name, args = "web_search", given if isinstance(given := payload.get("action"), dict) else {}
        elif item == "tool_search_call":  # Codex 0.140+: the agent looks up deferred tools by a query
            name, args = "tool_search", _arguments(payload.get("arguments"))
        elif item == "custom_tool_call":
            name, args = str(payload.get("name") or "?"), {"input": payload.get("input")}
        else:
            name, args = str(payload.get("name") or "?"), _arguments(payload.get("arguments"))
        if self.w.open:
            self.w.recover()
        self.w.tool_call(ts, call_id, name, args, tools.skill_reads(name, args), args.get("command") or args.get("cmd"))

    def _output(self, payload: dict, ts: str | None) -> None:
        call_id = str(payload.get("call_id") or "?")
        if payload.get("type") == "tool_search_output":
            self._found(call_id, payload, ts)
            return
        text, code = _output(payload.get("output"))
        ended = self.w.state.get("exits", {}).pop(call_id, None)
        code = ended if code is None else code
        _name, command = self.w.call_info(call_id)
        lowered = text.lower()
        if "rejected by user" in lowered or "declined by user" in lowered:
            self.w.tool_error(ts, call_id, "rejected by the user", rejected=True)
        elif "aborted by user" in lowered:
            self.w.tool_interrupted(ts, call_id)
        elif text.startswith(SANDBOX_FAILED) or (code and self.w.state.get("sandboxed") and SANDBOX_DENIED in text):
            found = EXIT_IN_TEXT.search(text) if code is None else None
            self.w.tool_error(ts, call_id, text.strip(), int(found.group(1)) if found else code, kind="sandbox_error")
        elif text.startswith(FAILED):
            self.w.tool_error(ts, call_id, text.strip(), code or None)
        elif code in (None, 0) or tools.no_match(command, code, text):
            self.w.tool_ok(ts, call_id, text)
        else:
            self.w.tool_error(
                ts, call_id, f"exit code {code}: {text.strip()}" if text.strip() else f"exit code {code}", exit_code=code
            )

    def _found(self, call_id: str, payload: dict, ts: str | None) -> None:
        """A tool search's result: the names of the tools it found, never their descriptions (text
        the tools' authors wrote, which no lesson may come from); any status but ``completed`` failed."""
        status = payload.get("status")
        if status not in (None, "completed"):
            self.w.tool_error(ts, call_id, f"tool search {status}")
            return
        names = list(_tool_names(payload.get("tools")))
        self.w.tool_ok(ts, call_id, f"found {', '.join(names)}" if names else "found no tool")


def _tool_names(tools: object, namespace: str = "") -> Iterator[str]:
    """``namespace.name`` of each tool a search returned (a namespace holds its own ``tools``)."""
    for tool in tools if isinstance(tools, list) else []:
        name = tool.get("name") if isinstance(tool, dict) else None
        if not isinstance(name, str):
            continue
        if isinstance(tool.get("tools"), list):
            yield from _tool_names(tool["tools"], f"{namespace}{name}.")
        else:
            yield namespace + name


def _sandboxed(policy: object) -> bool:
    """A ``turn_context``'s ``sandbox_policy`` (``{"type": "workspace-write"}``, or older ``{"mode": ...}``) confines commands."""
    if isinstance(policy, dict):
        policy = policy.get("type", policy.get("mode"))
    return isinstance(policy, str) and policy not in UNSANDBOXED


def _arguments(raw: object) -> dict:
    """Function arguments are a JSON string; anything else is kept as ``raw``."""
    if isinstance(raw, dict):
        return raw
    if isinstance(raw, str):
        try:
            value = orjson.loads(raw)
        except orjson.JSONDecodeError:
            return {"raw": raw}
        return value if isinstance(value, dict) else {"raw": raw}
    return {}


def _output(raw: object) -> tuple[str, int | None]:
    """Output text and exit code: ``{"output", "metadata": {"exit_code"}}`` JSON, or plain text."""
    if isinstance(raw, dict):
        content = raw.get("content")
        return _output(content) if content is not None else ("", None)
    if isinstance(raw, list):
        return _output(_text(raw))
    text = raw if isinstance(raw, str) else ""
    try:
        value = orjson.loads(text) if text.startswith("{") else None
    except orjson.JSONDecodeError:
        value = None
    if isinstance(value, dict) and "output" in value:
        meta = given if isinstance(given := value.get("metadata"), dict) else {}
        code = meta.get("exit_code")
        return str(value.get("output") or ""), code if isinstance(code, int) else tools.exit_code(str(value["output"]))
    return text, tools.exit_code(text)


def _text(content: object) -> str:
    if not isinstance(content, list):
        return ""
    return "\n".join(b["text"] for b in content if isinstance(b, dict) and isinstance(b.get("text"), str))


def codex_error_kind(info: object) -> tuple[str | None, int | None]:
    """``codex_error_info`` is a bare kind (``"internal_server_error"``) or ``{kind: {http_status_code}}``.

    Rollouts write snake_case; the app-server protocol writes camelCase: both are read.
    """
    if isinstance(info, str):
        return _snake(info), None
    if isinstance(info, dict) and len(info) == 1:
        kind, detail = next(iter(info.items()))
        detail = detail if isinstance(detail, dict) else {}
        status = detail.get("http_status_code", detail.get("httpStatusCode"))
        return _snake(str(kind)), status if isinstance(status, int) and not isinstance(status, bool) else None
    return None, None


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()
