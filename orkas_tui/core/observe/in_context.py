"""Corrections read in context: a typed prompt judged with what came just before it.

On real histories a phrase list alone flags mostly tasks and pasted specs, and misses the
commonest corrections, which carry no marker word: "it still fails" right after the agent
said it was done, an interruption followed by the new instruction, a refused tool use
with what to do instead, a relayed review finding. So the observer keeps a little of the
conversation (:class:`Context`: what the agent said last, how the turn before ended, the
prompt's place) and :func:`judge` reads the prompt's typed words against it. Each
verdict keeps its reason, shown beside the turn and the prompt wherever they are shown.
The rule, its kinds and its measured precision and recall on labelled real prompts are in
docs/rules.md; ``scripts/correction_figures.py`` prints them.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from orkas_tui.core.observe.corrections import CorrectionMatcher
from orkas_tui.core.observe.origins import split_pasted

# The heuristic's version: caches of observations include it in their fingerprint.
VERSION = 1

AGENT_TAIL = 600  # what the agent said last: the tail of its last message before the prompt
TYPED_HEAD = 600  # a correction comes first; what follows is detail
OPENING = 250  # a failure is reported in the opening words, or at the end of what was pasted
TAIL = 400  # the end of what was pasted, where a pasted error's last line says what failed
SHORT = 400  # past this many typed characters a message is a task, a spec or a relayed finding
PHRASED = 300  # the phrase list is read in short messages only: in longer ones its words describe
EARLIER = 5  # earlier prompts kept to find one restated (a restatement comes soon after)


class Verdict(NamedTuple):
    kind: str  # interrupt, failed, diagnosis, redirect, restated, review, phrase
    reason: str  # the sentence a person reads beside the turn ("" for a phrase: the phrase says it)
    phrase: str  # the words that decided it, as written in the prompt


class Context:
    """What the observer knows of a conversation when it reads the next prompt. (A plain class: one
    per conversation, and a dataclass costs the warm start a millisecond to build.)"""

    __slots__ = ("agent", "before", "earlier", "prompts")

    def __init__(self, agent: str = "", before: str | None = None, prompts: int = 0) -> None:
        self.agent = agent  # the tail of the agent's last message before the prompt
        self.before = before  # how the turn before ended: None (first prompt), ok, error, aborted; feedback
        self.prompts = prompts  # typed prompts read so far in the conversation
        self.earlier: list[tuple[str, frozenset[str]]] = []  # their words, normalised, newest last

    def said(self, text: str) -> None:
        self.agent = text[-AGENT_TAIL:]

    def ended(self, status: str) -> None:
        self.before = status

    def resumed(self, turns: int, before: str | None) -> None:
        """Read on from a restored summary: its turns stand for the prompts read (their words are not kept)."""
        self.prompts, self.before = turns, before

    def prompted(self, typed: str, words: str | None = None) -> None:
        self.prompts += 1
        words = norm(typed) if words is None else words
        self.earlier.append((words, frozenset(words.split())))
        del self.earlier[:-EARLIER]
        self.agent = ""


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


_NOT = ("n't", "not", "dont", "doesnt", "didnt", "wont", "cant", "isnt", "arent", "wasnt", "shouldnt")


class _Gate:
    """Alternatives, each tried only when the lowercased text holds one of its literal needles:
    most prompts hold none of most, and the reader runs on every prompt of a cold scan. Gives
    what one alternation of them would (the leftmost match, the first alternative at a tie); a
    test holds each needle set to its pattern on every real and synthetic prompt."""

    __slots__ = ("_alternatives", "_given")

    def __init__(self, *alternatives: tuple[tuple[str, ...], str]) -> None:
        self._given = alternatives
        self._alternatives: tuple[tuple[tuple[str, ...], re.Pattern[str]], ...] | None = None

    @property
    def alternatives(self) -> tuple[tuple[tuple[str, ...], re.Pattern[str]], ...]:
        """Compiled on first use: a warm start reads no prompt and compiles none."""
        if self._alternatives is None:
            self._alternatives = tuple((needles, _rx(pattern)) for needles, pattern in self._given)
        return self._alternatives

    def search(self, text: str, lowered: str) -> re.Match[str] | None:
        best: re.Match[str] | None = None
        for needles, pattern in self.alternatives:
            for needle in needles:
                if needle in lowered:
                    found = pattern.search(text)
                    if found is not None and (best is None or found.start() < best.start()):
                        best = found
                    break
        return best


# The agent said the work was done, fixed or working.
_DONE = _Gate(
    (("done", "fixed", "pass", "work", "committed", "pushed", "created", "ready", "complete", "implemented",
      "resolved", "updated", "try it"),
     r"\b(?:done|fixed|all (?:tests|checks) pass|tests? (?:now )?pass|passing|should (?:now )?work|now works|"
     r"works now|is (?:now )?working|committed|pushed|created|ready|complete|implemented|resolved|updated|try it)\b"),
    (("✅", "✓"), r"✅|✓"),
)  # fmt: skip
# The user reports that it fails or looks wrong.
_FAILS = _Gate(
    (("still", "again"),
     r"\b(?:still|again)\b.{0,40}\b(?:fail\w*|error\w*|broken|wrong|the same|issues?|problems?|conflicts?)\b"),
    (_NOT, r"\b(?:doesn'?t|does not|don'?t|didn'?t|did not|won'?t|can'?t|cannot) (?:seem to )?(?:work|fire|happen|"
           r"see|show|appear|pick\w* up|run|load|pass|build|compile|exist)\w*\b"),
    (_NOT, r"\b(?:isn'?t|is not|aren'?t|are not|not) (?:working|firing|happening|showing|appearing|passing|building)\b"),
    (("nothing",), r"\bnothing (?:is |was )?(?:happening|happens|happened|changed|shows?)\b"),
    (("error", "exception", "failure", "warning"),
     r"\b(?:getting|got|seeing|see|throws?|gives?) (?:this|an?|the same|these)? ?(?:error|exception|failure|warning)s?\b"),
    (("fail", "crash", "break", "broke"), r"\b(?:it |this |that |now )?(?:fails|failed|failing|crash\w*|breaks|broke|broken)\b"),
    (("fail", "error trace", "traceback", "panic:", "unknown command", "command not found"),
     r"--- FAIL|\bFAIL\b|Error Trace|Traceback|\bpanic:|unknown command|command not found"),
    (("exit",), r"exit (?:code|status) [1-9]"),
    (("n't", "isnt"), r"\bisn'?t (?:really |actually )?(?:check\w*|test\w*|handl\w*|cover\w*)\b"),
    (("fix",), r"\A\W*fix\b"),
    (("not",), r"\bnot (?:working|correct)\b|\bnot right\b(?! (?:now|away)\b)"),
    (("look",), r"\blooks? (?:wrong|off|broken)\b"),
    (("should",), r"\bshould (?:have|be showing)\b.{0,60}\?"),
)  # fmt: skip
# The user disputes what the agent said.
_DISPUTES = _Gate(
    (("not",), r"\b(?:is|'s|are) not (?:correct|right|true|the (?:issue|problem|cause))\b"),
    (("n't", "isnt"), r"\bisn'?t (?:correct|right|true)\b"),
    (("not", "wrong"), r"\b(?:that'?s|this is|it'?s) (?:not (?:why|it|the (?:issue|problem|cause))|wrong)\b"),
    (("technically",), r"\btechnically\b"),
    (("n't", "doesnt"), r"\bdoesn'?t seem right\b"),
    (("issue", "problem", "bug"), r"\bthe (?:issue|problem|bug) (?:was|is) (?:with|in|that)\b"),
    (("but ",), r"\bbut (?:is|isn'?t|wasn'?t) (?:this|that|it) the same\b"),
    (("says",), r"\bwhat my \w+ says\b"),
    (("there before",), r"\bit was there before\b"),
    (("<-",), r"<-\s*this should\b"),
    (("should be",), r"\bthis should be\b.{0,40}\bnow\b"),
    (("able to",), r"\bI was able to\b"),
    (("does ",), r"\bdoes (?:fire|fail|work|exist)\b"),
    (("still got",), r"\bI'?ve still got\b"),
    (("why",), r"\bwhy (?:exactly )?(?:didn'?t|did) you\b"),
    (("thought",), r"\bI thought (?:we|you)\b"),
    (("checked",), r"\bI (?:just )?checked\b"),
    (("messed up",), r"\bmessed up\b"),
)  # fmt: skip
# The user turns the agent away from what it did or proposed.
_REDIRECTS = _Gate(
    ((*_NOT, "let's not", "lets not"),
     r"\b(?:don'?t|do not|shouldn'?t|should not|let'?s not|not you)\b.{0,60}\b(?:change\w*|add\w*|touch\w*|"
     r"modify\w*|commit\w*|leave|worry|do(?:ing)?|use|need|be|write|run|remov\w*|delet\w*)\b"),
    (("rather than",), r"\brather than\b"),
    (("not",), r"\bnot (?:as|in|on|to|via|with) (?:a|an|the)\b"),
    (("like",), r"\bI (?:don'?t|do not) (?:quite )?like\b"),
    (("back",), r"\bbring (?:that|it|this)(?: part)? back\b|\bput (?:it|that) back\b"),
    (("duplicat",), r"\b(?:looks|seems) duplicated\b|\bdelete (?:the )?duplicat\w+"),
    (("simplify",), r"\bsimplify\b"),
    (("should",), r"\bshould (?:use|handle|be|check|not)\b"),
    (("only", "just"), r"\b(?:only|just) (?:the|use|run|change|touch)\b"),
    (("removed", "reverted", "deleted", "undid"), r"\bI (?:removed|reverted|deleted|undid)\b"),
    (("almost there",), r"\balmost there\b"),
    (("adjust",), r"\blet'?s adjust\b"),
    (("meant",), r"\bwhat I meant\b|\bthat'?s what I meant\b"),
    (("go back",), r"\bgo back to\b"),
    (("undo", "revert"), r"\b(?:undo|revert) (?:that|this|it|the|your)\b"),
)  # fmt: skip
# A relayed code-review finding (review bots mark their severity).
_REVIEW = _Gate((("severity",), r"\b(?:high|medium|low|critical) severity\b"))
# Not the user's words, or a new piece of work rather than a fix.
_NOT_TYPED = ("operation stopped by hook", "implement the following plan")
_REQUEST = _Gate(
    (("can ", "could ", "should ", "would ", "shall ", "is ", "do we", "does "),
     r"\A\W*(?:(?:can|could|should|would|shall) (?:we|you|i)|is (?:it|there|the|this|that)|do we|does (?:it|this))\b"),
)  # fmt: skip
_NEW_TASK = _Gate((("new ",), r"\bnew (?:change|task|feature|thing|request)\b"))
# The user takes back their own words, or apologises for them: no correction of the agent.
_OWN = _Gate(
    (("mistaken", "wrong", "my bad", "my mistake", "ignore"),
     r"\b(?:I was (?:mistaken|wrong)|my (?:bad|mistake)|ignore (?:my|that) (?:last|previous))\b"),
)  # fmt: skip
_ANSWER = _Gate(
    (("no", "nah", "yes", "yeah", "yep", "sure", "ok"), r"\A\W*(?:no|nope|nah|yes|yeah|yep|sure|ok(?:ay)?)\b"),
)
GATES = (_DONE, _FAILS, _DISPUTES, _REDIRECTS, _REVIEW, _NEW_TASK, _OWN, _REQUEST, _ANSWER)


def _asked(said: str) -> bool:
    """The agent's last message ends on a question (a Markdown emphasis or a bracket after it aside)."""
    return said.rstrip().rstrip("*_`)").rstrip().endswith("?")


