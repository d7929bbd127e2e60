"""Typed settings read from ``orkas.toml``: every key, its default and its allowed range, here once.

The dataclasses below are the only place a default or a range is written: a
field's type carries its bounds (``Annotated[int, Between(1, 1_000)]``), and one
small checker reads them both for a key of the file and for ``Settings(...)`` in
code. They are stdlib dataclasses, not pydantic: importing pydantic cost about
100 ms of the 0.5 s start-up budget of every command. Nor msgspec Structs: a field
can be left out of equality and repr (``warnings``), and a whole number of any size
reaches its range check. ``LAYOUT`` maps each key of the file to the setting it
fills. Reading a file:

- an unknown key or table is named in :attr:`Settings.warnings` with a "did you
  mean", and the rest still loads (the command line prints the warnings on stderr);
- a value of the wrong type, or outside its range, raises :class:`ConfigError`:
  one line naming the file, the key, the value and what is allowed.
"""

import dataclasses
import difflib
import os
import re
import tomllib
import types
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Annotated, Any, Union, get_args, get_origin

from orkas_tui.core.errors import OrkasError
from orkas_tui.core.read.files import open_regular

MAX_DURATION_S = 100 * 365 * 86400  # adding it to any time never overflows the calendar
AGENT_ID = re.compile(r"^[a-z0-9_-]{1,64}$")  # an agent's folder name; here so [agents.<id>] is checked with it
EXPORT_FORMATS = ("claude-code", "codex")


class ConfigError(OrkasError, ValueError):
    """A setting in ``orkas.toml`` (or given to ``Settings(...)``) has a value the program cannot use."""


class Refused(ValueError):
    """One value refused: why, and where inside it (``[2]``, a list's item), for :class:`ConfigError`'s line."""

    def __init__(self, reason: str, where: str = "") -> None:
        super().__init__(reason)
        self.reason = reason
        self.where = where


Check = Callable[[Any], Any]  # a bound in a field's Annotated type: returns the value or raises Refused


def Between(low: float, high: float) -> Check:  # capitalised: it reads as a type's bound below
    """The range of a number: ``Annotated[int, Between(1, 1_000)]``."""

    def between(value: float) -> float:
        if not (low <= value <= high):  # also refuses NaN
            raise Refused(f"{_show(value)} is out of range (allowed {_number(low)} to {_number(high)})")
        return value

    return between


def AtLeast(minimum: timedelta) -> Check:  # capitalised: it reads as a type's bound below
    """The lower bound of a duration: ``Annotated[timedelta, AtLeast(timedelta(minutes=1))]``."""

    def at_least(value: timedelta) -> timedelta:
        if value < minimum:
            raise Refused(f"{_show(value)} is out of range (allowed {_human(minimum)} to 100 years)")
        return value

    return at_least


def _number(value: float) -> str:
    return f"{int(value):,}" if float(value).is_integer() else f"{value:,}"


def _non_empty(value: str) -> str:
    if not value:
        raise Refused("must not be empty")
    return value


def _regexes(value: tuple[str, ...]) -> tuple[str, ...]:
    for item in value:
        try:
            re.compile(item)
        except re.error as exc:
            raise Refused(f"{_show(item)} is not a valid regular expression ({exc})") from None
    return value


_DURATION_PART = re.compile(r"(\d+(?:\.\d+)?)\s*([dhms])", re.IGNORECASE)
_UNIT_SECONDS = {"d": 86400, "h": 3600, "m": 60, "s": 1}
_NOT_A_DURATION = 'must be a duration like "12h30m", "4h", "7d" or seconds, not {}'


