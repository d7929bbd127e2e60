"""The hook's fast half: what ``orkas-tui hook`` does while Claude Code or Codex waits for it.

A Stop hook's time is added to every answer, and the agents cap a hook's time (Claude Code
gives SessionEnd hooks about 1.5 s, Codex a few seconds), so the hook imports nothing. It
reads the payload, appends one line naming what to read to the workspace's spool
(``.orkas/hook-spool``), starts the import detached (``orkas-tui hook --drain``, in
:mod:`orkas_tui.importers.hook`) unless one is running, prints nothing and exits 0.
Only ``os``, ``fcntl`` and CPython's own JSON scanner are imported on this path
(``benchmarks/hook.py`` times it against a bare interpreter).

The spool's protocol, which loses no line whatever is killed when (docs/guarantees.md):

- a hook opens the spool (``O_APPEND``, never through a link out of the workspace), takes a
  shared ``flock`` on it, checks that the name still points to the file it opened (else a
  drain took it meanwhile: it opens again) and writes its line in one ``write``;
- a drain, holding ``hook-drain.lock``, renames the spool to ``hook-spool.taken``, takes an
  exclusive ``flock`` on it (a line being written is finished first), reads it, imports,
  and deletes it only after every import it names is committed;
- after appending, a hook tries ``hook-drain.lock``: got, it starts a drain that inherits
  the locked descriptor; held, the drain holding it looks at the spool again after letting go.
"""

from __future__ import annotations

import errno
import fcntl
import os
import stat
import sys
import time

from orkas_tui.core.read.home import root_path

SPOOL = "hook-spool"
TAKEN = "hook-spool.taken"
DRAIN_LOCK = "hook-drain.lock"
LINE_MAX = 2048  # a spool line, well under PIPE_BUF (4096): one write, never interleaved
STDIN_MAX = 16 << 20  # a Codex Stop payload carries the last answer whole
FORMATS = ("claude-code", "codex")
TURN_COMPLETE = "agent-turn-complete"
SESSION_START = "SessionStart"
KILL_AT = "ORKAS_TUI_KILL_AT"


def main(argv: list[str]) -> int:
    """``orkas-tui hook FORMAT [--agent ID] [--workspace PATH] [PAYLOAD]``, or ``hook --drain``: always 0."""
    try:
        if argv[:1] == ["--drain"]:
            from orkas_tui.importers.hook import drain_command

            drain_command(argv[1:])
        else:
            record(argv)
    except Exception as exc:  # a hook never fails its caller; the line, if written, is read by the next drain
        print(f"orkas-tui hook: {type(exc).__name__}: {exc}", file=sys.stderr)
    return 0


def kill_point(step: str) -> None:
    """Where the kill test stops this very process (``ORKAS_TUI_KILL_AT=step``): a real SIGKILL, no cleanup."""
    if os.environ.get(KILL_AT) == step:
        import signal

        os.kill(os.getpid(), signal.SIGKILL)


def record(argv: list[str]) -> None:
    """The hook: one spool line for the payload (or for what is wrong with it), then a drain started."""
    fmt, agent, workspace, payload, problem = _options(argv)
    root = os.path.abspath(root_path(workspace))
    fields: dict[str, str | float] | None
    if problem is not None:
        fields = {"problem": problem}
    elif fmt == "codex" and payload is not None:
        fields = notify_fields(payload)
    else:
        fields = hook_fields(fmt, _stdin())
    if fields is None:
        return
    known = fmt in FORMATS  # a bad format names no agent: its line goes to the workspace's log
    line = spool_line({"ts": time.time(), "fmt": fmt if known else "", "agent": (agent or fmt) if known else "", **fields})
    kill_point("hook-read")
    append_line(root, line)
    kill_point("hook-appended")
    start_drain(root)
    kill_point("hook-spawned")


def _options(argv: list[str]) -> tuple[str, str | None, str | None, str | None, str | None]:
    """(format, --agent, --workspace, the last other argument: Codex's notify JSON, what is wrong)."""
    fmt = argv[0] if argv else ""
    agent = workspace = payload = problem = None
    if fmt not in FORMATS:
        problem = f"bad hook options: the format is claude-code or codex, not {fmt[:40]!r}"
    rest = iter(argv[1:])
    for token in rest:
        name, equals, value = token.partition("=")
        if name in ("--agent", "--workspace"):
            given = value if equals else next(rest, None)
            if given is None:
                problem = f"bad hook options: {name} needs a value"
            elif name == "--agent":
                agent = given
            else:
                workspace = given
        elif token.startswith("-"):
            problem = f"bad hook options: unknown option {token[:40]!r}"
        else:
            payload = token
    return fmt, agent, workspace, payload, problem


def _stdin() -> bytes:
    """The hook's JSON; nothing when stdin is a terminal (run by hand) or closed, so it never waits."""
    try:
        if os.isatty(0):
            return b""
        chunks, size = [], 0
        while size < STDIN_MAX and (chunk := os.read(0, min(1 << 20, STDIN_MAX - size))):
            chunks.append(chunk)
            size += len(chunk)
        return b"".join(chunks)
    except OSError:
        return b""


