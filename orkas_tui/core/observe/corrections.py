"""The correction heuristic: a signal, not a verdict.

Two parts. The phrase list (the ``correction_phrases`` setting, the spec's list by
default) matches case-insensitively; phrases in scripts that separate words (Latin,
Cyrillic, ...) match on word boundaries, phrases in scripts that do not (Chinese,
Japanese) match anywhere. Then the built-in *forms*: the ways people correct that a
phrase list cannot say without misfiring: a bare "no, ..." opening the message, "not
right" but not "not right now", the right object named against the wrong one ("use
the other file", "la otra hoja", "用另一个接口"), "still failing" after a fix, and
Chinese and Spanish forms beyond the spec's short list. Each form carries its own
exclusions (the hard negatives of tests/data/corrections/), so it raises recall
without losing precision; precision and recall per language are in docs/rules.md.
Typographic apostrophes are folded to ``'`` first, and Traditional Chinese characters to
Simplified ones; a match is quoted as written.
"""

from __future__ import annotations

import re
from functools import lru_cache

from orkas_tui.core.observe.gates import WORD, Gate
from orkas_tui.core.observe.gates import alternative as _a
from orkas_tui.core.observe.gates import opening as _o

# The heuristic's version: caches of observations include it in their fingerprint.
# 2: the built-in forms joined the phrase list. 3: a form quoted is the leftmost one found.
VERSION = 3

# Traditional Chinese characters of the phrases and forms, to their Simplified forms: 不對, 錯了,
# 還是不行, 應該是 correct as 不对, 错了, 还是不行, 应该是 do. One character for one, so a match in
# the folded text is quoted from the text as written.
_TRADITIONAL = "對應該錯這樣個裡裏並還舊報沒顯敗問題說讓誤準確銷滾來別換試們麼嗎"
_SIMPLIFIED = "对应该错这样个里里并还旧报没显败问题说让误准确销滚来别换试们么吗"
_FOLD = str.maketrans(
    {"\u2019": "'", "\u2018": "'", "\u02bc": "'", "\uff07": "'"} | dict(zip(_TRADITIONAL, _SIMPLIFIED, strict=True))
)

# A bare "no" opening the message, then the fix; not "no problem", "no, thanks", "no, go ahead", ...
_NO_THEN = (
    r"problem|worries|need|rush|hurry|idea|thanks?|thank you|go ahead|that's fine|that is fine|it's fine|"
    r"all good|no|nothing|not yet|hay problema|te preocupes|hace falta|gracias|adelante|importa|pasa nada|"
    r"s[eé]|est[aá] mal|todav[ií]a no"
)
_OBJECTS_EN = (
    r"one|ones|files?|functions?|methods?|class|branch|repo|repository|folder|directory|dir|tab|sheet|table|"
    r"column|tests?|server|endpoint|config|version|page|window|component|module|script|database|db|log|path|key"
)
_CUE_EN = r"use|in|it's|it is|check|open|edit|try|want|need|meant|mean|change|on"
_CUE_ES = r"usa|use|en|es|era|mira|abre|edita|quiero|quer[ií]a|cambia"
# The forms, each tried only when the text holds one of its needles (whole words; fragments for
# scripts without spaces), which keeps them cheap on the observation hot path.
FORMS = Gate(
    # English
    _o(rf"\A\W*(?:no|nope|nah)\s*[,.;:!\u2014\u2013-]+(?=\s*(?!(?:{_NO_THEN})\b)\S)", ("no", "nope", "nah")),
    _a(r"\bincorrect\b", ("incorrect",)),
    _a(r"\b(?:not|isn't|is not|wasn't) (?:right|correct|accurate)\b(?! (?:now|away|yet)\b)", ("right", "correct", "accurate")),
    _a(r"\bnot (?:quite|exactly)\b(?! (?:sure|certain|clear|what)\b)", ("quite", "exactly")),
    _a(r"\bnot what I (?:asked|wanted|meant|said|need(?:ed)?)\b", ("what",)),
    _a(r"\byou (?:misunderstood|misread|forgot|missed|broke|ignored)\b",
       ("misunderstood", "misread", "forgot", "missed", "broke", "ignored")),
    _a(r"\bI (?:said|told you|asked (?:you )?(?:for|to))\b", ("said", "told", "asked")),
    _a(r"\bshould(?:'ve| have) been\b", ("been",)),
    _a(r"\bwhy did you\b", ("did",)),
    _a(r"\b(?:put|change) (?:it|them|that) back\b", ("back",)),
    _a(r"\b(?:undo|revert) (?:that|this|it|the last|your|the change|these)\b", ("undo", "revert")),
    _a(r"\bstill (?:not working|doesn't|does not|doesnt|isn't|is not|fails|failing|broken|crash(?:es|ing)|the same|wrong)\b",
       ("still",)),
    _a(rf"(?:\A\W*|\b(?:{_CUE_EN})\s+)the other (?:{_OBJECTS_EN})\b", ("other",)),
    _a(rf"\bnot (?:this|that|the) (?:right )?(?:{_OBJECTS_EN})\b", ("not",)),
    # Spanish
    _a(r"(?<!no )\b(?:est[aá]s?|qued[oó]) mal\b", ("mal",)),
    _o(r"\A\W*mal\b", ("mal",)),
    _a(r"\bno (?:es|era) (?:as[ií]|eso|correct[oa]|lo que)\b", ("es", "era")),
    _a(r"\bno es (?:el|la) \w+ correct[oa]\b", ("correcto", "correcta")),
    _a(r"\bno (?:est[aá] bien|exactamente|me refer[ií]a)\b", ("bien", "exactamente", "me")),
    # singular: "la respuesta es incorrecta"; a plural is more often content
    _a(r"\bincorrect[oa]\b", ("incorrecto", "incorrecta")),
    _a(r"\berr[oó]ne[oa]\b", ("erroneo", "erronea", "erróneo", "errónea")),
    _a(r"\bte (?:equivocaste|has equivocado|confundiste|has confundido|olvidaste|has olvidado|dije|ped[ií])\b", ("te",)),
    _a(r"\b(?:olvidaste|quise decir|al rev[eé]s|en lugar de)\b", ("olvidaste", "quise", "reves", "revés", "lugar")),
    _a(r"\b(?:sigue|todav[ií]a) (?:sin funcionar|fallando|igual|mal|roto|no funciona)\b", ("sigue", "todavia", "todavía")),
    _a(r"\b(?:deshaz|revierte)\b", ("deshaz", "revierte")),
    _a(r"\b(?:esa|ese|eso|esta|este|as[ií]) no\s*[,.;:]", ("no",)),
    _a(rf"(?:\A\W*|\b(?:{_CUE_ES})\s+)(?:la otra|el otro|los otros|las otras)\s+(?!(?:d[ií]a|vez|lado|enfoque)\b)\w+",
       ("otra", "otro", "otros", "otras")),
    # Chinese
    _a(r"不是(?:这个|那个|这样|这里|那里|我要的|我想要的)|并不是|不是.{1,12}而是", fragments=("不是",)),
    _a(r"(?:搞|弄|改|理解|看|用)错", fragments=("错",)),
    _a(r"(?:还是|依然|仍然|依旧)(?:不行|不对|报|没用|没有用|没反应|不显示|不工作|失败|有问题|一样|空白|白屏|没变)",
       fragments=("还是", "依然", "仍然", "依旧")),
    _a(r"我(?:说的是|的意思是|要的是|指的是|让你)", fragments=("我",)),
    _a(r"你(?:又)?(?:忘了|漏了)|漏掉了", fragments=("忘了", "漏")),
    _a(r"不正确|不准确|有误", fragments=("不正确", "不准确", "有误")),
    _a(r"撤销|撤回|回滚|(?<!不用)改回(?:去|来)", fragments=("撤", "回滚", "改回")),
    _a(r"(?:别|不要)用.{1,20}[，,]\s*(?:用|改用|换成)", fragments=("用",)),
    _a(r"(?:是|用|换成|改成|在)另一个", fragments=("另一个",)),
    _a(r"应该(?:用|在|改)", fragments=("应该",)),
)  # fmt: skip