def _duration(value: Any) -> timedelta:
    """Seconds (a number) or a text like ``"12h30m"``, ``"4h"``, ``"7d"``, from 0 to 100 years."""
    if isinstance(value, timedelta):
        seconds: float = value.total_seconds()
    elif isinstance(value, str):
        text, total, pos = value.replace(" ", ""), 0.0, 0
        for match in _DURATION_PART.finditer(text):
            if match.start() != pos:
                break
            total += float(match.group(1)) * _UNIT_SECONDS[match.group(2).lower()]
            pos = match.end()
        if not text or pos != len(text):
            raise Refused(_NOT_A_DURATION.format(_show(value)))
        seconds = total
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        seconds = value
    else:
        raise Refused(_NOT_A_DURATION.format(_show(value)))
    if not (0 <= seconds <= MAX_DURATION_S):
        raise Refused(f"{_show(value)} is out of range (allowed 0s to 100 years)")
    return value if isinstance(value, timedelta) else timedelta(seconds=seconds)


def _export_format(value: str) -> str:
    if value not in EXPORT_FORMATS:
        raise Refused(f"{_show(value)} is not a format orkas-tui exports to (allowed {', '.join(EXPORT_FORMATS)})")
    return value


Text = Annotated[str, _non_empty]
Phrases = tuple[Text, ...]
Regexes = Annotated[tuple[Text, ...], _regexes]
Weight = Annotated[float, Between(0.0, 10.0)]
Duration = timedelta  # read by _duration: seconds or "12h30m", 0 to 100 years

SIGNAL_NAMES = ("user_correction", "skill_ineffective", "error_recovery", "known_weakness", "complex_task")

DEFAULT_WEIGHTS = {
    "user_correction": 0.9,
    "skill_ineffective": 0.8,
    "error_recovery": 0.6,
    "known_weakness": 0.6,
    "complex_task": 0.5,
}

DEFAULT_CORRECTION_PHRASES = (
    # English
    "wrong",
    "actually",
    "instead",
    "that's not",
    "I meant",
    "should be",
    "try again",
    "not what I asked",
    "no, use",
    "don't do that",
    # Chinese
    "不对",
    "应该是",
    "重新",
    "错了",
    "不是这样",
    # Spanish
    "incorrecto",
    "en realidad",
    "debería ser",
    "en vez de",
    "otra vez",
    "eso no es",
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
    # a streamed reply cut off mid-way (Codex "stream disconnected before completion", httpx/h11
    # "incomplete chunked read", urllib3 "IncompleteRead", Node "Premature close")
    r"stream (?:was )?disconnected",
    r"\bstream error\b",
    r"incomplete chunked read",
    r"peer closed connection without sending complete message body",
    r"\bincomplete ?read\b",
    r"premature(?:ly)? close",
    r"response ended prematurely",
)

