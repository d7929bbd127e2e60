"""Secrets never leave the machine: redact them before anything is counted, shown or sent.

Three sources of rules, one span list per text:

- **detect-secrets' plugins** (a maintained rule set): the regular expressions of every
  regex-based plugin and the keyword plugin's assignment forms. Only their patterns
  are used; their ``verify`` methods, which would call the providers' APIs, never run.
  Public IP addresses are not secrets, so that plugin is left out.
- **our own patterns** (``[bundle] redact_patterns``, defaults in ``core/read/settings.py``) for what
  the plugins miss: connection URLs, PEM and PGP blocks cut short, JSON and YAML key
  forms, CLI flags, authorization headers, webhooks and many providers' token shapes.
- **a high-entropy value next to a key that sounds like a credential**
  (``MY_SERVICE_KEY=9fQ2...``), scored with detect-secrets' Shannon entropy.

Tool arguments and much tool output are JSON, whose escapes (``\\n``, ``\\"``) break
patterns: a text holding escapes is also scanned as its unescaped form, and what is
found there is mapped back and replaced in the text as it is.
"""

from __future__ import annotations

import bisect
import re
from functools import lru_cache

MARK = "[REDACTED]"

_ESCAPE = re.compile(r'\\(?:u[0-9a-fA-F]{4}|["\\/bfnrt])')
_ESCAPED = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", '"': '"', "\\": "\\", "/": "/"}

# a value that is high in entropy, beside a key that sounds like a credential but is not sure to be one
_WEAK_KEY = re.compile(
    r"(?i)[\"']?(?<![\w.-])(?=[\w.-]{0,80}?(?:key|auth|access|cred|sig|salt|seed|cookie|session|bearer))(?>[\w.-]{1,200})"
    r"[\"']?[ \t]*+(?:=>|:=|=|:)[ \t]*+[\"'`]?"
    r"(?![0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b)"  # a UUID is an identifier
    r"(?P<secret>(?=[^\s\"'`]*\d)(?![A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+\b)[A-Za-z0-9+/=_.~-]{16,})"
)
_EDGE = frozenset(" \t\r\n\"'=:`")
_WEAK_NEEDLES = ("key", "auth", "access", "cred", "sig", "salt", "seed", "cookie", "session", "bearer")
MIN_ENTROPY = 3.5  # bits per character, as gitleaks' generic rule; English words and paths score lower
_LINE = re.compile(r"[^\n]+")
MAX_KEYWORD_LINE = 500  # longer lines are left to our own key rules, which are linear


class Redactor:
    """Replaces every secret found in a text with :data:`MARK` and counts the replacements."""

    def __init__(self, patterns: tuple[str, ...]) -> None:
        self._patterns = _compiled(patterns)
        self.count = 0

    def __call__(self, text: str) -> str:
        spans = self.spans(text)
        if not spans:
            return text
        self.count += len(spans)
        out, last = [], 0
        for start, end in spans:
            out += [text[last:start], MARK]
            last = end
        out.append(text[last:])
        return "".join(out)

    def finds(self, text: str) -> bool:
        """Whether the text holds anything that would be redacted."""
        return bool(self.spans(text))

    def spans(self, text: str) -> list[tuple[int, int]]:
        """The merged ``(start, end)`` spans of every secret in ``text``, in order."""
        found = _scan(text, self._patterns)
        if "\\" in text:
            plain, back = _unescape(text)
            if back:
                found += [back.span(start, end) for start, end in _scan(plain, self._patterns)]
        return _merge(found, text)


def _scan(text: str, patterns: tuple[re.Pattern, ...]) -> list[tuple[int, int]]:
    found: list[tuple[int, int]] = []
    lower = text.lower()
    rules = _with_needles(patterns) + _with_needles(_plugin_patterns())
    present = {needle for needle in _all_needles(rules) if needle in lower}  # one pass over the needles, not one per rule
    for pattern, needles in rules:
        if needles is not None and present.isdisjoint(needles):
            continue
        for match in pattern.finditer(text):
            found.append(_secret_span(match))
    keyword = _with_needles(_keyword_patterns())
    if any(not present.isdisjoint(needles or ()) for _, needles in keyword):
        for line in _LINE.finditer(text):  # the keyword plugin is made for lines of code: polynomial on long ones
            if line.end() - line.start() <= MAX_KEYWORD_LINE:
                for pattern, _ in keyword:
                    found += [_secret_span(match) for match in pattern.finditer(text, line.start(), line.end())]
    if not present.isdisjoint(_WEAK_NEEDLES):
        for match in _WEAK_KEY.finditer(text):
            if _entropy(match.group("secret")) >= MIN_ENTROPY:
                found.append(match.span("secret"))
    return found


