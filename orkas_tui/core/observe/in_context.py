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
from dataclasses import dataclass, field
from typing import NamedTuple

from orkas_tui.core.observe.corrections import CorrectionMatcher
from orkas_tui.core.observe.origins import split_pasted

# The heuristic's version: caches of observations include it in their fingerprint.
VERSION = 1

AGENT_TAIL = 600  # what the agent said last: the tail of its last message before the prompt
TYPED_HEAD = 600  # a correction comes first; what follows is detail
OPENING = 250  # a failure is reported in the opening words, or at the end of what was pasted
TAIL = 400
SHORT = 400
PHRASED = 300  # the phrase list is read in short messages only: in longer ones its words describe  # past this many typed characters a message is a task, a spec or a relayed finding
EARLIER = 12  # earlier prompts kept to find one restated


class Verdict(NamedTuple):
    kind: str  # interrupt, failed, diagnosis, redirect, restated, review, phrase
    reason: str  # the sentence a person reads beside the turn
    phrase: str  # the words that decided it, as written in the prompt


@dataclass(slots=True)
class Context:
    """What the observer knows of a conversation when it reads the next prompt."""

    agent: str = ""  # the tail of the agent's last message before the prompt
    before: str | None = None  # how the turn before ended: None (first prompt), ok, error, aborted
    refused: bool = False  # the turn before had a tool use the user refused
    prompts: int = 0  # typed prompts read so far in the conversation
    earlier: list[str] = field(default_factory=list)  # their typed words, normalised, newest last

    def said(self, text: str) -> None:
        self.agent = text[-AGENT_TAIL:]

    def ended(self, status: str, refused: bool) -> None:
        self.before, self.refused = status, refused

    def prompted(self, typed: str) -> None:
        self.prompts += 1
        self.earlier.append(_norm(typed))
        del self.earlier[:-EARLIER]
        self.agent = ""


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


# The agent said the work was done, fixed or working.
_DONE = _rx(
    r"\b(?:done|fixed|all (?:tests|checks) pass|tests? (?:now )?pass|passing|should (?:now )?work|now works|"
    r"works now|is (?:now )?working|committed|pushed|created|ready|complete|implemented|resolved|updated|try it)\b|✅|✓"
)
# The user reports that it fails or looks wrong.
_FAILS = _rx(
    r"\b(?:still|again)\b.{0,40}\b(?:fail\w*|error\w*|broken|wrong|the same|issues?|problems?|conflicts?)\b|"
    r"\b(?:doesn'?t|does not|don'?t|didn'?t|did not|won'?t|can'?t|cannot) (?:seem to )?(?:work|fire|happen|see|show|"
    r"appear|pick\w* up|run|load|pass|build|compile|exist)\w*\b|"
    r"\b(?:isn'?t|is not|aren'?t|are not|not) (?:working|firing|happening|showing|appearing|passing|building)\b|"
    r"\bnothing (?:is |was )?(?:happening|happens|happened|changed|shows?)\b|"
    r"\b(?:getting|got|seeing|see|throws?|gives?) (?:this|an?|the same|these)? ?(?:error|exception|failure|warning)s?\b|"
    r"\b(?:it |this |that |now )?(?:fails|failed|failing|crash\w*|breaks|broke|broken)\b|"
    r"--- FAIL|\bFAIL\b|Error Trace|Traceback|\bpanic:|unknown command|command not found|exit (?:code|status) [1-9]|"
    r"\bisn'?t (?:really |actually )?(?:check\w*|test\w*|handl\w*|cover\w*)\b|\A\W*fix\b|"
    r"\bnot (?:working|correct)\b|\bnot right\b(?! (?:now|away)\b)|\blooks? (?:wrong|off|broken)\b|"
    r"\bshould (?:have|be showing)\b.{0,60}\?"
)
# The user disputes what the agent said.
_DISPUTES = _rx(
    r"\b(?:is|'s|are) not (?:correct|right|true|the (?:issue|problem|cause))\b|\bisn'?t (?:correct|right|true)\b|"
    r"\b(?:that'?s|this is|it'?s) (?:not (?:why|it|the (?:issue|problem|cause))|wrong)\b|\btechnically\b|"
    r"\bdoesn'?t seem right\b|\bthe (?:issue|problem|bug) (?:was|is) (?:with|in|that)\b|\bbut (?:is|isn'?t|wasn'?t) "
    r"(?:this|that|it) the same\b|\bwhat my \w+ says\b|\bit was there before\b|<-\s*this should\b|"
    r"\bthis should be\b.{0,40}\bnow\b|\bI was able to\b|\bdoes (?:fire|fail|work|exist)\b|\bI'?ve still got\b|"
    r"\bwhy (?:exactly )?(?:didn'?t|did) you\b|\bI thought (?:we|you)\b|\bI (?:just )?checked\b|\bmessed up\b"
)
# The user turns the agent away from what it did or proposed.
_REDIRECTS = _rx(
    r"\b(?:don'?t|do not|shouldn'?t|should not|let'?s not|not you)\b.{0,60}\b(?:change\w*|add\w*|touch\w*|"
    r"modify\w*|commit\w*|leave|worry|do(?:ing)?|use|need|be|write|run|remov\w*|delet\w*)\b|"
    r"\brather than\b|\bnot (?:as|in|on|to|via|with) (?:a|an|the)\b|"
    r"\bI (?:don'?t|do not) (?:quite )?like\b|\bbring (?:that|it|this)(?: part)? back\b|\bput (?:it|that) back\b|"
    r"\b(?:looks|seems) duplicated\b|\bdelete (?:the )?duplicat\w+|\bsimplify\b|\bshould (?:use|handle|be|check|not)\b|"
    r"\b(?:only|just) (?:the|use|run|change|touch)\b|\bI (?:removed|reverted|deleted|undid)\b|\balmost there\b|"
    r"\blet'?s adjust\b|\bwhat I meant\b|\bthat'?s what I meant\b|\bgo back to\b|\b(?:undo|revert) (?:that|this|it|the|your)\b"
)
# A relayed code-review finding (review bots mark their severity).
_REVIEW = _rx(r"\b(?:high|medium|low|critical) severity\b")
# Not the user's words, or a new piece of work rather than a fix.
_NOT_TYPED = _rx(r"\A\s*(?:Operation stopped by hook|Implement the following plan)\b")
_REQUEST = _rx(r"\A\W*(?:(?:can|could|should|would|shall) (?:we|you|i)|is (?:it|there|the|this|that)|do we|does (?:it|this))\b")
_NEW_TASK = _rx(r"\bnew (?:change|task|feature|thing|request)\b")
# The user takes back their own words, or apologises for them: no correction of the agent.
_OWN = _rx(r"\b(?:I was (?:mistaken|wrong)|my (?:bad|mistake)|ignore (?:my|that) (?:last|previous))\b")
_QUESTION_END = re.compile(r"\?\s*(?:[*_`)]*\s*)?$")