# Our own secret rules, on top of detect-secrets' plugins (see core/store/redact.py). When a
# pattern has a group named ``secret``, only that group is replaced; else the whole match.
# A credential-sounding name: one identifier, matched once (the look-ahead finds the word in it,
# the atomic group takes the whole identifier and never gives it back: linear time, no ReDoS).
_KEY = (
    r"(?<![\w.-])(?=[\w.-]{0,80}?(?:passw(?:or)?d|passwd|pwd|secret|token|api[_-]?key|apikey|access[_-]?key|"
    r"auth[_-]?key|private[_-]?key|account[_-]?key|credentials?|session[_-]?key|signing[_-]?key|encryption[_-]?key))"
    r"(?>[\w.-]{1,200})"
)
DEFAULT_REDACT_PATTERNS = (
    # key = value, key: value, "key": "value", key=value in a query string or an env file
    # (an unquoted value that is code is left: a dotted name, a CONSTANT, a call, a number, "...")
    r"(?i)[\"']?" + _KEY + r"[\"']?\]?[ \t]*+(?:=>|:=|=|:)[ \t]*+(?:[\"'](?P<secret>[^\"'\r\n]{3,})[\"']"
    r"|(?![\"'{\[(<$]|null\b|true\b|false\b|none\b|\.\.\.|\*\*\*|[\d.:]+(?:[\s,;)}\]]|$)"
    r"|[a-z_$][\w$]*(?:\.[a-z_$][\w$]*)+(?:[\s,;)}\]|<]|$)|[\w$.]+\(|(?-i:[A-Z][A-Z0-9]*_[A-Z0-9_]+)\b)"
    r"(?P<secret2>[^\s,;&\"'<>(){}\]]{3,}))",
    r"(?i)\b(?:passw(?:or)?d|passwd|pwd|pin|passcode)[\"']?[ \t]*+[=:][ \t]*+(?P<secret>\d{3,})\b",
    # YAML or JSON with the value on the next line, Kubernetes Secret data
    r"(?i)[\"']?" + _KEY + r"[\"']?[ \t]*+:[ \t]*+(?:[|>][-+]?[ \t]*+)?\r?\n[ \t]++(?P<secret>[^\s\"']{8,})",
    # secrets in connection URLs: scheme://user:password@host, scheme://:password@host
    r"(?i)\b[a-z][a-z0-9+.-]{1,20}://[^\s/:@\"']*:(?P<secret>[^\s/@\"']{1,200})@",
    # PEM and PGP private key blocks, also cut short (no END line)
    r"-----BEGIN[A-Z0-9 _-]{0,40}PRIVATE KEY(?: BLOCK)?-----(?:\s+[A-Za-z0-9+/=:,.-]+){0,2000}(?:\s*-----END[A-Z0-9 _-]{0,40}PRIVATE KEY(?: BLOCK)?-----)?",
    r"PuTTY-User-Key-File-\d+:[\s\S]{0,4000}?(?:Private-MAC: *[0-9a-f]+|\Z)",
    # CLI flags: mysql -pSECRET, --password SECRET, curl -u user:pass, sshpass -p SECRET
    r"(?<![\w-])(?:mysql|mysqldump|mariadb|mysqladmin)\b[^\n|;&]{0,200}?\s-p(?P<secret>[^\s'\"-][^\s'\"]{2,})",
    r"(?<![\w-])sshpass\s+-p\s*(?P<secret>\S{3,})",
    # (a flag's value holds a digit or a sign: "--token flag" in prose is not a secret, nor is "$TOKEN")
    r"(?i)(?<![\w-])--?(?:password|passwd|pass|token|api-key|secret|client-secret|auth-token)(?:=|\s+)[\"']?"
    r"(?P<secret>(?=[^\s\"']*[^A-Za-z\s\"'])[^\s\"'$-][^\s\"']{2,})",
    r"(?<![\w-])(?:-u|--user)(?:=|\s+)[\"']?[^\s:\"']{1,100}:(?P<secret>[^\s\"']{3,})",
    # HTTP authorization: Basic, Bearer, token schemes, and API-key headers
    r"(?i)\b(?:authorization|proxy-authorization)[\"']?\s*+[:=]\s*+[\"']?(?:(?:basic|bearer|token|digest|negotiate|apikey|sso-key)\s++)?(?P<secret>[A-Za-z0-9._~+/=:-]{8,})",
    r"(?i)\b(?:basic|bearer)\s+(?P<secret>[A-Za-z0-9._~+/-]{12,}=*)",
    r"(?i)\bx-(?:api-key|auth-token|access-token|apikey)[\"']?\s*[:=]\s*[\"']?(?P<secret>[A-Za-z0-9._~+/=-]{8,})",
    # Azure storage account keys and SAS signatures
    r"(?i)\bAccountKey=(?P<secret>[A-Za-z0-9+/=]{20,})",
    r"(?i)[?&]sig=(?P<secret>[A-Za-z0-9%+/=]{20,})",
    # webhooks with the secret in the path
    r"(?i)(?:\bhttps?://)?\bhooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/_-]{20,}",
    r"(?i)(?:\bhttps?://)?\b[a-z0-9-]+\.webhook\.office\.com/webhookb2/[^\s\"']+",
    r"(?i)(?:\bhttps?://)?\bdiscord(?:app)?\.com/api/webhooks/\d+/[A-Za-z0-9_-]{20,}",
    # JSON Web Tokens (also unsigned), and ones base64-encoded again
    r"\bey[A-Za-z0-9_-]{10,}\.ey[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_\-/+=]*",
    r"\bZXlK[A-Za-z0-9+/]{40,}={0,2}",
    # provider tokens with a distinctive shape (after gitleaks' rules)
    r"\b(?:sk-ant-(?:api|admin)\d\d-[\w-]{20,}|sk-(?:proj-|svcacct-|admin-|live-|test-)?[A-Za-z0-9_-]{20,})",
    r"\b(?:gh[pousr]_[A-Za-z0-9_]{30,}|github_pat_\w{30,})",
    r"\bgl(?:pat|dt|ft|soat|rt|cbt|imt|ptt|agent|oas|ffct)-[\w.-]{20,}|\bGR1348941[\w-]{20,}|\b_gitlab_session=\w{20,}",
    r"\b(?:xox[abposre]|xapp|xoxe\.xox[bp])-[A-Za-z0-9-]{10,}",
    r"\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA|AROA|AIDA|AGPA|ANPA|ANVA|APKA)[A-Z0-9]{16}\b|\bABSK[A-Za-z0-9+/]{100,}={0,2}",
    r"\bAIza[\w-]{35}|\bGOCSPX-[\w-]{20,}|\bya29\.[\w-]{20,}",
    r"\b[rsp]k_(?:live|test|prod)_[A-Za-z0-9]{10,}|\bwhsec_[A-Za-z0-9]{20,}",
    r"\bnpm_[A-Za-z0-9]{36}\b|//[^\s]{1,200}?/:_(?:authToken|auth|password)=\S+",
    r"\bSG\.[\w-]{20,}\.[\w-]{20,}|\bxkeysib-[a-f0-9]{64}-\w{16}",
    r"\b(?:hf|api_org)_[A-Za-z]{30,}\b",
    r"\b(?:SK|AC)[0-9a-fA-F]{32}\b",
    r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b",
    r"\bhv[sbr]\.[\w-]{20,}|\bs\.[A-Za-z0-9]{24}\b",
    r"\bpypi-AgE[\w-]{50,}|\brubygems_[a-f0-9]{48}\b|\bCLOJARS_[a-z0-9]{60}",
    r"\b(?:dop|doo|dor)_v1_[a-f0-9]{64}\b|\bdapi[a-f0-9]{32}(?:-\d)?\b|\bpul-[a-f0-9]{40}\b",
    r"\b(?:lin_api|pscale_(?:tkn|oauth|pw)|PMAK|pnu|rdme|ico|pplx|sntryu|ntn|glsa|glc|fo1|fm[12][ar]?|tfp|dt0c01|sm_[ap]at|sm_sat)[_.-][\w.=+/-]{16,}",
    r"\b(?:shippo_(?:live|test)|duffel_(?:live|test)|FLW(?:SECK|PUBK)_TEST|EZ[AT]K|HRKU-AA|AGE-SECRET-KEY-1|ops_eyJ|sha256~|tk-us-)[\w+/=-]{12,}",
    r"\b[A-Za-z0-9]{14}\.atlasv1\.[\w=-]{60,}|\bv1\.0-[a-f0-9]{24}-[a-f0-9]{100,}|\bA3-[A-Z0-9]{6}-[A-Z0-9-]{23,}",
    r"\b(?:EAA[MC][A-Za-z0-9]{100,}|EAAA[\w-]{22,60}|sq0(?:atp|csp)-[\w-]{22,})",
    r"\b(?:NRAK|NRII|NRJS)-[A-Za-z0-9-]{19,}|\bAPI-[A-Z0-9]{26}\b|\b[A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk\b",
    r"\bpat[A-Za-z0-9]{14}\.[a-f0-9]{64}\b|\bAKCp[A-Za-z0-9]{69}\b|\bcmVmd[A-Za-z0-9]{59}\b|\b4b1d[A-Za-z0-9]{38}\b",
    r"\b(?:LTAI|AQVN|YC)[A-Za-z0-9_-]{20,}|\bt1\.[\w-]+=*\.[\w-]{86}=*|\bp8e-[A-Za-z0-9]{32}",
    r"\b(?:pat|sat)\.[\w-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20}\b|\bdp\.pt\.[A-Za-z0-9]{43}|\bfio-u-[\w=-]{64}",
    r"\bs-s4t2(?:ud|af)-[a-f0-9]{64}|\b(?:sc|ext|scauth|authress)_[a-z0-9]{5,30}\.[a-z0-9]{4,6}\.acc[_-][\w-]{10,32}\.[\w+/=-]{30,}",
    r"\b[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34}",
    r"\b\d{8,10}:AA[\w-]{33}\b",
    r"\beyJrIjoi[A-Za-z0-9]{40,}={0,3}",
    r"(?i)<add\s+key=\\?\"(?:ClearText)?Password\\?\"\s+value=\\?\"(?P<secret>[^\"\\]{3,})",
    r"(?i)\bhttps?://[a-f0-9]{8}:[a-f0-9]{8}@",
)