def _unbounded_script(phrase: str) -> bool:
    """True when the phrase is written in a script without spaces between words."""
    for char in phrase:
        code = ord(char)
        if (
            0x3040 <= code <= 0x30FF  # kana
            or 0x3400 <= code <= 0x4DBF
            or 0x4E00 <= code <= 0x9FFF  # CJK ideographs
            or 0xF900 <= code <= 0xFAFF
            or 0x0E00 <= code <= 0x0E7F  # Thai
        ):
            return True
    return False


FORM_CHARS = 2_000  # forms read the head of a message: a correction comes first; pasted logs or code follow


def _form(text: str, words: frozenset[str] | None) -> re.Match | None:
    head = text[:FORM_CHARS]
    return FORMS.search(head, head.lower(), words)


def one_line(text: str, limit: int) -> str:
    """``text`` on one line (runs of whitespace become one space), cut to ``limit`` characters with "…"."""
    value = " ".join(text.split())
    return value if len(value) <= limit else value[: limit - 1] + "…"


class CorrectionMatcher:
    def __init__(self, phrases: tuple[str, ...]) -> None:
        bounded: list[str] = []
        unbounded: list[str] = []
        # what a text must hold for the phrase pattern to have a chance: a bounded phrase's first word
        # (as a whole word), an unbounded phrase itself (as a substring)
        self._first_words: set[str] = set()
        self._substrings: list[str] = []
        self._always = False  # a phrase that does not start with a word: no needle can stand for it
        for phrase in sorted({p.translate(_FOLD).strip() for p in phrases if p.strip()}, key=len, reverse=True):
            free = _unbounded_script(phrase)
            (unbounded if free else bounded).append(re.escape(phrase).replace(r"\ ", r"\s+"))
            if free:
                self._substrings.append(phrase.lower())
            elif (first := WORD.match(phrase.lower())) is not None:
                self._first_words.add(first.group(0))
            else:
                self._always = True
        parts = []
        if bounded:
            parts.append(r"(?<!\w)(?:" + "|".join(bounded) + r")(?!\w)")
        if unbounded:
            parts.append("(?:" + "|".join(unbounded) + ")")
        self._regex = re.compile("|".join(parts), re.IGNORECASE) if parts else None

    def find(self, text: object, words: frozenset[str] | None = None) -> str | None:
        """The first phrase found in ``text`` (else the leftmost built-in form), as written there, or ``None``.

        ``words``: the text's words, lowercased (``\\w+``), when the caller has them: a phrase whose
        first word is not among them is not searched for (most messages hold none).
        """
        if not isinstance(text, str) or not text:
            return None
        folded = text.translate(_FOLD)
        regex = self._regex
        if regex is not None and words is not None and not self._always and self._first_words.isdisjoint(words):
            lowered = folded.lower()
            if not any(phrase in lowered for phrase in self._substrings):
                regex = None
        match = (regex.search(folded) if regex is not None else None) or _form(folded, words)
        return text[match.start() : match.end()].strip() if match else None


@lru_cache(maxsize=8)
def matcher_for(phrases: tuple[str, ...]) -> CorrectionMatcher:
    return CorrectionMatcher(phrases)
