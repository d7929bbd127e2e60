"""Typed settings read from ``orkas.toml``: every key, its default and its allowed range, here once.

The settings are frozen msgspec Structs, the type the rest of the core already decodes
with: a field's type carries its bounds (``Annotated[int, Meta(ge=1, le=1_000)]``) and
one ``msgspec.convert`` checks the whole file, whole numbers of any size included. The
file's tables are not the Structs' shape (``[skills] max_skills`` fills
``Settings.max_skills``, ``[corrections] extra`` appends): ``LAYOUT`` maps each key of the
file to the field it fills. Reading a file:

- an unknown key or table becomes a warning with a "did you mean", returned beside the
  settings (never part of their equality), and the rest still loads (the command line
  prints the warnings on stderr);
- a value of the wrong type, or outside its range, raises :class:`ConfigError`: one line
  naming the file, the key (``bundle.max_tokens``), the value and what is allowed.

``Settings(...)`` in code is not checked: mypy checks its types, and a test checks that
every default is within its bounds.
"""

import os
import re
import tomllib
from datetime import timedelta
from functools import cache
from pathlib import Path
from types import UnionType
from typing import Annotated, Any, Literal, Union, get_args, get_origin

import msgspec
from msgspec import Meta

from orkas_tui.core.disk.confine import open_regular
from orkas_tui.core.errors import OrkasError

MAX_DURATION_S = 100 * 365 * 86400  # adding it to any time never overflows the calendar
AGENT_ID = re.compile(r"^[a-z0-9_-]{1,64}$")  # an agent's folder name; here so [agents.<id>] is checked with it


class ConfigError(OrkasError, ValueError):
    """A setting in ``orkas.toml`` has a value the program cannot use."""


class Duration(timedelta):
    """Seconds (a number) or a text like ``"12h30m"``, ``"4h"``, ``"7d"``, from ``LEAST`` to 100 years."""

    LEAST = timedelta(0)


class Interval(Duration):
    """The daemon's cycle: a duration of at least a minute."""

    LEAST = timedelta(minutes=1)


class Pattern(str):
    """A regular expression: it must compile."""

    __slots__ = ()


Text = Annotated[str, Meta(min_length=1)]
Phrases = tuple[Text, ...]
Patterns = tuple[Pattern, ...]
Weight = Annotated[float, Meta(ge=0.0, le=10.0)]
ExportFormat = Literal["claude-code", "codex"]

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
    # RevenueCat's secret API key (typed bare into a real prompt): sk_ and 29 letters, upper and lower case mixed
    r"\bsk_(?=[A-Za-z0-9]{0,40}?[A-Z])(?=[A-Za-z0-9]{0,40}?[a-z])[A-Za-z0-9]{24,40}\b",
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


def _patterns(texts: tuple[str, ...]) -> Patterns:
    return tuple(map(Pattern, texts))


class ScheduleSettings(msgspec.Struct, frozen=True):
    """When the daemon reflects: how often, how long after the last reflection, how many agents a cycle."""

    cycle_interval: Interval = Interval(hours=12, minutes=30)
    cooldown: Duration = Duration(hours=4)
    force_after: Duration = Duration(days=7)
    max_agents_per_cycle: Annotated[int, Meta(ge=1, le=1_000)] = 5


class BundleSettings(msgspec.Struct, frozen=True):
    """What one reflection sends the model: its token budget, how much of each conversation, what is redacted."""

    max_tokens: Annotated[int, Meta(ge=500, le=1_000_000)] = 12_000
    max_conversations: Annotated[int, Meta(ge=1, le=1_000)] = 5
    tool_output_chars: Annotated[int, Meta(ge=40, le=1_000_000)] = 600
    redact_patterns: Patterns = _patterns(DEFAULT_REDACT_PATTERNS)


