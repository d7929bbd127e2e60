"""Where the workspace is, with nothing but ``os``: the hooks' fast path reads it too (importers/spool.py)."""

from __future__ import annotations

import os


def root_path(explicit: str | os.PathLike | None = None) -> str:
    """``--workspace`` first, then ``$ORKAS_HOME``, then ``~/.orkas`` (``~`` expanded; not made absolute)."""
    if explicit:
        return os.path.expanduser(os.fspath(explicit))
    env = os.environ.get("ORKAS_HOME")
    if env:
        return os.path.expanduser(env)
    return os.path.join(os.path.expanduser("~"), ".orkas")
