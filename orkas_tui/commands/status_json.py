"""``status --json`` printed agent by agent: the document ``json.dump(indent=2)`` writes, built in pieces.

A large workspace prints tens of megabytes of turn rows. Each conversation's rows are
indented once, as one array, at the depth the document has them (``msgspec.json.format``
of the cache's compact bytes, or ``orjson`` for rows decoded as data: the same bytes as
``OPT_INDENT_2``), cut into rows, and the rows joined in newest-first order. Each agent is
written as soon as it is printed, so only one agent's text is in memory at a time. The
skill index a conversation's turns share is printed once per distinct list and spliced in.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import BinaryIO

import msgspec
import orjson

from orkas_tui.core.summary.fold import ConversationState, Packed

INDENT = orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS
# Rows wrapped so they sit where the document has them: agents at 4, a turn's braces at 8, its keys at 10.
WRAP_OPEN, WRAP_CLOSE = b'{"a":[{"t":', b"}]}"
ROWS_OPEN = b'{\n  "a": [\n    {\n      "t": [\n        {\n'
ROWS_CLOSE = b"\n        }\n      ]\n    }\n  ]\n}"
ROW_SEP = b"\n        },\n        {\n"  # between two rows; the rows kept without their own braces
AGENT_OPEN, AGENT_CLOSE = b'{\n  "a": [\n    ', b"\n  ]\n}"
INDEX_KEY = re.compile(rb'\n          "skills_indexed": (\d+),\n')  # only a key of a row has a raw newline before it
INDEX_INDENT = b"\n" + b" " * 10


def write_status(doc: dict, out: BinaryIO) -> None:
    """Write ``doc`` (each agent's ``"turns"`` as :func:`~orkas_tui.core.summary.fold.newest_order`'s
    (state, seq) pairs) as indented JSON and a newline."""
    agents = doc["agents"]
    head = orjson.dumps({**doc, "agents": []}, option=INDENT)
    if not agents:
        out.write(head + b"\n")
        return
    out.write(head[: -len(b"]\n}")])
    for n, agent in enumerate(agents):
        turns = orjson.Fragment(printed_turns(agent["turns"]))
        text = orjson.dumps({"a": [{**agent, "turns": turns}]}, option=INDENT)
        out.write((b",\n    " if n else b"\n    ") + text[len(AGENT_OPEN) : -len(AGENT_CLOSE)])
    out.write(b"\n  ]\n}\n")


def printed_turns(order: Iterable[tuple[ConversationState, int]]) -> bytes:
    """The turns' array as the document prints it at an agent's ``"turns"`` key."""
    rows: dict[int, list[bytes]] = {}
    shown = []
    for state, seq in order:
        printed = rows.get(id(state))
        if printed is None:
            printed = rows[id(state)] = _printed_rows(state)
        shown.append(printed[seq])
    if not shown:
        return b"[]"
    return b"[\n        {\n" + ROW_SEP.join(shown) + b"\n        }\n      ]"


def _printed_rows(state: ConversationState) -> list[bytes]:
    """A conversation's rows, in turn order, each printed without its braces."""
    packed = state.packed
    if packed is None:
        text = orjson.dumps({"a": [{"t": state.rows}]}, option=INDENT)
    else:
        text = INDEX_KEY.sub(_index_printer(packed), msgspec.json.format(WRAP_OPEN + packed.rows + WRAP_CLOSE, indent=2))
    if not (text.startswith(ROWS_OPEN) and text.endswith(ROWS_CLOSE)):
        return []  # no rows
    return text[len(ROWS_OPEN) : -len(ROWS_CLOSE)].split(ROW_SEP)


def _index_printer(packed: Packed):
    """The replacement of a row's index position by its list, each distinct list printed once."""
    printed: dict[bytes, bytes] = {}

    def index(found: re.Match[bytes]) -> bytes:
        text = printed.get(found[1])
        if text is None:
            listed = orjson.dumps(packed.indexes[int(found[1])], option=orjson.OPT_INDENT_2).replace(b"\n", INDEX_INDENT)
            text = printed[found[1]] = b'\n          "skills_indexed": %s,\n' % listed
        return text

    return index