class ModelSettings(msgspec.Struct, frozen=True):
    """The model a reflection calls through litellm, and how long and how often it is tried."""

    name: Text | None = None
    api_base: Text | None = None
    api_key_env: Text | None = None
    timeout_s: Annotated[float, Meta(ge=0.1, le=86_400.0)] = 120.0
    max_retries: Annotated[int, Meta(ge=0, le=20)] = 2
    retry_backoff_s: Annotated[float, Meta(ge=0.0, le=3_600.0)] = 2.0
    # the most reflections may spend in one local day, in US dollars (litellm's price map); None: no cap
    daily_budget_usd: Annotated[float, Meta(ge=0.0, le=1_000_000.0)] | None = None


class AgentLink(msgspec.Struct, frozen=True):
    """``[agents.<id>]``: where a linked Claude Code or Codex reads what this agent learned.

    With ``export_skills`` set, every applied change is exported there at once
    (``export_memory``: the CLAUDE.md / AGENTS.md for the notes block; unset, the export's default).
    """

    format: ExportFormat = "claude-code"
    export_skills: Path | None = None
    export_memory: Path | None = None


class Settings(msgspec.Struct, frozen=True):
    """Every setting of ``orkas.toml``; ``source`` is the file read."""

    threshold: Annotated[float, Meta(ge=0.0, le=50.0)] = 0.7
    weights: dict[str, Weight] = msgspec.field(default_factory=lambda: dict(DEFAULT_WEIGHTS))
    complex_min_tool_calls: Annotated[int, Meta(ge=1, le=10_000)] = 8
    max_line_bytes: Annotated[int, Meta(ge=1024, le=1 << 40)] = (
        8 * 1024 * 1024
    )  # a longer conversation or events line is reported and skipped
    correction_phrases: Phrases = DEFAULT_CORRECTION_PHRASES
    transient_statuses: tuple[Annotated[int, Meta(ge=100, le=599)], ...] = DEFAULT_TRANSIENT_STATUSES
    transient_patterns: Patterns = _patterns(DEFAULT_TRANSIENT_PATTERNS)
    max_skills: Annotated[int, Meta(ge=1, le=10_000)] = 200
    max_skill_body_chars: Annotated[int, Meta(ge=100, le=1_000_000)] = 20_000
    # turns that must have shown a skill before its rates flag it (fewer: "too new to judge")
    judge_after: Annotated[int, Meta(ge=1, le=10_000)] = 10
    profile_cap: Annotated[int, Meta(ge=1, le=100_000)] = 2_000
    strategies_cap: Annotated[int, Meta(ge=1, le=100_000)] = 2_000
    auto_apply: bool = False
    # the turns before and after an applied change whose rates are compared
    effect_window: Annotated[int, Meta(ge=1, le=10_000)] = 20
    # characters of skill names and descriptions each agent lists to its model; beyond them it drops skills
    listing_chars_claude_code: Annotated[int, Meta(ge=100, le=1_000_000)] = 8_000
    listing_chars_codex: Annotated[int, Meta(ge=100, le=1_000_000)] = 8_000
    # a skill scoped to a repository is exported into it; unless true, its paths go in .git/info/exclude
    commit_scoped_skills: bool = False
    schedule: ScheduleSettings = msgspec.field(default_factory=ScheduleSettings)
    bundle: BundleSettings = msgspec.field(default_factory=BundleSettings)
    model: ModelSettings = msgspec.field(default_factory=ModelSettings)
    keys: dict[str, Text] = msgspec.field(default_factory=dict)
    agents: dict[str, AgentLink] = msgspec.field(default_factory=dict)
    theme: Text | None = None
    source: Path | None = None

    def note_cap(self, note: str) -> int:
        return self.profile_cap if note == "profile" else self.strategies_cap

    def listing_chars(self, target: str) -> int:
        """The listing budget of an export ``target`` (``claude-code`` or ``codex``)."""
        return self.listing_chars_codex if target == "codex" else self.listing_chars_claude_code