def judge(text: str, context: Context, matcher: CorrectionMatcher) -> Verdict | None:
    """The verdict on one typed prompt in its context, or ``None``: not a correction.

    The first prompt of a conversation is its task, never a correction. A refusal's
    feedback and the first prompt after an interruption correct by where they stand,
    unless the user takes back their own words.
    """
    if context.prompts == 0 and context.before is None:
        return None
    typed, _pasted = split_pasted(text)
    head = typed[:TYPED_HEAD]
    if context.before == "feedback":
        return Verdict("interrupt", "refused a tool use, then said what to do instead", _first_words(head or text))
    if _OWN.search(head):
        return None
    if context.before == "aborted":
        return Verdict("interrupt", "interrupted the agent, then redirected it", _first_words(head or text))
    if (match := _REVIEW.search(head)) is not None:
        return Verdict("review", "relayed a review finding on the agent's work", match.group(0))
    if _NOT_TYPED.match(text):
        return None
    asked = bool(_QUESTION_END.search(context.agent))
    opening = typed[:OPENING]
    if (
        not _REQUEST.match(opening)
        and (match := _FAILS.search(opening) or _FAILS.search(text[-TAIL:])) is not None
        and (_DONE.search(context.agent) or (context.agent.strip() and not asked))
    ):
        return Verdict("failed", "reported a failure after the agent's work", match.group(0).strip())
    if len(typed) > SHORT:  # a spec, a long task or a relayed finding: its words describe, they do not correct
        return None
    if _NEW_TASK.search(head):
        return None
    if (match := _DISPUTES.search(head)) is not None:
        return Verdict("diagnosis", "disputed what the agent said", match.group(0).strip())
    if (match := _REDIRECTS.search(head)) is not None and not asked:
        return Verdict("redirect", "redirected the agent from what it did", match.group(0).strip())
    if (restated := _restated(head, context.earlier)) is not None:
        return Verdict("restated", "restated an earlier instruction", restated)
    if (
        len(typed) <= PHRASED
        and (phrase := matcher.find(head)) is not None
        and not (asked and _answers(head))
        and not _REQUEST.match(head)
    ):
        return Verdict("phrase", f'correction phrase "{phrase}"', phrase)
    return None


def _first_words(text: str, limit: int = 60) -> str:
    words = " ".join(text.split())
    return words if len(words) <= limit else words[: limit - 1] + "…"


def _norm(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))


def _restated(head: str, earlier: list[str]) -> str | None:
    """The head repeats most of an earlier prompt's words (a sentence or more): said again."""
    words = _norm(head)
    mine = set(words.split())
    if len(mine) < 6:
        return None
    for said in earlier:
        theirs = set(said.split())
        if len(theirs) >= 6 and len(mine & theirs) >= 0.7 * len(mine | theirs):
            return _first_words(head)
    return None


_ANSWER = _rx(r"\A\W*(?:no|nope|nah|yes|yeah|yep|sure|ok(?:ay)?)\b")


def _answers(head: str) -> bool:
    """A short answer to the agent's question ("no, keep it"): no correction on its own."""
    return bool(_ANSWER.match(head))
