"""The app: layout, bindings with ids (rebindable), the watch worker and the load path.

Data flows one way: a file changes, the watcher names the agent and the area, a
thread worker re-reads just that (new bytes only) and hands an :class:`AgentView`
to the UI, which updates table rows by key. A person's intent (save a note, edit a
skill, approve an operation) is a message (:mod:`orkas_tui.tui.messages`) posted where
it is expressed; the app alone runs its core call in a thread worker, and the result
comes back through the same load path.
"""

from __future__ import annotations

import difflib
import gc
from collections.abc import Callable, Iterable
from contextlib import nullcontext
from datetime import datetime
from pathlib import Path, PurePath

from rich.text import Text
from textual import events, on, work
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Footer, Static, TabbedContent, TabPane

from orkas_tui.core.disk.confine import current_version, read_versioned
from orkas_tui.core.disk.write import ConflictError
from orkas_tui.core.picture import AgentView, WorkspacePicture
from orkas_tui.core.read.settings import ConfigError, Settings, load_settings
from orkas_tui.core.read.timefmt import utc_now
from orkas_tui.core.read.workspace import AGENT_AREAS, Area, Workspace
from orkas_tui.core.reflect.queue import QueuePlan
from orkas_tui.core.store.changes import approve, edit_operation, recover_workspace, reject, revert_change
from orkas_tui.core.store.export import ExportError, hand_edit, overwrite_hand_edit, rescope
from orkas_tui.core.store.first_run import display_path, next_steps
from orkas_tui.core.store.history import HistoryError
from orkas_tui.core.store.notes import NOTES, NoteError
from orkas_tui.core.store.proposals import PROPOSALS, ProposalError
from orkas_tui.core.store.scopes import GLOBAL, LEARNED, REPO, ScopeError
from orkas_tui.core.store.skills import BrokenSkill, SkillError
from orkas_tui.core.store.user_edits import adopt_hand_edit, delete_skill, edit_skill, save_note, save_skill_text
from orkas_tui.importers.hook_log import mark_seen
from orkas_tui.tui import messages
from orkas_tui.tui.collector import YOUNG_S, Collector
from orkas_tui.tui.exported import export_notice
from orkas_tui.tui.keymap import check_keymap
from orkas_tui.tui.palette import AgentsAndSkills
from orkas_tui.tui.reflections import Reflections
from orkas_tui.tui.screens.confirm import Choose, changed_on_disk
from orkas_tui.tui.screens.help import HelpScreen
from orkas_tui.tui.screens.op_editor import OpEditor
from orkas_tui.tui.screens.settings import SettingsEditor, SettingsScreen
from orkas_tui.tui.screens.skill_editor import SkillEditor
from orkas_tui.tui.screens.skill_history import SkillHistory
from orkas_tui.tui.screens.text_view import TextView
from orkas_tui.tui.watch import ALL_AGENTS, watch_workspace
from orkas_tui.tui.widgets.events import EventsPane
from orkas_tui.tui.widgets.proposals import ProposalsPane
from orkas_tui.tui.widgets.queue import QueuePane, badge
from orkas_tui.tui.widgets.self_notes import SelfPane
from orkas_tui.tui.widgets.sidebar import Sidebar
from orkas_tui.tui.widgets.skills import SkillsPane
from orkas_tui.tui.widgets.turns import TurnsPane

Clock = Callable[[], datetime]
NARROW = 100
TINY = 70
TICK_S = 20
SAVE_IDLE_S = 2.0
PACKAGE = Path(__file__).resolve().parents[1]
# An installed wheel carries the styles inside the package; a checkout keeps them at its top.
STYLE_DIRS = (PACKAGE / "styles", PACKAGE.parent / "styles")
SHORT_TITLES = {"proposals": "Props"}
TABS = [
    ("turns", "Turns"),
    ("queue", "Queue"),
    ("skills", "Skills"),
    ("proposals", "Proposals"),
    ("self", "Self"),
    ("events", "Events"),
]


def style_paths() -> list[str | PurePath]:
    """``styles/*.tcss`` from the installed package, else from the checkout's top level."""
    for folder in STYLE_DIRS:
        paths: list[str | PurePath] = sorted(folder.glob("*.tcss"))
        if paths:
            return paths
    raise FileNotFoundError(f"no styles found in {' or '.join(map(str, STYLE_DIRS))}")


def _bindings(declared: Iterable[BindingType]) -> list[Binding]:
    """A class's bindings as declared: each one a :class:`Binding` (a tuple has no id to rebind)."""
    return [b for b in declared if isinstance(b, Binding)]


PRELOAD_AFTER_S = 3.0  # after the first full paint: the model client's import would compete with it


