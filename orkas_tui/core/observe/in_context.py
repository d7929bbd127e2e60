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
from collections.abc import Callable
from functools import cache
from typing import NamedTuple

from orkas_tui.core.observe.corrections import CorrectionMatcher, one_line
from orkas_tui.core.observe.gates import WORD, Gate
from orkas_tui.core.observe.gates import alternative as _a
from orkas_tui.core.observe.gates import opening as _o
from orkas_tui.core.observe.origins import split_pasted

# The heuristic's version: caches of observations include it in their fingerprint.
VERSION = 6  # 2: round two, tuned on the whole first corpus; 3 to 6: on the second to the fifth set too

AGENT_TAIL = 600  # what the agent said last: the tail of its last message before the prompt
TYPED_HEAD = 600  # a correction comes first; what follows is detail
OPENING = 250  # a failure is reported in the opening words, or at the end of what was pasted
TAIL = 400  # the end of what was pasted, where a pasted error's last line says what failed
SHORT = 400  # past this many typed characters a message is a task, a spec or a relayed finding
PHRASED = 300  # the phrase list is read in short messages only: in longer ones its words describe
FIRST_WORDS = 60  # the words of a prompt shown as what decided it
EARLIER = 5  # earlier prompts kept to find one restated (a restatement comes soon after)
PASTED = 4_000  # a pasted log is searched for a failure this far (its first lines say what ran, then what failed)
PASTE_MIN = 20  # fewer pasted characters than this are no log


class Verdict(NamedTuple):
    kind: str  # interrupt, failed, diagnosis, redirect, restated, review, phrase
    reason: str  # the sentence a person reads beside the turn ("" for a phrase: the phrase says it)
    phrase: str  # the words that decided it, as written in the prompt


class Words(NamedTuple):
    """A text's words (what ``\\b`` delimits), lowercased, in order and as a set: what a
    restatement is compared by, and what the gates look their words up in."""

    seq: tuple[str, ...]
    set: frozenset[str]


def words_of(text: str) -> Words:
    found = WORD.findall(text.lower())
    return Words(tuple(found), frozenset(found))


class Context:
    """What the observer knows of a conversation when it reads the next prompt. (A plain class: one
    per conversation, and a dataclass costs the warm start a millisecond to build.)"""

    __slots__ = ("acted", "agent", "before", "earlier", "prompts")

    def __init__(self, agent: str = "", before: str | None = None, prompts: int = 0, acted: bool = True) -> None:
        self.agent = agent  # the tail of the agent's last message before the prompt
        self.before = before  # how the turn before ended: None (first prompt), ok, error, aborted; feedback
        self.acted = acted  # a tool call of the turn before ran (TurnRecord.acted): a resent prompt completes the user's own
        self.prompts = prompts  # typed prompts read so far in the conversation
        self.earlier: list[Words] = []  # their words, newest last

    def said(self, text: str) -> None:
        self.agent = text[-AGENT_TAIL:]

    def ended(self, status: str, acted: bool) -> None:
        self.before, self.acted = status, acted

    def resumed(self, turns: int, before: str | None) -> None:
        """Read on from a restored summary: its turns stand for the prompts read (their words are not
        kept, so neither a restatement nor a resent prompt is found, and whether it ran a tool is moot)."""
        self.prompts, self.before = turns, before

    def prompted(self, typed: str, words: Words | None = None) -> None:
        """A prompt read (``words``: its words, when the caller has them already)."""
        self.prompts += 1
        self.earlier.append(words_of(typed) if words is None else words)
        del self.earlier[:-EARLIER]
        self.agent = ""


