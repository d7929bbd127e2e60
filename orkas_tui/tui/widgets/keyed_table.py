"""A DataTable synced by row key: rows are added, updated cell by cell or removed,
never cleared and refilled, so the cursor, the sort and the scroll position survive
a live refresh (the habit toolong and harlequin follow).

It also fits its width: its *flex* columns shrink (their cells end in "…") and, when that
is not enough, whole columns are hidden in a set order. A column is shown with its full
header or not at all, never cut in half by the edge.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

from rich.text import Text
from textual.coordinate import Coordinate
from textual.widgets import DataTable
from textual.widgets.data_table import Column, RowDoesNotExist

FLEX_MIN = 8  # the flex column never shrinks below this (or its header)


@dataclass
class FitColumn(Column):
    """A column that can be hidden (no width at all) or given a width by :meth:`KeyedTable.fit_columns`."""

    hidden: bool = False
    fitted: int | None = None

    def get_render_width(self, data_table: DataTable) -> int:
        if self.hidden:
            return 0
        if self.fitted is not None:
            return 2 * data_table.cell_padding + self.fitted
        return super().get_render_width(data_table)


class Cell(Text):
    """Rich text that also carries the value its column sorts by."""

    def __init__(self, text: str = "", sort: Any = None, style: str = "", justify=None) -> None:
        super().__init__(text, style=style, justify=justify, no_wrap=True, overflow="ellipsis")
        self.sort_value = text if sort is None else sort

    @classmethod
    def of(cls, text: Text, sort: Any) -> Cell:
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

    def __init__(
        self,
        columns: list[tuple[str, str]],
        sort: tuple[str, bool],
        widths: dict[str, int] | None = None,
        flex: str | list[str] | None = None,
        drop: list[str] | None = None,
        flex_min: int = FLEX_MIN,
        **kwargs,
    ) -> None:
        """``widths``: fixed widths for some columns. DataTable sizes a column by the rows
        it is given, so a table whose rows arrive before their values would otherwise be
        laid out by whichever came first. ``flex``: the column (or columns, first served
        first) that shrink to fit;
        ``drop``: the columns hidden first when the table is too narrow (default: the last
        columns first, never the first one); ``flex_min``: the flex column's narrowest width
        (or its header's) before columns are dropped."""
        super().__init__(cursor_type="row", zebra_stripes=True, **kwargs)
        self._columns = columns
        self._widths = widths or {}
        self._flex = [flex] if isinstance(flex, str) else list(flex or [])
        self._flex_min = flex_min
        keys = [key for key, _ in columns]
        self._drop = drop if drop is not None else [k for k in reversed(keys[1:]) if k not in self._flex]
        self.sort_spec = sort
        self.cursor_key: str | None = None
        self._concealed: frozenset[str] = frozenset()

    def on_mount(self) -> None:
        for key, label in self._columns:
            column_key = self.add_column(label, key=key, width=self._widths.get(key))
            self.columns[column_key] = FitColumn(**vars(self.columns[column_key]))

    def on_resize(self) -> None:
        self.fit_columns()

    def watch_show_vertical_scrollbar(self) -> None:
        """A scrollbar that comes or goes changes the width to fit."""
        self.call_after_refresh(self.fit_columns)

    def _update_dimensions(self, new_rows) -> None:
        """DataTable measures its cells here, when idle: the widths to fit are known only now."""
        super()._update_dimensions(new_rows)
        self.fit_columns()

    def hidden_columns(self) -> list[str]:
        """The columns hidden to fit the width (not those :meth:`conceal` hides)."""
        return [
            key
            for c in self.columns.values()
            if isinstance(c, FitColumn) and c.hidden and (key := c.key.value) is not None and key not in self._concealed
        ]

    def conceal(self, keys: Iterable[str]) -> None:
        """Hide these columns whatever the width (a column with nothing to tell), showing any concealed before."""
        concealed = frozenset(keys)
        if concealed != self._concealed:
            self._concealed = concealed
            self.fit_columns()

    def fit_columns(self) -> None:
        """Shrink the flex columns, then hide columns in ``drop`` order, until the table fits its width.

        Flex columns shrink together to their minimum; the width left over goes to them in
        the order given, each up to its natural width.
        """
        width = self.scrollable_content_region.width
        columns = {key: c for c in self.columns.values() if isinstance(c, FitColumn) and (key := c.key.value) is not None}
        if width <= 0 or not columns:
            return
        pad = 2 * self.cell_padding
        console = self.app.console

        def label(key: str) -> int:
            return console.measure(columns[key].label).maximum

        def natural(key: str) -> int:
            column = columns[key]
            if key in self._flex:  # DataTable measures a fitted column's cells cut to its width: measure them whole
                return max([label(key), *(getattr(cell, "cell_len", 0) for cell in self.get_column(column.key))])
            return max(column.content_width if column.auto_width else column.width, label(key))

        flex = [key for key in self._flex if key in columns]
        smallest = {key: min(natural(key), max(self._flex_min, label(key))) for key in flex}
        hidden: set[str] = set(self._concealed & columns.keys())

        def needed() -> int:
            return sum((smallest[k] if k in smallest else natural(k)) + pad for k in columns if k not in hidden)

        for key in self._drop:
            if needed() <= width:
                break
            if key in columns:
                hidden.add(key)
        shown_flex = [key for key in flex if key not in hidden]
        rest = width - sum(natural(k) + pad for k in columns if k not in hidden and k not in smallest)
        rest -= sum(smallest[k] + pad for k in shown_flex)
        fitted: dict[str, int] = {}
        for key in shown_flex:
            grow = max(0, min(natural(key) - smallest[key], rest))
            fitted[key] = smallest[key] + grow
            rest -= grow
        changed = False
        for key, column in columns.items():
            want = (key in hidden, fitted.get(key))
            if (column.hidden, column.fitted) != want:
                column.hidden, column.fitted = want
                changed = True
        if changed:
            self._clear_caches()
            self._require_update_dimensions = True
            self.refresh()

    def sync(self, rows: dict[str, list[Cell]]) -> int:
        """Make the table hold exactly ``rows``; return how many rows were added."""
        return self.patch(rows, [key for row in self.rows if (key := row.value) is not None and key not in rows])

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
        resort = refit = False
        for key in gone:
            if key in self.rows:
                self.remove_row(key)
        last = self._last_key()
        added: list[str] = []
        for key, cells in rows.items():
            if key in self.rows:
                for column, old, new in zip(column_keys, self.get_row(key), cells, strict=True):
                    if old != new:
                        self.update_cell(key, column, new)
                        resort = resort or (column == sort_column and _sortable(old) != _sortable(new))
                        refit = refit or column in self._flex  # update_cell measures nothing: a longer name must widen it
            else:
                self.add_row(*cells, key=key)
                added.append(key)
        if resort or not self._in_order([last, *added] if last is not None else added):
            self.apply_sort()
        if refit:
            self.fit_columns()
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
        pairs = pairwise(values)
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
        except Exception:  # a cursor past the end has no key
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
