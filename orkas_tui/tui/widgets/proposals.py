"""The Proposals tab: each pending reflection output with its summary, every operation
as a diff against the current file; approve all, approve or reject one, or edit one first."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.widgets import DataTable, Static
from textual.widgets.data_table import RowDoesNotExist

from orkas_tui.core.picture import AgentView
from orkas_tui.core.store.op_preview import preview
from orkas_tui.core.store.proposals import APPLIED, PENDING, Proposal, ProposedOp
from orkas_tui.tui.intents import ApproveProposal, RejectProposal, ask_quarantined
from orkas_tui.tui.messages import EditOperation
from orkas_tui.tui.op_diff import op_diff, op_target
from orkas_tui.tui.widgets.keyed_table import Cell, KeyedTable

if TYPE_CHECKING:
    from orkas_tui.tui.app import OrkasApp

PROPOSAL_COLUMNS = [("id", "Proposal"), ("created", "Created"), ("status", "Status"), ("ops", "Ops"), ("summary", "Summary")]
OP_COLUMNS = [("index", "#"), ("status", "Status"), ("op", "Operation"), ("target", "File"), ("reason", "Note")]
STATUS_STYLE = {"pending": "bold yellow", "applied": "green", "rejected": "dim", "invalid": "red", "quarantined": "bold red"}


def proposal_cells(p: Proposal) -> list[Cell]:
    number = p.ref.number
    pending = sum(1 for o in p.operations if o.status == PENDING)
    return [
        Cell(p.id, sort=number),
        Cell(p.created_at[:16].replace("T", " "), sort=p.created_at),
        Cell(p.status, sort=(p.status != PENDING, p.status), style=STATUS_STYLE.get(p.status, "")),
        Cell(ops_count(p), sort=pending),
        Cell(p.summary, sort=p.summary),
    ]


def reflection_figures(usage: dict) -> str:
    """The reflection's bundle figures; one not recorded (a proposal made elsewhere, or by an older
    version) reads "n/a" with why, never "None"."""
    missing = "n/a (not recorded with this proposal)"
    tokens = usage.get("bundle_tokens")
    redactions = usage.get("redactions")
    return (
        f"bundle {f'{tokens:,} tokens' if isinstance(tokens, int) else missing}"
        f" · redactions {redactions if isinstance(redactions, int) else missing}"
    )


def ops_count(p: Proposal) -> str:
    """What the operations count says it counts: "1 of 2 pending", "2 of 2 applied"."""
    total = len(p.operations)
    pending = sum(1 for o in p.operations if o.status == PENDING)
    if pending:
        return f"{pending} of {total} pending"
    applied = sum(1 for o in p.operations if o.status == APPLIED)
    return f"{applied} of {total} applied"


def op_cells(o: ProposedOp) -> list[Cell]:
    kind = o.op.get("op", "?") if isinstance(o.op, dict) else "?"
    status = "quarantined" if o.status == PENDING and o.held else o.status
    note = f"{o.quarantine.reason}" if o.held and o.quarantine is not None else o.reason or ", ".join(o.changes)
    return [
        Cell(str(o.index), sort=o.index, justify="right"),
        Cell(status, sort=status, style=STATUS_STYLE.get(status, "")),
        Cell(str(kind), sort=str(kind)),
        Cell(op_target(o.op), sort=op_target(o.op)),
        Cell(note, sort=note),
    ]


def quarantine_text(o: ProposedOp) -> Text:
    """Why an operation is held apart: its reason, each source it rests on, and the text it repeats beside its own."""
    q = o.quarantine
    out = Text()
    if q is None:
        return out
    head = "QUARANTINED" if q.confirmed_at is None else f"quarantined, confirmed by a person at {q.confirmed_at}"
    out.append(f"{head}: {q.reason}\n", style="bold red" if q.confirmed_at is None else "yellow")
    for source in q.sources:
        said = " ".join(source.text.split())
        out.append(f"  {source.label()}: ", style="bold")
        out.append(f"{said[:300]}{'…' if len(said) > 300 else ''}\n")
    if q.repeats:
        mine, theirs = q.repeats
        out.append("  the operation says:  ", style="bold")
        out.append(f"{mine}\n")
        out.append("  the source says:     ", style="bold")
        out.append(f"{' '.join(theirs.split())}\n")
    if q.confirmed_at is None:
        out.append("Approving it (a) asks you to confirm it on its own; A (approve all) leaves it here.\n\n", style="dim")
    return out


class ProposalsPane(Vertical):
    app: OrkasApp  # the app it lives in, for the type checker

    BINDINGS = [
        Binding("a", "decide('approve_one')", "Approve", id="approve_op"),
        Binding("A", "decide('approve_all')", "All", id="approve_all"),
        Binding("d", "decide('reject_one')", "Reject", id="reject_op"),
        Binding("e", "decide('edit_one')", "Edit", id="edit_op"),
    ]

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.view: AgentView | None = None
        self.by_id: dict[str, Proposal] = {}
        self.awaited: str | None = None  # a proposal a reflection just wrote: the cursor goes to it when shown

    def compose(self) -> ComposeResult:
        yield KeyedTable(PROPOSAL_COLUMNS, sort=("status", False), id="proposals-table", flex="summary", drop=["created", "ops"])
        yield Static("", id="proposal-summary")
        yield KeyedTable(OP_COLUMNS, sort=("index", False), id="ops-table", flex="reason", drop=["target"])
        with VerticalScroll(id="op-diff"):
            yield Static("", id="op-diff-body")

    @property
    def proposals(self) -> KeyedTable:
        return self.query_one("#proposals-table", KeyedTable)

    @property
    def ops(self) -> KeyedTable:
        return self.query_one("#ops-table", KeyedTable)

    def follow(self, proposal_id: str) -> None:
        """Put the cursor on this proposal once it is shown (a reflection just wrote it)."""
        self.awaited = proposal_id
        self._go_to_awaited()

    def _go_to_awaited(self) -> None:
        """The awaited proposal's row, if the table holds it yet (else it waits for the next ``show``)."""
        if self.awaited is None:
            return
        try:
            index = self.proposals.get_row_index(self.awaited)
        except RowDoesNotExist:
            return
        self.proposals.move_cursor(row=index, animate=False)
        self.awaited = None

    def show(self, view: AgentView) -> None:
        if self.view is None or self.view.id != view.id:
            self.proposals.clear()
            self.ops.clear()
        self.view = view
        self.by_id = {p.id: p for p in view.proposals}
        self.proposals.sync({p.id: proposal_cells(p) for p in view.proposals})
        self._go_to_awaited()
        if not view.proposals:
            self.query_one("#proposal-summary", Static).update(
                "No proposals yet. A reflection (r on the Queue tab, or a cycle) writes one here for you to review."
            )
        self._show_current()

    def current(self) -> Proposal | None:
        key = self.proposals.current_key()
        return self.by_id.get(key) if key else None

    def current_op(self) -> ProposedOp | None:
        proposal = self.current()
        key = self.ops.current_key()
        if proposal is None or key is None:
            return None
        return next((o for o in proposal.operations if str(o.index) == key), None)

    def _show_current(self) -> None:
        proposal = self.current()
        if proposal is None:
            self.ops.sync({})
            self.query_one("#op-diff-body", Static).update("")
            return
        summary = Text()
        summary.append(f"{proposal.id}: ", style="bold")
        summary.append(proposal.summary or "(no summary)")
        usage = proposal.reflection or {}
        if usage.get("model"):
            summary.append(
                f"\n{usage.get('model')} · {reflection_figures(usage)}",
                style="dim",
            )
        self.query_one("#proposal-summary", Static).update(summary)
        self.ops.sync({str(o.index): op_cells(o) for o in proposal.operations})
        op = self.current_op()
        if op is not None:
            self._load_diff(op)

    @on(DataTable.RowHighlighted, "#proposals-table")
    def _proposal_moved(self) -> None:
        self._show_current()

    @on(DataTable.RowHighlighted, "#ops-table")
    def _op_moved(self) -> None:
        op = self.current_op()
        if op is not None:
            self._load_diff(op)

    @work(thread=True, exclusive=True, group="op-diff")
    def _load_diff(self, op: ProposedOp) -> None:
        if self.view is None:
            return
        data = self.app.data.agents.get(self.view.id)
        if data is None:
            return
        proposal = self.current()
        if proposal is None:
            return
        diff = op_diff(preview(data.paths, data.workspace.settings, proposal.id, op, self.app.clock()))
        if op.quarantine is not None:
            diff = Text.assemble(quarantine_text(op), diff)
        self.app.call_from_thread(self._set_diff, op, diff)

    def _set_diff(self, op: ProposedOp, diff: Text) -> None:
        current = self.current_op()
        if current is not None and current.index == op.index and current.op == op.op:
            self.query_one("#op-diff-body", Static).update(diff)

    def action_decide(self, action: str) -> None:
        proposal = self.current()
        if proposal is None:
            self.notify("No proposal selected.", severity="warning")
            return
        op = self.current_op()
        if action != "approve_all" and op is None:
            self.notify("Select an operation first (the lower table).", severity="warning")
            return
        if action == "approve_all" or op is None:
            self.post_message(ApproveProposal(proposal.id, None))
        elif action == "approve_one" and op.held and op.quarantine is not None:
            self.post_message(ask_quarantined(proposal.id, op.index, op.quarantine.reason))
        elif action == "approve_one":
            self.post_message(ApproveProposal(proposal.id, op.index))
        elif action == "reject_one":
            self.post_message(RejectProposal(proposal.id, op.index))
        else:
            self.post_message(EditOperation(proposal, op.index))