class Checked:
    """Checks every field given to the constructor against its type and bounds (a default is
    trusted: it is written here, and a test checks it); a whole number given for a number
    becomes a float."""

    def __post_init__(self) -> None:
        for field in dataclasses.fields(self):  # type: ignore[arg-type]  # every subclass is a dataclass
            value = getattr(self, field.name)
            if value is field.default:
                continue
            try:
                checked = convert(field.type, value)
            except Refused as exc:
                raise ConfigError(f"{type(self).__name__}.{field.name}{exc.where}: {exc.reason}") from None
            if checked is not value:
                object.__setattr__(self, field.name, checked)


@dataclasses.dataclass(frozen=True)
class ScheduleSettings(Checked):
    """When the daemon reflects: how often, how long after the last reflection, how many agents a cycle."""

    cycle_interval: Annotated[Duration, AtLeast(timedelta(minutes=1))] = timedelta(hours=12, minutes=30)
    cooldown: Duration = timedelta(hours=4)
    force_after: Duration = timedelta(days=7)
    max_agents_per_cycle: Annotated[int, Between(1, 1_000)] = 5


@dataclasses.dataclass(frozen=True)
class BundleSettings(Checked):
    """What one reflection sends the model: its token budget, how much of each conversation, what is redacted."""

    max_tokens: Annotated[int, Between(500, 1_000_000)] = 12_000
    max_conversations: Annotated[int, Between(1, 1_000)] = 5
    tool_output_chars: Annotated[int, Between(40, 1_000_000)] = 600
    redact_patterns: Regexes = DEFAULT_REDACT_PATTERNS


