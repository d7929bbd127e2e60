"""RFC 3339 timestamps: the one format every file in a workspace uses.

Parsing is tolerant (a bad timestamp yields ``None``, never an exception)
because timestamps come from other programs' logs.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta


def parse_ts(value: object) -> datetime | None:
    """Parse an RFC 3339 string into an aware UTC datetime, or ``None``.

    The ``...Z`` form that nearly every event uses goes straight to
    ``fromisoformat`` (a million events per cold scan); the result is the same.
    """
    if value.__class__ is str and value[-1:] == "Z":
        try:
            return _fromisoformat(value)
        except ValueError:
            pass
    return _parse_any(value)


_fromisoformat = datetime.fromisoformat


def _parse_any(value: object) -> datetime | None:
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    if not isinstance(value, str) or not value:
        return None
    text = value.strip()
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        return None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    try:
        return parsed.astimezone(UTC)
    except OverflowError:  # "9999-12-31T23:59:59-01:00" is after the last representable UTC time
        return None


def format_ts(moment: datetime) -> str:
    """Format as RFC 3339 UTC with a ``Z`` suffix, to the second (or ms if set)."""
    moment = moment.astimezone(UTC)
    text = f"{moment.year:04d}" + moment.strftime("-%m-%dT%H:%M:%S")  # %Y does not pad years before 1000
    if moment.microsecond:
        return text + f".{moment.microsecond // 1000:03d}Z"
    return text + "Z"


def later(moment: datetime, delta: timedelta) -> datetime:
    """``moment + delta``, stopping at the last representable time instead of overflowing
    (a timestamp near year 9999 in a hand-edited state file must not crash the schedule)."""
    try:
        return moment + delta
    except OverflowError:
        return datetime.max.replace(tzinfo=UTC)


def utc_now() -> datetime:
    return datetime.now(UTC).replace(microsecond=0)


def format_duration(delta: timedelta) -> str:
    """Compact human form: ``12h30m``, ``7d``, ``45s``."""
    seconds = int(delta.total_seconds())
    if seconds <= 0:
        return "0s"
    parts = []
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60), ("s", 1)):
        if seconds >= size:
            parts.append(f"{seconds // size}{unit}")
            seconds %= size
    return "".join(parts)


_AGE_UNITS = (("d", 86400), ("h", 3600), ("m", 60), ("s", 1))


def format_age(moment: datetime | None, now: datetime) -> str:
    """How long ago, coarsely: the largest unit and the next one (``2d4h``, ``5h``, ``3m``, ``never``)."""
    if moment is None:
        return "never"
    delta = now - moment
    seconds = int(abs(delta.total_seconds()))
    index = next((i for i, (_, size) in enumerate(_AGE_UNITS) if seconds >= size), len(_AGE_UNITS) - 1)
    unit, size = _AGE_UNITS[index]
    text = f"{seconds // size}{unit}"
    if index + 1 < len(_AGE_UNITS):
        next_unit, next_size = _AGE_UNITS[index + 1]
        rest = (seconds % size) // next_size
        if rest:
            text += f"{rest}{next_unit}"
    return text if delta.total_seconds() >= 0 else "in " + text
