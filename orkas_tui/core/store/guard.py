"""Defences against a hostile or confused model answer, applied before anything is proposed, and at export.

A reflection reads transcripts that other people, tools and web pages wrote, so its
answer may carry what they planted. Every text that would become a skill, a note or an
exported file is first read as a reader would see it (:func:`reveal`: Unicode tricks
undone, look-alike letters folded, encoded runs decoded, lines joined, Markdown link
targets and comments laid bare), then scanned for what it would make the agent *do*:
fetch and run code, send data out, touch credentials or shell start-up files, weaken
tests, reviews or permissions, hide things from the user, or obey planted instructions.
Each refusal names the capability and quotes the text. False refusals cost a person a
hand-written skill; a skill that leaks or hijacks costs far more, but an ordinary lesson
(a documentation link, an environment variable in a setup step, ``curl`` to localhost in
a test recipe) must pass: the patterns look for the act, not for words.
"""

from __future__ import annotations

import base64
import binascii
import re
import unicodedata
from dataclasses import dataclass, field
from urllib.parse import unquote

from orkas_tui.core.store.redact import Redactor

MAX_REPLY_CHARS = 200_000  # ten full-size skills; a megabyte answer is refused whole
FIELDS = ("name", "description", "body", "replace", "content")

_INVISIBLE = re.compile("[\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\u00ad]")
_TAGS = re.compile("[\U000e0000-\U000e007f]")
# Cyrillic and Greek letters drawn like Latin ones: folded for the scan, never in what is stored
_LOOKALIKE = str.maketrans(
    "аеорсхуіјѕԁһӏԛԝАВЕКМНОРСТХУІЈЅαορτυνεικΑΒΕΖΗΙΚΜΝΟΡΤΥΧ",
    "aeopcxyijsdhlqwABEKMHOPCTXYIJSaoptuveikABEZHIKMNOPTYX",
)
_BASE64 = re.compile(r"[A-Za-z0-9+/]{16,}={0,2}")
_HEX = re.compile(r"\b(?:[0-9a-fA-F]{2}){8,}\b")
_PERCENT = re.compile(r"(?:%[0-9a-fA-F]{2}){3,}")
_COMMENT = re.compile(r"<!--(.*?)-->", re.DOTALL)
_REF_DEF = re.compile(r"^\s*\[([^\]]+)\]:\s*<?(\S+?)>?(?:\s|$)", re.MULTILINE)
_REF_IMAGE = re.compile(r"!\[[^\]]*\]\[([^\]]*)\]")


@dataclass
class Revealed:
    """A text as its reader would take it in, with what hid in it."""

    text: str
    hidden: list[str] = field(default_factory=list)  # what was undone: "zero-width characters", "base64", ...
    tags: str | None = None  # text written in Unicode tag characters (invisible), decoded


def reveal(text: str) -> Revealed:
    """NFKC; invisible, bidi and tag characters taken out (tags decoded apart); look-alike letters
    folded; base64, hex and percent-encoded runs that decode to text added after it, decoded; the
    lines also joined, so a sentence split over lines reads whole."""
    found = Revealed("")
    tags = _TAGS.findall(text)
    if tags:
        found.tags = "".join(chr(ord(c) - 0xE0000) for c in tags if 0x20 <= ord(c) - 0xE0000 < 0x7F)
        found.hidden.append("Unicode tag characters")
        text = _TAGS.sub("", text)
    folded = unicodedata.normalize("NFKC", text)
    if _INVISIBLE.search(folded):
        found.hidden.append("zero-width or bidi-control characters")
        folded = _INVISIBLE.sub("", folded)
    plain = folded.translate(_LOOKALIKE)
    if plain != folded:
        found.hidden.append("look-alike letters")
    decoded = [*_decoded(plain, found)]
    joined = " ".join(plain.split())
    found.text = "\n".join([plain, joined, *decoded, *(found.tags or "").splitlines()])
    return found


