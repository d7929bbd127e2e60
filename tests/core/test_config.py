"""orkas.toml: every key optional; a bad value names the key and the file; an unknown key is a warning."""

from __future__ import annotations

import re
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import msgspec
import pytest

from orkas_tui.core.read.settings import (
    AGENT_KEYS,
    LAYOUT,
    AgentLink,
    BundleSettings,
    ConfigError,
    ModelSettings,
    ScheduleSettings,
    Settings,
    convert,
    load_settings,
    read_settings,
)
from orkas_tui.demo.proposal import add_demo_proposal
from tests.conftest import NOW

REPO = Path(__file__).resolve().parents[2]


def load(tmp_path: Path, text: str) -> Settings:
    (tmp_path / "orkas.toml").write_text(text)
    return load_settings(tmp_path)


def warnings_of(tmp_path: Path, text: str) -> tuple[Settings, tuple[str, ...]]:
    (tmp_path / "orkas.toml").write_text(text)
    return read_settings(tmp_path)


def test_missing_file_means_the_spec_defaults(tmp_path: Path) -> None:
    settings = load_settings(tmp_path)
    assert settings.threshold == 0.7
    assert settings.weights == {
        "user_correction": 0.9,
        "skill_ineffective": 0.8,
        "error_recovery": 0.6,
        "known_weakness": 0.6,
        "complex_task": 0.5,
    }
    assert settings.schedule.cycle_interval == timedelta(hours=12, minutes=30)
    assert settings.schedule.cooldown == timedelta(hours=4)
    assert settings.schedule.force_after == timedelta(days=7)
    assert settings.schedule.max_agents_per_cycle == 5
    assert settings.max_skills == 200 and settings.profile_cap == settings.strategies_cap == 2000
    assert settings.bundle.max_tokens == 12_000 and settings.bundle.max_conversations == 5
    assert not settings.auto_apply


def test_every_section_is_read(tmp_path: Path) -> None:
    settings = load(
        tmp_path,
        """
threshold = 1.0
complex_min_tool_calls = 5
[weights]
complex_task = 0.25
[corrections]
extra = ["nope"]
[transient]
extra_patterns = ["flaky backend"]
[schedule]
cycle_interval = "1h"
cooldown = 600
force_after = "2d12h"
max_agents_per_cycle = 2
[skills]
max_skills = 10
[self]
profile_cap = 500
[reflection]
auto_apply = true
[model]
name = "openai/local"
api_base = "http://127.0.0.1:9/v1"
timeout_s = 5
[keys]
reflect_now = "ctrl+r"
""",
    )
    assert settings.threshold == 1.0 and settings.complex_min_tool_calls == 5
    assert settings.weights["complex_task"] == 0.25 and settings.weights["user_correction"] == 0.9
    assert "nope" in settings.correction_phrases and "wrong" in settings.correction_phrases
    assert "flaky backend" in settings.transient_patterns
    assert settings.schedule.cycle_interval == timedelta(hours=1)
    assert settings.schedule.cooldown == timedelta(minutes=10)
    assert settings.schedule.force_after == timedelta(days=2, hours=12)
    assert settings.schedule.max_agents_per_cycle == 2
    assert settings.max_skills == 10 and settings.profile_cap == 500 and settings.strategies_cap == 2000
    assert settings.auto_apply and settings.model.name == "openai/local" and settings.model.timeout_s == 5
    assert settings.keys == {"reflect_now": "ctrl+r"}


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("threshold = 'high'", "threshold"),
        ("[weights]\nuser_correction = -1", "weights.user_correction"),
        ("[schedule]\ncooldown = 'soon'", "schedule.cooldown"),
        ("[schedule]\nmax_agents_per_cycle = 0", "schedule.max_agents_per_cycle"),
        ("[transient]\npatterns = ['(unclosed']", "transient.patterns[0]"),
        ("[reflection]\nauto_apply = 'yes'", "reflection.auto_apply"),
        ("weights = 3", "weights"),
        ("[corrections]\nphrases = 'wrong'", "corrections.phrases"),
    ],
)
def test_bad_value_names_key_and_file(tmp_path: Path, text: str, key: str) -> None:
    with pytest.raises(ConfigError) as info:
        load(tmp_path, text)
    assert str(tmp_path / "orkas.toml") in str(info.value)
    assert f": {key}:" in str(info.value)


