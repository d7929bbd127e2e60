"""The one base of every error a person can act on (a bad setting, a refused edit, a file that changed).

The CLI reports these on one line; anything else is a bug in orkas-tui and shows its
traceback, so it is reported rather than mistaken for a problem in the user's files.
"""

from __future__ import annotations


class OrkasError(Exception):
    """An expected, explained refusal: its message says what happened and what to do."""