@dataclasses.dataclass(frozen=True)
class ModelSettings(Checked):
    """The model a reflection calls through litellm, and how long and how often it is tried."""

    name: Text | None = None
    api_base: Text | None = None
    api_key_env: Text | None = None
    timeout_s: Annotated[float, Between(0.1, 86_400.0)] = 120.0
    max_retries: Annotated[int, Between(0, 20)] = 2
    retry_backoff_s: Annotated[float, Between(0.0, 3_600.0)] = 2.0


@dataclasses.dataclass(frozen=True)
class AgentLink(Checked):
    """``[agents.<id>]``: where a linked Claude Code or Codex reads what this agent learned.

    With ``export_skills`` set, every applied change is exported there at once
    (``export_memory``: the CLAUDE.md / AGENTS.md for the notes block; unset, the export's default).
    """

    format: Annotated[str, _export_format] = "claude-code"
    export_skills: Path | None = None
    export_memory: Path | None = None


@dataclasses.dataclass(frozen=True)
class Settings(Checked):
    """Every setting of ``orkas.toml``; ``source`` is the file read, ``warnings`` its unknown keys."""

    threshold: Annotated[float, Between(0.0, 50.0)] = 0.7
    weights: dict[str, Weight] = dataclasses.field(default_factory=lambda: dict(DEFAULT_WEIGHTS))
    complex_min_tool_calls: Annotated[int, Between(1, 10_000)] = 8
    max_line_bytes: Annotated[int, Between(1024, 1 << 40)] = (
        8 * 1024 * 1024
    )  # a longer conversation or events line is reported and skipped
    correction_phrases: Phrases = DEFAULT_CORRECTION_PHRASES
    transient_statuses: tuple[Annotated[int, Between(100, 599)], ...] = DEFAULT_TRANSIENT_STATUSES
    transient_patterns: Regexes = DEFAULT_TRANSIENT_PATTERNS
    max_skills: Annotated[int, Between(1, 10_000)] = 200
    max_skill_body_chars: Annotated[int, Between(100, 1_000_000)] = 20_000
    profile_cap: Annotated[int, Between(1, 100_000)] = 2_000
    strategies_cap: Annotated[int, Between(1, 100_000)] = 2_000
    auto_apply: bool = False
    effect_window: Annotated[int, Between(1, 10_000)] = 20  # turns before and after an applied change whose rates are compared
    schedule: ScheduleSettings = dataclasses.field(default_factory=ScheduleSettings)
    bundle: BundleSettings = dataclasses.field(default_factory=BundleSettings)
    model: ModelSettings = dataclasses.field(default_factory=ModelSettings)
    keys: dict[str, Text] = dataclasses.field(default_factory=dict)
    agents: dict[str, AgentLink] = dataclasses.field(default_factory=dict)
    theme: Text | None = None
    source: Path | None = None
    warnings: tuple[str, ...] = dataclasses.field(default=(), repr=False, compare=False)

    def note_cap(self, note: str) -> int:
        return self.profile_cap if note == "profile" else self.strategies_cap


