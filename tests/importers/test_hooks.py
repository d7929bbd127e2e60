"""``orkas-tui hooks install|uninstall|status`` and ``orkas-tui hook``: a fake HOME, real sessions, real processes."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest

from orkas_tui.cli import main
from orkas_tui.core.disk.write import ConflictError
from orkas_tui.core.read.hook_log import read_log
from orkas_tui.core.read.workspace import AgentPaths
from orkas_tui.core.store.first_run import SETTINGS_TEMPLATE
from orkas_tui.core.store.journal import apply_lock
from orkas_tui.importers.hook_settings import _members, claude_install

SHORT = "claude-code/marot-spotter__short.jsonl"
HEAVY = "claude-code/marot-spotter__tool_heavy.jsonl"
BIG = "claude-code/marot-spotter__8463c716/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl"
ROLLOUT = "codex/AcidicSoil-codex-session-view__rollout-2025-11-17T15-30-28-019a93b9.jsonl"
THREAD = "019a93b9-0000-4000-8000-000000000001"

SETTINGS = {
    "$schema": "https://json.schemastore.org/claude-code-settings.json",
    "permissions": {"allow": ["Bash(npm run test:*)", "Read(~/.zshrc)"], "deny": ["Read(./.env)"]},
    "env": {"CLAUDE_CODE_ENABLE_TELEMETRY": "0", "MY_VAR": "é ü"},
    "hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "~/bin/guard.sh", "timeout": 5}]}],
        "Stop": [{"hooks": [{"type": "command", "command": "notify-send 'Claude is done'"}]}],
    },
    "model": "opus",
    "statusLine": {"type": "command", "command": "~/.claude/statusline.sh"},
}

CONFIG_TOML = """# Codex settings, by hand
model = "gpt-5-codex"  # the default model
approval_policy = "on-request"

# my projects
[projects."/home/me/code"]
trust_level = "trusted"

[mcp_servers.docs]
command = "npx"
args = ["-y", "docs-mcp"]
"""


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fake HOME with ``~/.claude/projects`` and ``~/.codex/sessions``; the workspace is ``~/.orkas``."""
    home = tmp_path / "home"
    (home / ".claude" / "projects").mkdir(parents=True)
    (home / ".codex" / "sessions").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    for name in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "ORKAS_HOME", "XDG_CONFIG_HOME"):
        monkeypatch.delenv(name, raising=False)
    return home


def env(home: Path) -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "ORKAS_HOME")} | {
        "HOME": str(home)
    }


def hook(home: Path, payload: bytes | str, *args: str, agent: str = "claude-code") -> subprocess.CompletedProcess:
    """``orkas-tui hook`` as the tools run it (Claude Code's JSON on stdin, Codex's notify JSON as the last
    argument), then the import it started detached, waited for."""
    fmt = "codex" if isinstance(payload, str) else "claude-code"
    argv = [sys.executable, "-m", "orkas_tui", "hook", fmt, "--agent", agent, *args]
    if fmt == "codex":
        done = subprocess.run([*argv, payload], capture_output=True, env=env(home), stdin=subprocess.DEVNULL, timeout=60)
    else:
        done = subprocess.run(argv, input=payload, capture_output=True, env=env(home), timeout=60)
    wait_for_drain(home / ".orkas")
    return done


def wait_for_drain(root: Path) -> None:
    """Until the detached import a hook started (``orkas-tui hook --drain``) is done: until neither is the
    workspace's ``hook-drain.lock`` held (``/proc/locks``: the hook takes it before it starts the import,
    which holds it from then on) nor an import for ``root`` runs (by its command line in ``/proc``: it lets
    go of the lock before its last look at the spool). Taking the lock here would stop that last look."""
    needle = f"\0--workspace\0{os.path.abspath(root)}\0".encode()
    deadline = time.monotonic() + 60
    while _drain_lock_held(root) or any(b"\0--drain\0" in line and needle in line for line in _command_lines()):
        assert time.monotonic() < deadline, "the detached import still runs after 60 s"
        time.sleep(0.01)


