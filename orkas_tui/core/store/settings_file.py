"""``orkas.toml`` as a person edits it whole (the app's settings editor): read with its version,
written atomically and only if it is still the version read.

The text is kept as written even when it does not load (:func:`~orkas_tui.core.read.settings.load_settings`
then says why, and the settings in effect stay): what a person typed is never lost.
"""

from __future__ import annotations

from pathlib import Path

from orkas_tui.core.disk.confine import read_versioned, version_of
from orkas_tui.core.disk.write import atomic_write
from orkas_tui.core.store.first_run import SETTINGS_TEMPLATE


def read_settings_text(path: Path) -> tuple[str, str | None]:
    """The file's text and version; the commented template and ``None`` when there is no file yet."""
    data, version = read_versioned(path)
    return (SETTINGS_TEMPLATE, None) if data is None else (data.decode("utf-8", "replace"), version)


def save_settings_text(path: Path, text: str, expected: str | None, force: bool = False) -> str:
    """Write ``text`` if the file is still at ``expected`` (``None``: there is none), else raise
    ``ConflictError`` with nothing written; ``force`` overwrites whatever is there. Returns the new version."""
    data = text.encode("utf-8")
    atomic_write(path, data, expected=expected, force=force)
    return version_of(data)