def judge(
    text: str, context: Context, matcher: CorrectionMatcher, typed: str | None = None, words: str | None = None
) -> Verdict | None:
    """The verdict on one typed prompt in its context, or ``None``: not a correction.

    The first prompt of a conversation is its task, never a correction. A refusal's
    feedback and the first prompt after an interruption correct by where they stand,
    unless the user takes back their own words. ``typed`` and ``words``: the prompt's typed text
    (:func:`~orkas_tui.core.observe.origins.split_pasted`) and its words (:func:`norm`), when the
    caller has them already.
    """
    if (context.prompts == 0 and context.before is None) or text.startswith("/"):  # a task; a slash command
        return None
    if typed is None:
        typed = split_pasted(text)[0]
    head = typed[:TYPED_HEAD]
    lowered = head.lower()
    if context.before == "feedback":
        return Verdict("interrupt", "refused a tool use, then said what to do instead", _first_words(head or text))
    if _OWN.search(head, lowered):
        return None
    if context.before == "aborted":
        return Verdict("interrupt", "interrupted the agent, then redirected it", _first_words(head or text))
    if (match := _REVIEW.search(head, lowered)) is not None:
        return Verdict("review", "relayed a review finding on the agent's work", match.group(0))
    if text.lstrip().lower().startswith(_NOT_TYPED):
        return None
    asked = _asked(context.agent)
    opening = typed[:OPENING]
    tail = text[-TAIL:]
    if (
        not _REQUEST.search(opening, lowered[:OPENING])
        and (
            match := _FAILS.search(opening, lowered[:OPENING]) or (None if tail == opening else _FAILS.search(tail, tail.lower()))
        )
        is not None
        and (_DONE.search(context.agent, context.agent.lower()) or (context.agent.strip() and not asked))
    ):
        return Verdict("failed", "reported a failure after the agent's work", match.group(0).strip())
    if len(typed) > SHORT:  # a spec, a long task or a relayed finding: its words describe, they do not correct
        return None
    if _NEW_TASK.search(head, lowered):
        return None
    if (match := _DISPUTES.search(head, lowered)) is not None:
        return Verdict("diagnosis", "disputed what the agent said", match.group(0).strip())
    if (match := _REDIRECTS.search(head, lowered)) is not None and not asked:
        return Verdict("redirect", "redirected the agent from what it did", match.group(0).strip())
    if (restated := _restated(head, words if words is not None else norm(head), context.earlier)) is not None:
        return Verdict("restated", "restated an earlier instruction", restated)
    if (
        len(typed) <= PHRASED
        and (phrase := matcher.find(head)) is not None
        and not (asked and _answers(head))
        and not _REQUEST.search(head, lowered)
    ):
        return Verdict("phrase", "", phrase)  # the reason is the phrase: "matched 'instead'"
    return None