# Each key of orkas.toml -> the field it fills (dotted: inside a section). "+" appends to what the plain key gives.
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
    "skills.judge_after": "judge_after",
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
    "model.daily_budget_usd": "model.daily_budget_usd",
    "reflection.auto_apply": "auto_apply",
    "reflection.effect_window": "effect_window",
    "export.listing_chars_claude_code": "listing_chars_claude_code",
    "export.listing_chars_codex": "listing_chars_codex",
    "export.commit_scoped_skills": "commit_scoped_skills",
}
KEY_OF = {field: key for key, field in LAYOUT.items() if not field.startswith("+")}  # a refused field's key in the file
FREE_TABLES = {"keys"}  # any key name: each value is a key binding
AGENT_KEYS = list(AgentLink.__struct_fields__)  # [agents.<id>]: one table per agent id
TABLES = sorted({key.split(".")[0] for key in LAYOUT if "." in key} | FREE_TABLES | {"agents"})
TOP_KEYS = sorted(key for key in LAYOUT if "." not in key)


SETTINGS_NAME = "orkas.toml"  # the workspace's settings, at its root


def settings_path(root: Path) -> Path:
    """The settings file of the workspace at ``root``: :attr:`~orkas_tui.core.read.workspace.Workspace.settings_path`,
    for a caller that has only the root."""
    return root / SETTINGS_NAME


def load_settings(root: Path) -> Settings:
    """The settings of ``<root>/orkas.toml``, for a caller that shows no warnings (see :func:`read_settings`)."""
    return read_settings(root)[0]


def read_settings(root: Path) -> tuple[Settings, tuple[str, ...]]:
    """Read ``<root>/orkas.toml`` (a missing file means all defaults): its settings and its warnings."""
    path = settings_path(root)
    try:
        with open_regular(os.path.realpath(path)) as handle:  # a link (dotfiles) is followed; a FIFO is refused
            raw = handle.read()
    except FileNotFoundError:
        return Settings(), ()
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read ({exc.strerror})") from exc
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc})") from exc
    return parse_settings(data, path)


def parse_settings(data: dict[str, Any], path: Path) -> tuple[Settings, tuple[str, ...]]:
    """Settings from a parsed ``orkas.toml`` and a warning for each unknown key; a bad value raises ConfigError.

    The file is laid out in the Structs' shape (``LAYOUT``) and converted at once; each "+" key
    is converted on its own and appended.
    """
    shaped: dict[str, Any] = {"source": path}
    extras: dict[str, Any] = {}
    warnings: list[str] = []
    for key, value in data.items():
        if key in TABLES:
            if not isinstance(value, dict):
                raise ConfigError(f"{path}: {key}: must be a table ([{key}]), not {_show(value)}")
            if key == "agents":
                shaped[key] = {name: _agent_table(path, name, item, warnings) for name, item in value.items()}
            elif key in FREE_TABLES:
                shaped[key] = value
            else:
                for name, item in value.items():
                    if f"{key}.{name}" in LAYOUT:
                        _place(f"{key}.{name}", item, shaped, extras)
                    else:
                        known = [k.split(".", 1)[1] for k in LAYOUT if k.startswith(key + ".")]
                        warnings.append(_unknown(path, f"key {key}.{name}", name, known, f"{key}."))
        elif key in LAYOUT:
            _place(key, value, shaped, extras)
        else:
            candidates = TOP_KEYS + [f"[{t}]" for t in TABLES]
            what = f"table [{key}]" if isinstance(value, dict) else f"key {key}"
            warnings.append(_unknown(path, what, f"[{key}]" if isinstance(value, dict) else key, candidates))
    if "weights" in shaped:  # [weights] names only the signals it changes
        shaped["weights"] = {**DEFAULT_WEIGHTS, **shaped["weights"]}
    settings = _checked(shaped, Settings, path, "")
    for key, value in extras.items():
        field = LAYOUT[key].lstrip("+")
        settings = _appended(settings, field, _checked(value, _field_type(Settings, field), path, key))
    return settings, tuple(warnings)