# The agent said the work was done, fixed or working.
_DONE = Gate(
    _a(r"\b(?:done|fixed|all (?:tests|checks) pass|tests? (?:now )?pass|passing|should (?:now )?work|now works|"
       r"works now|is (?:now )?working|committed|pushed|created|ready|complete|implemented|resolved|updated|try it)\b",
       ("done", "fixed", "pass", "passing", "work", "works", "working", "committed", "pushed", "created", "ready",
        "complete", "implemented", "resolved", "updated", "try")),
    _a(r"✅|✓", fragments=("✅", "✓")),
)  # fmt: skip
# The user reports that it fails or looks wrong.
_FAILS = Gate(
    _a(r"\b(?:still|again)\b.{0,40}\b(?:fail\w*|error\w*|broken|wrong|the same|issues?|problems?|conflicts?)\b",
       ("still", "again")),
    _a(r"\b(?:doesn'?t|does not|don'?t|didn'?t|did not|won'?t|can'?t|cannot) (?:seem to )?(?:work|fire|happen|"
       r"see|show|appear|pick\w* up|run|load|pass|build|compile|exist|change|clear|apply|render|display|disable)\w*\b",
       ("doesn", "doesnt", "does", "don", "dont", "didn", "didnt", "did", "won", "wont", "can", "cant", "cannot")),
    _a(r"\b(?:isn'?t|is not|aren'?t|are not|not) (?:working|firing|happening|showing|appearing|passing|building)\b",
       ("working", "firing", "happening", "showing", "appearing", "passing", "building")),
    _a(r"\bnothing (?:is |was )?(?:happening|happens|happened|changed|shows?)\b", ("nothing",)),
    _a(r"\b(?:I'?m|I am|am|still) not seeing\b", ("seeing",)),
    _a(r"\b(?:is|are|it'?s|its) still \w+ing\b(?![^.!?\n]{0,60}\?)", ("still",)),  # a report, not "is it still …?"
    _a(r"\bstill (?:there|seeing|getting|happening|showing|broken|not|displayed|visible|present)\b", ("still",)),
    _a(r"\bexit(?:s|ed)? immediately\b|\bcan'?t get past\b|\bnot updated\b|\b(?:says|shows) failing\b",
       ("exit", "exits", "exited", "past", "updated", "failing")),
    _a(r"\bthere(?:'s| is| seems to be) (?:a|an|still an?|some) (?:\w+ )?(?:bug|issue|problem|regression)s?\b", ("there",)),
    _a(r"\b(?:getting|got|seeing|see|throws?|gives?) (?:this|an?|the same|these)? ?(?:error|exception|failure|warning)s?\b",
       ("error", "errors", "exception", "exceptions", "failure", "failures", "warning", "warnings")),
    _a(r"\b(?:it |this |that |now )?(?:fails|failed|failing|crash\w*|breaks|broke|broken)\b",
       ("fails", "failed", "failing", "breaks", "broke", "broken"), ("crash",)),
    _a(r"--- FAIL|\bFAIL\b|\bError Trace\b|\bTraceback\b|\bpanic:|\bunknown command\b|\bcommand not found\b",
       ("fail", "trace", "traceback", "panic", "unknown", "command")),
    _a(r"\bexit (?:code|status) [1-9]", ("exit",)),
    _a(r"\bisn'?t (?:really |actually )?(?:check\w*|test\w*|handl\w*|cover\w*)\b", ("isn", "isnt")),
    _o(r"\A\W*fix\b", ("fix",)),
    _a(r"\bnot (?:working|correct)\b|\bnot right\b(?! (?:now|away)\b)", ("not",)),
    _a(r"\blooks? (?:wrong|off|broken)\b", ("look", "looks")),
    _a(r"\bshould (?:have|be showing)\b.{0,60}\?", ("should",)),
    # Portuguese, from the labelled prompts of set 5: "continua dando o mesmo erro", "não está funcionando"
    _a(r"\bcontinu(?:o|a|am) (?:\w+ )?(?:dando|tomando|com|buscando|apresentando|mostrando|aparecendo|falhando|incorret\w*|errad\w*)\b",
       ("continuo", "continua", "continuam")),
    _a(r"\b(?:o mesmo|a mesma) (?:erro|problema|falha)\b|\berro (?:permanece|persiste|continua)\b|\bfoi (?:o mesmo|a mesma)\b",
       ("mesmo", "mesma", "erro")),
    _a(r"\bn[ãa]o (?:est[áa]o?|estao) (?:sendo|funcionando|abrindo|apresentando|aparecendo|carregando|mostrando|salvando|"
       r"compilando|buildando|linkad\w+)\b|\bn[ãa]o (?:funciona|funcionou|abre|abriu|carrega|carregou|compila|compilou|"
       r"consegui)\b|\bn[ãa]o \w+ corretamente\b", ("não", "nao")),
    _a(r"\b(?:recebi|tomando|dando|apresentando|apresentou|deu) (?:o |um |a |o seguinte |este |esse )?(?:erro|falha)\b",
       ("recebi", "tomando", "dando", "apresentando", "apresentou", "deu")),
    _a(r"\bainda (?:est[áa]o?|n[ãa]o)\b(?![^.!?]{0,80}\?)", ("ainda",)),  # not asked as a question
)  # fmt: skip
# The user disputes what the agent said.
_DISPUTES = Gate(
    _a(r"\b(?:is|'s|are) not (?:correct|right|true|the (?:issue|problem|cause))\b", ("not",)),
    _a(r"\bisn'?t (?:correct|right|true)\b", ("isn", "isnt")),
    _a(r"\b(?:that'?s|this is|it'?s) (?:not (?:why|it|the (?:issue|problem|cause))|wrong)\b", ("not", "wrong")),
    _a(r"\btechnically\b", ("technically",)),
    _a(r"\bdoesn'?t seem right\b", ("seem",)),
    _a(r"\bthe (?:issue|problem|bug) (?:was|is) (?:with|in|that)\b", ("issue", "problem", "bug")),
    _a(r"\bbut (?:is|isn'?t|wasn'?t) (?:this|that|it) the same\b", ("same",)),
    _a(r"\bwhat my \w+ says\b", ("says",)),
    _a(r"\bit was there before\b", ("before",)),
    _a(r"<-\s*this should\b", fragments=("<-",)),
    _a(r"\bthis should be\b.{0,40}\bnow\b", ("should",)),
    _a(r"\bI was able to\b", ("able",)),
    _a(r"\bdoes (?:fire|fail|work|exist)\b", ("does",)),
    _a(r"\bI'?ve still got\b", ("got",)),
    _a(r"\bwhy (?:exactly )?(?:didn'?t|did) you\b", ("why",)),
    _a(r"\bI thought\b", ("thought",)),
    # a question that challenges what the agent did: "why aren't we…", "isn't that also…?", "…would work, no?"
    _a(r"\bwhy (?:aren'?t|isn'?t|don'?t|doesn'?t|are you still|are we still|do we (?:even )?need)\b", ("why",)),
    _a(r"\b(?:isn'?t|aren'?t|doesn'?t|wouldn'?t) (?:it|this|that|there|we|you)\b[^?.\n]{0,100}\?",
       ("isn", "isnt", "aren", "arent", "doesn", "doesnt", "wouldn", "wouldnt")),
    _a(r",\s*no\s*\?", ("no",)),
    _a(r"\bI (?:just )?checked\b", ("checked",)),
    _a(r"\bmessed up\b", ("messed",)),
    _o(r"\A\W*(?:but|and|so) (?:are (?:we|you) sure|(?:this|that|it) means|(?:there|it|this|that) (?:is|are|isn'?t|aren'?t|was|wasn'?t)"
       r"|we (?:only|don'?t|do|didn'?t)|if\b)", ("but", "and", "so")),
    _a(r"\bis the (?:fix|problem|issue|cause) not\b", ("fix", "problem", "issue", "cause")),
    # a question that opens on a negative: "doesn't every prompt update…?", "emm - doesn't the config…?"
    _o(r"\A\W*(?:(?:emm?|umm?|hmm+|but|wait|so)\W+)?(?:doesn'?t|don'?t|isn'?t|aren'?t|wasn'?t|didn'?t|shouldn'?t|"
       r"won'?t|can'?t)\b[^?\n]{0,160}\?",
       ("doesn", "doesnt", "don", "dont", "isn", "isnt", "aren", "arent", "wasn", "wasnt", "didn", "didnt", "shouldn",
        "shouldnt", "won", "wont", "can", "cant", "em", "emm", "um", "umm", "hmm", "hmmm", "but", "wait", "so")),
)  # fmt: skip
# The user turns the agent away from what it did or proposed.
_REDIRECTS = Gate(
    _a(r"\b(?:don'?t|do not|shouldn'?t|should not|let'?s not|not you)\b.{0,60}\b(?:change\w*|add\w*|touch\w*|"
       r"modify\w*|commit\w*|leave|worry|do(?:ing)?|use|need|be|write|run|remov\w*|delet\w*)\b",
       ("don", "dont", "not", "shouldn", "shouldnt")),
    _a(r"\brather than\b", ("rather",)),
    _a(r"\bnot (?:as|in|on|to|via|with) (?:a|an|the)\b", ("not",)),
    _a(r"\bI (?:don'?t|do not) (?:quite )?like\b", ("like",)),
    _a(r"\bbring (?:that|it|this)(?: part)? back\b|\bput (?:it|that) back\b", ("back",)),
    _a(r"\b(?:looks|seems) duplicated\b|\bdelete (?:the )?duplicat\w+", fragments=("duplicat",)),
    _a(r"\bshould (?:use|handle|be|check|not)\b", ("should",)),
    _a(r"\bI (?:removed|reverted|deleted|undid)\b", ("removed", "reverted", "deleted", "undid")),
    _a(r"\balmost there\b", ("almost",)),
    _a(r"\blet'?s adjust\b", ("adjust",)),
    _a(r"\bwhat I meant\b|\bthat'?s what I meant\b", ("meant",)),
    _a(r"\bgo back to\b", ("back",)),
    _a(r"\b(?:undo|revert) (?:that|this|it|the|your)\b", ("undo", "revert")),
    _a(r"\bis there (?:no|not an?)\b", ("there",)),
    _a(r"\bcan'?t we (?:just|simply)\b", ("can", "cant")),
    _o(r"\A\W*(?:do not|don'?t)\b", ("do", "don", "dont")),
    _a(r"\b(?:might be|is|are|be|now) duplicated\b", fragments=("duplicat",)),
)  # fmt: skip
# A relayed code-review finding (review bots mark their severity).
_REVIEW = Gate(_a(r"\b(?:high|medium|low|critical) severity\b", ("severity",)))
# Not the user's words, or a new piece of work rather than a fix.
_NOT_TYPED = ("operation stopped by hook", "implement the following plan")
_REQUEST = Gate(
    _o(r"\A\W*(?:(?:can|could|should|would|shall) (?:we|you|i)|is (?:it|there|the|this|that)|do we|does (?:it|this))\b",
       ("can", "could", "should", "would", "shall", "is", "do", "does")),
    _o(r"\A\W*(?:what (?:was|is|were|went|happened)|how (?:do|does|did|can|much|many))\b", ("what", "how")),
    _o(r"\A\W*(?:please )?(?:add|create|implement|write|generate|document|next one)\b",
       ("please", "add", "create", "implement", "write", "generate", "document", "next")),
    _a(r"\b(?:genuine|quick) question\b|\b(?:also |just )?wondering\b|\bjust curious\b", ("question", "wondering", "curious")),
)  # fmt: skip
_RESUME = Gate(
    _a(
        r"\A\W*(?:(?:ok(?:ay)?|yes|please|let'?s)\W+)?(?:continue|go on|proceed|resume|keep going|carry on)\b",
        ("continue", "go", "proceed", "resume", "keep", "carry"),
    )
)
_NEW_TASK = Gate(_a(r"\bnew (?:change|task|feature|thing|request)\b", ("new",)))
# The user takes back their own words, or apologises for them: no correction of the agent.
_OWN = Gate(
    _a(r"\b(?:I was (?:mistaken|wrong)|my (?:bad|mistake)|ignore (?:my|that) (?:last|previous)|never ?mind)\b",
       ("mistaken", "wrong", "bad", "mistake", "ignore", "never", "nevermind")),
)  # fmt: skip
_ANSWER = Gate(
    _o(r"\A\W*(?:no|nope|nah|yes|yeah|yep|sure|ok(?:ay)?)\b", ("no", "nope", "nah", "yes", "yeah", "yep", "sure", "ok", "okay"))
)
_ON_PROMPT = (_FAILS, _DISPUTES, _REDIRECTS, _REVIEW, _NEW_TASK, _OWN, _REQUEST, _ANSWER)  # what a prompt is searched by
GATES = (_DONE, *_ON_PROMPT, _RESUME)  # and the agent's last message, by _DONE; a resume after an interruption
_ANY_ON_PROMPT = Gate.joined(*_ON_PROMPT)  # one look at a quiet prompt, not eight


