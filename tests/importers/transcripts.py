"""Builders for synthetic Claude Code and Codex lines, in the shapes the real agents write."""

from __future__ import annotations

import json
from pathlib import Path


def ts(second: int) -> str:
    return f"2026-03-01T10:{second // 60:02d}:{second % 60:02d}.000Z"


def write_lines(path: Path, lines: list[object]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines))
    return path


# Claude Code


def cc_user(second: int, content: object, **extra: object) -> dict:
    return {
        "type": "user",
        "isSidechain": False,
        "timestamp": ts(second),
        "message": {"role": "user", "content": content},
        **extra,
    }


def cc_text(second: int, text: str, **extra: object) -> dict:
    return {
        "type": "assistant",
        "isSidechain": False,
        "timestamp": ts(second),
        "message": {"role": "assistant", "content": [{"type": "text", "text": text}]},
        **extra,
    }


def cc_call(second: int, call_id: str, name: str, args: dict, **extra: object) -> dict:
    return {
        "type": "assistant",
        "isSidechain": False,
        "timestamp": ts(second),
        "message": {"role": "assistant", "content": [{"type": "tool_use", "id": call_id, "name": name, "input": args}]},
        **extra,
    }


def cc_result(second: int, call_id: str, content: object, is_error: bool | None = None, **extra: object) -> dict:
    block = {"type": "tool_result", "tool_use_id": call_id, "content": content}
    if is_error is not None:
        block["is_error"] = is_error
    return cc_user(second, [block], **extra)


REJECTED = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, "
    "the new_string was NOT written to the file). To tell you how to proceed, the user said:\n"
)


# Codex


def cx(second: int, kind: str, payload: dict) -> dict:
    return {"timestamp": ts(second), "type": kind, "payload": payload}


def cx_user(second: int, text: str) -> dict:
    return cx(second, "event_msg", {"type": "user_message", "message": text, "images": []})


def cx_call(second: int, call_id: str, name: str, args: dict) -> dict:
    return cx(second, "response_item", {"type": "function_call", "name": name, "arguments": json.dumps(args), "call_id": call_id})


def cx_output(second: int, call_id: str, output: object, kind: str = "function_call_output") -> dict:
    return cx(second, "response_item", {"type": kind, "call_id": call_id, "output": output})


def cx_exec(output: str, code: int) -> str:
    return json.dumps({"output": output, "metadata": {"exit_code": code, "duration_seconds": 0.1}})