def _agent_table(path: Path, agent: str, table: Any, warnings: list[str]) -> dict[str, Any]:
    """One ``[agents.<id>]`` table: the id must be an agent's; unknown keys are warned and left out."""
    where = f"agents.{agent}"
    if not AGENT_ID.match(agent):
        raise ConfigError(
            f"{path}: [{where}]: {agent!r} is not a valid agent id (lowercase letters, digits, '-' and '_', 1-64 chars)"
        )
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: {where}: must be a table ([{where}]), not {_show(table)}")
    for name in table:
        if name not in AGENT_KEYS:
            warnings.append(_unknown(path, f"key {where}.{name}", name, AGENT_KEYS, f"{where}."))
    return {name: item for name, item in table.items() if name in AGENT_KEYS}


def _place(key: str, value: Any, shaped: dict[str, Any], extras: dict[str, Any]) -> None:
    """Put the value of the file's ``key`` where ``LAYOUT`` says; a "+" key waits in ``extras``."""
    field = LAYOUT[key]
    if field.startswith("+"):
        extras[key] = value
        return
    *sections, name = field.split(".")
    for section in sections:
        shaped = shaped.setdefault(section, {})
    shaped[name] = value


def _checked(value: Any, kind: Any, path: Path, key: str) -> Any:
    """``value`` converted to ``kind``, or a ConfigError naming the file and the key (``key``: the one
    ``value`` is under; empty for the whole file)."""
    try:
        return convert(value, kind)
    except msgspec.ValidationError as exc:
        steps, reason = _refused(exc, value, kind)
        names = ".".join(step for step in steps if not step.startswith("["))
        where = key or KEY_OF.get(names, names)
        raise ConfigError(f"{path}: {where}{''.join(s for s in steps if s.startswith('['))}: {reason}") from None


def convert(value: Any, kind: Any) -> Any:
    """``value`` (as TOML gives it) as the type ``kind``, its bounds checked; else msgspec's ValidationError.

    Strict, as TOML gives types: no text is read as a number, no number as true or false;
    only a whole number is taken where a number is expected (and becomes a float).
    """
    return msgspec.convert(value, kind, dec_hook=_decode)


def _appended(struct: Any, field: str, extra: tuple[Any, ...]) -> Any:
    head, _, rest = field.partition(".")
    current = getattr(struct, head)
    return msgspec.structs.replace(struct, **{head: _appended(current, rest, extra) if rest else current + extra})


@cache  # msgspec.structs.fields evaluates the annotations at each call
def _field_type(model: Any, field: str) -> Any:
    head, _, rest = field.partition(".")
    kind = next(info.type for info in msgspec.structs.fields(model) if info.name == head)
    return _field_type(kind, rest) if rest else kind


_DURATION_PART = re.compile(r"(\d+(?:\.\d+)?)\s*([dhms])", re.IGNORECASE)
_UNIT_SECONDS = {"d": 86400, "h": 3600, "m": 60, "s": 1}
_NOT_A_DURATION = 'must be a duration like "12h30m", "4h", "7d" or seconds, not {}'


def _decode(kind: type, value: Any) -> Any:
    """msgspec's hook for the types it does not know: durations, regular expressions and paths."""
    if issubclass(kind, Duration):
        return _duration(kind, value)
    if kind is Pattern:
        if not isinstance(value, str):
            raise TypeError(f"must be text, not {_show(value)}")
        if not value:
            raise ValueError("must not be empty")
        try:
            re.compile(value)
        except re.error as exc:
            raise ValueError(f"{_show(value)} is not a valid regular expression ({exc})") from None
        return Pattern(value)
    if kind is Path:
        if not isinstance(value, (str, Path)) or not str(value):
            raise TypeError(f"must be a path, not {_show(value)}")
        try:
            return Path(value).expanduser()  # "~/.claude/skills" is the user's
        except RuntimeError:  # "~someone" who has no home here
            raise ValueError(f"{_show(value)}: no home directory for its ~") from None
    raise NotImplementedError


