"""Reading meaning out of tool calls: exit codes, skill reads, user rejections."""

from __future__ import annotations

import re
import shlex
from pathlib import PurePath

from orkas_tui.core.store.skills import slugify

EXIT_CODE = re.compile(r"^(?:Exit code:?|Process exited with code)\s*(-?\d+)", re.IGNORECASE | re.MULTILINE)
HEADER_CHARS = 400
SKILL_FILE = re.compile(r"([^\s'\"/\\]+)[/\\]SKILL\.md\b")
WRITE_TOOLS = frozenset({"Write", "Edit", "MultiEdit", "NotebookEdit", "apply_patch"})
# what an earlier stage of a pipeline prints when it fails (the search after it then finds nothing)
STAGE_FAILED = re.compile(
    r"\b(?:fatal|error|denied|not permitted|no such file|not found|cannot|can't|could not|unable to)\b", re.IGNORECASE
)
SEARCH_COMMANDS = frozenset({"grep", "egrep", "fgrep", "rg", "ag", "ack"})
POWERSHELL = frozenset({"powershell", "powershell.exe", "pwsh", "pwsh.exe"})
REJECTED = ("The user doesn't want to proceed with this tool use", "Permission for this tool use was denied")
NOT_FEEDBACK = ("The user wants to clarify these questions",)
FEEDBACK_MARK = "the user said:"
SIBLING = "sibling tool call errored"
INTERRUPTED = "[Request interrupted by user"


def exit_code(text: str) -> int | None:
    """The exit code in a shell tool's header (before ``Output:``), never in the command's own output."""
    header = (text or "").split("\nOutput:", 1)[0][:HEADER_CHARS]
    found = EXIT_CODE.search(header)
    return int(found.group(1)) if found else None


def no_match(command: object, code: int | None, output: str) -> bool:
    """``grep``/``rg`` exit 1 means "nothing found", not a failure (both exit 2 on an error).

    The search must be what sets the exit: the command, or the last stage of a pipeline (``git
    branch | grep -E ...``), whose output may then hold what the shell's start-up printed ("Now
    using node v22"), but no line of the search's own (``rg: ...``) and no earlier stage's failure
    ("fatal: could not read from remote"): that stage failed, whatever the search found. After
    ``&&`` an earlier command may have failed with 1 instead: there the output must be empty, as
    it must with ``pipefail``."""
    if code != 1:
        return False
    words = command if isinstance(command, list) else _split(command)
    if len(words) >= 3 and words[0] in ("bash", "sh", "zsh") and words[1] in ("-lc", "-c"):
        words = _split(words[2])
    elif words and words[0] in POWERSHELL:  # ``powershell.exe -NoProfile -Command "rg ..."`` (Codex on Windows)
        flags = [i for i, word in enumerate(words[:-1]) if isinstance(word, str) and word.lower() in ("-command", "-c")]
        words = _split(words[flags[0] + 1]) if flags else []
    last, after = _last_command(words)
    if not last or last[0] not in SEARCH_COMMANDS:
        return False
    body = _body(output or "")
    if after == "&&" or "pipefail" in words:
        return not body.strip()
    return not any(line.startswith(f"{last[0]}:") for line in body.splitlines()) and STAGE_FAILED.search(body) is None


def _last_command(words: list[str]) -> tuple[list[str], str]:
    """The last simple command of a shell line (its environment assignments dropped) and the operator before it."""
    start, before = 0, ""
    for i, word in enumerate(words):
        if word in ("|", "&&", "||", ";", "&"):
            start, before = i + 1, word
    last = words[start:]
    while last and "=" in last[0] and last[0].split("=", 1)[0].isidentifier():
        last = last[1:]
    return last, before


def _body(output: str) -> str:
    """What the command printed: after the ``Output:`` line of a header (``Exit code: 1\\nWall time: ...``,
    Codex 0.70 and later), else after a leading ``Exit code 1``."""
    head, found, rest = output.partition("\nOutput:")
    if found and EXIT_CODE.search(head[:HEADER_CHARS]):
        return rest
    return re.sub(r"^(?:Exit code:?|Process exited with code)\s*1\s*", "", output)


def _split(command: object) -> list[str]:
    """A shell line's words, its operators (``|``, ``&&``, ``;``) words of their own."""
    if not isinstance(command, str):
        return []
    lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        return list(lexer)
    except ValueError:
        return command.split()


def skill_reads(name: str, args: dict) -> list[str]:
    """Slugs of skills a tool call reads: a skill tool, or a ``SKILL.md`` read by path."""
    if name == "Skill":
        skill = args.get("skill") or args.get("command") or args.get("name")
        return [slugify(skill.rsplit(":", 1)[-1])] if isinstance(skill, str) and skill.strip() else []
    if name in WRITE_TOOLS:
        return []
    paths = [v for v in args.values() if isinstance(v, str) and v.replace("\\", "/").endswith("/SKILL.md")]
    if paths:
        return list(dict.fromkeys(slugify(PurePath(v.replace("\\", "/")).parent.name) for v in paths))
    text = " ".join(str(v) for v in args.values())
    if "SKILL.md" not in text or "*** Begin Patch" in text or "apply_patch" in text:  # the first: no search of long commands
        return []
    return list(dict.fromkeys(slugify(m) for m in SKILL_FILE.findall(text)))


def rejection_feedback(text: str) -> str | None:
    """The user's words attached to a rejected tool use, or ``None`` when there are none."""
    at = text.find(FEEDBACK_MARK)
    if at < 0:
        return None
    paragraphs = text[at + len(FEEDBACK_MARK) :].strip().split("\n\n")
    feedback = "\n\n".join(p for p in paragraphs if "to memory for future sessions" not in p).strip()
    return None if not feedback or feedback.startswith(NOT_FEEDBACK) else feedback
