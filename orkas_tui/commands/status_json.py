"""``status --json`` printed agent by agent: the document ``json.dump(indent=2)`` writes, built in pieces.

A large workspace prints tens of megabytes of turn rows. Each conversation's rows are
indented once, last turn first, as one array at the depth the document has them
(``msgspec.json.format`` of the cache's compact bytes, or of the summaries encoded: the
same bytes as ``orjson``'s ``OPT_INDENT_2``). The skill index the rows of a conversation usually
share is printed once and put in after; rows with lists of their own get them spliced into the
compact bytes first, from the conversation's distinct lists as the cache keeps them. A conversation whose turns come in one run of the
newest-first order is copied whole; one that interleaves with others, or runs back in time,
is cut into rows. Each agent is written as soon as it is printed, so only one agent's
text is in memory at a time.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import BinaryIO

import msgspec
import orjson

from orkas_tui.core.summary.fold import ConversationState, Run

INDENT = orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS
# Rows wrapped so they sit where the document has them: agents at 4, a turn's braces at 8, its keys at 10.
WRAP_OPEN, WRAP_CLOSE = b'{"a":[{"t":', b"}]}"
ROWS_OPEN = b'{\n  "a": [\n    {\n      "t": [\n        {\n'
ROWS_CLOSE = b"\n        }\n      ]\n    }\n  ]\n}"
ROW_SEP = b"\n        },\n        {\n"  # between two rows (a row's own objects are deeper)
AGENT_OPEN, AGENT_CLOSE = b'{\n  "a": [\n    ', b"\n  ]\n}"
TURNS_MARK = b"\x00"  # where an agent's turns go: a byte no JSON text holds
TURNS_HERE = orjson.Fragment(TURNS_MARK)
INDEX_KEY = b'"skills_indexed":'  # a row's key in the cache's compact rows, its value a position in the index lists
INDEX_LINE = b'\n          "skills_indexed": %s,\n'  # printed, only a key of a row has a raw newline before it
INDEX_INDENT = b"\n" + b" " * 10
LISTS = msgspec.json.Decoder(list[msgspec.Raw])  # a conversation's distinct index lists, each kept as its bytes


def write_status(doc: dict, out: BinaryIO) -> None:
    """Write ``doc`` (each agent's ``"turns"`` as :func:`~orkas_tui.core.summary.fold.newest_runs`)
    as indented JSON and a newline."""
    agents = doc["agents"]
    head = orjson.dumps({**doc, "agents": []}, option=INDENT)
    if not agents:
        out.write(head + b"\n")
        return
    out.write(head[: -len(b"]\n}")])
    for n, agent in enumerate(agents):
        text = orjson.dumps({"a": [{**agent, "turns": TURNS_HERE}]}, option=INDENT)
        before, after = text[len(AGENT_OPEN) : -len(AGENT_CLOSE)].split(TURNS_MARK)
        out.write((b",\n    " if n else b"\n    ") + before)
        write_turns(agent["turns"], out)
        out.write(after)
    out.write(b"\n  ]\n}\n")


def write_turns(runs: Sequence[Run], out: BinaryIO) -> None:
    """The turns' array as the document prints it at an agent's ``"turns"`` key. A conversation
    whose turns come in one run, newest first, is copied whole; others are cut into rows."""
    if not runs:
        out.write(b"[]")
        return
    printed: dict[int, bytes] = {}
    cut: dict[int, list[memoryview]] = {}
    shown: list[memoryview] = []
    for state, seqs in runs:
        key = id(state)
        text = printed.get(key)
        if text is None:
            text = printed[key] = _printed(state)
        last = state.count - 1
        if len(seqs) == state.count and all(map(operator.eq, seqs, range(last, -1, -1))):  # every turn, from the last
            shown.append(memoryview(text)[len(ROWS_OPEN) : -len(ROWS_CLOSE)])
            continue
        rows = cut.get(key)
        if rows is None:
            rows = cut[key] = _cut(text)
        shown += [rows[last - seq] for seq in seqs]
    out.write(b"[\n        {\n")
    out.write(ROW_SEP.join(shown))
    out.write(b"\n        }\n      ]")


def _cut(text: bytes) -> list[memoryview]:
    """The rows of a printed conversation, as slices of it."""
    view = memoryview(text)
    start, stop = len(ROWS_OPEN), len(text) - len(ROWS_CLOSE)
    rows = []
    while (end := text.find(ROW_SEP, start, stop)) >= 0:
        rows.append(view[start:end])
        start = end + len(ROW_SEP)
    rows.append(view[start:stop])
    return rows


def _printed(state: ConversationState) -> bytes:
    """A conversation's rows, last turn first, as the document prints them, in the wrapper that
    puts them at their depth (``ROWS_OPEN`` before the first row's keys, ``ROWS_CLOSE`` after the last's)."""
    packed = state.packed
    shared: bytes | None = None
    if packed is None:
        rows: bytes | memoryview = msgspec.json.encode(state.summaries[::-1])
    elif packed.index_count == 1:  # the usual case: the rows share one list, printed once and put in after
        rows, shared = packed.rows, bytes(LISTS.decode(packed.indexes)[0])
    else:
        rows = _with_indexes(bytes(packed.rows), LISTS.decode(packed.indexes), state.count)
    text = msgspec.json.format(WRAP_OPEN + rows + WRAP_CLOSE, indent=2)
    if not (text.startswith(ROWS_OPEN) and text.endswith(ROWS_CLOSE)):
        raise ValueError("a conversation without turns in the order")
    if shared is not None:
        listed = msgspec.json.format(shared, indent=2).replace(b"\n", INDEX_INDENT)
        text = text.replace(INDEX_LINE % b"0", INDEX_LINE % listed)
    return text


def _with_indexes(rows: bytes, lists: list[msgspec.Raw], count: int) -> bytes:
    """The cache's compact rows with each row's index position replaced by the list it names, before
    the one pass that indents them: the rows cut at the key. ``count``: the rows there are (each has
    the key once)."""
    first, *parts = rows.split(INDEX_KEY)
    if len(parts) != count:
        raise ValueError("a row without its skill index")
    spliced = [first]
    for part in parts:
        position, _, rest = part.partition(b",")
        spliced += (INDEX_KEY, lists[int(position)], b",", rest)
    return b"".join(spliced)
