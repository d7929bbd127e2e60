"""Which model and key a reflection would use, or what is missing: read from the settings and the
environment, with nothing heavy imported, so ``status`` and the queue can say it on every run."""

from __future__ import annotations

import os

from orkas_tui.core.errors import OrkasError
from orkas_tui.core.read.settings import Settings

NO_KEY = "orkas-no-key"


class ModelError(OrkasError, RuntimeError):
    """The model call failed; ``transient`` tells whether retrying later may help."""

    def __init__(self, message: str, transient: bool, attempts: int) -> None:
        super().__init__(message)
        self.transient = transient
        self.attempts = attempts


class NotConfigured(ModelError):
    """No model, or no key, is set: nothing was tried, so it is no failure (no back-off); the message says what to set."""

    def __init__(self, message: str) -> None:
        super().__init__(message, transient=False, attempts=0)


def setup(settings: Settings) -> tuple[str, str | None]:
    """The model name and key a reflection uses; :class:`NotConfigured` says what is missing.
    ``$ORKAS_MODEL`` overrides ``[model] name``; the key comes from ``api_key_env``."""
    m = settings.model
    name = os.environ.get("ORKAS_MODEL") or m.name
    if not name:
        raise NotConfigured('no model is set: set [model] name in orkas.toml (e.g. "openai/gpt-4o-mini") or $ORKAS_MODEL')
    key = os.environ.get(m.api_key_env) if m.api_key_env else None
    if not key and m.api_base:
        key = NO_KEY  # a local server (Ollama, llama.cpp, vLLM) needs no key: an unset api_key_env is no reason to stop
    elif not key and m.api_key_env:
        raise NotConfigured(
            f"the API key variable ${m.api_key_env} is not set: export it, or name another in [model] api_key_env in orkas.toml"
        )
    return name, key


def not_configured(settings: Settings) -> str | None:
    """What to set before a reflection can run (no model, or its key), or ``None`` when it can."""
    try:
        setup(settings)
    except NotConfigured as exc:
        return str(exc)
    return None