def _decoded(text: str, found: Revealed) -> list[str]:
    out = []
    for run in _BASE64.findall(text):
        try:
            raw = base64.b64decode(run + "=" * (-len(run) % 4), validate=False)
        except (binascii.Error, ValueError):
            continue
        if _texty(raw):
            out.append(raw.decode("utf-8", "replace"))
            found.hidden.append("base64")
    for run in _HEX.findall(text):
        raw = bytes.fromhex(run)
        if _texty(raw):
            out.append(raw.decode("utf-8", "replace"))
            found.hidden.append("hex")
    for run in _PERCENT.findall(text):
        out.append(unquote(run))
        found.hidden.append("percent-encoding")
    out += [comment.strip() for comment in _COMMENT.findall(text)]
    return out


def _texty(raw: bytes) -> bool:
    """Decoded bytes that read as text: UTF-8 with mostly printable characters and some spaces or punctuation."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    printable = sum(ch.isprintable() or ch in "\n\t" for ch in text)
    return len(text) >= 8 and printable >= 0.95 * len(text) and bool(re.search(r"[\s/.|:;-]", text))


_LOCAL = r"(?!(?:localhost|127\.\d+\.\d+\.\d+|\[::1\]|0\.0\.0\.0)(?:[:/\s]|$))"
_URL = rf"(?:https?|ftp|wss?)://{_LOCAL}[^\s)>\]\"'`]+"
_SECRETS_OBJ = (
    r"(?:api[ _-]?keys?|tokens?|secrets?|passwords?|credentials?|cookies?|\.env\b|environment variables|env vars|"
    r"\$\{?[A-Z][A-Z0-9_]{2,}|ssh keys?|id_rsa|id_ed25519|~/\.ssh|\.aws|history|transcripts?|conversations?|"
    r"chat log|the user'?s (?:files|data|code)|claves?|contraseñas?|credenciales|historial|密钥|令牌|密码|凭证|历史记录|对话)"
)
# (capability, the words a refusal uses, patterns): each pattern is an act, not a topic
CAPABILITIES: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "fetch and run code from an outside address",
        (
            r"\b(?:curl|wget|fetch|iwr|irm|invoke-webrequest|invoke-restmethod)\b[^\n|]*\|\s*(?:sudo\s+)?(?:ba|z|k|da)?sh\b",
            r"\b(?:curl|wget)\b[^\n|]*\|\s*(?:sudo\s+)?(?:python\d?|perl|ruby|node|php|iex|invoke-expression)\b",
            r"\b(?:curl|wget)\b[^\n]*\bpiped? to\b[^\n]*\b(?:sh|bash|zsh|python|the shell)\b",
            r"\bpipe\b[^\n]*\b(?:curl|wget)\b[^\n]*\b(?:into|to|through)\s+(?:ba|z)?sh\b",
            r"\biex\s*\(\s*(?:iwr|irm|invoke-webrequest|invoke-restmethod|new-object)",
            r"(?:ba)?sh\s+(?:-c\s+)?[\"']?\$\(\s*(?:curl|wget)",
            r"(?:ba)?sh\s+<\(\s*(?:curl|wget)",
            rf"\b(?:pip3?|uv pip|npm|pnpm|yarn|gem|cargo|go)\s+(?:install|add|get)\b[^\n]*(?:{_URL}|--index-url|--extra-index-url|-i\s+\S+://|--registry[= ]|git\+)",
            r"(?:descarga|baja)[^\n]*y (?:ejecuta|corre)|下载并(?:执行|运行)",
        ),
    ),
    (
        "send data to an outside address",
        (
            rf"\bcurl\b[^\n]*\s(?:-d|--data(?:-\w+)?|-T|--upload-file|-F|--form)[\s=][^\n]*{_URL}",
            rf"\bcurl\b[^\n]*{_URL}[^\n]*\s(?:-d|--data(?:-\w+)?|-T|--upload-file|-F|--form)[\s=]",
            rf"\bwget\b[^\n]*--post-(?:data|file)[^\n]*{_URL}",
            rf"{_URL}\?[^\s]*(?:\$\(|\$\{{?[A-Za-z_]|`|%24|\{{[a-z_]+\}})",
            rf"\b(?:send|post|upload|report|forward|email|include|attach|copy|paste|leak|exfiltrate)\b[^\n]{{0,80}}{_SECRETS_OBJ}[^\n]{{0,80}}(?:{_URL}|\bto (?:an? )?(?:outside|external|remote) )",
            rf"{_SECRETS_OBJ}[^\n]{{0,60}}\b(?:to|in a request to|into)\s+{_URL}",
            r"\b(?:nslookup|dig|host|ping)\b[^\n]*\$\(",
            rf"(?:env[ií]a|sube|manda|publica)[^\n]{{0,80}}{_SECRETS_OBJ}[^\n]{{0,80}}{_URL}",
            rf"(?:发送|上传|发到|传到)[^\n]{{0,60}}{_URL}",
        ),
    ),
    (
        "touch credentials or shell start-up files",
        (
            r"~?/?\.ssh/|\bauthorized_keys\b|\bid_(?:rsa|ed25519|ecdsa)\b",
            r"(?:>>?|\btee\b|\becho\b[^\n]*>>?|\bappend\b[^\n]*\bto\b|\badd\b[^\n]*\bto\b|\bedit\b|\bwrite\b[^\n]*\bto\b)\s*[^\n]{0,40}~?/?\.(?:bashrc|zshrc|profile|bash_profile|zprofile|config/fish)\b",
            r"\.(?:npmrc|pypirc|netrc)\b|\.aws/credentials|\.docker/config\.json|\.git-credentials",
            r"\bgit\s+config\b[^\n]*credential\.helper",
            r"\b(?:printenv|env)\s*(?:>|\|)|\bexport\s+-p\b|\bset\s*>\s*\S|\bcat\b[^\n]*\.env\b[^\n]*(?:\||>|curl)",
            r"(?:dump|print|list|show|copy)\s+(?:all\s+)?(?:the\s+)?(?:environment variables|env vars)",
        ),
    ),
    (
        "weaken tests, reviews or permissions",
        (
            r"--no-verify\b|\bSKIP=\S|\bHUSKY=0\b",
            r"\bgit\s+push\b[^\n]*(?:--force\b|-f\b|--force-with-lease)",
            r"\b(?:skip|delete|remove|disable|comment out|ignore|mark as (?:skipped|xfail))\b[^\n]{0,30}\b(?:failing |flaky |the )?(?:tests?|ci(?: jobs?)?|checks|pre-commit|hooks|linters?|type checks?|code review)\b(?! (?:output|warnings?|results?) (?:for|in|when))",
            r"@pytest\.mark\.skip|\bpytest\.skip\(|\bit\.skip\(|\bxit\(|\bdescribe\.skip\(",
            r"--dangerously-skip-permissions|\bbypasspermissions\b|--yolo\b|approval[_-]policy\s*=\s*\"?never|sandbox[_-]mode\s*=\s*\"?danger-full-access|--no-sandbox\b",
            r"\b(?:bypass|disable|turn off|switch off|override)\b[^\n]{0,20}\b(?:the\s+|your\s+)?(?:safety|security|guardrails?|restrictions|sandbox|approvals?|permission prompts?|permissions)\b",
            r"(?:omite|salta|borra|desactiva)[^\n]{0,20}(?:los )?(?:tests|pruebas|ci|hooks)|(?:跳过|删除|禁用)(?:测试|检查|钩子|ci)",
        ),
    ),
    (
        "destroy files or persist beyond the task",
        (
            r"\brm\s+-[a-z]*[rf][a-z]*\s+(?:~|/(?:\s|$|\*)|\$home|\$\{home\}|\.\./\.\.)",
            r"\bshutil\.rmtree\(\s*[\"']?(?:~|/|\$home)",
            r"\bcrontab\s+-|\bsystemctl\s+--user\s+(?:enable|start)\b|launchctl\s+load\b",
            r"(?:add|write|append|insert|put)\b[^\n]{0,40}(?:~/\.claude/settings(?:\.local)?\.json|~/\.codex/config\.toml|\.git/hooks/)",
        ),
    ),
    (
        "hide what it does from the user",
        (
            r"\b(?:do not|don'?t|never)\s+(?:tell|inform|mention (?:this|it|that)?\s*to|mention|show|let|notify)\s+(?:this\s+(?:step\s+)?to\s+)?(?:the\s+)?user",
            r"\bwithout\s+(?:telling|asking|informing|notifying|showing)\s+the\s+user",
            r"\bhide\s+(?:this|it|that|the (?:output|change|step|command)s?)\s+from\b|\bkeep (?:this|it) (?:secret|hidden) from\b",
            r"no (?:le )?(?:digas|menciones|cuentes|avises|muestres)[^\n]{0,20}(?:al|el) usuario|sin (?:decirle|avisar|preguntar)[^\n]{0,10}(?:al|el) usuario",
            r"不要(?:告诉|通知|让)用户|别告诉用户|瞒着用户",
        ),
    ),
    (
        "obey instructions planted in what it reads",
        (
            r"\b(?:ignore|disregard|forget|override)\s+(?:(?:all|any|the|your|every|of|these|those|my)\s+)*(?:previous|prior|above|earlier|system|original|existing)\s+(?:instructions?|prompts?|messages?|rules|guidelines|context)",
            r"\b(?:reveal|print|show|leak|repeat|output)\s+(?:me\s+)?(?:your|the)\s+(?:system\s+prompt|hidden\s+instructions|instructions\s+above)",
            r"\byou\s+are\s+now\s+(?:in\s+)?(?:developer\s+mode|unrestricted|jailbroken|dan)\b",
            r"\bnew\s+system\s+(?:prompt|instructions?)\s*:",
            r"<\|?\s*(?:im_start|im_end|system|endoftext)\s*\|?>",
            r"ignora\s+(?:todas\s+)?las\s+instrucciones\s+(?:anteriores|previas)|olvida\s+(?:tus|las)\s+instrucciones",
            r"忽略(?:之前|以上|先前|所有)(?:的)?(?:所有)?(?:指令|指示|规则|提示)",
        ),
    ),
)
_COMPILED = tuple((what, re.compile("|".join(f"(?:{p})" for p in patterns), re.IGNORECASE)) for what, patterns in CAPABILITIES)
# an image a viewer fetches as it renders: Markdown's inline form, or an HTML tag that loads from an address
REMOTE_IMAGE = re.compile(
    rf"!\[[^\]]*\]\(\s*<?{_URL}|<(?:img|image|source|video|audio|iframe|link|script)\b[^>]*\b(?:src|href|srcset|poster)\s*=\s*[\"']?{_URL}",
    re.IGNORECASE,
)


def reply_too_large(text: str) -> str | None:
    if len(text) <= MAX_REPLY_CHARS:
        return None
    return f"the reply is {len(text):,} characters, over the {MAX_REPLY_CHARS:,} limit; refused whole"


def scan(text: str, what: str = "text") -> str | None:
    """Why ``text`` must not become a skill, a note or an exported file, or ``None``: the capability
    it would give and the words, quoted as the reader sees them."""
    seen = reveal(text)
    if seen.tags is not None:
        return f"the {what} hides text in invisible Unicode tag characters ({seen.tags[:80]!r}); nobody types them"
    if REMOTE_IMAGE.search(seen.text) or _remote_reference_image(seen.text):
        return f"the {what} embeds a remote image, which leaks data to its address when rendered"
    for capability, pattern in _COMPILED:
        match = pattern.search(seen.text)
        if match:
            how = f", written with {', '.join(dict.fromkeys(seen.hidden))}" if seen.hidden else ""
            return (
                f"the {what} reads like a prompt injection: it would make the agent {capability} "
                f"({' '.join(match.group(0).split())[:120]!r}{how})"
            )
    return None


def _remote_reference_image(text: str) -> bool:
    """``![x][id]`` with ``[id]: http://…`` elsewhere: an image a viewer fetches like any other."""
    targets = {name.lower(): url for name, url in _REF_DEF.findall(text)}
    return any(re.match(_URL, targets.get(name.lower(), ""), re.IGNORECASE) for name in _REF_IMAGE.findall(text))


def refusal(op: dict, secret_patterns: tuple[str, ...]) -> str | None:
    """Why an operation's text must not be saved, or ``None``."""
    for name in FIELDS:
        text = op.get(name)
        if not isinstance(text, str):
            continue
        if Redactor(secret_patterns).finds(text):  # the same detector as the bundle's redaction
            return f"the {name} contains what looks like a credential; a skill or note must never hold one"
        refused = scan(text, name)
        if refused:
            return refused
    return None