# Each key of orkas.toml -> (model, field). "+" appends to what the plain key gives.
SECTIONS: dict[str, type[ScheduleSettings] | type[BundleSettings] | type[ModelSettings]] = {
    "schedule": ScheduleSettings,
    "bundle": BundleSettings,
    "model": ModelSettings,
}
LAYOUT: dict[str, str] = {
    "threshold": "threshold",
    "complex_min_tool_calls": "complex_min_tool_calls",
    "max_line_bytes": "max_line_bytes",
    "theme": "theme",
    **{f"weights.{name}": f"weights.{name}" for name in SIGNAL_NAMES},
    "corrections.phrases": "correction_phrases",
    "corrections.extra": "+correction_phrases",
    "transient.statuses": "transient_statuses",
    "transient.patterns": "transient_patterns",
    "transient.extra_patterns": "+transient_patterns",
    "schedule.cycle_interval": "schedule.cycle_interval",
    "schedule.cooldown": "schedule.cooldown",
    "schedule.force_after": "schedule.force_after",
    "schedule.max_agents_per_cycle": "schedule.max_agents_per_cycle",
    "skills.max_skills": "max_skills",
    "skills.max_body_chars": "max_skill_body_chars",
    "self.profile_cap": "profile_cap",
    "self.strategies_cap": "strategies_cap",
    "bundle.max_tokens": "bundle.max_tokens",
    "bundle.max_conversations": "bundle.max_conversations",
    "bundle.tool_output_chars": "bundle.tool_output_chars",
    "bundle.redact_patterns": "bundle.redact_patterns",
    "bundle.extra_redact_patterns": "+bundle.redact_patterns",
    "model.name": "model.name",
    "model.api_base": "model.api_base",
    "model.api_key_env": "model.api_key_env",
    "model.timeout_s": "model.timeout_s",
    "model.max_retries": "model.max_retries",
    "model.retry_backoff_s": "model.retry_backoff_s",
    "reflection.auto_apply": "auto_apply",
    "reflection.effect_window": "effect_window",
}
FREE_TABLES = {"keys"}  # any key name: each value is a key binding
AGENT_KEYS = [field.name for field in dataclasses.fields(AgentLink)]  # [agents.<id>]: one table per agent id
TABLES = sorted({key.split(".")[0] for key in LAYOUT if "." in key} | FREE_TABLES | {"agents"})
TOP_KEYS = sorted(key for key in LAYOUT if "." not in key)


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
    """Settings from a parsed ``orkas.toml``; unknown keys become warnings, bad values a ConfigError."""
    values: dict[str, Any] = {}
    extras: dict[str, Any] = {}
    warnings: list[str] = []
    for key, value in data.items():
        if key in TABLES:
            if not isinstance(value, dict):
                raise ConfigError(f"{path}: {key}: must be a table ([{key}]), not {_show(value)}")
            if key == "agents":
                values[key] = {name: _agent_link(path, name, item, warnings) for name, item in value.items()}
                continue
            for name, item in value.items():
                dotted = f"{key}.{name}"
                if key in FREE_TABLES:
                    values[dotted] = _check(path, dotted, Text, item)
                elif dotted in LAYOUT:
                    _take(path, dotted, item, values, extras)
                else:
                    known = [k.split(".", 1)[1] for k in LAYOUT if k.startswith(key + ".")]
                    warnings.append(_unknown(path, f"key {dotted}", name, known, f"{key}."))
        elif key in LAYOUT:
            _take(path, key, value, values, extras)
        else:
            candidates = TOP_KEYS + [f"[{t}]" for t in TABLES]
            what = f"table [{key}]" if isinstance(value, dict) else f"key {key}"
            warnings.append(_unknown(path, what, f"[{key}]" if isinstance(value, dict) else key, candidates))
    return _build(values, extras, path, tuple(warnings))


