"""Typed settings read from ``orkas.toml``, with the spec's defaults.

Every key is optional. A bad value raises :class:`ConfigError` naming the key and
the file, so a person can fix it without reading a traceback.
"""

from __future__ import annotations

import math
import os
import re
import tomllib
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

from orkas_tui.core.files import open_regular
from orkas_tui.core.timefmt import parse_duration

SIGNAL_NAMES = (
    "user_correction",
    "skill_ineffective",
    "error_recovery",
    "known_weakness",
    "complex_task",
)

DEFAULT_WEIGHTS = {
    "user_correction": 0.9,
    "skill_ineffective": 0.8,
    "error_recovery": 0.6,
    "known_weakness": 0.6,
    "complex_task": 0.5,
}

DEFAULT_CORRECTION_PHRASES = (
    # English
    "wrong", "actually", "instead", "that's not", "I meant", "should be", "try again",
    "not what I asked", "no, use", "don't do that",
    # Chinese
    "不对", "应该是", "重新", "错了", "不是这样",
    # Spanish
    "incorrecto", "en realidad", "debería ser", "en vez de", "otra vez", "eso no es",
    "me refería",
)

DEFAULT_TRANSIENT_STATUSES = (408, 425, 429, 500, 502, 503, 504)

DEFAULT_TRANSIENT_PATTERNS = (
    r"time[ds]?[ -]?out",
    r"deadline exceeded",
    r"connection (?:was )?(?:reset|refused|aborted|closed|lost)",
    r"\beconn(?:reset|refused|aborted)\b",
    r"broken pipe",
    r"name or service not known",
    r"name resolution",
    r"\bdns\b",
    r"getaddrinfo",
    r"nodename nor servname",
    r"temporar(?:il)?y unavailable",
    r"service unavailable",
    r"rate[ -]?limit",
    r"too many requests",
    r"overloaded",
    r"network (?:is )?unreachable",
)

DEFAULT_REDACT_PATTERNS = (
    r"sk-ant-[A-Za-z0-9_\-]{20,}",
    r"sk-(?:proj-|live-|test-)?[A-Za-z0-9_\-]{20,}",
    r"gh[pousr]_[A-Za-z0-9]{30,}",
    r"github_pat_[A-Za-z0-9_]{30,}",
    r"xox[abposr]-[A-Za-z0-9\-]{10,}",
    r"AKIA[0-9A-Z]{16}",
    r"(?i)\b(?:aws_secret_access_key|secret_access_key|client_secret|api_secret)[\"']?\s*[=:]\s*[\"']?[A-Za-z0-9/+=_\-]{16,}",
    r"\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}",
    r"AIza[0-9A-Za-z_\-]{35}",
    r"(?i)bearer\s+[A-Za-z0-9._~+/=\-]{16,}",
    r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----",
    r"(?<=://)[^/\s:@]+:[^/\s@]+(?=@)",
    r"(?i)(?<=password=)[^\s&\"']+",
)


class ConfigError(ValueError):
    """A setting in ``orkas.toml`` has a value the program cannot use."""


@dataclass(frozen=True)
class ScheduleSettings:
    cycle_interval: timedelta = timedelta(hours=12, minutes=30)
    cooldown: timedelta = timedelta(hours=4)
    force_after: timedelta = timedelta(days=7)
    max_agents_per_cycle: int = 5


@dataclass(frozen=True)
class BundleSettings:
    max_tokens: int = 12_000
    max_conversations: int = 5
    tool_output_chars: int = 600
    redact_patterns: tuple[str, ...] = DEFAULT_REDACT_PATTERNS


@dataclass(frozen=True)
class ModelSettings:
    name: str | None = None
    api_base: str | None = None
    api_key_env: str | None = None
    timeout_s: float = 120.0
    max_retries: int = 2
    retry_backoff_s: float = 2.0


