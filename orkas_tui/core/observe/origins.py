"""Where a piece of a conversation came from: the user's own words, text they pasted, the agent, or a tool.

The spec's rule ("Where a lesson may come from"): tool output may show that something
happened; it may never supply what to do. So every line the bundle sends names its
origin, and an operation that rests on nothing the user typed is quarantined
(:mod:`orkas_tui.core.store.provenance`). A user's message is split: fenced code blocks,
quoted lines and long runs of log-like lines are what they pasted, not what they said.
"""

from __future__ import annotations

import re
from enum import StrEnum


class Origin(StrEnum):
    USER = "user"  # typed by the user
    PASTED = "pasted"  # pasted by the user: a log, a file, code, a quoted message
    AGENT = "agent"  # written by the agent
    TOOL = "tool"  # a tool's output: a command, a file read, a web page, an MCP server, a subagent
    SYSTEM = "system"  # orkas-tui's or the runtime's own system events


LETTERS = {Origin.USER: "u", Origin.PASTED: "p", Origin.AGENT: "a", Origin.TOOL: "t", Origin.SYSTEM: "s"}

# what a tool's output is, by the tool's name (Claude Code, Codex and spec runtimes' usual names)
_KINDS = (
    ("subagent", re.compile(r"^(?:task|agent|subagent|spawn_agent|delegate)$", re.IGNORECASE)),
    ("mcp", re.compile(r"^mcp__|^mcp[_:]", re.IGNORECASE)),
    ("web", re.compile(r"web|fetch|browse|http|url|search_web|curl_url", re.IGNORECASE)),
    ("file", re.compile(r"^(?:read|read_file|view|view_image|cat|open|notebookread|glob|grep|ls|list_dir|find)", re.IGNORECASE)),
    ("command", re.compile(r"bash|shell|exec|command|terminal|run|powershell|local_shell", re.IGNORECASE)),
)


def tool_kind(name: object, subagent: bool = False) -> str:
    """What a tool's output is: ``subagent``, ``mcp``, ``web``, ``file``, ``command`` or ``other``."""
    if subagent:
        return "subagent"
    if not isinstance(name, str) or not name:
        return "other"
    for kind, pattern in _KINDS:
        if pattern.search(name):
            return kind
    return "other"


_FENCE = re.compile(r"^[ \t]*(```|~~~)[^\n]*\n.*?(?:^[ \t]*\1[ \t]*$|\Z)", re.MULTILINE | re.DOTALL)
_QUOTED = re.compile(r"^[ \t]*>.*$", re.MULTILINE)
_LOGLIKE = re.compile(
    r"^\s*(?:\d{4}-\d\d-\d\d[ T]|\[?\d\d:\d\d:\d\d|(?:ERROR|WARN(?:ING)?|INFO|DEBUG|TRACE|FATAL)\b|Traceback|"
    r"at \S+\(|File \"|\$ |#\d+ |\s{4,}\S)"
)
LOG_RUN = 3  # consecutive log-like lines that read as pasted, not typed


def split_pasted(text: str) -> tuple[str, str]:
    """``(typed, pasted)``: the words the user typed, and what they pasted (fenced blocks, quoted lines,
    runs of log-like lines), each joined by newlines."""
    if "\n" not in text and not text.lstrip(" \t").startswith(">"):  # one typed line: most prompts
        return text.strip(), ""
    pasted: list[str] = []

    def take(match: re.Match) -> str:
        pasted.append(match.group(0).strip("\n"))
        return "\n"

    rest = _QUOTED.sub(take, _FENCE.sub(take, text))
    typed: list[str] = []
    run: list[str] = []
    for line in rest.split("\n"):
        if _LOGLIKE.match(line):
            run.append(line)
            continue
        (pasted if len(run) >= LOG_RUN else typed).extend(["\n".join(run)] if len(run) >= LOG_RUN else run)
        run = []
        typed.append(line)
    (pasted if len(run) >= LOG_RUN else typed).extend(["\n".join(run)] if len(run) >= LOG_RUN else run)
    return "\n".join(line for line in typed if line.strip()).strip(), "\n".join(p for p in pasted if p.strip())