def hook_fields(fmt: str, data: bytes) -> dict[str, str | float]:
    """What a Claude Code or Codex lifecycle hook's JSON names: its event, transcript and session."""
    agent = "Claude Code" if fmt == "claude-code" else "Codex"
    text = data.decode("utf-8", "replace")
    if not text.strip():
        return {"problem": f"empty input: {agent} gives the hook's JSON on stdin"}
    try:
        value = loads(text)
    except ValueError:
        return {"problem": f"input is not JSON: {data[:80]!r}"}
    if not isinstance(value, dict):
        return {"problem": f"input is not a JSON object: {data[:80]!r}"}
    fields = {key: value[name] for key, name in _NAMED.items() if isinstance(value.get(name), str)}
    if "path" not in fields and (fmt == "claude-code" or "session" not in fields) and fields.get("event") != SESSION_START:
        return {"problem": "input has no transcript_path"}
    return fields


_NAMED = {"event": "hook_event_name", "path": "transcript_path", "session": "session_id"}


def notify_fields(payload: str) -> dict[str, str | float] | None:
    """Codex's legacy ``notify`` argument: ``agent-turn-complete`` names a thread; other notifications, nothing."""
    try:
        value = loads(payload)
    except ValueError:
        value = None
    if not isinstance(value, dict):
        return {"problem": f"notify argument is not a JSON object: {payload[:80]!r}"}
    kind = value.get("type")
    if isinstance(kind, str) and kind != TURN_COMPLETE:
        return None  # other notifications: nothing to import, and nothing to say each time
    thread = value.get("thread-id")
    return {"event": TURN_COMPLETE, "session": thread} if isinstance(thread, str) else {"event": TURN_COMPLETE}


class _Context:
    """What CPython's C JSON scanner reads from ``json.JSONDecoder``: the defaults."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = float


def loads(text: str) -> object:
    """One JSON value, read by CPython's C scanner without importing ``json`` (and ``re``); ``ValueError`` if not."""
    try:
        from _json import make_scanner
    except ImportError:  # an interpreter without CPython's accelerator
        import json

        return json.loads(text)
    start = len(text) - len(text.lstrip(" \t\r\n"))
    try:
        value, end = make_scanner(_Context)(text, start)  # type: ignore[arg-type]  # any object with its fields
    except Exception:  # not JSON (the C scanner's errors need ``json.decoder``): the full decoder says why
        import json

        return json.loads(text)
    if text[end:].strip(" \t\r\n"):
        raise ValueError("extra data after the JSON value")
    return value


def spool_line(fields: dict[str, str | float]) -> bytes:
    """One JSON line; one longer than :data:`LINE_MAX` (a path of kilobytes) becomes a line saying so."""
    try:
        from _json import encode_basestring_ascii as quote
    except ImportError:  # as in :func:`loads`
        from json import dumps as quote
    body = ",".join(f"{quote(key)}:{quote(value) if isinstance(value, str) else repr(value)}" for key, value in fields.items())
    line = ("{" + body + "}\n").encode()
    if len(line) <= LINE_MAX:
        return line
    kept: dict[str, str | float] = {key: str(fields[key])[:100] for key in ("fmt", "agent") if key in fields}
    return spool_line({**kept, "problem": f"hook input of {len(line)} bytes names a path too long to read"})


def confined(root: str, path: str) -> str:
    """``path``'s real location, refused unless it is inside ``root``'s (core/disk/confine.py's rule, without its imports)."""
    base = os.path.realpath(root)
    real = os.path.realpath(path)
    if real != base and not real.startswith(base.rstrip("/") + "/"):
        raise OSError(errno.EXDEV, "links outside the workspace; not written", path)
    return real


def _open(real: str, flags: int) -> int:
    """``real`` opened without following a last link (or waiting on a FIFO); anything but a regular file refused."""
    fd = os.open(real, flags | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, 0o600)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise OSError(errno.EINVAL, "not a regular file", real)
    return fd


def append_line(root: str, line: bytes) -> None:
    """``line`` appended to ``root``'s spool in one write, into the file the spool's name points to (see above)."""
    private = os.path.join(root, ".orkas")
    os.makedirs(private, exist_ok=True)
    path = confined(root, os.path.join(private, SPOOL))
    while True:
        fd = _open(path, os.O_WRONLY | os.O_APPEND)
        try:
            fcntl.flock(fd, fcntl.LOCK_SH)
            opened = os.fstat(fd)
            try:
                named = os.lstat(path)
            except FileNotFoundError:
                continue
            if (named.st_dev, named.st_ino) != (opened.st_dev, opened.st_ino):
                continue  # a drain took this file: the line goes to the new spool
            if os.write(fd, line) != len(line):
                raise OSError(errno.ENOSPC, "short write", path)
            return
        finally:
            os.close(fd)


def start_drain(root: str) -> None:
    """Start ``orkas-tui hook --drain`` detached, holding ``hook-drain.lock``, unless a drain holds it already."""
    fd = _open(confined(root, os.path.join(root, ".orkas", DRAIN_LOCK)), os.O_RDWR)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return  # that drain looks at the spool again once it lets go of the lock
        kill_point("hook-locked")
        os.set_inheritable(fd, True)  # the drain holds the lock from here until it exits
        spawn_detached([sys.executable, "-P", "-m", "orkas_tui", "hook", "--drain", "--lock-fd", str(fd), "--workspace", root])
    finally:
        os.close(fd)


def spawn_detached(argv: list[str]) -> None:
    """``argv`` in a new session with stdio on /dev/null: the agent neither waits for it nor kills it with the hook."""
    null = os.devnull
    actions = [
        (os.POSIX_SPAWN_OPEN, 0, null, os.O_RDONLY, 0),
        (os.POSIX_SPAWN_OPEN, 1, null, os.O_WRONLY, 0),
        (os.POSIX_SPAWN_DUP2, 1, 2),
    ]
    os.posix_spawn(argv[0], argv, os.environ, file_actions=actions, setsid=True)
