"""The one network call: the user's configured model, through litellm, imported lazily.

litellm is imported only when a reflection really calls the model, with its remote
price-map fetch and telemetry off. Time-outs, 429 and 5xx (and refused
connections) are retried with exponential back-off; when retries run out the
failure is *transient*: it changes nothing and spends no cooldown. The call runs
in a worker thread so a cancel is honoured within a fraction of a second.
:func:`takes_response_schema` asks litellm's bundled model map (no network) whether
the model accepts a JSON schema as ``response_format``.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from dataclasses import dataclass

from orkas_tui.core.read.settings import Settings
from orkas_tui.core.reflect.model_setup import ModelError, setup

TRANSIENT_STATUSES = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 529})
POLL_S = 0.05


class Cancelled(RuntimeError):
    """The person cancelled the reflection; nothing was written."""


@dataclass(frozen=True)
class ModelConfig:
    name: str
    api_base: str | None
    api_key: str | None
    timeout_s: float
    max_retries: int
    backoff_s: float


@dataclass(frozen=True)
class ModelReply:
    text: str
    prompt_tokens: int | None
    completion_tokens: int | None
    cost_usd: float | None
    attempts: int
    response_schema: bool = False  # the request carried the JSON schema as response_format


def model_config(settings: Settings) -> ModelConfig:
    """``$ORKAS_MODEL`` overrides ``[model] name``; the key comes from ``api_key_env`` (what is missing: :func:`setup`)."""
    m = settings.model
    name, key = setup(settings)
    return ModelConfig(name, m.api_base, key, m.timeout_s, m.max_retries, m.retry_backoff_s)


def model_summary(settings: Settings) -> list[tuple[str, str]]:
    """The effective model settings as (label, value) rows, for a settings screen: what :func:`model_config` will use."""
    m = settings.model
    env_name = os.environ.get("ORKAS_MODEL")
    name = f"{env_name} (from $ORKAS_MODEL)" if env_name else m.name or "not set: reflection cannot run until [model] name is set"
    if not m.api_key_env:
        key = "none needed (a local server)" if m.api_base else "not named: litellm's own provider variables are used"
    elif os.environ.get(m.api_key_env):
        key = f"${m.api_key_env} is set"
    elif m.api_base:
        key = f"${m.api_key_env} is not set: none is sent (fine for a local server)"
    else:
        key = f"${m.api_key_env} is NOT set: reflection will fail until it is"
    return [
        ("Model", name),
        ("API base", m.api_base or "the provider's default"),
        ("API key", key),
        ("Time-out, retries", f"{m.timeout_s:g} s, {m.max_retries} retries ({m.retry_backoff_s:g} s back-off, doubling)"),
        (
            "Daily budget",
            "none: [model] daily_budget_usd sets one"
            if m.daily_budget_usd is None
            else f"${m.daily_budget_usd:g} a day (your local day), priced by litellm's price map; cycles wait beyond it",
        ),
    ]


def preload() -> None:
    """Import litellm now (seconds of work), in a background thread, so the first reflection does not wait for it."""
    _litellm()


def _litellm():
    os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
    os.environ.setdefault("LITELLM_TELEMETRY", "False")
    import litellm

    litellm.telemetry = False
    litellm.suppress_debug_info = True
    return litellm


def takes_response_schema(config: ModelConfig) -> bool:
    """Whether litellm's model map says this model takes a JSON schema as ``response_format``.
    An unknown model (a local server's, most often) does not: it gets plain instructions."""
    litellm = _litellm()
    try:
        model, provider, _key, _base = litellm.get_llm_provider(model=config.name, api_base=config.api_base)
    except Exception:  # litellm cannot tell the provider: it cannot say the model takes a schema either
        return False
    return bool(litellm.supports_response_schema(model=model, custom_llm_provider=provider))


def _is_transient(exc: BaseException, litellm) -> bool:
    status = getattr(exc, "status_code", None)
    if isinstance(status, int) and (status in TRANSIENT_STATUSES or status >= 500):
        return True
    return isinstance(
        exc,
        (
            litellm.Timeout,
            litellm.APIConnectionError,
            litellm.RateLimitError,
            litellm.ServiceUnavailableError,
            litellm.InternalServerError,
        ),
    )


def _describe(exc: BaseException, api_base: str | None = None) -> str:
    """One line naming the real cause: a refused connection or an unknown host, not the "HTTP 500" litellm wraps it in."""
    network = _network_cause(exc)
    if network is not None:
        return f"{network} at {api_base or 'the provider'}"
    status = getattr(exc, "status_code", None)
    text = " ".join(str(exc).split())[:300]
    return f"{type(exc).__name__}" + (f" (HTTP {status})" if status else "") + f": {text}"


def _network_cause(exc: BaseException) -> str | None:
    """What went wrong on the wire, found down the chain of wrapped exceptions, if that is the cause."""
    seen: set[int] = set()
    cause: BaseException | None = exc
    while cause is not None and id(cause) not in seen:
        seen.add(id(cause))
        if isinstance(cause, ConnectionRefusedError):
            return "connection refused"
        if isinstance(cause, OSError) and ("Name or service not known" in str(cause) or "nodename nor servname" in str(cause)):
            return "unknown host"
        if isinstance(cause, ConnectionError):
            return f"connection failed ({type(cause).__name__})"
        cause = cause.__cause__ or cause.__context__
    return None


def _call_in_thread(fn: Callable[[], object], cancel: threading.Event | None) -> object:
    box: dict[str, object] = {}

    def run() -> None:
        try:
            box["value"] = fn()
        except BaseException as exc:  # handed back to the caller's thread
            box["error"] = exc

    worker = threading.Thread(target=run, name="orkas-model-call", daemon=True)
    worker.start()
    while worker.is_alive():
        worker.join(POLL_S)
        if cancel is not None and cancel.is_set():
            raise Cancelled("cancelled while waiting for the model")
    if "error" in box:
        raise box["error"]  # type: ignore[misc]
    return box["value"]


def complete(
    config: ModelConfig,
    messages: list[dict],
    cancel: threading.Event | None = None,
    on_retry: Callable[[int, str, float], None] | None = None,
    response_format: dict | None = None,
) -> ModelReply:
    """Send the messages; retry transient failures; raise :class:`ModelError` or :class:`Cancelled`.

    ``response_format`` (a JSON schema) is sent only when :func:`takes_response_schema`
    says the model takes one; the reply says whether it was."""
    litellm = _litellm()
    kwargs: dict[str, object] = {
        "model": config.name,
        "messages": messages,
        "timeout": config.timeout_s,
        "num_retries": 0,
        "max_retries": 0,
        "temperature": 0,
    }
    if config.api_base:
        kwargs["api_base"] = config.api_base
    if config.api_key:
        kwargs["api_key"] = config.api_key
    structured = response_format is not None and takes_response_schema(config)
    if structured:
        kwargs["response_format"] = response_format
    attempt = 0
    while True:
        attempt += 1
        try:
            response = _call_in_thread(lambda: litellm.completion(**kwargs), cancel)
        except Cancelled:
            raise
        except Exception as exc:
            transient = _is_transient(exc, litellm)
            if not transient or attempt > config.max_retries:
                raise ModelError(_describe(exc, config.api_base), transient=transient, attempts=attempt) from exc
            delay = config.backoff_s * (2 ** (attempt - 1))
            if on_retry is not None:
                on_retry(attempt, _describe(exc, config.api_base), delay)
            if (cancel or threading.Event()).wait(delay):
                raise Cancelled("cancelled while waiting to retry") from exc
            continue
        return _reply(response, attempt, litellm, structured)


def _reply(response, attempts: int, litellm, structured: bool) -> ModelReply:
    choice = response.choices[0]
    text = getattr(choice.message, "content", None) or ""
    usage = getattr(response, "usage", None)
    try:
        cost = float(litellm.completion_cost(completion_response=response))
    except Exception:  # unknown price for this model: cost is simply not known
        cost = None
    return ModelReply(
        text=text,
        prompt_tokens=getattr(usage, "prompt_tokens", None),
        completion_tokens=getattr(usage, "completion_tokens", None),
        cost_usd=cost,
        attempts=attempts,
        response_schema=structured,
    )