def test_invalid_toml_names_the_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not valid TOML"):
        load(tmp_path, "threshold = = 1")


@pytest.mark.parametrize(
    ("text", "key", "value", "allowed"),
    [
        ("[transient]\nstatuses = [99999999999999999999]", "transient.statuses[0]", "99999999999999999999", "100 to 599"),
        ("[transient]\nstatuses = [429, 42]", "transient.statuses[1]", "42", "100 to 599"),
        ("[weights]\nuser_correction = 1e308", "weights.user_correction", "1e+308", "0 to 10"),
        ("threshold = -0.5", "threshold", "-0.5", "0 to 50"),
        ("threshold = nan", "threshold", "nan", "0 to 50"),
        ("[schedule]\ncooldown = -5", "schedule.cooldown", "-5", "0s to 100 years"),
        ("[schedule]\nforce_after = '99999999999999d'", "schedule.force_after", "'99999999999999d'", "0s to 100 years"),
        ("[schedule]\ncycle_interval = '10s'", "schedule.cycle_interval", "'10s'", "1m to 100 years"),
        ("[schedule]\ncycle_interval = 30", "schedule.cycle_interval", "30", "1m to 100 years"),
        ("[schedule]\nmax_agents_per_cycle = 0", "schedule.max_agents_per_cycle", "0", "1 to 1,000"),
        ("[bundle]\nmax_tokens = 10_000_000", "bundle.max_tokens", "10000000", "500 to 1,000,000"),
        ("[model]\ntimeout_s = inf", "model.timeout_s", "inf", "0.1 to 86,400"),
        ("[model]\nmax_retries = 1000", "model.max_retries", "1000", "0 to 20"),
        ("[skills]\nmax_skills = 0", "skills.max_skills", "0", "1 to 10,000"),
        ("[self]\nprofile_cap = 10_000_000", "self.profile_cap", "10000000", "1 to 100,000"),
        ("[reflection]\neffect_window = 0", "reflection.effect_window", "0", "1 to 10,000"),
        (f"threshold = {10**400}", "threshold", f"{10**400}"[:57] + "...", "0 to 50"),
    ],
)
def test_an_out_of_range_value_is_one_line_naming_key_value_and_range(tmp_path: Path, text, key, value, allowed) -> None:
    with pytest.raises(ConfigError) as info:
        load(tmp_path, text)
    message = str(info.value)
    assert message == f"{tmp_path / 'orkas.toml'}: {key}: {value} is out of range (allowed {allowed})"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("threshold = 'high'", "threshold: must be a number, not 'high'"),
        ("complex_min_tool_calls = 2.5", "complex_min_tool_calls: must be a whole number, not 2.5"),
        ("complex_min_tool_calls = true", "complex_min_tool_calls: must be a whole number, not True"),
        ("[model]\nname = 5", "model.name: must be text, not 5"),
        ("[corrections]\nextra = [1]", "corrections.extra[0]: must be text, not 1"),
        ("[self]\nprofile_cap = '2000'", "self.profile_cap: must be a whole number, not '2000'"),
        ("[keys]\nquit = 1", "keys.quit: must be text, not 1"),
        ("[keys]\nquit = ''", "keys.quit: must not be empty"),
        ("[corrections]\nextra = ['ok', '']", "corrections.extra[1]: must not be empty"),
        ("[transient]\nextra_patterns = 'x'", "transient.extra_patterns: must be a list, not 'x'"),
        ("[transient]\nstatuses = [429.0]", "transient.statuses[0]: must be a whole number, not 429.0"),
        ("[reflection]\nauto_apply = 'yes'", "reflection.auto_apply: must be true or false, not 'yes'"),
        ("[schedule]\ncooldown = [1]", 'schedule.cooldown: must be a duration like "12h30m", "4h", "7d" or seconds, not [1]'),
        ("threshold = {a = 1}", "threshold: must be a number, not {'a': 1}"),
    ],
)
def test_a_wrong_type_is_one_line_naming_the_key_and_the_file(tmp_path: Path, text, message) -> None:
    with pytest.raises(ConfigError) as info:
        load(tmp_path, text)
    assert str(info.value) == f"{tmp_path / 'orkas.toml'}: {message}"