def _agent_link(path: Path, agent: str, table: Any, warnings: list[str]) -> AgentLink:
    """One ``[agents.<id>]`` table: the id must be an agent's, the values checked, unknown keys warned."""
    where = f"agents.{agent}"
    if not AGENT_ID.match(agent):
        raise ConfigError(
            f"{path}: [{where}]: {agent!r} is not a valid agent id (lowercase letters, digits, '-' and '_', 1-64 chars)"
        )
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: {where}: must be a table ([{where}]), not {_show(table)}")
    fields: dict[str, Any] = {}
    for name, item in table.items():
        if name in AGENT_KEYS:
            kind = next(field.type for field in dataclasses.fields(AgentLink) if field.name == name)
            fields[name] = _check(path, f"{where}.{name}", kind, item)
        else:
            warnings.append(_unknown(path, f"key {where}.{name}", name, AGENT_KEYS, f"{where}."))
    return AgentLink(**fields)


def _take(path: Path, key: str, value: Any, values: dict[str, Any], extras: dict[str, Any]) -> None:
    target = LAYOUT[key]
    checked = _check(path, key, _field_type(target.lstrip("+")), _as_tuple(value))
    (extras if target.startswith("+") else values)[key] = checked


def _build(values: dict[str, Any], extras: dict[str, Any], path: Path, warnings: tuple[str, ...]) -> Settings:
    fields: dict[str, Any] = {"weights": dict(DEFAULT_WEIGHTS), "keys": {}, "agents": values.pop("agents", {})}
    sections: dict[str, dict[str, Any]] = {name: {} for name in SECTIONS}
    for key, value in values.items():
        target = LAYOUT.get(key, key)
        head, _, rest = target.partition(".")
        if head in ("weights", "keys"):
            fields[head][rest] = value
        elif head in SECTIONS:
            sections[head][rest] = value
        else:
            fields[target] = value
    for key, value in extras.items():
        head, _, rest = LAYOUT[key].lstrip("+").partition(".")
        if head in SECTIONS:
            base = sections[head].get(rest, getattr(SECTIONS[head](), rest))
            sections[head][rest] = base + value
        else:
            fields[head] = fields.get(head, getattr(Settings(), head)) + value
    return Settings(
        **fields,
        schedule=ScheduleSettings(**sections["schedule"]),
        bundle=BundleSettings(**sections["bundle"]),
        model=ModelSettings(**sections["model"]),
        source=path,
        warnings=warnings,
    )


