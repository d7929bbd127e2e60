"""A DataTable synced by row key: rows are added, updated cell by cell or removed,
never cleared and refilled, so the cursor, the sort and the scroll position survive
a live refresh (the habit toolong and harlequin follow)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rich.text import Text
from textual.coordinate import Coordinate
from textual.widgets import DataTable
from textual.widgets.data_table import RowDoesNotExist


class Cell(Text):
    """Rich text that also carries the value its column sorts by."""

    def __init__(self, text: str = "", sort: Any = None, style: str = "", justify=None) -> None:
        super().__init__(text, style=style, justify=justify, no_wrap=True, overflow="ellipsis")
        self.sort_value = text if sort is None else sort

    @classmethod
    def of(cls, text: Text, sort: Any) -> "Cell":
        cell = cls(sort=sort)
        cell.append_text(text)
        return cell

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Text) and self.markup == other.markup and getattr(other, "sort_value", None) == self.sort_value

    __hash__ = None  # type: ignore[assignment]


def _sortable(value: Any) -> tuple:
    sort = getattr(value, "sort_value", value)
    return (sort is None, sort if sort is not None else 0)


class KeyedTable(DataTable):
    """Rows keyed by stable ids; :meth:`sync` applies a new set of rows in place."""

    def __init__(self, columns: list[tuple[str, str]], sort: tuple[str, bool], widths: dict[str, int] | None = None, **kwargs) -> None:
        """``widths``: fixed widths for some columns. DataTable sizes a column by the rows
        it is given, so a table whose rows arrive before their values would otherwise be
        laid out by whichever came first."""
        super().__init__(cursor_type="row", zebra_stripes=True, **kwargs)
        self._columns = columns
        self._widths = widths or {}
        self.sort_spec = sort
        self.cursor_key: str | None = None

    def on_mount(self) -> None:
        for key, label in self._columns:
            self.add_column(label, key=key, width=self._widths.get(key))

    def sync(self, rows: dict[str, list[Cell]]) -> int:
        """Make the table hold exactly ``rows``; return how many rows were added."""
        return self.patch(rows, [k.value for k in self.rows if k.value not in rows])

    def patch(self, rows: dict[str, list[Cell]], gone: Iterable[str] = ()) -> int:
        """Add or update just ``rows`` and remove ``gone``; return how many rows were added.

        Only the rows a change touched are given, so a live refresh costs what changed,
        not the size of the table; the whole table is sorted again only when a row
        landed out of place.
        """
        keep_key = self.current_key()
        before = self.scroll_y
        column_keys = [key for key, _ in self._columns]
        sort_column = self.sort_spec[0]
        resort = False
        for key in gone:
            if key in self.rows:
                self.remove_row(key)
        last = self._last_key()
        added: list[str] = []
        for key, cells in rows.items():
            if key in self.rows:
                for column, old, new in zip(column_keys, self.get_row(key), cells):
                    if old != new:
                        self.update_cell(key, column, new)
                        resort = resort or (column == sort_column and _sortable(old) != _sortable(new))
            else:
                self.add_row(*cells, key=key)
                added.append(key)
        if resort or not self._in_order([last, *added] if last is not None else added):
            self.apply_sort()
        above = sum(1 for key in added if self.get_row_index(key) < before)
        self._restore(keep_key, before, above)
        return len(added)

    def _last_key(self) -> str | None:
        if not self.row_count:
            return None
        return self.coordinate_to_cell_key(Coordinate(self.row_count - 1, 0)).row_key.value

    def _in_order(self, keys: list[str]) -> bool:
        """Whether rows appended at the bottom already sit where a sort would put them."""
        column, reverse = self.sort_spec
        values = [_sortable(self.get_cell(key, column)) for key in keys]
        pairs = zip(values, values[1:])
        return all(b <= a for a, b in pairs) if reverse else all(a <= b for a, b in pairs)

    def apply_sort(self) -> None:
        column, reverse = self.sort_spec
        if self.row_count:
            self.sort(column, key=_sortable, reverse=reverse)

    def sort_by(self, column: str) -> None:
        """Sort by ``column``; sorting by the same column again flips the order."""
        keep_key = self.current_key()
        current, reverse = self.sort_spec
        self.sort_spec = (column, not reverse if column == current else column != "name")
        self.apply_sort()
        self._restore(keep_key, None, 0)

    def current_key(self) -> str | None:
        if not self.row_count:
            return None
        try:
            return self.coordinate_to_cell_key(self.cursor_coordinate).row_key.value
        except Exception:  # noqa: BLE001 - a cursor past the end has no key
            return None

    def _restore(self, key: str | None, scroll_y: float | None, above: int) -> None:
        """Keep the cursor on the same row and the same rows in view."""
        if key is not None:
            try:
                index = self.get_row_index(key)
            except RowDoesNotExist:
                index = None
            if index is not None and index != self.cursor_row:
                self.move_cursor(row=index, animate=False, scroll=scroll_y is None)
        if scroll_y is not None and scroll_y > 0 and above:
            self.call_after_refresh(self.scroll_to, y=scroll_y + above, animate=False)