def test_unknown_keys_and_tables_are_named_with_a_guess_and_the_rest_loads(tmp_path: Path) -> None:
    settings, warnings = warnings_of(
        tmp_path,
        """
threshhold = 0.9
complex_min_tool_calls = 3
[modle]
name = "openai/x"
[weights]
mood = 1.0
complex_task = 0.25
[schedule]
cooldwn = "1h"
max_agents_per_cycle = 2
""",
    )
    path = tmp_path / "orkas.toml"
    assert warnings == (
        f"{path}: unknown key threshhold (did you mean threshold?); ignored",
        f"{path}: unknown table [modle] (did you mean [model]?); ignored",
        f"{path}: unknown key weights.mood; ignored",
        f"{path}: unknown key schedule.cooldwn (did you mean schedule.cooldown?); ignored",
    )
    assert settings.threshold == 0.7 and settings.complex_min_tool_calls == 3 and settings.model.name is None
    assert settings.weights["complex_task"] == 0.25 and settings.schedule.max_agents_per_cycle == 2
    assert settings == Settings(
        complex_min_tool_calls=3, weights={**Settings().weights, "complex_task": 0.25}, schedule=settings.schedule, source=path
    )


def test_every_key_of_the_file_is_in_the_settings_table_of_the_docs() -> None:
    table = (REPO / "docs" / "rules.md").read_text()
    documented = set(re.findall(r"^\| `([a-z_.<>]+)` \|", table, re.MULTILINE))
    assert documented == set(LAYOUT) | {"keys.<action>"} | {f"agents.<id>.{key}" for key in AGENT_KEYS}


def test_every_setting_is_filled_by_a_key_of_the_file() -> None:
    """A field added to the settings without its key in ``LAYOUT`` could never be set from orkas.toml."""
    import msgspec

    from orkas_tui.core.read.settings import Settings

    filled = {field.lstrip("+") for field in LAYOUT.values()}
    for info in msgspec.structs.fields(Settings):
        name, kind = info.name, info.type
        if name in ("source", "keys", "agents", "weights"):  # the file's path; free tables checked by their own rules
            continue
        if isinstance(kind, type) and issubclass(kind, msgspec.Struct):  # a table: each of its fields
            missing = [f"{name}.{f.name}" for f in msgspec.structs.fields(kind) if f"{name}.{f.name}" not in filled]
        else:
            missing = [name] if name not in filled else []
        assert not missing, missing


def run(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "orkas_tui", *args, "--workspace", str(root)],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
    )


@pytest.mark.parametrize(
    "text",
    [
        "[transient]\nstatuses = [99999999999999999999]",
        "[weights]\nuser_correction = 1e308\ncomplex_task = 1e308",
        "[schedule]\ncooldown = -1",
    ],
)
def test_status_queue_and_reflect_print_one_line_never_a_traceback(tmp_path: Path, text: str) -> None:
    (tmp_path / "agents" / "a1" / "conversations").mkdir(parents=True)
    (tmp_path / "orkas.toml").write_text(text)
    for args in (["status"], ["status", "--json"], ["queue"], ["reflect", "a1", "--dry-run"]):
        result = run(tmp_path, *args)
        assert result.returncode == 2, (args, result.stderr)
        assert result.stdout == "" and result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
        assert result.stderr.startswith(f"orkas-tui: {tmp_path / 'orkas.toml'}: ") and "out of range (allowed" in result.stderr


def test_a_command_names_unknown_keys_on_stderr_and_still_runs(tmp_path: Path) -> None:
    (tmp_path / "agents" / "a1" / "conversations").mkdir(parents=True)
    (tmp_path / "orkas.toml").write_text("threshhold = 0.9\n")
    result = run(tmp_path, "status", "--json")
    assert result.returncode == 0 and result.stdout.startswith("{")
    assert result.stderr == (
        f"orkas-tui: warning: {tmp_path / 'orkas.toml'}: unknown key threshhold (did you mean threshold?); ignored\n"
    )


def test_a_whole_number_in_the_file_for_a_number_becomes_a_float(tmp_path: Path) -> None:
    settings = load(tmp_path, "threshold = 1\n[weights]\ncomplex_task = 2\n[model]\ntimeout_s = 5")
    assert type(settings.threshold) is float and type(settings.weights["complex_task"]) is float
    assert type(settings.model.timeout_s) is float and settings.model.timeout_s == 5.0


