"""orkas.toml: every key optional; a bad value names the key and the file."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from orkas_tui.config import ConfigError, Settings, load_settings


def load(tmp_path: Path, text: str) -> Settings:
    (tmp_path / "orkas.toml").write_text(text)
    return load_settings(tmp_path)


def test_missing_file_means_the_spec_defaults(tmp_path: Path) -> None:
    settings = load_settings(tmp_path)
    assert settings.threshold == 0.7
    assert settings.weights == {"user_correction": 0.9, "skill_ineffective": 0.8, "error_recovery": 0.6,
                                "known_weakness": 0.6, "complex_task": 0.5}
    assert settings.schedule.cycle_interval == timedelta(hours=12, minutes=30)
    assert settings.schedule.cooldown == timedelta(hours=4)
    assert settings.schedule.force_after == timedelta(days=7)
    assert settings.schedule.max_agents_per_cycle == 5
    assert settings.max_skills == 200 and settings.profile_cap == settings.strategies_cap == 2000
    assert settings.bundle.max_tokens == 12_000 and settings.bundle.max_conversations == 5
    assert not settings.auto_apply


def test_every_section_is_read(tmp_path: Path) -> None:
    settings = load(tmp_path, """
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
""")
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
        ("[weights]\nmood = 1.0", "weights.mood"),
        ("[schedule]\ncooldown = 'soon'", "schedule.cooldown"),
        ("[schedule]\nmax_agents_per_cycle = 0", "schedule.max_agents_per_cycle"),
        ("[transient]\npatterns = ['(unclosed']", "transient.patterns"),
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
