"""``hooks install|uninstall|status`` against files laid out as each agent keeps them: Codex's lifecycle hooks,
the migration from ``notify``, Claude Code's plugin, and the bad input each install refuses."""

from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path

import pytest

from orkas_tui.cli import main
from tests.importers.test_hooks import home

__all__ = ["home"]  # the fake-HOME fixture

# A config.toml as a person keeps it: comments, tables, a hook of their own and the trust Codex recorded for it.
CODEX_CONFIG = """# Codex, by hand
model = "gpt-5-codex"  # the default model
approval_policy = "on-request"

[projects."/home/me/code"]
trust_level = "trusted"

[[hooks.PreToolUse]]
matcher = "^Bash$"
[[hooks.PreToolUse.hooks]]
type = "command"
command = "python3 ~/.codex/guard.py"  # mine

[hooks.state."pre-tool-use:0"]
trusted_hash = "abc"

[mcp_servers.docs]
command = "npx"
args = ["-y", "docs-mcp"]
"""

THEIR_HOOKS_JSON = """{
    "description": "my hooks",
    "hooks": {
        "Stop": [
            {
                "hooks": [
                    {"type": "command", "command": "say done", "timeout": 5}
                ]
            }
        ]
    }
}
"""


def status(capsys: pytest.CaptureFixture[str]) -> dict:
    capsys.readouterr()
    assert main(["hooks", "status", "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_codex_hooks_install_and_uninstall_byte_for_byte(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = home / ".codex" / "config.toml"
    config.write_text(CODEX_CONFIG)
    assert main(["hooks", "install", "codex", "--agent", "cx"]) == 0
    out = capsys.readouterr().out
    assert "SessionStart, Stop and SessionEnd hooks in" in out and "open /hooks in Codex" in out
    parsed = tomllib.loads(config.read_text())
    assert parsed["hooks"]["PreToolUse"][0]["hooks"][0]["command"] == "python3 ~/.codex/guard.py"  # theirs kept
    ours = {event: parsed["hooks"][event][-1]["hooks"][0] for event in ("SessionStart", "Stop", "SessionEnd")}
    assert {e: (h["type"], h["command"].split()[1:], h["timeout"]) for e, h in ours.items()} == {
        "SessionStart": ("command", ["hook", "codex", "--agent", "cx"], 10),
        "Stop": ("command", ["hook", "codex", "--agent", "cx"], 10),
        "SessionEnd": ("command", ["hook", "codex", "--agent", "cx"], 3),  # Codex caps SessionEnd at 3 s
    }
    doc = status(capsys)["codex"]
    assert doc["installed"] and doc["via"] == ["hooks in config.toml"] and doc["agent"] == "cx"
    assert [c.split(":")[0] for c in doc["commands"]] == ["SessionStart", "Stop", "SessionEnd"]
    assert main(["hooks", "uninstall", "codex"]) == 0
    assert config.read_text() == CODEX_CONFIG
    assert not status(capsys)["codex"]["installed"]


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ('notify = ["/old/bin/orkas-tui", "hook", "codex", "--agent", "cx"]\n', ""),
        (  # an earlier install's --force kept the person's line commented out: it comes back
            'notify = ["orkas-tui", "hook", "codex"]\n# orkas-tui replaced: notify = ["notify-send", "done"]\n',
            'notify = ["notify-send", "done"]\n',
        ),
    ],
    ids=["ours", "ours-over-theirs"],
)
def test_an_earlier_notify_is_migrated_to_hooks(home: Path, capsys: pytest.CaptureFixture[str], before: str, after: str) -> None:
    config = home / ".codex" / "config.toml"
    config.write_text(before + CODEX_CONFIG)
    doc = status(capsys)["codex"]
    assert doc["installed"] and doc["via"][0].startswith("notify") and doc["commands"][0].startswith("notify: ")
    assert main(["hooks", "install", "codex", "--agent", "cx"]) == 0
    assert "migrated: orkas-tui's notify line removed" in capsys.readouterr().out
    text = config.read_text()
    assert text.startswith(after + CODEX_CONFIG) and "orkas-tui replaced" not in text
    assert status(capsys)["codex"]["via"] == ["hooks in config.toml"]
    assert main(["hooks", "uninstall", "codex"]) == 0
    assert config.read_text() == after + CODEX_CONFIG