@lru_cache(maxsize=16)
def _all_needles(rules: tuple[tuple[re.Pattern, tuple[str, ...] | None], ...]) -> tuple[str, ...]:
    keyword = {needle for _, needles in _with_needles(_keyword_patterns()) for needle in needles or ()}
    return tuple({needle for _, needles in rules for needle in needles or ()} | keyword | set(_WEAK_NEEDLES))


@lru_cache(maxsize=16)
def _with_needles(patterns: tuple[re.Pattern, ...]) -> tuple[tuple[re.Pattern, tuple[str, ...] | None], ...]:
    return tuple((pattern, _required(pattern)) for pattern in patterns)


def _secret_span(match: re.Match) -> tuple[int, int]:
    """The part to replace: the group named ``secret`` (or ``secret2``), else the first group that matched, else all."""
    groups = match.groupdict()
    for name in ("secret", "secret2"):
        if groups.get(name) is not None:
            return match.span(name)
    if not groups:
        for index in range(1, (match.re.groups or 0) + 1):
            if match.group(index):
                return match.span(index)
    start, end = match.span()
    text = match.string
    while start < end and text[start] in _EDGE:  # plugins match the space or quote around a token
        start += 1
    while end > start and text[end - 1] in _EDGE:
        end -= 1
    return start, end


def _merge(spans: list[tuple[int, int]], text: str) -> list[tuple[int, int]]:
    merged: list[list[int]] = []
    for start, end in sorted(spans):
        if end <= start or text[start:end] == MARK:
            continue
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return [(start, end) for start, end in merged]


class _Back:
    """Maps positions in an unescaped text back to the escaped text it came from."""

    def __init__(self) -> None:
        self.plain: list[int] = []  # where each escape's character sits in the unescaped text
        self.escaped: list[int] = []  # where that escape starts in the escaped text
        self.width: list[int] = []  # its length there (2 or 6)

    def _at(self, position: int, end: bool) -> int:
        i = bisect.bisect_right(self.plain, position) - 1
        if i < 0:
            return position
        if self.plain[i] == position:  # inside an escape: take all of it
            return self.escaped[i] + (self.width[i] if end else 0)
        return self.escaped[i] + self.width[i] + (position - self.plain[i] - 1)

    def span(self, start: int, end: int) -> tuple[int, int]:
        return self._at(start, False), self._at(end - 1, True) + (0 if self._is_escape(end - 1) else 1)

    def _is_escape(self, position: int) -> bool:
        i = bisect.bisect_left(self.plain, position)
        return i < len(self.plain) and self.plain[i] == position


def _unescape(text: str) -> tuple[str, _Back | None]:
    """``text`` with its JSON string escapes decoded, and the way back (``None`` when it has none)."""
    back = _Back()
    out: list[str] = []
    last = length = 0
    for match in _ESCAPE.finditer(text):
        piece = text[last : match.start()]
        out.append(piece)
        length += len(piece)
        code = match.group()[1:]
        out.append(chr(int(code[1:], 16)) if code[0] == "u" else _ESCAPED[code])
        back.plain.append(length)
        back.escaped.append(match.start())
        back.width.append(match.end() - match.start())
        length += 1
        last = match.end()
    if not back.plain:
        return text, None
    out.append(text[last:])
    return "".join(out), back


@lru_cache(maxsize=8)
def _compiled(patterns: tuple[str, ...]) -> tuple[re.Pattern, ...]:
    return tuple(re.compile(p) for p in patterns)


@lru_cache(maxsize=1)
def _plugin_patterns() -> tuple[re.Pattern, ...]:
    """The regular expressions of detect-secrets' plugins (imported on first use: it takes ~0.2 s)."""
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
    from detect_secrets.plugins.base import RegexBasedDetector
    from detect_secrets.plugins.ip_public import IPPublicDetector

    patterns: list[re.Pattern] = []
    classes: list[type] = list(get_mapping_from_secret_type_to_class().values())
    for plugin in classes:
        if issubclass(plugin, RegexBasedDetector) and plugin is not IPPublicDetector:
            # each plugin class sets denylist to a tuple; detect-secrets types it as an instance property
            denylist: tuple[re.Pattern, ...] = getattr(plugin, "denylist", ())
            patterns += [_linear(regex) for regex in denylist]
    return tuple(dict.fromkeys(patterns))