def _first_words(text: str, limit: int = 60) -> str:
    words = " ".join(text.split())
    return words if len(words) <= limit else words[: limit - 1] + "…"


_PUNCTUATION = str.maketrans({c: " " for c in "!\"#$%&'()*+,-./:;<=>?@[\\]^`{|}~"})


def norm(text: str) -> str:
    """A text's words, lowercased, one space apart (ASCII punctuation splits them): what a
    restatement is compared by."""
    return " ".join(text.lower().translate(_PUNCTUATION).split())


def _restated(head: str, words: str, earlier: list[tuple[str, frozenset[str]]]) -> str | None:
    """The head repeats most of an earlier prompt's words (a sentence or more), not all of them
    word for word: said again because it was not followed."""
    if not earlier:
        return None
    mine = set(words.split())
    if len(mine) < 6:
        return None
    size = len(mine)
    for said, theirs in earlier:
        if said == words:  # the same words sent again: a retry (after a hook or a network stopped it)
            continue
        if not 0.7 * size <= len(theirs) <= size / 0.7:  # the Jaccard index cannot reach 0.7
            continue
        if len(theirs) >= 6 and len(mine & theirs) >= 0.7 * len(mine | theirs):
            return _first_words(head)
    return None


def _answers(head: str) -> bool:
    """A short answer to the agent's question ("no, keep it"): no correction on its own."""
    return _ANSWER.search(head, head.lower()) is not None
