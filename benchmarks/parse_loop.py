"""The references for a cold scan: parse every conversation line and nothing else.

``parse_loop.py WS``: ``orjson.loads`` on each line (the target's reference).
``parse_loop.py WS typed``: each file's lines decoded into the observer's Structs
(``core/read/events.decode_lines``), what the observer now starts from.
"""

import sys
from pathlib import Path

count = 0
paths = sorted(Path(sys.argv[1]).glob("agents/*/conversations/*.jsonl"))
if sys.argv[2:] == ["typed"]:
    from orkas_tui.core.read.events import decode_lines

    for path in paths:
        lines = path.read_bytes().split(b"\n")
        lines.pop()
        count += len(decode_lines(lines))
else:
    import orjson

    for path in paths:
        with open(path, "rb") as handle:
            for line in handle:
                orjson.loads(line)
                count += 1
print(count)