# Rewrites that make plugin patterns linear. As written, ``(?: *)(?:=|...| +|::)(?: *)`` (the
# assignment patterns) tries every split of a run of spaces: ``api_key`` and 2,000 spaces took
# 33 s; taken once (possessive), only the space-as-assignment form is lost. The npm pattern's
# ``//.+/:`` backtracks over the whole line from every ``//``: bounded to a registry's length.
LINEAR = {"(?: *)": "(?: *+)", r"\/\/.+\/:": r"\/\/.{1,200}?\/:"}


def _linear(regex: re.Pattern) -> re.Pattern:
    """A plugin pattern rewritten so that it runs in linear time (see :data:`LINEAR`)."""
    source = regex.pattern
    for slow, fast in LINEAR.items():
        source = source.replace(slow, fast)
    return regex if source == regex.pattern else re.compile(source, regex.flags)


@lru_cache(maxsize=1)
def _keyword_patterns() -> tuple[re.Pattern, ...]:
    """The keyword plugin's assignment forms for text of unknown type (its default): quotes required."""
    from detect_secrets.plugins import keyword

    return tuple(_keyword_pattern(regex, group) for regex, group in keyword.QUOTES_REQUIRED_DENYLIST_REGEX_TO_GROUP.items())


def _keyword_pattern(regex: re.Pattern, group: int) -> re.Pattern:
    """The keyword plugin's pattern with its value group named ``secret``, kept to one line."""
    source = regex.pattern.replace(r"[^\v\'\"]*", r"[^\v\'\"\n]*")
    count = 0

    def name(match: re.Match) -> str:
        nonlocal count
        count += 1
        return "(?P<secret>" if count == group else match.group()

    named = re.sub(r"(?<!\\)\((?!\?)", name, source)
    return re.compile(named, regex.flags)


@lru_cache(maxsize=1)
def _entropy_plugin():
    from detect_secrets.plugins.high_entropy_strings import Base64HighEntropyString

    return Base64HighEntropyString()


def _entropy(value: str) -> float:
    return _entropy_plugin().calculate_shannon_entropy(value)


def _required(pattern: re.Pattern) -> tuple[str, ...] | None:
    """Texts one of which every match contains (lower-cased, to be looked for in the lower-cased text), or ``None``.

    A text that holds none of them is not searched at all: most texts hold no secret, and a
    substring test is a hundred times cheaper than a regular-expression scan.
    """
    from re import _parser as parser  # type: ignore[attr-defined]  # the standard library's own parse (typeshed omits private modules)

    try:
        found = _literals(parser.parse(pattern.pattern, pattern.flags), True)
    except Exception:  # a construct the walk does not know: always search
        return None
    return tuple(sorted(found)) if found and min(map(len, found)) >= 2 else None


def _literals(items, fold: bool) -> set[str] | None:
    from re import _constants as c  # type: ignore[attr-defined]  # the parse's opcodes (typeshed omits private modules)

    best: set[str] | None = None
    run: list[str] = []

    def consider(candidate: set[str] | None) -> None:
        nonlocal best
        if candidate and (best is None or min(map(len, candidate)) > min(map(len, best))):
            best = candidate

    def flush() -> None:
        if run:
            consider({"".join(run)})
            run.clear()

    for op, arg in items:
        if op is c.LITERAL:
            run.append(chr(arg).lower() if fold else chr(arg))
            continue
        if op in (c.AT, c.ASSERT_NOT, c.ASSERT) and op is not c.ASSERT:
            continue  # zero-width: keeps a literal run going
        flush()
        if op is c.SUBPATTERN:
            consider(_literals(arg[3], fold))
        elif op is c.BRANCH:
            options = [_literals(branch, fold) for branch in arg[1]]
            found = [o for o in options if o]
            if len(found) == len(options):
                consider(set().union(*found))
        elif op in (c.MAX_REPEAT, c.MIN_REPEAT) and arg[0] >= 1:
            consider(_literals(arg[2], fold))
    flush()
    return best