def _on_first_use(pattern: str, flags: int = 0) -> Callable[[], re.Pattern[str]]:
    """The pattern, compiled on first use, as the gates are: a warm start reads no prompt."""
    return cache(lambda: re.compile(pattern, flags))


_adds = _on_first_use(r"\b(?:and|but|also|then|except|instead)\b")  # after "continue": an instruction added
# A failure a log shows, wherever it is in what was pasted (its signature is case-sensitive).
_logged = _on_first_use(
    r"Traceback \(most recent call last\)|^=+ FAILURES =+|^Error: |No such file or directory|\bfailed with exit code"
    r"|npm ERR!|\[ERROR\]|^E +\w+Error\b|exited with code [1-9]|Uncaught \w*Error\b",
    re.MULTILINE,
)


def _logged_failure(text: str, typed: str) -> re.Match[str] | None:
    """A pasted log's failure: "it still fails" said with the log instead of words."""
    return _logged().search(text, 0, PASTED) if len(text) - len(typed) >= PASTE_MIN else None


def _asked(said: str) -> bool:
    """The agent's last message ends on a question (a Markdown emphasis or a bracket after it aside)."""
    return said.rstrip().rstrip("*_`)").rstrip().endswith("?")


def judge(
    text: str, context: Context, matcher: CorrectionMatcher, typed: str | None = None, words: Words | None = None
) -> Verdict | None:
    """The verdict on one typed prompt in its context, or ``None``: not a correction.

    The first prompt of a conversation is its task, never a correction. A refusal's feedback
    and the first prompt after an interruption correct by where they stand, unless the user
    takes back their own words, carries on, or sends the interrupted prompt again (completed or
    fixed, when the agent had run nothing yet: the user correcting their own message).
    ``typed`` and ``words``: the prompt's typed text
    (:func:`~orkas_tui.core.observe.origins.split_pasted`) and its words (:func:`words_of`), when
    the caller has them already.
    """
    if (context.prompts == 0 and context.before is None) or text.startswith("/"):  # a task; a slash command
        return None
    if typed is None:
        typed = split_pasted(text)[0]
    head = typed[:TYPED_HEAD]
    lowered = head.lower()
    if words is None or len(typed) > TYPED_HEAD:
        words = words_of(head)
    tokens, first = words.set, (words.seq[0] if words.seq else "")
    if context.before == "feedback":
        return Verdict("interrupt", "refused a tool use, then said what to do instead", one_line(head or text, FIRST_WORDS))
    opening, tail = typed[:OPENING], text[-TAIL:]
    quiet = tail == opening and _ANY_ON_PROMPT.closed(lowered, tokens, first)  # most prompts: no gate can match
    if not quiet and _OWN.search(head, lowered, tokens, first):
        return None
    if lowered.lstrip().startswith(_NOT_TYPED):
        return None
    if context.before == "aborted":
        if context.earlier and _resent(words, context.earlier[-1], completed=not context.acted):
            return None  # the interrupted prompt sent again: the user's own words, not the agent's fault
        if (carry := _RESUME.search(head, lowered, tokens, first)) and not _adds().search(lowered, carry.end()):
            return None  # carried on ("continue, and …": a new instruction, read as one)
        return Verdict("interrupt", "interrupted the agent, then redirected it", one_line(head or text, FIRST_WORDS))
    if quiet:
        if len(typed) > SHORT:
            return None
        return _restated_or_phrased(head, words, context, matcher, typed, asked=False, request=False)
    if (match := _REVIEW.search(head, lowered, tokens, first)) is not None:
        return Verdict("review", "relayed a review finding on the agent's work", match.group(0))
    asked = _asked(context.agent)
    request = _REQUEST.search(head, lowered, tokens, first) is not None  # anchored: the opening words decide
    if (
        not request
        and (
            match := _FAILS.search(opening, lowered[:OPENING], tokens, first)
            or (None if tail == opening else _FAILS.search(tail, tail.lower()))
            or _logged_failure(text, typed)
        )
        is not None
        and (_DONE.search(context.agent, context.agent.lower()) or (context.agent.strip() and not asked))
    ):
        return Verdict("failed", "reported a failure after the agent's work", match.group(0).strip())
    if len(typed) > SHORT:  # a spec, a long task or a relayed finding: its words describe, they do not correct
        return None
    if _NEW_TASK.search(head, lowered, tokens, first):
        return None
    if (match := _DISPUTES.search(head, lowered, tokens, first)) is not None:
        return Verdict("diagnosis", "disputed what the agent said", match.group(0).strip())
    if (match := _REDIRECTS.search(head, lowered, tokens, first)) is not None and not asked:
        return Verdict("redirect", "redirected the agent from what it did", match.group(0).strip())
    return _restated_or_phrased(head, words, context, matcher, typed, asked, request)