def test_every_default_is_within_its_own_bounds() -> None:
    """Defaults are not checked when a setting is made (they are written here): this checks them once."""
    for model in (Settings, ScheduleSettings, BundleSettings, ModelSettings, AgentLink):
        instance = model()
        for field in msgspec.structs.fields(model):
            value = getattr(instance, field.name)
            if isinstance(value, msgspec.Struct):
                continue  # a section: checked as its own model
            written = value.total_seconds() if isinstance(value, timedelta) else value  # as the file writes it
            assert convert(written, field.type) == value, (model.__name__, field.name)


def test_a_duration_is_read_as_seconds_or_text_into_its_type(tmp_path: Path) -> None:
    schedule = load(tmp_path, "[schedule]\ncycle_interval = 90\ncooldown = '1d 2h 3m 4s'\nforce_after = 0.5").schedule
    assert schedule.cycle_interval == timedelta(seconds=90)
    assert schedule.cooldown == timedelta(days=1, hours=2, minutes=3, seconds=4)
    assert schedule.force_after == timedelta(seconds=0.5)
    assert type(schedule.cycle_interval) is type(ScheduleSettings().cycle_interval)


def test_warnings_are_returned_beside_the_settings_and_settings_are_frozen(tmp_path: Path) -> None:
    warned, warnings = warnings_of(tmp_path, "threshhold = 0.9\n")
    assert warnings and warned == Settings(source=tmp_path / "orkas.toml")
    assert read_settings(tmp_path / "nowhere") == (Settings(), ())
    assert ScheduleSettings() == ScheduleSettings() and hash(ScheduleSettings()) == hash(ScheduleSettings())
    with pytest.raises(AttributeError):
        warned.threshold = 1.0  # type: ignore[misc]


def test_status_reads_the_settings_without_importing_pydantic(demo_ws: Path) -> None:
    """pydantic (~100 ms to import) is only for the model's answer; status never loads it."""
    add_demo_proposal(demo_ws, NOW)
    code = (
        "import contextlib, io, sys\nfrom orkas_tui.cli import main\n"
        f"for argv in (['status'], ['status', '--json']):\n"
        f"    with contextlib.redirect_stdout(io.StringIO()):\n"
        f"        assert main([*argv, '--workspace', {str(demo_ws)!r}]) == 0\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pydantic', 'pydantic_core')))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_an_agent_is_linked_to_where_its_tool_reads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    settings, warnings = warnings_of(
        tmp_path,
        """
[agents.claude-code]
format = "claude-code"
export_skills = "~/.claude/skills"
export_memroy = "~/CLAUDE.md"
[agents.cx]
format = "codex"
export_skills = "/srv/codex/skills"
export_memory = "~/AGENTS.md"
""",
    )
    home = tmp_path / "home"
    assert settings.agents == {
        "claude-code": AgentLink("claude-code", home / ".claude" / "skills", None),
        "cx": AgentLink("codex", Path("/srv/codex/skills"), home / "AGENTS.md"),
    }
    assert warnings == (
        f"{tmp_path / 'orkas.toml'}: unknown key agents.claude-code.export_memroy (did you mean "
        "agents.claude-code.export_memory?); ignored",
    )
    assert load(tmp_path, "").agents == {} and load(tmp_path, "[agents.a]\n").agents == {"a": AgentLink()}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[agents.Coder]\nformat = "codex"', "[agents.Coder]: 'Coder' is not a valid agent id"),
        ('[agents."a b"]\nformat = "codex"', "[agents.a b]: 'a b' is not a valid agent id"),
        ('[agents.a]\nformat = "cursor"', "agents.a.format: must be one of claude-code, codex, not 'cursor'"),
        ("[agents.a]\nexport_skills = 3", "agents.a.export_skills: must be a path, not 3"),
        ('[agents.a]\nexport_memory = ""', "agents.a.export_memory: must be a path, not ''"),
        ('[agents.a]\nexport_memory = "~nobody-here/AGENTS.md"', "agents.a.export_memory: '~nobody-here/AGENTS.md': no home"),
        ("agents = 1", "agents: must be a table"),
        ("[agents]\na = 1", "agents.a: must be a table ([agents.a]), not 1"),
    ],
)
def test_a_bad_agent_link_is_refused_in_one_line(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        load(tmp_path, text)
    assert str(caught.value).startswith(f"{tmp_path / 'orkas.toml'}: {message}")