def _drain_lock_held(root: Path) -> bool:
    try:
        inode = os.stat(root / ".orkas" / "hook-drain.lock").st_ino
    except FileNotFoundError:
        return False
    with open("/proc/locks") as locks:
        held = [line.split() for line in locks if "->" not in line]  # "->": a process waiting, not holding
    return any(len(fields) > 5 and fields[5].rsplit(":", 1)[-1] == str(inode) for fields in held)


def _command_lines() -> list[bytes]:
    lines = []
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                lines.append(Path(entry.path, "cmdline").read_bytes())
    return lines


def stop_json(path: Path, event: str = "Stop") -> bytes:
    return json.dumps({"session_id": path.stem, "transcript_path": str(path), "cwd": "/tmp", "hook_event_name": event}).encode()


def place(samples: Path, home: Path, name: str, project: str = "-home-me-code") -> Path:
    """A sample session copied where Claude Code keeps it (its subagents folder too)."""
    source = samples / name
    target = home / ".claude" / "projects" / project / source.name
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, target)
    if (source.parent / source.stem).is_dir():
        shutil.copytree(source.parent / source.stem, target.parent / target.stem)
    return target


def agent_dir(home: Path, agent: str = "claude-code") -> Path:
    return home / ".orkas" / "agents" / agent


def conversations(home: Path, agent: str = "claude-code") -> dict[str, bytes]:
    folder = agent_dir(home, agent) / "conversations"
    return {p.name: p.read_bytes() for p in sorted(folder.glob("*.jsonl"))} if folder.is_dir() else {}


def log(home: Path, agent: str = "claude-code") -> list[dict]:
    return [entry for _, entry in read_log(agent_dir(home, agent) / ".orkas")]


# install / uninstall


