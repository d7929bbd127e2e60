"""The reference for a cold scan: parse every conversation line with orjson and nothing else."""

import sys
from pathlib import Path

import orjson

count = 0
for path in sorted(Path(sys.argv[1]).glob("agents/*/conversations/*.jsonl")):
    with open(path, "rb") as handle:
        for line in handle:
            orjson.loads(line)
            count += 1
print(count)