def _restated_or_phrased(
    head: str,
    words: Words,
    context: Context,
    matcher: CorrectionMatcher,
    typed: str,
    asked: bool,
    request: bool,
) -> Verdict | None:
    """The last two readings: an earlier instruction said again, then the phrase list (not in a
    short answer to the agent's question, nor in a question of the user's own)."""
    if (restated := _restated(head, words, context.earlier)) is not None:
        return Verdict("restated", "restated an earlier instruction", restated)
    if (
        len(typed) <= PHRASED
        and (phrase := matcher.find(head, words.set)) is not None
        and not (asked and _ANSWER.search(head, head.lower(), words.set, words.seq[0] if words.seq else "") is not None)
        and not request
        and "?" not in head
    ):
        return Verdict("phrase", "", phrase)  # the reason is the phrase: "matched 'instead'"
    return None


def _resent(words: Words, interrupted: Words, completed: bool) -> bool:
    """The prompt the interruption stopped, sent again: the same words, or (``completed``: the agent
    had run nothing yet) nearly all of them with more added or a slip fixed."""
    if words.seq == interrupted.seq:
        return True
    theirs = interrupted.set
    return completed and len(theirs) >= 3 and len(words.set & theirs) >= 0.8 * len(theirs)


def _restated(head: str, words: Words, earlier: list[Words]) -> str | None:
    """The head repeats most of an earlier prompt's words (a sentence or more), not all of them in
    the same order: said again because it was not followed (the same words again are a retry,
    after a hook or a network stopped it)."""
    mine, size = words.set, len(words.set)
    if not earlier or size < 6:
        return None
    for said, theirs in earlier:
        if said == words.seq or not 0.7 * size <= len(theirs) <= size / 0.7:  # a retry; Jaccard cannot reach 0.7
            continue
        if len(theirs) >= 6 and len(mine & theirs) >= 0.7 * len(mine | theirs):
            return one_line(head, FIRST_WORDS)
    return None