@dataclass(frozen=True)
class Settings:
    threshold: float = 0.7
    weights: dict[str, float] = field(default_factory=lambda: dict(DEFAULT_WEIGHTS))
    complex_min_tool_calls: int = 8
    correction_phrases: tuple[str, ...] = DEFAULT_CORRECTION_PHRASES
    transient_statuses: tuple[int, ...] = DEFAULT_TRANSIENT_STATUSES
    transient_patterns: tuple[str, ...] = DEFAULT_TRANSIENT_PATTERNS
    max_skills: int = 200
    max_skill_body_chars: int = 20_000
    profile_cap: int = 2_000
    strategies_cap: int = 2_000
    auto_apply: bool = False
    max_line_bytes: int = 8 * 1024 * 1024  # a longer line of a conversation or events.jsonl is reported and skipped
    schedule: ScheduleSettings = field(default_factory=ScheduleSettings)
    bundle: BundleSettings = field(default_factory=BundleSettings)
    model: ModelSettings = field(default_factory=ModelSettings)
    keys: dict[str, str] = field(default_factory=dict)
    theme: str | None = None
    source: Path | None = None

    def note_cap(self, note: str) -> int:
        return self.profile_cap if note == "profile" else self.strategies_cap


def load_settings(root: Path) -> Settings:
    """Read ``<root>/orkas.toml``; a missing file means all defaults."""
    path = root / "orkas.toml"
    try:
        with open_regular(os.path.realpath(path)) as handle:  # a link (dotfiles) is followed; a FIFO is refused
            raw = handle.read()
    except FileNotFoundError:
        return Settings()
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read ({exc.strerror})") from exc
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc})") from exc
    return parse_settings(data, path)


def parse_settings(data: dict[str, Any], path: Path) -> Settings:
    reader = _Reader(data, path)
    weights = dict(DEFAULT_WEIGHTS)
    for name, value in reader.table("weights").items():
        if name not in DEFAULT_WEIGHTS:
            raise ConfigError(f"{path}: weights.{name}: unknown signal (one of {', '.join(SIGNAL_NAMES)})")
        weights[name] = reader.number(f"weights.{name}", value, minimum=0.0)

    corrections = reader.table("corrections")
    phrases = tuple(DEFAULT_CORRECTION_PHRASES)
    if "phrases" in corrections:
        phrases = reader.strings("corrections.phrases", corrections["phrases"])
    if "extra" in corrections:
        phrases += reader.strings("corrections.extra", corrections["extra"])

    transient = reader.table("transient")
    statuses = DEFAULT_TRANSIENT_STATUSES
    if "statuses" in transient:
        statuses = tuple(reader.integer("transient.statuses", s, minimum=100) for s in reader.list("transient.statuses", transient["statuses"]))
    patterns = DEFAULT_TRANSIENT_PATTERNS
    if "patterns" in transient:
        patterns = reader.regexes("transient.patterns", transient["patterns"])
    if "extra_patterns" in transient:
        patterns += reader.regexes("transient.extra_patterns", transient["extra_patterns"])

    schedule_t = reader.table("schedule")
    schedule = ScheduleSettings(
        cycle_interval=reader.duration("schedule.cycle_interval", schedule_t, ScheduleSettings.cycle_interval),
        cooldown=reader.duration("schedule.cooldown", schedule_t, ScheduleSettings.cooldown),
        force_after=reader.duration("schedule.force_after", schedule_t, ScheduleSettings.force_after),
        max_agents_per_cycle=reader.integer(
            "schedule.max_agents_per_cycle", schedule_t.get("max_agents_per_cycle", 5), minimum=1
        ),
    )

    bundle_t = reader.table("bundle")
    redact = DEFAULT_REDACT_PATTERNS
    if "redact_patterns" in bundle_t:
        redact = reader.regexes("bundle.redact_patterns", bundle_t["redact_patterns"])
    if "extra_redact_patterns" in bundle_t:
        redact += reader.regexes("bundle.extra_redact_patterns", bundle_t["extra_redact_patterns"])
    bundle = BundleSettings(
        max_tokens=reader.integer("bundle.max_tokens", bundle_t.get("max_tokens", 12_000), minimum=500),
        max_conversations=reader.integer("bundle.max_conversations", bundle_t.get("max_conversations", 5), minimum=1),
        tool_output_chars=reader.integer("bundle.tool_output_chars", bundle_t.get("tool_output_chars", 600), minimum=40),
        redact_patterns=redact,
    )

    model_t = reader.table("model")
    model = ModelSettings(
        name=reader.optional_string("model.name", model_t.get("name")),
        api_base=reader.optional_string("model.api_base", model_t.get("api_base")),
        api_key_env=reader.optional_string("model.api_key_env", model_t.get("api_key_env")),
        timeout_s=reader.number("model.timeout_s", model_t.get("timeout_s", 120.0), minimum=0.1),
        max_retries=reader.integer("model.max_retries", model_t.get("max_retries", 2), minimum=0),
        retry_backoff_s=reader.number("model.retry_backoff_s", model_t.get("retry_backoff_s", 2.0), minimum=0.0),
    )

    keys = {str(k): reader.string(f"keys.{k}", v) for k, v in reader.table("keys").items()}
    self_t = reader.table("self")
    skills_t = reader.table("skills")
    reflection_t = reader.table("reflection")

    return Settings(
        threshold=reader.number("threshold", data.get("threshold", 0.7), minimum=0.0),
        weights=weights,
        complex_min_tool_calls=reader.integer("complex_min_tool_calls", data.get("complex_min_tool_calls", 8), minimum=1),
        correction_phrases=phrases,
        transient_statuses=statuses,
        transient_patterns=patterns,
        max_skills=reader.integer("skills.max_skills", skills_t.get("max_skills", 200), minimum=1),
        max_skill_body_chars=reader.integer("skills.max_body_chars", skills_t.get("max_body_chars", 20_000), minimum=100),
        profile_cap=reader.integer("self.profile_cap", self_t.get("profile_cap", 2_000), minimum=1),
        strategies_cap=reader.integer("self.strategies_cap", self_t.get("strategies_cap", 2_000), minimum=1),
        auto_apply=reader.boolean("reflection.auto_apply", reflection_t.get("auto_apply", False)),
        max_line_bytes=reader.integer("max_line_bytes", data.get("max_line_bytes", Settings.max_line_bytes), minimum=1024),
        schedule=schedule,
        bundle=bundle,
        model=model,
        keys=keys,
        theme=reader.optional_string("theme", data.get("theme")),
        source=path,
    )


