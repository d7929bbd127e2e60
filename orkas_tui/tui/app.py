"""The app: layout, bindings with ids (rebindable), the watch worker and the load path.

Data flows one way: a file changes, the watcher names the agent and the area, a
thread worker re-reads just that (new bytes only) and hands an :class:`AgentView`
to the UI, which updates table rows by key. A person's intent (save a note, edit a
skill, approve an operation) is a message carrying its core call (:mod:`orkas_tui.tui.intents`),
posted where it is expressed; the app carries out every one the same way (``_run_intent``),
and the result comes back through the same load path.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterable
from contextlib import nullcontext
from datetime import datetime
from functools import partial
from pathlib import Path, PurePath

from rich.text import Text
from textual import events, on, work
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Footer, Static, TabbedContent, TabPane

from orkas_tui.core.disk.confine import current_version
from orkas_tui.core.disk.write import ConflictError
from orkas_tui.core.picture import AgentView, WorkspacePicture
from orkas_tui.core.read.settings import ConfigError, Settings, load_settings
from orkas_tui.core.read.timefmt import utc_now
from orkas_tui.core.read.workspace import AGENT_AREAS, Area, Workspace
from orkas_tui.core.reflect.queue import QueuePlan
from orkas_tui.core.store.first_run import display_path, next_steps
from orkas_tui.core.store.notes import NOTES
from orkas_tui.core.store.recovery import recover_workspace
from orkas_tui.tui import messages
from orkas_tui.tui.collector import YOUNG_S, Collector
from orkas_tui.tui.intents import Intent, MarkHooksSeen, SaveOperation, ShowBundle
from orkas_tui.tui.keymap import check_keymap
from orkas_tui.tui.palette import AgentsAndSkills
from orkas_tui.tui.reflections import Reflections
from orkas_tui.tui.screens.confirm import Choose
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
            self.set_interval(TICK_S, self.tick)

    def tick(self) -> None:
        """Time moves on: the queue's countdowns are planned again and the skills' ages redrawn."""
        self.load({})
        self.query_one(SkillsPane).tick(self.now())

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

    def _agent_to_act_on(self) -> str | None:
        """The selected agent, or ``None`` after saying why an action on it cannot run now."""
        if self.agent is None:
            reason = "No agent to act on yet: import one first (the commands are on the screen)."
            self.notify(reason if self.loaded else "Still reading the workspace; try again in a moment.", severity="warning")
        return self.agent

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
            header.append(f" · cost {spent.text()}", style="dim")
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

    @on(messages.SelectAgent)
    def _select_from_palette(self, event: messages.SelectAgent) -> None:
        self.select_agent_from_palette(event.agent)

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
            self.post_message(MarkHooksSeen(view.id, newest))

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
        if (agent := self._agent_to_act_on()) is not None:
            self.reflections.reflect_now(agent)

    def action_run_cycle(self) -> None:
        self.reflections.run_cycle()

    def action_cancel_reflection(self) -> None:
        self.reflections.cancel()

    def action_show_bundle(self) -> None:
        if (agent := self._agent_to_act_on()) is not None:
            self.post_message(ShowBundle(agent))

    @on(messages.BundleReady)
    def _bundle_ready(self, event: messages.BundleReady) -> None:
        self.reflections.ask_send(event.agent, event.prepared, event.over)

    @on(messages.ActivityChanged)
    def _show_activity(self) -> None:
        """The running reflection's spinner, stage and elapsed seconds: in the bar above the footer and the sidebar."""
        if self.torn_down():
            return
        activity = self.reflections.activity
        bar = self.query_one("#activity", Static)
        bar.display = activity is not None
        if activity is not None:
            bar.update(activity.line(self.settings.model.name or "the model"))
        self.show_sidebar(())

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

    # intents: one path for all (see tui/intents.py) -----------------------

    @on(Intent)
    def _carry_out(self, intent: Intent) -> None:
        self.run_worker(partial(self._run_intent, intent), thread=True, group=intent.group)

    def _run_intent(self, intent: Intent) -> None:
        """The one intent path (a thread worker): the core call, then the message it returns posted back."""
        try:
            result = intent.run(self.workspace, self.now())
        except ConflictError as exc:
            result = intent.conflict(exc)
        except intent.refusals as exc:
            result = intent.refused(exc)
        self.post_message(result)

    @on(messages.Done)
    def _done(self, event: messages.Done) -> None:
        if event.text:
            self.notify(event.text, title=event.title, severity=event.severity, timeout=event.timeout)
        if event.reread is not None:
            self.load(event.reread)

    @on(messages.Ask)
    def _ask(self, event: messages.Ask) -> None:
        if event.reread is not None:
            self.load(event.reread)
        self._ask_now(event.question)

    def _ask_now(self, question: messages.Question) -> None:
        def answered(answer: str | None) -> None:
            if answer in question.then:
                self.post_message(question.then[answer])

        self.push_screen(Choose(question.text, question.answers, question.danger), answered)

    @on(messages.ShowText)
    def _show_text(self, event: messages.ShowText) -> None:
        then = event.then
        self.push_screen(TextView(event.title, event.text), None if then is None else lambda _: self._ask_now(then))

    @on(messages.SkillOpened)
    def _skill_opened(self, event: messages.SkillOpened) -> None:
        agent = event.agent
        self.push_screen(
            SkillEditor(agent, event.store, event.opened, event.text, event.version),
            lambda _: self.reload_agent(agent, Area.SKILLS, Area.EVENTS, Area.PRIVATE),
        )

    def _skill_editors(self, agent: str, slug: str) -> list[SkillEditor]:
        return [s for s in self.screen_stack if isinstance(s, SkillEditor) and (s.agent, s.slug) == (agent, slug)]

    @on(messages.DiscardSkill)
    def _discard_skill(self, event: messages.DiscardSkill) -> None:
        for editor in self._skill_editors(event.agent, event.slug):
            editor.discard()
        self.reload_agent(event.agent, Area.SKILLS)

    @on(messages.SkillDeleted)
    def _skill_deleted(self, event: messages.SkillDeleted) -> None:
        self.notify(f"{event.slug} deleted", title="Skill")
        for editor in self._skill_editors(event.agent, event.slug):
            editor.dismiss(None)

    @on(messages.DiscardNote)
    def _discard_note(self, event: messages.DiscardNote) -> None:
        pane = self.query_one(SelfPane)
        if pane.agent == event.agent:
            pane.discard(event.note)
            self.reload_agent(event.agent, Area.SELF)

    @on(messages.EditOperation)
    def _edit_operation(self, event: messages.EditOperation) -> None:
        proposal_id, index = event.proposal.id, event.index
        op = event.proposal.operations[index].op

        def edited(fields: dict | None) -> None:
            if fields:
                self.post_message(SaveOperation(proposal_id, index, fields))

        title = f"{proposal_id} operation {index} (ctrl+s to save, then approve with a)"
        self.push_screen(OpEditor(title, op if isinstance(op, dict) else {}), edited)

    @on(messages.SettingsOpened)
    def _settings_opened(self, event: messages.SettingsOpened) -> None:
        self.push_screen(SettingsEditor(event.text, event.version), lambda _: self._refresh_settings_screens())

    @on(messages.SettingsSaved)
    def _settings_saved(self, event: messages.SettingsSaved) -> None:
        problem = self.reload_settings(announce=False)
        for screen in self.screen_stack:
            if isinstance(screen, SettingsEditor):
                screen.saved(event.text, event.version, problem)

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
