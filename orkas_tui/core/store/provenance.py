"""Where each operation of an answer comes from, and the quarantine of those that rest on no word the user typed.

Every line of a bundle carries a source id (``u3``: typed by the user, ``p4``: pasted by the
user, ``a5``: the agent, ``t6``: a tool's output, ``s7``: a system event), and each operation
of the answer cites the ids it rests on. The spec's rule: tool output may show that
something happened, it may never supply what to do. So an operation is

- **invalid** when it cites an id the bundle did not send;
- **quarantined** when it cites no line the user typed, or when its text repeats text found
  in a tool's output or in what the user pasted (by overlapping runs of words after
  normalisation, not by exact match): shown apart with its sources and the matching text,
  never applied automatically, applied only on a person's second, explicit confirmation.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping

import msgspec

SOURCE_ID = re.compile(r"^[upast][1-9][0-9]{0,6}$")
TYPED, PASTED, TOOL = "user", "pasted", "tool"
SHINGLE = 5  # words in a run compared between an operation and a source
ECHO = 0.5  # share of a sentence's runs found in one source for the sentence to repeat it
MIN_WORDS = 8  # shorter sentences are never called a repeat


class Source(msgspec.Struct, frozen=True, kw_only=True):
    """One line of the bundle as the model saw it: its id, origin, the tool (for a tool's output), the text."""

    id: str
    origin: str
    text: str
    conversation: str | None = None
    tool: str | None = None
    kind: str | None = None  # a tool output's kind: command, file, web, mcp, subagent, other
    edited: tuple[str, ...] = ()  # a typed prompt's: the files the agent edited after it, in its turn

    def label(self) -> str:
        """``t6 (`WebFetch`, web)``: the id and where it came from, as a person reads it."""
        if self.origin == TOOL:
            return f"{self.id} (output of `{self.tool or '?'}`, {self.kind or 'other'})"
        return f"{self.id} ({_ORIGINS.get(self.origin, self.origin)})"


_ORIGINS = {TYPED: "typed by the user", PASTED: "pasted by the user", "agent": "the agent", "system": "a system event"}


class Quarantine(msgspec.Struct, kw_only=True):
    """Why an operation waits for a person's explicit confirmation, with its sources and the text it repeats."""

    reason: str
    sources: list[Source] = msgspec.field(default_factory=list)
    repeats: list[str] | None = None  # (the operation's sentence, the source's text it repeats)
    confirmed_at: str | None = None  # when a person confirmed it, after seeing the above


FIELDS = ("name", "description", "body", "replace", "content", "reason")


def judge(op: Mapping[str, object], cited: list[str], sources: Mapping[str, Source]) -> tuple[str | None, Quarantine | None]:
    """``(why the operation is invalid, why it is quarantined)`` for an operation citing ``cited``."""
    unknown = [c for c in cited if c not in sources]
    if unknown:
        return f"cites source(s) the bundle did not send: {', '.join(unknown[:5])}", None
    used = [sources[c] for c in dict.fromkeys(cited)]
    if not any(s.origin == TYPED for s in used):
        why = "it cites no line the user typed" if used else "it cites no source"
        shown = ", ".join(s.label() for s in used) if used else "none"
        return None, Quarantine(reason=f"{why} (cites: {shown}); only the user's words may set a rule", sources=used)
    foreign = [s for s in sources.values() if s.origin in (TOOL, PASTED)]
    for name in FIELDS:
        text = op.get(name)
        if isinstance(text, str) and (hit := repeated(text, foreign)) is not None:
            sentence, source = hit
            return None, Quarantine(
                reason=f"its {name} repeats text found in {source.label()}: an instruction from a tool's output or a paste",
                sources=[*used, source] if source not in used else used,
                repeats=[sentence, _around(source.text, sentence)],
            )
    return None, None


def cited(op: Mapping[str, object]) -> list[str]:
    """The ids an operation cites (its ``sources``; anything else there is not an id)."""
    value = op.get("sources")
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def words(text: str) -> list[str]:
    """The text's words as a reader would compare them: NFKC, case folded, invisible characters dropped."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    folded = "".join(ch for ch in folded if unicodedata.category(ch) != "Cf")
    return re.findall(r"\w+", folded)


def _runs(tokens: list[str]) -> set[tuple[str, ...]]:
    return {tuple(tokens[i : i + SHINGLE]) for i in range(len(tokens) - SHINGLE + 1)}


def repeated(text: str, sources: list[Source]) -> tuple[str, Source] | None:
    """The first sentence of ``text`` (of at least :data:`MIN_WORDS` words) whose runs of words are mostly
    found in one of ``sources``, and that source."""
    if not sources:
        return None
    pools = [(source, _runs(words(source.text))) for source in sources]
    for sentence in re.split(r"(?<=[.!?。！？;\n])\s+", text):
        tokens = words(sentence)
        if len(tokens) < MIN_WORDS:
            continue
        runs = _runs(tokens)
        for source, pool in pools:
            if pool and len(runs & pool) >= ECHO * len(runs):
                return sentence.strip(), source
    return None


def _around(text: str, sentence: str, room: int = 300) -> str:
    """The part of a source's text nearest the repeated sentence (its first shared word run), for showing side by side."""
    first = words(sentence)[:SHINGLE]
    folded = unicodedata.normalize("NFKC", text).casefold()
    at = folded.find(first[0]) if first else -1
    start = max(0, at - room // 3) if at >= 0 else 0
    piece = text[start : start + room]
    return ("…" if start else "") + piece + ("…" if start + room < len(text) else "")


# A sentence that tells its reader what to do: it opens with an order, or speaks to the agent about its
# conduct (English, Spanish, Chinese). Only shown to a person (the bundle's preview): tool output that
# gives orders is where planted instructions live.
_ORDER = re.compile(
    r"(?:^|[:;—–]\s*)\W*(?:always|never|do not|don't|make sure|remember to|from now on|ignore|disregard|forget|run|execute|install|"
    r"curl|wget|send|upload|post|delete|remove|disable|skip|add|set|export|copy|write|save|use|"
    r"siempre|nunca|no (?:hagas|uses|ejecutes)|ejecuta|instala|ignora|olvida|env[ií]a|borra|elimina|desactiva|usa|a[nñ]ade)\b"
    r"|(?:^|[:;：；]\s*)\W*(?:总是|永远|始终|必须|不要|忽略|执行|运行|安装|发送|删除|禁用|请)"
    r"|\b(?:for|to|attention|note to) (?:the |all |any )?(?:ai|llm|coding|autonomous) (?:agents?|assistants?|models?)\b"
    r"|\b(?:you (?:must|should|need to|have to)|(?:ai|the|an) (?:agent|assistant|model)s? (?:must|should)|"
    r"ignore (?:all |any )?(?:previous|prior|above)|debes|tienes que|tu tarea es|你(?:必须|应该|需要))",
    re.IGNORECASE,
)
_SENTENCES = re.compile(r"(?<=[。！？])\s*|(?<=[.!?\n])\s+")


def instructions(text: str, limit: int = 3) -> list[str]:
    """Up to ``limit`` sentences of ``text`` that read as orders to the agent (NFKC, invisible characters dropped)."""
    folded = "".join(ch for ch in unicodedata.normalize("NFKC", text) if unicodedata.category(ch) != "Cf")
    found = []
    for sentence in _SENTENCES.split(folded):
        sentence = " ".join(sentence.split())
        if 6 <= len(sentence) <= 400 and _ORDER.search(sentence):
            found.append(sentence)
            if len(found) == limit:
                break
    return found