def _duration(kind: type[Duration], value: Any) -> Duration:
    """Seconds (a number) or a text like ``"12h30m"``, from ``kind.LEAST`` to 100 years."""
    if isinstance(value, str):
        text, seconds, pos = value.replace(" ", ""), 0.0, 0
        for match in _DURATION_PART.finditer(text):
            if match.start() != pos:
                break
            seconds += float(match.group(1)) * _UNIT_SECONDS[match.group(2).lower()]
            pos = match.end()
        if not text or pos != len(text):
            raise ValueError(_NOT_A_DURATION.format(_show(value)))
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        seconds = value
    else:
        raise TypeError(_NOT_A_DURATION.format(_show(value)))
    if not (kind.LEAST.total_seconds() <= seconds <= MAX_DURATION_S):  # also refuses NaN
        raise ValueError(f"{_show(value)} is out of range (allowed {_human(kind.LEAST)} to 100 years)")
    return kind(seconds=seconds)


_STEP = re.compile(r"\.(\w+)|\[(\d+|\.\.\.)\]")  # msgspec's path: ".field", "[index]", "[...]" (a table's value)
_OUT_OF_RANGE = re.compile(r"Expected `\w+` [<>]=|Number out of range")
_WORDS = {
    "int": "a whole number",
    "float": "a number",
    "str": "text",
    "bool": "true or false",
    "array": "a list",
    "object": "a table",
}


def _refused(error: msgspec.ValidationError, value: Any, kind: Any) -> tuple[list[str], str]:
    """Where inside ``value`` msgspec refused it (``["bundle", "max_tokens"]``, ``["transient_statuses", "[1]"]``)
    and why, in the words docs/rules.md uses: the value, and what is allowed."""
    message, at, path = str(error).rpartition(" - at `$")
    if not at:  # refused as a whole (a "+" key's value)
        message, path = path, ""
    steps: list[str] = []
    for name, index in _STEP.findall(path):
        kind = _bare(kind)
        if name:
            kind = _field_type(kind, name)
        elif index == "...":  # msgspec does not say which key of a table: the first whose value is refused
            kind = get_args(kind)[1]
            name = next(key for key, item in value.items() if not _valid(item, kind))
        else:
            kind = get_args(kind)[0]
        value = value[int(index)] if index.isdigit() else value[name]
        steps.append(f"[{index}]" if index.isdigit() else name)
    if message.startswith("Expected `") and ", got `" in message:
        expected = message.split("`")[1].split(" | ")[0]
        return steps, f"must be {_WORDS.get(expected, expected)}, not {_show(value)}"
    if message.startswith("Expected `str` of length >= 1"):
        return steps, "must not be empty"
    if message.startswith("Invalid enum value"):
        return steps, f"must be one of {', '.join(get_args(_bare(kind)))}, not {_show(value)}"
    if _OUT_OF_RANGE.match(message):
        bounded = next(arg for arg in (kind, *get_args(kind)) if get_origin(arg) is Annotated)  # also under ``| None``
        low, high = next((arg.ge, arg.le) for arg in get_args(bounded)[1:] if isinstance(arg, msgspec.Meta))
        assert low is not None and high is not None  # every number here has both bounds
        return steps, f"{_show(value)} is out of range (allowed {_number(low)} to {_number(high)})"
    return steps, message  # _decode's own words


def _valid(value: Any, kind: Any) -> bool:
    try:
        convert(value, kind)
    except msgspec.ValidationError:
        return False
    return True


def _bare(kind: Any) -> Any:
    """``kind`` without its bounds and without ``| None``: the type a step of a path goes into."""
    while get_origin(kind) in (Annotated, Union, UnionType):
        kind = next(arg for arg in get_args(kind) if arg is not type(None))
    return kind


def _number(value: float) -> str:
    return f"{int(value):,}" if float(value).is_integer() else f"{value:,}"


def _unknown(path: Path, what: str, name: str, candidates: list[str], prefix: str = "") -> str:
    import difflib  # only when a key is unknown

    guess = difflib.get_close_matches(name, candidates, n=1, cutoff=0.6)
    hint = f" (did you mean {prefix}{guess[0]}?)" if guess else ""
    return f"{path}: unknown {what}{hint}; ignored"


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _human(delta: timedelta) -> str:
    seconds = int(delta.total_seconds())
    return f"{seconds // 60}m" if seconds % 60 == 0 and seconds else f"{seconds}s"