class OrkasApp(App[None]):
    TITLE = "orkas-tui"
    CSS_PATH = style_paths()
    COMMANDS = App.COMMANDS | {AgentsAndSkills}
    BINDINGS = [
        # the footer shows these in this order after the focused pane's own keys: the most used first
        Binding("r", "reflect_now", "Reflect", id="reflect_now"),
        Binding("x", "cancel_reflection", "Cancel", id="cancel_reflection"),  # shown only while one runs
        Binding("b", "show_bundle", "Bundle", id="show_bundle"),
        Binding("c", "run_cycle", "Cycle", id="run_cycle", show=False),  # in help and the palette: the footer fits 80 columns
        Binding("question_mark,f1", "help", "Help", id="help"),
        Binding("q", "quit", "Quit", id="quit"),
        *[Binding(str(n), f"tab('{tab}')", title, id=f"tab_{tab}", show=False) for n, (tab, title) in enumerate(TABS, 1)],
        Binding("right_square_bracket", "next_agent(1)", "Next agent", id="next_agent", show=False),
        Binding("left_square_bracket", "next_agent(-1)", "Previous agent", id="previous_agent", show=False),
        Binding("ctrl+b", "toggle_sidebar", "Sidebar", id="toggle_sidebar", show=False),
        Binding("f5", "reload", "Reload", id="reload", show=False),
        Binding("comma", "settings", "Settings", id="settings", show=False),
    ]

    def __init__(
        self,
        workspace: Workspace,
        clock: Clock = utc_now,
        watch: bool = True,
        blink: bool = True,
        demo: bool = False,
        preload: bool = True,
    ) -> None:
        super().__init__()
        self.preload = preload
        self.model_client_ready = False  # set once litellm is imported (in the background, at start)
        self.blink = blink
        self.demo = demo
        self.workspace = workspace
        self.settings: Settings = workspace.settings
        self.settings_problem: str | None = None  # why the last change to orkas.toml was not applied
        self._settings_version = current_version(workspace.settings_path)
        self.clock = clock
        self.watching = watch
        self.collector = Collector()
        self.data = WorkspacePicture(workspace)
        self.views: dict[str, AgentView] = {}
        self.agent: str | None = None
        self.plan: QueuePlan | None = None
        self.progress_lines: list[Text] = []
        self.loaded = False
        self._save_timer: Timer | None = None
        self._tiny = False
        self.rebound: dict[str, str] = {}  # the [keys] entries in effect
        self.reflections = Reflections(self)

    def now(self) -> datetime:
        return self.clock()

    # layout ---------------------------------------------------------------

    def compose(self) -> ComposeResult:
        with Horizontal(id="main"):
            yield Sidebar(id="sidebar")
            with Vertical(id="agent"):
                yield Static("Reading the workspace…", id="agent-header")
                yield Static("", id="empty-state")
                with TabbedContent(id="tabs"):
                    with TabPane("1 Turns", id="turns"):
                        yield TurnsPane(id="turns-pane")
                    with TabPane("2 Queue", id="queue"):
                        yield QueuePane(id="queue-pane")
                    with TabPane("3 Skills", id="skills"):
                        yield SkillsPane(id="skills-pane")
                    with TabPane("4 Proposals", id="proposals"):
                        yield ProposalsPane(id="proposals-pane")
                    with TabPane("5 Self", id="self"):
                        yield SelfPane({n: self.settings.note_cap(n) for n in NOTES}, id="self-pane")
                    with TabPane("6 Events", id="events"):
                        yield EventsPane(id="events-pane")
        yield Static("", id="activity")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.collector.start()
        self.set_interval(YOUNG_S, self.collector.tick)
        self.sub_title = str(self.workspace.root)
        self._apply_settings()
        for line in recover_workspace(self.workspace):  # an approve or revert a crash interrupted
            self.notify(line, timeout=10)
        if self.demo:
            self.notify(
                f"Demo workspace: {self.workspace.root} (removed when you quit). Its settings: press , (or ctrl+p, Settings).",
                title="Demo",
                timeout=20,
            )
        self.load(None)
        if self.watching:
            self.watch_files()
            self.set_interval(TICK_S, lambda: self.load({}))  # ages and the countdown move on

    @work(thread=True, group="preload")
    def preload_model_client(self) -> None:
        """litellm takes seconds to import: do it in the background once the app has painted and settled (not
        during its first paint, which it would slow), so the first reflection starts at once."""
        from orkas_tui.core.reflect.llm import preload

        preload()
        self.model_client_ready = True

    def on_unmount(self) -> None:
        self.collector.stop()

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        """Mark the pane that has the keys: the sidebar's edge or the agent header takes the accent colour."""
        agent = self.query_one("#agent")
        agent.set_class(agent in event.widget.ancestors, "-focused")

    def on_resize(self, event: events.Resize) -> None:
        """Below 100 columns the sidebar shrinks to agent and status; below 70 it hides (ctrl+b shows it)."""
        self.query_one("#main").set_class(event.size.width < NARROW, "-narrow")
        self._label_tabs(event.size.width)  # self.size may still be the old size here
        tiny = event.size.width < TINY
        if tiny != self._tiny:
            self._tiny = tiny
            self.query_one(Sidebar).display = not tiny

    def _apply_settings(self) -> None:
        sections = self.key_sections()
        known = {b.id for _, section in sections for b in section if b.id}
        unknown = sorted(set(self.settings.keys) - known)
        if unknown:
            self.notify(
                f"orkas.toml [keys]: unknown binding id(s) {', '.join(unknown)}; see the help screen (?)",
                severity="warning",
                timeout=10,
            )
        keymap, refused = check_keymap(sections, self.settings.keys)
        for message in refused:
            self.notify(f"orkas.toml [keys]: {message}", title="Key not rebound", severity="warning", timeout=12)
        self.set_keymap(keymap)
        self.rebound = keymap
        self._label_tabs()

    def _label_tabs(self, width: int | None = None) -> None:
        """Each tab's label starts with the key that shows it; below 100 columns the long one is shortened."""
        tabs = self.query_one(TabbedContent)
        narrow = (self.size.width if width is None else width) < NARROW
        for n, (tab, title) in enumerate(TABS, 1):
            key = self.rebound.get(f"tab_{tab}", str(n)).split(",")[0]
            tabs.get_tab(
                tab
            ).label = f"{self.get_key_display(Binding(key, ''))} {SHORT_TITLES.get(tab, title) if narrow else title}"
        theme = self.settings.theme
        if theme:
            if theme in self.available_themes:
                self.theme = theme
            else:
                self.notify(
                    f"orkas.toml theme: no theme {theme!r} (try {', '.join(sorted(self.available_themes)[:4])}…)",
                    severity="warning",
                    timeout=10,
                )

    def key_sections(self) -> list[tuple[str, list[Binding]]]:
        """The help screen's sections; every binding id here can be rebound under ``[keys]``."""
        return [
            ("Everywhere", _bindings(OrkasApp.BINDINGS)),
            ("Skills tab", _bindings(SkillsPane.BINDINGS)),
            ("Proposals tab", _bindings(ProposalsPane.BINDINGS)),
            ("Editing an operation", _bindings(OpEditor.BINDINGS)),
            ("Self tab", _bindings(SelfPane.BINDINGS)),
            ("Skill editor", _bindings(SkillEditor.BINDINGS)),
            ("Skill history", _bindings(SkillHistory.BINDINGS)),
            ("Settings", _bindings(SettingsScreen.BINDINGS)),
            ("Editing orkas.toml", _bindings(SettingsEditor.BINDINGS)),
        ]

    # settings -------------------------------------------------------------

    def reload_settings(self, announce: bool = True, force: bool = False) -> str | None:
        """Read ``orkas.toml`` again and use it; on an error keep the settings in effect and return the error."""
        path = self.workspace.settings_path
        version = current_version(path)
        if version == self._settings_version and not force:
            return self.settings_problem
        self._settings_version = version
        try:
            settings = load_settings(self.workspace.root)
        except ConfigError as exc:
            self.settings_problem = str(exc)
            if announce:
                self.notify(
                    f"{exc}. The previous settings stay in effect.", title="orkas.toml not applied", severity="error", timeout=15
                )
            self._refresh_settings_screens()
            return self.settings_problem
        self.settings_problem = None
        folders = self.export_folders()
        self.settings = settings
        if self.watching and self.export_folders() != folders:  # a link made or moved: watch where it exports now
            self.watch_files()
        self._apply_settings()
        self.query_one(SelfPane).set_caps({n: settings.note_cap(n) for n in NOTES})
        self._use_settings(settings)
        if announce:
            self.notify("orkas.toml reloaded", title="Settings")
        self._refresh_settings_screens()
        return None

    @work(thread=True, group="load")
    def _use_settings(self, settings: Settings) -> None:
        """Every score, queue decision and cap follows the new settings: the agents are read again with them."""
        with self.data.lock:
            self.workspace.use_settings(settings)
            self.data = WorkspacePicture(self.workspace)
        self.call_from_thread(self.load, None)

    def _refresh_settings_screens(self) -> None:
        for screen in self.screen_stack:
            if isinstance(screen, SettingsScreen):
                screen.refresh_settings()

    def action_settings(self) -> None:
        self.push_screen(SettingsScreen())

    # loading --------------------------------------------------------------

    @work(thread=True, group="load")
    def load(self, touched: dict[str, set[Area]] | None) -> None:
        """Re-read the touched agents' areas (all when ``None``) and hand the views to the UI.

        The agent on screen is read and shown first, the other agents after it and the
        queue (which needs every agent's scan) last: a person sees the turns before the
        rest of the workspace is read, and a live append is not held up by the queue.
        """
        with self.data.lock, self.collector.reading() if touched is None else nullcontext():
            targets, gone = self.data.targets(touched)
            first = self.agent if self.agent in targets else None
            if self.agent is None and targets:
                first = min(targets)  # the agent apply_views will select
            if first is not None:
                view = self.data.load(first, targets.pop(first))
                self.call_from_thread(self.apply_views, {first: view}, gone, list(targets))
                if targets:
                    # painted before the GIL goes to the rest (Textual's annotation takes no coroutine function here)
                    self.call_from_thread(self.screen.wait_for_refresh)  # type: ignore[arg-type]
                gone = []
            views = {agent_id: self.data.load(agent_id, areas) for agent_id, areas in sorted(targets.items())}
            if views or gone:
                self.call_from_thread(self.apply_views, views, gone, [])
            plan = self.data.plan(self.now())
            self.call_from_thread(self.apply_plan, plan)
            if touched is None:
                self.data.save_caches()
                gc.freeze()  # the turns just read live as long as the app: the idle full passes skip it
            elif targets or first is not None:
                self.call_from_thread(self._save_when_idle)

    def _save_when_idle(self) -> None:
        """Save the scan caches once the files have been quiet for a while, off the path of a live append."""
        if self._save_timer is None:
            self._save_timer = self.set_timer(SAVE_IDLE_S, self._save_now)
        else:
            self._save_timer.reset()

    def _save_now(self) -> None:
        self._save_timer = None
        self.save_caches()

    @work(thread=True, group="save")
    def save_caches(self) -> None:
        with self.data.lock:
            self.data.save_caches()

    @work(group="watch", exclusive=True)
    async def watch_files(self) -> None:
        async for touched in watch_workspace(self.workspace.root, exports=self.export_folders()):
            workspace_wide = touched.pop(ALL_AGENTS, set())
            if Area.SETTINGS in workspace_wide:
                self.reload_settings()
            if touched or Area.CYCLE in workspace_wide:
                self.load(touched)

    def export_folders(self) -> dict[Path, str]:
        """Where each linked agent's skills are exported (folder -> agent): watched for hand edits."""
        return {
            link.export_skills.expanduser().resolve(): agent
            for agent, link in self.settings.agents.items()
            if link.export_skills is not None
        }

    def reload_agent(self, agent: str, *areas: Area) -> None:
        self.load({agent: set(areas)})

    def apply_views(self, views: dict[str, AgentView], gone: Iterable[str], pending: Iterable[str]) -> None:
        """Show freshly read agents; ``pending`` ones are still being read (the sidebar says so)."""
        if self.torn_down():
            return
        self.collector.changed()
        for agent_id in gone:
            self.views.pop(agent_id, None)
        self.views.update(views)
        self.show_sidebar(pending)
        if self.agent not in self.views:
            self.agent = None
            if self.views:
                self.select_agent(sorted(self.views)[0])
        elif self.agent in views:
            self.show_agent(views[self.agent], views[self.agent].areas)
        for view in views.values():
            if Area.SKILLS in view.areas:
                self._tell_skill_editors(view)
            if Area.PRIVATE in view.areas:
                self._tell_histories(view)

    def apply_plan(self, plan: QueuePlan) -> None:
        """The queue's decisions: the Queue tab and the sidebar's badges."""
        if self.torn_down():
            return
        spent_before = self.plan.spent if self.plan else None
        self.plan = plan
        self.query_one(QueuePane).show(plan, self.settings, self.now())
        if plan.spent != spent_before and self.agent in self.views:  # the header's totals
            self.show_agent(self.views[self.agent], frozenset())
        self.show_sidebar(())
        if not self.loaded and self.preload and plan.not_configured is None:  # a model to reach: warm its client
            self.set_timer(PRELOAD_AFTER_S, self.preload_model_client)  # once the first screens are drawn and idle
        self.loaded = True
        self._show_empty_state()

    def _show_empty_state(self) -> None:
        """With no agent to show, say so and what to do next, instead of empty tabs."""
        empty = not self.views
        self.query_one("#agent").set_class(empty, "-empty")
        if not empty:
            return
        self.query_one("#agent-header", Static).update(
            Text(f"No agents in {display_path(self.workspace.root / 'agents')} yet.", style="bold")
        )
        text = Text()
        for what, command in next_steps(self.workspace.root):
            text.append(f"{what}:\n", style="bold")
            text.append(f"    {command}\n\n", style="cyan")
        text.append(
            "Run an import in another terminal: the agent shows up here as soon as its first turn is written.\n"
            "Settings (the model used to reflect): press , (or ctrl+p, then Settings).",
            style="dim",
        )
        self.query_one("#empty-state", Static).update(text)

    def no_agent_reason(self) -> str | None:
        """Why an action on "the selected agent" cannot run now, or ``None`` when it can."""
        if self.agent is not None:
            return None
        if not self.loaded:
            return "Still reading the workspace; try again in a moment."
        return "No agent to act on yet: import one first (the commands are on the screen)."

    def torn_down(self) -> bool:
        """Quitting: the widgets a late worker result would update are gone (a result then is dropped)."""
        return not self.screen_stack or not self.screen_stack[0].query("#sidebar")

    def show_sidebar(self, pending: Iterable[str]) -> None:
        now = self.now()
        badges = {aid: badge(self.plan.decision(aid), now) for aid in self.views} if self.plan else {}
        if (activity := self.reflections.activity) is not None:
            badges[activity.agent] = activity.badge()
        self.query_one(Sidebar).show(self.views, badges, now, [a for a in pending if a not in self.views])

    def _tell_skill_editors(self, view: AgentView) -> None:
        skills = {row.skill.slug: row.skill for row in view.skills}
        for screen in self.screen_stack:
            if isinstance(screen, SkillEditor) and screen.agent == view.id:
                screen.disk_changed(skills.get(screen.slug))

    def _tell_histories(self, view: AgentView) -> None:
        for screen in self.screen_stack:
            if isinstance(screen, SkillHistory) and screen.agent == view.id:
                screen.show_changes(view.changes)

    def select_agent(self, agent: str) -> None:
        if agent == self.agent or agent not in self.views:
            return
        if self.agent is not None and self.query_one(SelfPane).dirty_notes():
            self.notify(
                "Unsaved self-note edits: save (ctrl+s) or reload (ctrl+r) them before switching agents.", severity="warning"
            )
            self.query_one(Sidebar).move_cursor(row=self.query_one(Sidebar).get_row_index(self.agent))
            return
        self.agent = agent
        self.collector.changed(thaw=True)  # the rows of the agent left behind are garbage now
        self.show_agent(self.views[agent])
        self._events_looked_at()

    def show_agent(self, view: AgentView, areas: frozenset[Area] = AGENT_AREAS) -> None:
        """Show an agent; after a refresh, only the panes fed by the re-read ``areas`` are redone."""
        now = self.now()
        header = Text()
        header.append(view.name, style="bold")
        if view.meta.name:
            header.append(f" ({view.id})", style="dim")
        if view.meta.description:
            header.append(f" · {view.meta.description}")
        header.append(f"\n{view.turn_count} turns · {view.triggering} triggering · {len(view.skills)} skills", style="dim")
        spent = self.plan.spent if self.plan is not None else None
        if spent is not None and (spent.month.reflections or spent.budget_usd is not None):  # every agent's, one total
            header.append(f" · cost today {spent.today.text()}, this month {spent.month.text()}", style="dim")
            if spent.over:
                header.append(" (over today's budget)", style="bold red")
        if view.malformed:
            header.append(f" · ⚠ {view.malformed} malformed lines skipped", style="yellow")
        if unread := view.not_read.get("records"):  # records of kinds the importers do not know: never read as work
            kinds = sorted(view.not_read["kinds"])
            header.append(f" · ⚠ {unread} imported records not read ({', '.join(kinds)})", style="yellow")
        self.query_one("#agent-header", Static).update(header)
        if areas & {Area.CONVERSATIONS, Area.SELF}:  # the profile note names the known weaknesses
            self.query_one(TurnsPane).show(view, self.settings, now)
        if Area.SKILLS in areas:
            self.query_one(SkillsPane).show(view, now)
        elif Area.CONVERSATIONS in areas:  # the rates follow the turns: after the frame that shows the new rows
            self.call_after_refresh(self._show_skill_rates, view)
        if areas & {Area.PRIVATE, Area.SKILLS, Area.SELF}:  # operations are diffed against the current files
            self.query_one(ProposalsPane).show(view)
        if areas & {Area.SELF, Area.SKILLS}:  # the prompt preview lists the skills
            for note in self.query_one(SelfPane).show(view):
                self.notify(
                    f"{note}.md changed on disk while you were editing it. Your edits are kept; saving will ask.",
                    title="Changed on disk",
                    severity="warning",
                    timeout=8,
                )
        if areas & {Area.EVENTS, Area.PRIVATE}:  # the hook log lives in the agent's private folder
            self.query_one(EventsPane).show(view, now)

    def _show_skill_rates(self, view: AgentView) -> None:
        if self.agent == view.id and self.views.get(view.id) is view:  # not overtaken by a newer view
            self.query_one(SkillsPane).show(view, self.now())

    def select_agent_from_palette(self, agent: str) -> None:
        sidebar = self.query_one(Sidebar)
        if agent in self.views:
            sidebar.move_cursor(row=sidebar.get_row_index(agent))

    @on(Sidebar.AgentSelected)
    def _agent_selected(self, event: Sidebar.AgentSelected) -> None:
        self.select_agent(event.agent)

    @on(TabbedContent.TabActivated, "#tabs")
    def _tab_shown(self) -> None:
        self._events_looked_at()

    def _events_looked_at(self) -> None:
        """The Events tab of an agent with hook problems not looked at yet is on screen: they are seen now."""
        view = self.views.get(self.agent) if self.agent else None
        if view is not None and view.hook_problems and self.query_one(TabbedContent).active == "events":
            newest = max(str(entry.get("ts") or "") for _, entry in view.hook_log)  # what is on screen, by the log's clock
            self._mark_hooks_seen(view.id, newest)

    @work(thread=True, group="save")
    def _mark_hooks_seen(self, agent: str, at: str) -> None:
        data = self.data.agents.get(agent)
        if data is None:
            return
        try:
            mark_seen(data.paths.private, at)
        except OSError as exc:
            self.call_from_thread(self.notify, f"cannot note that the hook problems were seen: {exc}", severity="warning")
            return
        self.call_from_thread(self.reload_agent, agent, Area.PRIVATE)

    # actions --------------------------------------------------------------

    def action_tab(self, tab: str) -> None:
        """Show a tab and focus its main widget, so its keys work and show in the footer at once."""
        self.query_one(TabbedContent).active = tab
        pane = self.query_one(f"TabPane#{tab}", TabPane)
        # a text tab focuses its editor, so typing works at once (esc gives the keys back to the app)
        main = {"proposals": "#ops-table", "self": "#note-profile"}.get(tab, "KeyedTable")
        for widget in pane.query(main):
            widget.focus()
            return

    def action_next_agent(self, step: int) -> None:
        ids = sorted(self.views)
        if ids:
            index = ids.index(self.agent) if self.agent in ids else -step
            self.select_agent_from_palette(ids[(index + step) % len(ids)])

    def action_help(self) -> None:
        self.push_screen(HelpScreen(self.key_sections()))

    def action_toggle_sidebar(self) -> None:
        sidebar = self.query_one(Sidebar)
        sidebar.display = not sidebar.display

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Cancel is offered (and shown in the footer) only while a reflection runs."""
        if action == "cancel_reflection":
            return self.reflections.cancel_event is not None
        return True

    def action_reflect_now(self) -> None:
        self.reflections.reflect_now()

    def action_run_cycle(self) -> None:
        self.reflections.run_cycle()

    def action_cancel_reflection(self) -> None:
        self.reflections.cancel()

    def action_show_bundle(self) -> None:
        self.reflections.show_bundle()

    def action_reload(self) -> None:
        """F5: orkas.toml and every agent, read again."""
        if self.reload_settings(force=True) is not None:
            self.load(None)  # the settings did not change: read the agents with the ones in effect

    async def action_quit(self) -> None:
        unsaved = self.unsaved_edits()
        if not unsaved:
            self._leave()
            return

        def answer(choice: str | None) -> None:
            if choice == "quit":
                self._leave()

        self.push_screen(
            Choose(
                "Unsaved edits: " + ", ".join(unsaved) + ".\nQuit and lose them?",
                [("stay", "Stay"), ("quit", "Quit without saving")],
                danger="quit",
            ),
            answer,
        )

    def _leave(self) -> None:
        """Exit; a running reflection is cancelled first (it writes nothing when cancelled)."""
        if (cancel := self.reflections.cancel_event) is not None:
            cancel.set()
        if self._save_timer is not None:  # new bytes read since the last save
            self._save_timer.stop()
            with self.data.lock:
                self.data.save_caches()
        self.exit()

    def unsaved_edits(self) -> list[str]:
        edits = [f"self/{note}.md" for note in self.query_one(SelfPane).dirty_notes()]
        edits += [f"skills/{s.slug}.md" for s in self.screen_stack if isinstance(s, SkillEditor) and s.dirty]
        return edits

    # intents: each one a core call in a thread worker; the result comes back as a re-read ----

    @on(messages.ShowText)
    def _show_text(self, event: messages.ShowText) -> None:
        self.push_screen(TextView(event.title, event.text))

    @on(messages.OpenSkill)
    def _open_skill(self, event: messages.OpenSkill) -> None:
        self.open_skill(event.agent, event.slug)

    @work(thread=True, group="skill-io")
    def open_skill(self, agent: str, slug: str) -> None:
        store = self.data.agents[agent].store
        opened = store.open(slug)
        if isinstance(opened, BrokenSkill):  # a file that does not parse opens as its whole text, to be fixed
            try:
                data, version = read_versioned(opened.path)
            except OSError:
                data = None
            if data is None:
                self.call_from_thread(self.notify, opened.problem, severity="error")
                return
            text = data.decode("utf-8", "replace")
        else:
            text, version = opened.body, opened.version
        self.call_from_thread(
            self.push_screen,
            SkillEditor(agent, store, opened, text, version),
            lambda _: self.reload_agent(agent, Area.SKILLS, Area.EVENTS, Area.PRIVATE),
        )

    @on(messages.SaveSkill)
    def _save_skill(self, event: messages.SaveSkill) -> None:
        self.run_worker(lambda: self._write_skill(event), thread=True, group="skill-io")

    def _write_skill(self, event: messages.SaveSkill) -> None:
        store = self.data.agents[event.agent].store
        paths, settings, slug = store.paths, store.settings, event.slug
        try:
            if event.whole_file:
                save_skill_text(paths, settings, slug, event.body, event.expected, self.now(), force=event.force)
            else:
                edit_skill(paths, settings, slug, event.description, event.body, event.expected, self.now(), force=event.force)
        except ConflictError:
            self.call_from_thread(self._ask_skill_conflict, event)
            return
        except (SkillError, OSError) as exc:
            self.call_from_thread(self.notify, str(exc), title="Not saved", severity="error", timeout=8)
            return
        done = "fixed and saved" if event.whole_file else "saved"
        self.call_from_thread(self.notify, f"{slug}.md {done}; F2 shows it in the history (revertable)", title="Skill")
        self.call_from_thread(self.reload_agent, event.agent, Area.SKILLS, Area.EVENTS, Area.PRIVATE)

    def _ask_skill_conflict(self, event: messages.SaveSkill) -> None:
        def answer(choice: str | None) -> None:
            if choice == "overwrite":
                again = messages.SaveSkill(
                    event.agent, event.slug, event.description, event.body, event.expected, event.whole_file, force=True
                )
                self.post_message(again)
            elif choice == "reload":
                for editor in self._skill_editors(event.agent, event.slug):
                    editor.discard()
                self.reload_agent(event.agent, Area.SKILLS)

        self.reload_agent(event.agent, Area.SKILLS)  # the editor hears of the change on disk
        self.push_screen(changed_on_disk(f"{event.slug}.md", " (your edits are lost)"), answer)

    def _skill_editors(self, agent: str, slug: str) -> list[SkillEditor]:
        return [s for s in self.screen_stack if isinstance(s, SkillEditor) and (s.agent, s.slug) == (agent, slug)]

    @on(messages.DeleteSkill)
    def _delete_skill(self, event: messages.DeleteSkill) -> None:
        self.run_worker(lambda: self._remove_skill(event), thread=True, group="skill-io")

    def _remove_skill(self, event: messages.DeleteSkill) -> None:
        store = self.data.agents[event.agent].store
        try:
            delete_skill(store.paths, store.settings, event.slug, event.expected, self.now())
        except ConflictError:
            message = f"{event.slug}.md changed on disk; not deleted. Reload it first."
            self.call_from_thread(self.notify, message, severity="error", timeout=8)
            return
        except (SkillError, OSError) as exc:
            self.call_from_thread(self.notify, str(exc), severity="error")
            return
        self.call_from_thread(self._skill_deleted, event.agent, event.slug)

    def _skill_deleted(self, agent: str, slug: str) -> None:
        self.notify(f"{slug} deleted", title="Skill")
        for editor in self._skill_editors(agent, slug):
            editor.dismiss(None)

    @on(messages.ResolveHandEdit)
    def _resolve_hand_edit(self, event: messages.ResolveHandEdit) -> None:
        self.run_worker(lambda: self._show_hand_edit(event.agent, event.slug), thread=True, group="skill-io")

    def _show_hand_edit(self, agent: str, slug: str) -> None:
        """The diff from what the export writes to what is there, then what to do with it."""
        paths = self.data.agents[agent].paths
        found = hand_edit(paths, self.workspace.settings, slug)
        if found is None:
            self.call_from_thread(self.notify, f"{slug}: its exported copy is not edited by hand any more", timeout=5)
            return
        lines = difflib.unified_diff(
            found.ours.splitlines(), found.theirs.splitlines(), "what the export writes", str(found.path), lineterm=""
        )
        title = f"{slug}: edited by hand in {display_path(found.path)} (esc: then adopt it or overwrite it)"

        def ask(_: object) -> None:
            question = (
                f"{display_path(found.path)} was edited by hand. Adopt the edit into the workspace skill (recorded, "
                "revertable), or overwrite it with the skill?"
            )
            answers = [("adopt", "Adopt the edit"), ("overwrite", "Overwrite it"), ("cancel", "Cancel")]
            self.push_screen(Choose(question, answers), lambda answer: self._settle_hand_edit(agent, slug, answer))

        self.call_from_thread(self.push_screen, TextView(title, "\n".join(lines)), ask)

    def _settle_hand_edit(self, agent: str, slug: str, answer: str | None) -> None:
        if answer in ("adopt", "overwrite"):
            self.run_worker(lambda: self._apply_hand_edit(agent, slug, answer), thread=True, group="skill-io")

    def _apply_hand_edit(self, agent: str, slug: str, answer: str) -> None:
        paths, settings = self.data.agents[agent].paths, self.workspace.settings
        try:
            if answer == "adopt":
                _skill, change = adopt_hand_edit(paths, settings, slug, self.now())
                message = f"{slug}: the edit is in the skill ({change.id}; F2 in its editor reverts it)"
            else:
                overwrite_hand_edit(paths, settings, slug, self.now())
                message = f"{slug}: its exported copy is the skill again"
        except (SkillError, ExportError, ConflictError, OSError) as exc:
            self.call_from_thread(self.notify, str(exc), title="Not changed", severity="error", timeout=10)
            return
        self.call_from_thread(self.notify, message, title="Edited there")
        self.call_from_thread(self.reload_agent, agent, Area.SKILLS, Area.PRIVATE, Area.EVENTS)

    @on(messages.ChangeScope)
    def _change_scope(self, event: messages.ChangeScope) -> None:
        """Ask where the skill belongs: global, one of the repositories it was learned in, or as its lessons say."""
        now = event.scope.label if event.scope.root is None else display_path(event.scope.root)
        answers = [("global", "Global")]
        answers += [(f"repo{i}", f"Only {root.name}") for i, root in enumerate(event.scope.learned[:3])]
        answers += [("learned", "As learned"), ("cancel", "Cancel")]
        question = (
            f"Where is {event.slug} exported? Now: {now} ({event.scope.why}).\n"
            "A copy an earlier export left elsewhere is listed by the export, never moved."
        )

        def answered(answer: str | None) -> None:
            if answer in (None, "cancel"):
                return
            root = event.scope.learned[int(answer[4:])] if answer.startswith(REPO) else None
            choice = REPO if root is not None else GLOBAL if answer == "global" else LEARNED
            self.run_worker(lambda: self._set_scope(event.agent, event.slug, choice, root), thread=True, group="skill-io")

        self.push_screen(Choose(question, answers), answered)

    def _set_scope(self, agent: str, slug: str, choice: str, root: Path | None) -> None:
        paths = self.data.agents[agent].paths
        try:
            scope, export = rescope(paths, self.workspace.settings, slug, choice, root, self.now())
        except (ScopeError, OSError) as exc:
            self.call_from_thread(self.notify, str(exc), title="Scope not changed", severity="error", timeout=10)
            return
        exported, look = export_notice(export)
        message = f"{slug}: {scope.label} ({scope.why})" + (f"; {exported}" if exported else "")
        self.call_from_thread(self.notify, message, title="Scope", severity="warning" if look else "information")
        self.call_from_thread(self.reload_agent, agent, Area.SKILLS, Area.PRIVATE, Area.EVENTS)

    @on(messages.RevertChange)
    def _revert_change(self, event: messages.RevertChange) -> None:
        self.run_worker(lambda: self._undo_change(event.change_id), thread=True, group="history")

    def _undo_change(self, change_id: str) -> None:
        try:
            change, export = revert_change(self.workspace, change_id, self.now())
        except (HistoryError, OSError) as exc:
            self.call_from_thread(self.notify, str(exc), title="Not reverted", severity="error", timeout=10)
            return
        exported, look = export_notice(export)
        message = f"{change.id} reverted" + (f"; {exported}" if exported else "")
        self.call_from_thread(self.notify, message, title="History", severity="warning" if look else "information")
        target = Area.SKILLS if change.kind == "skill" else Area.SELF
        self.call_from_thread(self.reload_agent, change.agent, target, Area.PRIVATE, Area.EVENTS)

    @on(messages.SaveNote)
    def _save_note(self, event: messages.SaveNote) -> None:
        self.run_worker(lambda: self._write_note(event), thread=True, group="note-io")

    def _write_note(self, event: messages.SaveNote) -> None:
        notes = self.data.agents[event.agent].notes
        try:
            save_note(notes.paths, notes.settings, event.note, event.text, event.expected, self.now(), force=event.force)
        except NoteError as exc:
            self.call_from_thread(self.notify, str(exc), title="Not saved", severity="error", timeout=10)
            return
        except ConflictError:
            self.call_from_thread(self._ask_note_conflict, event)
            return
        saved = f"{event.note}.md saved (recorded in history: `orkas-tui history {event.agent}`, revertable)"
        self.call_from_thread(self.notify, saved, title="Self")
        self.call_from_thread(self.reload_agent, event.agent, Area.SELF, Area.EVENTS, Area.PRIVATE)

    def _ask_note_conflict(self, event: messages.SaveNote) -> None:
        def answer(choice: str | None) -> None:
            if choice == "overwrite":
                self.post_message(messages.SaveNote(event.agent, event.note, event.text, None, force=True))
            elif choice == "reload":
                self._discard_note(event.agent, event.note)

        self.push_screen(changed_on_disk(f"self/{event.note}.md"), answer)

    @on(messages.RevertNote)
    def _revert_note(self, event: messages.RevertNote) -> None:
        editor = self.query_one(SelfPane).editor(event.note)
        if not editor.dirty and not editor.changed_on_disk:
            return
        self.push_screen(
            Choose(
                f"Discard your edits to {event.note}.md and reload it from disk?",
                [("keep", "Keep editing"), ("reload", "Reload")],
                danger="reload",
            ),
            lambda choice: self._discard_note(event.agent, event.note) if choice == "reload" else None,
        )

    def _discard_note(self, agent: str, note: str) -> None:
        pane = self.query_one(SelfPane)
        if pane.agent == agent:
            pane.discard(note)
            self.reload_agent(agent, Area.SELF)

    @on(messages.EditOperation)
    def _edit_operation(self, event: messages.EditOperation) -> None:
        proposal_id, index = event.proposal.id, event.index
        op = event.proposal.operations[index].op

        def edited(fields: dict) -> Callable[[], tuple[str, str]]:
            def call() -> tuple[str, str]:
                edit_operation(self.workspace, proposal_id, index, fields)
                return f"operation {index} updated; approve it with a", "information"

            return call

        self.push_screen(
            OpEditor(
                f"{proposal_id} operation {index} (ctrl+s to save, then approve with a)", op if isinstance(op, dict) else {}
            ),
            lambda fields: self._decide(proposal_id, edited(fields)) if fields else None,
        )

    @on(messages.RejectProposal)
    def _reject(self, event: messages.RejectProposal) -> None:
        def call() -> tuple[str, str]:
            reject(self.workspace, event.proposal_id, self.now(), event.index)
            return f"operation {event.index} rejected", "information"

        self._decide(event.proposal_id, call)

    @on(messages.ApproveProposal)
    def _approve(self, event: messages.ApproveProposal) -> None:
        if event.quarantined and not event.confirm:  # a second, explicit confirmation, of this one operation
            question = (
                f"Operation {event.index} of {event.proposal_id} is quarantined: {event.quarantined}.\n"
                "Its sources and the text it repeats are shown above its diff. Apply it anyway?"
            )

            def answered(answer: str | None) -> None:
                if answer == "apply":
                    self.post_message(messages.ApproveProposal(event.proposal_id, event.index, event.quarantined, confirm=True))

            self.push_screen(Choose(question, [("keep", "Keep it quarantined"), ("apply", "Apply it")], danger="apply"), answered)
            return

        def call() -> tuple[str, str]:
            _, result = approve(self.workspace, event.proposal_id, self.now(), event.index, confirm=event.confirm)
            message = f"applied {len(result.applied)} change(s)"
            exported, look = export_notice(result.export)
            if exported:
                message += f"; {exported}"
            if result.held:
                message += "; left for approval: " + "; ".join(result.held)
            if result.failed:
                message += "; not applied: " + "; ".join(result.failed)
            return message, "warning" if result.failed or result.held or look else "information"

        self._decide(event.proposal_id, call)

    def _decide(self, proposal_id: str, call: Callable[[], tuple[str, str]]) -> None:
        """Run a decision on a proposal in a thread worker, say how it went, read the agent again."""

        def worker() -> None:
            try:
                message, severity = call()
            except (ProposalError, HistoryError, OSError) as exc:
                message, severity = str(exc), "error"
            self.call_from_thread(self.notify, message, title=proposal_id, severity=severity, timeout=10)
            self.call_from_thread(
                self.load, {PROPOSALS.parse(proposal_id).agent: {Area.PRIVATE, Area.SKILLS, Area.SELF, Area.EVENTS}}
            )

        self.run_worker(worker, thread=True, group="decide")

    # palette --------------------------------------------------------------

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        yield SystemCommand("Help: keys", "Every key and its binding id", self.action_help)
        for tab, title in TABS:
            yield SystemCommand(f"Tab: {title}", f"Show the {title} tab", lambda tab=tab: self.action_tab(tab))
        yield SystemCommand("Reflect now", "Reflect on the selected agent now (shows the bundle first)", self.action_reflect_now)
        yield SystemCommand("Run a cycle now", "Reflect on every agent the queue selects", self.action_run_cycle)
        yield SystemCommand("Cancel reflection", "Stop the running reflection; nothing is written", self.action_cancel_reflection)
        yield SystemCommand(
            "Show bundle", "The exact text a reflection would send for the selected agent", self.action_show_bundle
        )
        yield SystemCommand("Toggle sidebar", "Hide or show the agents list", self.action_toggle_sidebar)
        yield SystemCommand("Settings", "The model, its key and every setting in effect; edit orkas.toml", self.action_settings)
        yield SystemCommand("Reload workspace and settings", "Read orkas.toml and every agent again (F5)", self.action_reload)


def make_app(
    root: str | Path | None = None,
    clock: Clock = utc_now,
    watch: bool = True,
    blink: bool = True,
    workspace: Workspace | None = None,
    demo: bool = False,
    preload: bool | None = None,
) -> OrkasApp:
    """The one factory the CLI, the tests and the screenshot script share.

    Tests and screenshots pass a fixed ``clock``, ``watch=False`` and ``blink=False``
    so every run paints the same picture. ``preload`` (default: as ``watch``) imports
    the model client in the background at start.
    """
    return OrkasApp(
        workspace or Workspace.open(root),
        clock=clock,
        watch=watch,
        blink=blink,
        demo=demo,
        preload=watch if preload is None else preload,
    )