def _check(path: Path, key: str, kind: Any, value: Any) -> Any:
    try:
        return convert(kind, value)
    except Refused as exc:
        raise ConfigError(f"{path}: {key}{exc.where}: {exc.reason}") from None


TYPE_WORDS: dict[Any, str] = {
    bool: "true or false",
    int: "a whole number",
    float: "a number",
    str: "text",
    tuple: "a list",
    dict: "a table",
    Path: "a path",
}


def convert(kind: Any, value: Any) -> Any:
    """``value`` as the field type ``kind`` says, its bounds checked, or :class:`Refused`.

    Strict, as TOML gives types: no text is read as a number, no number as true or false;
    only a whole number is taken where a number is expected (and becomes a float).
    """
    origin = get_origin(kind)
    if origin is Annotated:
        base, *checks = get_args(kind)
        value = convert(base, value)
        for check in checks:
            value = check(value)
        return value
    if origin is Union or origin is types.UnionType:
        arms = [arm for arm in get_args(kind) if arm is not type(None)]
        if value is None and len(arms) < len(get_args(kind)):
            return None
        (arm,) = arms  # only "X | None" is written above
        return convert(arm, value)
    if origin is tuple:
        _expect(tuple, value)
        (item, _) = get_args(kind)  # tuple[X, ...]
        return tuple(_item(f"[{index}]", item, element) for index, element in enumerate(value))
    if origin is dict:
        _expect(dict, value)
        key_kind, item = get_args(kind)
        return {convert(key_kind, name): _item("", item, element) for name, element in value.items()}
    if kind is timedelta:
        return _duration(value)
    if kind is Path and isinstance(value, (str, Path)) and str(value):
        return Path(value).expanduser()  # "~/.claude/skills" is the user's
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        try:
            return float(value)
        except OverflowError:  # a whole number too large for a float
            pass
    _expect(kind, value)
    return value


def _expect(kind: type, value: Any) -> None:
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        raise Refused(f"must be {TYPE_WORDS.get(kind, kind.__name__)}, not {_show(value)}")  # a section: its class


def _item(where: str, kind: Any, value: Any) -> Any:
    try:
        return convert(kind, value)
    except Refused as exc:
        raise Refused(exc.reason, where + exc.where) from None


def _field_type(target: str) -> Any:
    head, _, rest = target.partition(".")
    if head == "weights":
        return Weight
    model, name = (SECTIONS[head], rest) if head in SECTIONS else (Settings, head)
    return next(field.type for field in dataclasses.fields(model) if field.name == name)


def _as_tuple(value: Any) -> Any:
    return tuple(value) if isinstance(value, list) else value


def _unknown(path: Path, what: str, name: str, candidates: list[str], prefix: str = "") -> str:
    guess = difflib.get_close_matches(name, candidates, n=1, cutoff=0.6)
    hint = f" (did you mean {prefix}{guess[0]}?)" if guess else ""
    return f"{path}: unknown {what}{hint}; ignored"


def _show(value: Any) -> str:
    if isinstance(value, timedelta):
        return _human(value)
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _human(delta: timedelta) -> str:
    seconds = int(delta.total_seconds())
    return f"{seconds // 60}m" if seconds % 60 == 0 and seconds else f"{seconds}s"