def test_claude_settings_round_trip_byte_for_byte(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = home / ".claude" / "settings.json"
    original = (json.dumps(SETTINGS, indent=2, ensure_ascii=False) + "\n").encode()
    path.write_bytes(original)
    assert main(["hooks", "install", "claude-code", "--agent", "me"]) == 0
    installed = json.loads(path.read_bytes())
    ours = installed["hooks"]["SessionEnd"][0]["hooks"][0]["command"]
    assert ours.split()[1:] == ["hook", "claude-code", "--agent", "me"]
    assert installed["hooks"]["Stop"] == [
        *SETTINGS["hooks"]["Stop"],
        {"hooks": [{"type": "command", "command": ours, "timeout": 10}]},
    ]
    assert {k: v for k, v in installed.items() if k != "hooks"} == {k: v for k, v in SETTINGS.items() if k != "hooks"}
    assert list(installed) == list(SETTINGS)
    once = path.read_bytes()
    assert main(["hooks", "install", "claude-code", "--agent", "me"]) == 0
    assert path.read_bytes() == once  # idempotent
    assert "already installed" in capsys.readouterr().out
    assert main(["hooks", "uninstall", "claude-code"]) == 0
    assert path.read_bytes() == original
    assert not list(path.parent.glob(".orkas-write.lock"))  # the lock lives in the workspace, not in ~/.claude


@pytest.mark.parametrize(
    "original",
    [
        '{\n  "permissions": {\n    "allow": ["Bash(ls:*)"]\n  },\n  "model": "opus"\n}\n',
        '{"model":"opus","env":{"A":"1"}}',
        '{\n\t"model": "opus"  ,\n\t"hooks": {}\n}\n',
        '{"hooks": {"Stop": []}, "model": "opus"}\n',
        "{}\n",
    ],
)
def test_only_the_hooks_member_is_touched(home: Path, original: str) -> None:
    path = home / ".claude" / "settings.json"
    path.write_text(original)
    assert main(["hooks", "install", "claude-code"]) == 0
    installed = path.read_text()
    value = json.loads(installed)
    assert [len(value["hooks"][event]) for event in ("Stop", "SessionEnd")] == [1, 1]
    assert {k: v for k, v in value.items() if k != "hooks"} == {k: v for k, v in json.loads(original).items() if k != "hooks"}
    for key, at, _start, stop in _members(original):
        assert key == "hooks" or original[at:stop] in installed  # the other members, byte for byte
    assert main(["hooks", "uninstall", "claude-code"]) == 0
    assert path.read_text() == (original if '"hooks"' not in original else path.read_text())
    assert "hooks" not in json.loads(path.read_text()) or '"hooks"' in original


def test_claude_settings_keep_their_indentation_and_a_link(home: Path) -> None:
    real = home / "dotfiles" / "settings.json"  # a dotfiles repository in the home folder: followed
    real.parent.mkdir()
    original = (json.dumps({"model": "opus", "hooks": {}}, indent=4) + "\n").encode()
    real.write_bytes(original)
    (home / ".claude" / "settings.json").symlink_to(real)
    assert main(["hooks", "install", "claude-code"]) == 0
    assert (home / ".claude" / "settings.json").is_symlink()  # the file behind it was written
    assert real.read_text().startswith('{\n    "model": "opus",\n    "hooks": {\n        "SessionStart"')
    assert main(["hooks", "uninstall", "claude-code"]) == 0
    assert real.read_bytes() == json.dumps({"model": "opus"}, indent=4).encode() + b"\n"  # the hooks object it emptied goes


def test_invalid_settings_are_refused_and_left_untouched(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = home / ".claude" / "settings.json"
    path.write_bytes(b'{"model": "opus",}\n')
    assert main(["hooks", "install", "claude-code"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not valid JSON" in err
    assert path.read_bytes() == b'{"model": "opus",}\n'
    assert not (home / ".orkas").exists()


def test_a_link_that_would_break_orkas_toml_refuses_the_install(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = home / ".orkas"
    (root / "agents").mkdir(parents=True)
    toml = 'agents = { other = { format = "codex" } }\n'  # an inline table: a [agents.x] header would redeclare it
    (root / "orkas.toml").write_text(toml)
    settings = home / ".claude" / "settings.json"
    settings.write_text('{"model": "opus"}\n')
    assert main(["hooks", "install", "claude-code", "--agent", "me"]) == 2
    assert "cannot add the agent link safely" in capsys.readouterr().err
    assert (root / "orkas.toml").read_text() == toml and settings.read_text() == '{"model": "opus"}\n'


def test_uninstall_leaves_a_persons_own_empty_hooks(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = home / ".claude" / "settings.json"
    path.write_text('{"model": "opus", "hooks": {}}\n')
    assert main(["hooks", "uninstall", "claude-code"]) == 0
    assert path.read_text() == '{"model": "opus", "hooks": {}}\n' and "not installed" in capsys.readouterr().out


def test_dry_run_prints_a_diff_and_writes_nothing(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = home / ".claude" / "settings.json"
    path.write_text('{\n  "model": "opus"\n}\n')
    assert main(["hooks", "install", "claude-code", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert f"--- {path}" in out and '+  "hooks": {' in out and "+[agents.claude-code]" in out
    assert path.read_text() == '{\n  "model": "opus"\n}\n'
    assert not (home / ".orkas").exists()


def test_a_change_between_read_and_write_is_refused(home: Path) -> None:
    path = home / ".claude" / "settings.json"
    path.write_text('{"model": "opus"}\n')
    edit = claude_install(path, "orkas-tui hook claude-code --agent x")
    path.write_text('{"model": "sonnet"}\n')  # Claude Code saved it meanwhile
    with pytest.raises(ConflictError):
        edit.write(home / ".orkas")
    assert path.read_text() == '{"model": "sonnet"}\n'


def test_install_links_the_agent_in_orkas_toml_and_keeps_an_existing_link(home: Path) -> None:
    root = home / ".orkas"
    root.mkdir()
    (root / "orkas.toml").write_text("# mine\nthreshold = 0.5\n")
    assert main(["hooks", "install", "claude-code", "--agent", "me"]) == 0
    text = (root / "orkas.toml").read_text()
    assert text == '# mine\nthreshold = 0.5\n\n[agents.me]\nformat = "claude-code"\nexport_skills = "~/.claude/skills"\n'
    (root / "orkas.toml").write_text(text.replace("~/.claude/skills", "~/elsewhere"))
    assert main(["hooks", "install", "claude-code", "--agent", "me"]) == 0
    assert tomllib.loads((root / "orkas.toml").read_text())["agents"]["me"]["export_skills"] == "~/elsewhere"
    assert (root / "agents" / "me" / "conversations").is_dir()


def test_codex_config_round_trip_keeps_comments(home: Path) -> None:
    path = home / ".codex" / "config.toml"
    path.write_text(CONFIG_TOML)
    assert main(["hooks", "install", "codex", "--agent", "cx"]) == 0
    text = path.read_text()
    hooks = tomllib.loads(text)["hooks"]
    assert sorted(hooks) == ["SessionEnd", "SessionStart", "Stop"]
    assert [g["hooks"][0]["command"].split()[1:] for g in hooks["Stop"]] == [["hook", "codex", "--agent", "cx"]]
    assert text.startswith(CONFIG_TOML + "\n# >>> orkas-tui hooks") and "notify" not in text  # hooks, not notify
    assert main(["hooks", "install", "codex", "--agent", "cx"]) == 0
    assert path.read_text() == text
    assert main(["hooks", "uninstall", "codex"]) == 0
    assert path.read_text() == CONFIG_TOML
    assert '[agents.cx]\nformat = "codex"\nexport_skills = "~/.codex/skills"\n' in (home / ".orkas" / "orkas.toml").read_text()


def test_codex_notify_of_someone_else_is_left_alone(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = home / ".codex" / "config.toml"
    mine = 'notify = ["python3", "/home/me/notify.py"]\n' + CONFIG_TOML
    path.write_text(mine)
    assert main(["hooks", "install", "codex"]) == 0
    assert "kept: notify = ['python3', '/home/me/notify.py']" in capsys.readouterr().out
    text = path.read_text()
    assert text.startswith(mine) and tomllib.loads(text)["notify"] == ["python3", "/home/me/notify.py"]
    assert main(["hooks", "uninstall", "codex"]) == 0
    assert path.read_text() == mine


def test_codex_config_without_tables_and_invalid_toml(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = home / ".codex" / "config.toml"
    path.write_text('model = "o3"')  # no newline at the end
    assert main(["hooks", "install", "codex"]) == 0
    assert tomllib.loads(path.read_text())["model"] == "o3"
    assert main(["hooks", "uninstall", "codex"]) == 0
    assert path.read_text() == 'model = "o3"'
    path.write_text("model = \n")
    assert main(["hooks", "install", "codex"]) == 2
    assert "not valid TOML" in capsys.readouterr().err and path.read_text() == "model = \n"


def test_status_names_what_is_installed_and_the_last_runs(home: Path, samples: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["hooks", "install", "claude-code", "--agent", "me"]) == 0
    session = place(samples, home, SHORT)
    assert hook(home, stop_json(session), agent="me").returncode == 0
    assert hook(home, b"", agent="me").returncode == 0
    capsys.readouterr()
    assert main(["hooks", "status", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    claude = doc["claude-code"]
    assert claude["installed"] and claude["agent"] == "me" and claude["workspace"] == str(home / ".orkas")
    assert [e["session"] for e in claude["last_runs"]] == [str(session)]
    assert [e["type"] for e in claude["problems"]] == ["hook_problem"]
    assert not doc["codex"]["installed"]
    assert main(["hooks", "status"]) == 0
    out = capsys.readouterr().out
    assert "claude-code: installed in" in out and "empty input" in out and "codex: not installed" in out


def test_status_says_when_it_cuts_a_list_and_all_shows_it_whole(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Seven problems: five listed, the cut named with the way to see them all (issue 33)."""
    from orkas_tui.importers.hook_log import append_log

    assert main(["hooks", "install", "claude-code", "--agent", "me"]) == 0
    for n in range(7):
        append_log(home / ".orkas" / "agents" / "me" / ".orkas", "problem", message=f"problem {n}")
    capsys.readouterr()
    assert main(["hooks", "status"]) == 0
    out = capsys.readouterr().out
    assert "problem 6" in out and "problem 1" not in out
    assert "  5 of 7 problems listed (the newest); --all lists every one" in out
    assert main(["hooks", "status", "--all"]) == 0
    out = capsys.readouterr().out
    assert all(f"problem {n}" in out for n in range(7)) and "--all lists" not in out
    assert main(["hooks", "status", "--json"]) == 0
    claude = json.loads(capsys.readouterr().out)["claude-code"]
    assert (len(claude["problems"]), claude["problems_total"]) == (5, 7)


# the hook


def test_sessions_fed_one_at_a_time_import_what_import_does(home: Path, samples: Path) -> None:
    sessions = [place(samples, home, name) for name in (SHORT, HEAVY, BIG)]
    for session in sessions:
        done = hook(home, stop_json(session))
        assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    by_hook = conversations(home)
    assert "claude-8463c716-a2ea-4c14-9efa-87158ebd9f20-agent-a7be2f0.jsonl" in by_hook  # its subagent too
    assert [e["type"] for e in log(home)] == ["hook_imported"] * 3
    assert main(["import", "claude-code", "--agent", "by-import"]) == 0
    assert conversations(home, "by-import") == by_hook
    again = hook(home, stop_json(sessions[0], "SessionEnd"))
    assert again.returncode == 0 and conversations(home) == by_hook  # incremental: nothing twice
    assert log(home)[-1]["lines"] == 0


def test_a_session_that_grows_is_imported_incrementally(home: Path, samples: Path) -> None:
    source = (samples / HEAVY).read_bytes().splitlines(keepends=True)
    session = home / ".claude" / "projects" / "p" / "grow.jsonl"
    session.parent.mkdir()
    half = len(source) // 2
    session.write_bytes(b"".join(source[:half]))
    assert hook(home, stop_json(session)).returncode == 0
    with open(session, "ab") as out:
        out.writelines(source[half:])
    assert hook(home, stop_json(session)).returncode == 0
    shutil.copyfile(samples / HEAVY, home / "whole.jsonl")
    assert main(["import", "claude-code", str(home / "whole.jsonl"), "--agent", "whole"]) == 0
    [grown] = conversations(home).values()
    [whole] = conversations(home, "whole").values()
    assert grown == whole


def _fifo(home: Path) -> bytes:
    fifo = home / ".claude" / "projects" / "p" / "fifo.jsonl"
    os.mkfifo(fifo)
    return stop_json(fifo)


def _outside(home: Path) -> bytes:
    outside = home / "elsewhere.jsonl"
    shutil.copyfile(Path(__file__).parents[1] / "data" / "samples" / SHORT, outside)
    return stop_json(outside)


def _linked_out(home: Path) -> bytes:
    link = home / ".claude" / "projects" / "p" / "link.jsonl"
    link.symlink_to(Path(_outside(home).decode().split('"transcript_path": "')[1].split('"')[0]))
    return stop_json(link)


def _codex_transcript(home: Path) -> bytes:
    target = home / ".claude" / "projects" / "p" / "rollout.jsonl"
    import gzip

    with gzip.open(Path(__file__).parents[1] / "data" / "samples" / (ROLLOUT + ".gz")) as packed:
        target.write_bytes(packed.read())
    return stop_json(target)


BAD_INPUT = {
    "empty": (lambda home: b"", "empty input"),
    "not json": (lambda home: b"{not json", "not JSON"),
    "no transcript_path": (lambda home: b'{"session_id": "x", "hook_event_name": "Stop"}', "no transcript_path"),
    "missing file": (lambda home: stop_json(home / ".claude" / "projects" / "p" / "gone.jsonl"), "no such file"),
    "outside projects": (_outside, "outside"),
    "link to outside": (_linked_out, "outside"),
    "fifo": (_fifo, "not a regular file"),
    "codex transcript": (_codex_transcript, "looks like a Codex one"),
}


@pytest.mark.parametrize("case", sorted(BAD_INPUT))
def test_bad_input_exits_0_imports_nothing_and_logs_one_line(home: Path, case: str) -> None:
    (home / ".claude" / "projects" / "p").mkdir()
    make, said = BAD_INPUT[case]
    done = hook(home, make(home))
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    assert conversations(home) == {}
    [entry] = log(home)
    assert entry["type"] == "hook_problem" and said in entry["message"]


def test_an_invalid_agent_is_logged_in_the_workspace(home: Path) -> None:
    done = hook(home, b"{}", agent="Not An Id")
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    [(_, entry)] = read_log(home / ".orkas" / ".orkas")
    assert "not a valid agent id" in entry["message"]


def test_two_concurrent_hooks_corrupt_nothing(home: Path, samples: Path) -> None:
    sessions = [place(samples, home, name) for name in (HEAVY, BIG)]
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "orkas_tui", "hook", "claude-code"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env(home),
        )
        for _ in sessions
    ]
    for proc, session in zip(procs, sessions, strict=True):
        proc.stdin.write(stop_json(session))  # type: ignore[union-attr]
        proc.stdin.close()  # type: ignore[union-attr]
    assert [(p.wait(60), p.stdout.read()) for p in procs] == [(0, b""), (0, b"")]  # type: ignore[union-attr]
    wait_for_drain(home / ".orkas")
    for session in sessions:  # whatever was deferred is imported by the next hook
        assert hook(home, stop_json(session)).returncode == 0
    assert main(["import", "claude-code", "--agent", "by-import"]) == 0
    assert conversations(home) == conversations(home, "by-import")


def test_a_hook_while_an_approve_holds_the_agent_defers_then_the_next_imports(home: Path, samples: Path) -> None:
    session = place(samples, home, SHORT)
    paths = AgentPaths(agent_dir(home))
    paths.private.mkdir(parents=True)
    with apply_lock(paths):
        done = hook(home, stop_json(session))
    assert (done.returncode, done.stdout) == (0, b"")
    assert [e["type"] for e in log(home)] == ["hook_deferred"] and conversations(home) == {}
    assert hook(home, stop_json(session)).returncode == 0
    assert log(home)[-1]["type"] == "hook_imported" and conversations(home)


def test_codex_notify_imports_the_threads_rollout(home: Path, samples: Path) -> None:
    day = home / ".codex" / "sessions" / "2025" / "11" / "17"
    day.mkdir(parents=True)
    shutil.copyfile(samples / ROLLOUT, day / f"rollout-2025-11-17T15-30-28-{THREAD}.jsonl")
    (home / ".codex" / "sessions" / "2025" / "11" / "16").mkdir()
    payload = {"type": "agent-turn-complete", "thread-id": THREAD, "turn-id": "1", "cwd": "/tmp", "input-messages": ["hi"]}
    done = hook(home, json.dumps(payload), agent="cx")
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    assert list(conversations(home, "cx")) == [f"codex-2025-11-17T15-30-28-{THREAD}.jsonl"]
    assert [e["type"] for e in log(home, "cx")] == ["hook_imported"]
    other = hook(home, json.dumps({"type": "approval-requested", "thread-id": THREAD}), agent="cx")
    assert other.returncode == 0 and len(log(home, "cx")) == 1  # other notifications: nothing done, nothing said
    lost = hook(home, json.dumps({**payload, "thread-id": "0000"}), agent="cx")
    assert lost.returncode == 0 and "no rollout file for thread 0000" in log(home, "cx")[-1]["message"]


def test_a_due_cycle_starts_detached_once(home: Path, samples: Path) -> None:
    root = home / ".orkas"
    root.mkdir()
    (root / "orkas.toml").write_text(
        'threshold = 0.0\n[model]\nname = "openai/fake"\napi_base = "http://127.0.0.1:9"\nmax_retries = 0\n'
    )
    session = place(samples, home, BIG)
    (root / ".orkas").mkdir()
    with open(root / ".orkas" / "cycle.lock", "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)  # a cycle is running
        assert hook(home, stop_json(session)).returncode == 0
        assert log(home)[-1]["cycle"] == "already running"
    place(samples, home, HEAVY)
    assert hook(home, stop_json(home / ".claude" / "projects" / "-home-me-code" / Path(HEAVY).name)).returncode == 0
    assert log(home)[-1]["cycle"] == "started"
    with open(root / ".orkas" / "cycle.lock", "w") as wait:
        fcntl.flock(wait, fcntl.LOCK_EX)  # released when the detached cycle exits
    assert "cycle at" in (root / ".orkas" / "cycle.log").read_text()


def test_a_cycle_log_linked_out_of_the_workspace_is_never_written(home: Path, samples: Path, tmp_path: Path) -> None:
    root = home / ".orkas"
    (root / ".orkas").mkdir(parents=True)
    (root / "orkas.toml").write_text('[model]\nname = "openai/fake"\napi_base = "http://127.0.0.1:9"\nmax_retries = 0\n')
    outside = tmp_path / "outside.log"
    outside.write_text("mine\n")
    (root / ".orkas" / "cycle.log").symlink_to(outside)
    assert hook(home, stop_json(place(samples, home, SHORT))).returncode == 0
    assert outside.read_text() == "mine\n"
    assert "cycle.log: links outside the workspace" in log(home)[-1]["message"]


def test_no_model_no_cycle(home: Path, samples: Path) -> None:
    session = place(samples, home, BIG)
    assert hook(home, stop_json(session)).returncode == 0
    assert "cycle" not in log(home)[-1] and not (home / ".orkas" / ".orkas" / "cycle.log").exists()


def test_the_hook_log_is_shown_with_the_events_and_never_sent_to_the_model(
    home: Path, samples: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from orkas_tui.core.picture import AgentPicture as AgentData
    from orkas_tui.core.read.workspace import Workspace

    session = place(samples, home, HEAVY)
    assert hook(home, stop_json(session)).returncode == 0
    assert hook(home, b"{broken").returncode == 0
    view = AgentData(AgentPaths(agent_dir(home)), Workspace(home / ".orkas")).load()
    assert [e["type"] for _, e in view.hook_log] == ["hook_imported", "hook_problem"]
    assert not any(e.get("type", "").startswith("hook_") for _, e in view.events)
    capsys.readouterr()
    assert main(["reflect", "claude-code", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "conversation(s)" in out and "hook_" not in out and "{broken" not in out


def test_install_service_writes_a_user_unit_and_says_how_to_enable_it(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (home / ".orkas" / "agents").mkdir(parents=True)
    assert main(["daemon", "--install-service", "--dry-run"]) == 0
    assert "systemctl --user enable --now orkas-tui.service" in capsys.readouterr().out
    unit = home / ".config" / "systemd" / "user" / "orkas-tui.service"
    assert not unit.exists()
    assert main(["daemon", "--install-service"]) == 0
    assert f"daemon --workspace {home / '.orkas'}\n" in unit.read_text()
    assert main(["daemon", "--install-service"]) == 0 and "already written" in capsys.readouterr().out
    unit.write_text("[Service]\nExecStart=/mine\n")
    assert main(["daemon", "--install-service"]) == 2 and unit.read_text() == "[Service]\nExecStart=/mine\n"


def test_the_launchd_agent_names_the_daemon_and_its_log(home: Path) -> None:
    from orkas_tui.commands.service import service_file

    path, content, enable = service_file(home / "my ws", platform="darwin")
    assert path == home / "Library" / "LaunchAgents" / "dev.orkas-tui.daemon.plist"
    assert "<string>daemon</string>\n        <string>--workspace</string>\n        <string>" + str(home / "my ws") in content
    assert enable == f"launchctl load -w {path}"


def test_a_hook_while_another_import_holds_the_session_defers_it(home: Path, samples: Path) -> None:
    from orkas_tui.core.disk.write import file_lock

    session = place(samples, home, SHORT)
    paths = AgentPaths(agent_dir(home))
    with file_lock(paths.private / "imports" / f".claude-{session.stem}.lock"):  # an import --watch on this session
        done = hook(home, stop_json(session))
    assert (done.returncode, done.stdout) == (0, b"")
    assert log(home)[0]["type"] == "hook_deferred" and "another import holds 1 file" in log(home)[0]["message"]
    assert conversations(home) == {}
    assert hook(home, stop_json(session)).returncode == 0 and conversations(home)


def test_claude_config_dir_and_codex_home_are_followed(home: Path, samples: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config, codex_home = home / "cfg", home / "cx"
    (config / "projects").mkdir(parents=True)
    codex_home.mkdir()
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))
    monkeypatch.setenv("CODEX_HOME", str(codex_home))
    assert main(["hooks", "install", "claude-code"]) == 0 and main(["hooks", "install", "codex"]) == 0
    assert (config / "settings.json").is_file() and "[[hooks.Stop]]" in (codex_home / "config.toml").read_text()
    assert 'export_skills = "~/cfg/skills"' in (home / ".orkas" / "orkas.toml").read_text()
    session = place(samples, home, SHORT)  # under ~/.claude/projects: not Claude Code's folder now
    run = {**env(home), "CLAUDE_CONFIG_DIR": str(config)}
    args = [sys.executable, "-m", "orkas_tui", "hook", "claude-code"]
    assert subprocess.run(args, input=stop_json(session), env=run, capture_output=True, timeout=60).returncode == 0
    wait_for_drain(home / ".orkas")
    assert "outside" in log(home)[-1]["message"]
    moved = config / "projects" / "p" / session.name
    moved.parent.mkdir()
    shutil.copyfile(session, moved)
    assert subprocess.run(args, input=stop_json(moved), env=run, capture_output=True, timeout=60).returncode == 0
    wait_for_drain(home / ".orkas")
    assert log(home)[-1]["type"] == "hook_imported" and conversations(home)


def test_session_end_ends_the_last_turn_and_stop_leaves_it_running(home: Path, samples: Path) -> None:
    session = place(samples, home, BIG)
    assert hook(home, stop_json(session, "Stop")).returncode == 0
    after_stop = conversations(home)[f"claude-{session.stem}.jsonl"]
    assert hook(home, stop_json(session, "SessionEnd")).returncode == 0
    after_end = conversations(home)[f"claude-{session.stem}.jsonl"]
    assert after_end.startswith(after_stop)
    assert after_stop.count(b'"turn_end"') + 1 == after_end.count(b'"turn_end"') == after_end.count(b'"turn_start"')


def test_install_into_a_new_workspace_writes_the_commented_model_template(home: Path) -> None:
    """Issue 33: a bare orkas.toml left the person to find the [model] keys; the template shows them."""
    assert main(["hooks", "install", "claude-code", "--agent", "me"]) == 0
    text = (home / ".orkas" / "orkas.toml").read_text()
    assert text.startswith(SETTINGS_TEMPLATE) and '# name = "openai/gpt-4o-mini"' in text
    assert tomllib.loads(text)["agents"]["me"] == {"format": "claude-code", "export_skills": "~/.claude/skills"}


def test_hooks_proposals_and_service_alone_show_what_they_would_list(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A command of actions run with none does its read-only one, as a person trying it expects:
    ``hooks`` is ``hooks status``, ``proposals`` is ``proposals list``, ``service`` is ``service status``."""
    (home / ".orkas" / "agents").mkdir(parents=True)
    for alone, action in (
        (["hooks"], ["hooks", "status"]),
        (["proposals"], ["proposals", "list"]),
        (["service"], ["service", "status"]),
    ):
        assert main(alone) == 0
        said = capsys.readouterr().out
        assert main(action) == 0
        assert said == capsys.readouterr().out and said
