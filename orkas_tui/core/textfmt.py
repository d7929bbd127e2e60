"""Plain-text tables and rates for the CLI (no colour, no terminal library)."""

from __future__ import annotations

from collections.abc import Sequence


def rate(value: float | None) -> str:
    return "n/a" if value is None else f"{value * 100:.0f}%"


def table(headers: Sequence[str], rows: Sequence[Sequence[object]], right: Sequence[int] = ()) -> str:
    cells = [[str(h) for h in headers]] + [["" if c is None else str(c) for c in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]

    def line(row: list[str]) -> str:
        out = [(cell.rjust(widths[i]) if i in right else cell.ljust(widths[i])) for i, cell in enumerate(row)]
        return "  ".join(out).rstrip()

    rule = "  ".join("-" * w for w in widths)
    return "\n".join([line(cells[0]), rule] + [line(row) for row in cells[1:]])
