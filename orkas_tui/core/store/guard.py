"""Defences against a hostile or confused model answer, applied before anything is proposed.

A reflection reads transcripts that other people, tools and web pages wrote, so its
answer may carry what they planted: a credential copied from the bundle, an
instruction to send data to an outside address, or text meant to take over the
agent that will later read the skill. Any of these makes the operation invalid,
with the reason shown; nothing is written. False positives are cheap (a person can
write the skill by hand); a skill that leaks or hijacks is not.
"""

from __future__ import annotations

import re

from orkas_tui.core.store.redact import Redactor

MAX_REPLY_CHARS = 200_000  # ten full-size skills; a megabyte answer is refused whole
FIELDS = ("name", "description", "body", "replace", "content")

INJECTION = re.compile(
    r"\b(?:ignore|disregard|forget|override)\s+(?:all\s+|any\s+|the\s+|your\s+|every\s+)*"
    r"(?:previous|prior|above|earlier|system|original|existing)\s+(?:instructions?|prompts?|messages?|rules|guidelines|context)"
    r"|\b(?:reveal|print|show|leak|repeat|output)\s+(?:me\s+)?(?:your|the)\s+(?:system\s+prompt|hidden\s+instructions|instructions\s+above)"
    r"|\b(?:do\s+not|don't|never)\s+(?:tell|inform|let|show)\s+the\s+user"
    r"|\bwithout\s+(?:telling|asking|informing|notifying)\s+the\s+user"
    r"|\b(?:bypass|disable|override)\s+(?:the\s+|your\s+|all\s+)?(?:safety|security|guardrails?|restrictions|sandbox)"
    r"|\byou\s+are\s+now\s+(?:in\s+)?(?:developer\s+mode|unrestricted|jailbroken|DAN)\b"
    r"|\bnew\s+system\s+(?:prompt|instructions?)\s*:"
    r"|<\|?\s*(?:im_start|im_end|system|endoftext)\s*\|?>",
    re.IGNORECASE,
)
URL = re.compile(r"\b(?:https?|ftp|wss?)://[^\s)>\]\"'`]+", re.IGNORECASE)
REMOTE_IMAGE = re.compile(r"!\[[^\]]*\]\(\s*<?(?:https?|ftp)://", re.IGNORECASE)
SENSITIVE = re.compile(
    r"api[_\s-]?keys?|tokens?\b|secrets?\b|passwords?|passwd|credentials?|cookies?|\bsession\b|\benv\b|environment\s+variables?"
    r"|\$\{?[A-Z][A-Z0-9_]{2,}|~/\.ssh|id_rsa|\.env\b|\.netrc|\.aws|conversations?|transcripts?|chat\s+history"
    r"|--data|--upload-file|\s-d\s|\s-F\s|\bexfiltrat",
    re.IGNORECASE,
)


def reply_too_large(text: str) -> str | None:
    if len(text) <= MAX_REPLY_CHARS:
        return None
    return f"the reply is {len(text):,} characters, over the {MAX_REPLY_CHARS:,} limit; refused whole"


def refusal(op: dict, secret_patterns: tuple[str, ...]) -> str | None:
    """Why an operation's text must not be saved, or ``None``."""
    for name in FIELDS:
        text = op.get(name)
        if not isinstance(text, str):
            continue
        if Redactor(secret_patterns).finds(text):  # the same detector as the bundle's redaction
            return f"the {name} contains what looks like a credential; a skill or note must never hold one"
        match = INJECTION.search(text)
        if match:
            return f"the {name} reads like a prompt injection ({match.group(0)!r})"
        if REMOTE_IMAGE.search(text):
            return f"the {name} embeds a remote image, which leaks data to its address when rendered"
        for line in text.splitlines():
            url = URL.search(line)
            if url and _sends_data(line, url.group(0)):
                return f"the {name} instructs sending data to an outside address ({url.group(0)[:80]})"
    return None


def _sends_data(line: str, url: str) -> bool:
    """A URL beside words about secrets or private data, or a query string carrying a placeholder."""
    query = url.partition("?")[2]
    return bool(SENSITIVE.search(URL.sub(" ", line)) or re.search(r"[{$<]|%7B", query) or SENSITIVE.search(query))