def test_a_hooks_json_beside_the_config_takes_the_hooks(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Codex warns when one layer has both forms, so the hooks go where the person's already are."""
    config, hooks = home / ".codex" / "config.toml", home / ".codex" / "hooks.json"
    config.write_text('notify = ["orkas-tui", "hook", "codex"]\n' + CODEX_CONFIG.split("[[hooks.")[0])
    hooks.write_text(THEIR_HOOKS_JSON)
    assert main(["hooks", "install", "codex"]) == 0
    assert f"hooks in {hooks}" in capsys.readouterr().out
    assert config.read_text() == CODEX_CONFIG.split("[[hooks.")[0]  # notify migrated, no block
    config.write_text(config.read_text() + '\n[[hooks.Stop]]\nhooks = [{type = "command", command = "orkas-tui hook codex"}]\n')
    doc = status(capsys)["codex"]
    assert doc["via"] == ["hooks in config.toml", "hooks in hooks.json"] and "runs twice" in doc["warnings"][0]
    assert main(["hooks", "install", "codex"]) == 2  # ours outside the block: moved by hand, left to the hand
    assert "outside its block" in capsys.readouterr().err
    config.write_text(CODEX_CONFIG.split("[[hooks.")[0])
    stop = json.loads(hooks.read_text())["hooks"]["Stop"]
    assert stop[0]["hooks"][0]["command"] == "say done" and stop[1]["hooks"][0]["command"].split()[1:3] == ["hook", "codex"]
    assert status(capsys)["codex"]["via"] == ["hooks in hooks.json"]
    assert main(["hooks", "uninstall", "codex"]) == 0
    assert hooks.read_text() == THEIR_HOOKS_JSON


def _outside_link(home: Path, name: str, text: str) -> None:
    target = home.parent / "elsewhere" / Path(name).name
    target.parent.mkdir(exist_ok=True)
    target.write_text(text)
    (home / name).symlink_to(target)


def _read_only(home: Path, name: str, text: str) -> None:
    (home / name).write_text(text)
    (home / name).chmod(0o444)


BAD = {
    "codex config not TOML": ("codex", ".codex/config.toml", "model = \n", None),
    "codex config read-only": ("codex", ".codex/config.toml", CODEX_CONFIG, _read_only),
    "codex config links out of home": ("codex", ".codex/config.toml", CODEX_CONFIG, _outside_link),
    "codex config with an inline hooks table": ("codex", ".codex/config.toml", "hooks = { Stop = [] }\n", None),
    "hooks.json not JSON": ("codex", ".codex/hooks.json", '{"hooks": {}', None),
    "hooks.json of another shape": ("codex", ".codex/hooks.json", '{"hooks": [{"command": "mine"}]}\n', None),
    "hooks.json read-only": ("codex", ".codex/hooks.json", THEIR_HOOKS_JSON, _read_only),
    "hooks.json links out of home": ("codex", ".codex/hooks.json", THEIR_HOOKS_JSON, _outside_link),
    "settings.json read-only": ("claude-code", ".claude/settings.json", '{"model": "opus"}\n', _read_only),
    "settings.json links out of home": ("claude-code", ".claude/settings.json", '{"model": "opus"}\n', _outside_link),
    "settings.json with hooks of another shape": ("claude-code", ".claude/settings.json", '{"hooks": {"Stop": {}}}\n', None),
}


@pytest.mark.parametrize("case", list(BAD))
def test_bad_input_is_refused_in_one_line_and_nothing_changes(home: Path, capsys: pytest.CaptureFixture[str], case: str) -> None:
    fmt, name, text, make = BAD[case]
    (make or (lambda h, n, t: (h / n).write_text(t)))(home, name, text)
    files = {p: p.read_bytes() for p in home.parent.rglob("*") if p.is_file()}
    assert main(["hooks", "install", fmt]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(home / name) in err and "left untouched" in err, err
    code = main(["hooks", "uninstall", fmt])  # refused alike, or nothing of ours there to remove
    out, err = capsys.readouterr()
    assert (code, err.count("\n")) == (2, 1) if code else "not installed" in out
    assert {p: p.read_bytes() for p in home.parent.rglob("*") if p.is_file()} == files
    assert not (home / ".orkas").exists()


def test_the_enabled_plugin_is_named_and_not_doubled(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    settings = home / ".claude" / "settings.json"
    original = '{\n  "enabledPlugins": {\n    "orkas-tui@orkas-tui": true\n  }\n}\n'
    settings.write_text(original)
    assert main(["hooks", "install", "claude-code"]) == 0
    assert "not added: plugin orkas-tui@orkas-tui is enabled" in capsys.readouterr().out
    assert settings.read_text() == original  # the plugin runs the hooks: settings hooks would run each twice
    assert main(["hooks", "install", "claude-code", "--agent", "me"]) == 0
    assert "the plugin's hooks import into agent claude-code, not me" in capsys.readouterr().out
    doc = status(capsys)["claude-code"]
    assert doc["installed"] and doc["via"] == ["plugin orkas-tui@orkas-tui"] and doc["agent"] == "claude-code"
    assert not doc["warnings"]
    settings.write_text('{"enabledPlugins": {"orkas-tui@orkas-tui": false}}\n')
    assert main(["hooks", "install", "claude-code"]) == 0
    settings.write_text(settings.read_text().replace("false", "true"))
    doc = status(capsys)["claude-code"]
    assert doc["via"] == ["hooks in settings.json", "plugin orkas-tui@orkas-tui"] and "runs twice" in doc["warnings"][0]
    assert main(["hooks", "status"]) == 0
    assert "  via plugin orkas-tui@orkas-tui\n" in capsys.readouterr().out
    assert main(["hooks", "uninstall", "claude-code"]) == 0
    assert "still enabled: plugin orkas-tui@orkas-tui" in capsys.readouterr().out
    assert json.loads(settings.read_text()) == {"enabledPlugins": {"orkas-tui@orkas-tui": True}}


def test_a_settings_link_into_the_home_folder_is_followed(home: Path) -> None:
    real = home / "dotfiles" / "codex.toml"
    real.parent.mkdir()
    real.write_text(CODEX_CONFIG)
    (home / ".codex" / "config.toml").symlink_to(os.path.relpath(real, home / ".codex"))
    assert main(["hooks", "install", "codex"]) == 0
    assert (home / ".codex" / "config.toml").is_symlink() and "# >>> orkas-tui hooks" in real.read_text()
    assert main(["hooks", "uninstall", "codex"]) == 0
    assert real.read_text() == CODEX_CONFIG