class _Reader:
    """Small validators that name the key and the file in every error."""

    def __init__(self, data: dict[str, Any], path: Path) -> None:
        self.data = data
        self.path = path

    def fail(self, key: str, message: str) -> ConfigError:
        return ConfigError(f"{self.path}: {key}: {message}")

    def table(self, key: str) -> dict[str, Any]:
        value = self.data.get(key, {})
        if not isinstance(value, dict):
            raise self.fail(key, "must be a table ([" + key + "])")
        return value

    def number(self, key: str, value: Any, minimum: float | None = None) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.fail(key, f"must be a number, not {value!r}")
        if not math.isfinite(value):
            raise self.fail(key, f"must be a finite number, not {value!r}")
        if minimum is not None and value < minimum:
            raise self.fail(key, f"must be at least {minimum}, not {value!r}")
        return float(value)

    def integer(self, key: str, value: Any, minimum: int | None = None) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(key, f"must be a whole number, not {value!r}")
        if minimum is not None and value < minimum:
            raise self.fail(key, f"must be at least {minimum}, not {value!r}")
        return value

    def boolean(self, key: str, value: Any) -> bool:
        if not isinstance(value, bool):
            raise self.fail(key, f"must be true or false, not {value!r}")
        return value

    def string(self, key: str, value: Any) -> str:
        if not isinstance(value, str) or not value:
            raise self.fail(key, f"must be a non-empty string, not {value!r}")
        return value

    def optional_string(self, key: str, value: Any) -> str | None:
        return None if value is None else self.string(key, value)

    def list(self, key: str, value: Any) -> list[Any]:
        if not isinstance(value, list):
            raise self.fail(key, f"must be a list, not {value!r}")
        return value

    def strings(self, key: str, value: Any) -> tuple[str, ...]:
        return tuple(self.string(key, item) for item in self.list(key, value))

    def regexes(self, key: str, value: Any) -> tuple[str, ...]:
        items = self.strings(key, value)
        for item in items:
            try:
                re.compile(item)
            except re.error as exc:
                raise self.fail(key, f"{item!r} is not a valid regular expression ({exc})") from exc
        return items

    def duration(self, key: str, table: dict[str, Any], default: timedelta) -> timedelta:
        name = key.rsplit(".", 1)[-1]
        if name not in table:
            return default
        parsed = parse_duration(table[name])
        if parsed is None:
            raise self.fail(key, f"must be a duration like \"12h30m\", \"4h\", \"7d\" or seconds, not {table[name]!r}")
        return parsed

