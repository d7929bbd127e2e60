"""Reflect now against a model on 127.0.0.1, and approve one operation of a proposal."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from orkas_tui.core.read.workspace import Area, Workspace
from orkas_tui.core.store.changes import approve, revert_change
from orkas_tui.core.store.proposals import create_proposal, list_proposals
from orkas_tui.core.store.skills import SkillStore
from orkas_tui.demo.proposal import add_demo_proposal
from orkas_tui.tui.intents import OpenSkill
from orkas_tui.tui.screens.confirm import Choose
from orkas_tui.tui.screens.skill_editor import SkillEditor
from orkas_tui.tui.screens.skill_history import SkillHistory
from orkas_tui.tui.screens.text_view import TextView
from orkas_tui.tui.widgets.keyed_table import KeyedTable
from orkas_tui.tui.widgets.proposals import ProposalsPane
from tests.conftest import NOW
from tests.modelserver import ModelServer, reply
from tests.tui.conftest import SIZE, open_agent, settle, wait_until


def use_model(ws: Path, server: ModelServer) -> None:
    """The workspace reflects with the local model server."""
    (ws / "orkas.toml").write_text(f'[model]\nname = "openai/test-model"\napi_base = "{server.url}"\n')


async def _poll(pilot, predicate, rounds: int = 200) -> None:
    """Like wait_until, without waiting for workers (a reflection worker is meant to be running)."""
    for _ in range(rounds):
        if predicate():
            return
        await pilot.pause(0.05)
    raise AssertionError("the condition never held")


async def test_reflect_now_against_a_local_model(app_factory, demo_ws: Path) -> None:
    answer = {
        "summary": "Use pnpm everywhere",
        "operations": [{"op": "update_self", "note": "strategies", "content": "- When building, always use pnpm, never npm.\n"}],
    }
    with ModelServer([reply(answer)]) as server:
        use_model(demo_ws, server)
        app = app_factory()
        async with app.run_test(size=SIZE) as pilot:
            await open_agent(pilot, "coder")
            await pilot.press("2", "r")
            await wait_until(pilot, lambda: isinstance(app.screen, Choose))
            assert "tokens" in app.screen.question and "test-model" in app.screen.question
            await pilot.click("#answer-bundle")  # the exact bundle, before anything is sent
            await pilot.pause()
            assert isinstance(app.screen, TextView) and "Use pnpm in the monorepo" not in app.screen.title_text
            assert len(server.requests) == 0
            await pilot.press("escape")
            await wait_until(pilot, lambda: isinstance(app.screen, Choose))
            await pilot.click("#answer-send")
            await wait_until(pilot, lambda: any(p.summary == "Use pnpm everywhere" for p in app.views["coder"].proposals))
            assert len(server.requests) == 1
            log = " ".join(line.plain for line in app.progress_lines)
            assert "bundle built" in log and "waiting for" in log and "validating" in log
            assert any("proposal coder.p" in n.message for n in app._notifications)

            await pilot.press("r")  # again: every turn was read, so nothing is offered and nothing sent
            await wait_until(pilot, lambda: any("nothing new since the last reflection" in n.message for n in app._notifications))
            assert not isinstance(app.screen, Choose) and len(server.requests) == 1
    sent = json.dumps(server.requests[0])
    assert "turn_start" in sent or "user" in sent


async def test_approving_one_operation_changes_the_skill_and_logs_it(app_factory, demo_ws: Path) -> None:
    workspace = Workspace.open(demo_ws)
    paths = workspace.agent("coder")
    store = SkillStore(paths, workspace.settings)
    slug = store.slugs()[0]
    body = store.get(slug).body
    fragment = body.strip().splitlines()[0]
    proposal = create_proposal(
        paths,
        workspace.settings,
        "Two small fixes",
        [
            {"op": "patch_skill", "skill": slug, "find": fragment, "replace": fragment + " (checked by the test)"},
            {"op": "update_self", "note": "profile", "content": "I stumble on `npm`."},
        ],
        NOW,
        {},
    )
    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        await open_agent(pilot, "coder")
        await pilot.press("4")
        pane = app.query_one(ProposalsPane)
        await wait_until(pilot, lambda: pane.ops.row_count == 2)
        pane.ops.focus()
        assert pane.current_op().index == 0
        await pilot.press("a")
        await wait_until(pilot, lambda: pane.current() is not None and pane.current().operations[0].status == "applied")
        assert pane.current().operations[1].status == "pending"
    assert "(checked by the test)" in store.get(slug).body
    events = (paths.events).read_text()
    assert '"type":"skill_patched"' in events and proposal.id
    assert list_proposals(paths)[0].operations[1].status == "pending"


async def test_an_approved_patch_is_reverted_from_the_skill_history(app_factory, demo_ws: Path) -> None:
    proposal = add_demo_proposal(demo_ws, NOW)
    workspace = Workspace.open(demo_ws)
    slug = proposal.operations[0].op["skill"]
    path = workspace.agent("coder").skill(slug)
    original = path.read_text()
    approve(workspace, proposal.id, NOW, 0)
    assert path.read_text() != original
    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.post_message(OpenSkill("coder", slug))
        await wait_until(pilot, lambda: isinstance(app.screen, SkillEditor))
        editor = app.screen
        await pilot.press("f2")
        await wait_until(pilot, lambda: isinstance(app.screen, SkillHistory))
        history = app.screen
        change_id = history.query_one(KeyedTable).current_key()
        await pilot.press("v")
        await wait_until(pilot, lambda: isinstance(app.screen, Choose))
        await pilot.click("#answer-revert")
        await wait_until(pilot, lambda: path.read_text() == original)
        # the app ran the revert and read the agent again: the history, the agent's view and the editor follow
        await wait_until(pilot, lambda: _state(history, change_id).startswith("reverted"))
        view = app.views["coder"]
        assert [c.id for c in view.changes if c.reverted_at] == [change_id]
        assert next(row.skill for row in view.skills if row.skill.slug == slug).body in original
        assert app.screen is history and editor.skill.body in original
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is editor)
    assert '"type":"change_reverted"' in workspace.agent("coder").events.read_text()


def _state(history: SkillHistory, change_id: str) -> str:
    """The State column of a change's row, as shown."""
    table = history.query_one(KeyedTable)
    return table.get_cell(change_id, "state").plain


async def test_a_revert_made_elsewhere_shows_in_an_open_skill_history(app_factory, demo_ws: Path) -> None:
    proposal = add_demo_proposal(demo_ws, NOW)
    workspace = Workspace.open(demo_ws)
    slug = proposal.operations[0].op["skill"]
    change = approve(workspace, proposal.id, NOW, 0)[1].applied[0]
    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.post_message(OpenSkill("coder", slug))
        await wait_until(pilot, lambda: isinstance(app.screen, SkillEditor))
        await pilot.press("f2")
        await wait_until(pilot, lambda: isinstance(app.screen, SkillHistory))
        history = app.screen
        assert _state(history, change.id) == "applied"
        revert_change(workspace, change.id, NOW)  # as `orkas-tui revert` in another terminal
        app.reload_agent("coder", Area.SKILLS, Area.PRIVATE, Area.EVENTS)  # what the watcher does
        await wait_until(pilot, lambda: _state(history, change.id).startswith("reverted"))
        assert history.changes[change.id].reverted_at


async def test_a_reflection_in_progress_can_be_cancelled(app_factory, demo_ws: Path) -> None:
    answer = {"summary": "late", "operations": [{"op": "update_self", "note": "profile", "content": "never written"}]}
    with ModelServer([reply(answer, delay_s=60.0)]) as server:  # only the cancel ends the wait
        use_model(demo_ws, server)
        app = app_factory()
        async with app.run_test(size=SIZE) as pilot:
            await open_agent(pilot, "coder")
            await pilot.press("2", "r")
            await wait_until(pilot, lambda: isinstance(app.screen, Choose))
            await pilot.click("#answer-send")
            await _poll(pilot, lambda: any("waiting for" in line.plain for line in app.progress_lines))
            await pilot.press("x")
            await _poll(pilot, lambda: app.reflections.cancel_event is None)
            await pilot.pause()
            assert any("cancelled" in line.plain for line in app.progress_lines)
    assert list_proposals(Workspace.open(demo_ws).agent("coder")) == []
    assert "never written" not in (demo_ws / "agents" / "coder" / "self" / "profile.md").read_text()


async def test_a_slow_model_shows_stage_spinner_and_elapsed_seconds_and_x_cancels(app_factory, demo_ws: Path) -> None:
    from orkas_tui.tui.widgets.sidebar import Sidebar
    from tests.modelserver import Step

    with ModelServer([Step(content='{"summary": "late", "operations": []}', delay_s=60.0)]) as server:  # x ends it
        use_model(demo_ws, server)
        app = app_factory()
        app.blink = True  # the spinner turns
        async with app.run_test(size=SIZE) as pilot:
            await open_agent(pilot, "coder")
            await pilot.press("r")
            await wait_until(pilot, lambda: isinstance(app.screen, Choose))
            await pilot.click("#answer-send")
            await _poll(
                pilot,
                lambda: (
                    app.reflections.activity is not None
                    and app.reflections.activity.stage == "waiting"
                    and app.reflections.activity.elapsed() >= 1
                ),
            )
            await pilot.pause(0.2)
            bar = str(app.query_one("#activity").render())
            assert app.query_one("#activity").display
            assert re.search(r"Reflecting on coder: waiting for openai/test-model · [1-9]\d*s", bar) and "x cancels" in bar
            frame = app.reflections.activity.frame
            await pilot.pause(0.3)
            assert app.reflections.activity.frame > frame  # the spinner moves
            sidebar = app.query_one(Sidebar)
            status = sidebar.get_row("coder")[1]
            assert re.search(r"wait [1-9]\d*s", str(status)) and app.reflections.activity.spinner() in str(status)
            await pilot.press("x")
            await _poll(pilot, lambda: app.reflections.activity is None)
            await wait_until(pilot, lambda: any("cancelled" in n.message for n in app._notifications))
            assert not app.query_one("#activity").display
            assert app.views["coder"].proposals == [] or all(p.summary != "late" for p in app.views["coder"].proposals)


async def test_the_model_client_is_imported_in_the_background_after_the_first_paint(app_factory, demo_ws: Path) -> None:
    """With a model to reach, its client is warmed once the first screens are drawn, not during them."""
    (demo_ws / "orkas.toml").write_text('[model]\nname = "openai/test-model"\napi_base = "http://127.0.0.1:9/v1"\n')
    app = app_factory(preload=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert not app.model_client_ready  # the first paint did not wait for it, nor share the process with it
        for _ in range(400):  # seconds in a fresh process, at once when another test imported it
            if app.model_client_ready:
                break
            await pilot.pause(0.05)
        assert app.model_client_ready


async def test_the_skill_history_shows_each_changes_effect_beside_its_revert(app_factory, demo_ws: Path) -> None:
    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.post_message(OpenSkill("ops", "rollback-deployment"))
        await wait_until(pilot, lambda: isinstance(app.screen, SkillEditor))
        await pilot.press("f2")
        await wait_until(pilot, lambda: isinstance(app.screen, SkillHistory) and app.screen.effects is not None)
        history = app.screen
        skill, agent = str(history.query_one("#history-effect").render()).split("\n")
        assert skill.startswith("Effect of ops.c1 over the 20 turns showing the skill before and after it: invocation")
        assert "ineffective 100% → 20%" in skill and skill.endswith("; v reverts it")
        assert agent == (
            "Agent over 20 real turns before → after: corrections/turn 0.38 (16 turns) → 0.25 (20 turns);"
            " real errors/turn 0.88 (16 turns) → 0.35 (20 turns)"
        )
        cell = history.query_one("#history-table").get_row("ops.c1")[-1]
        assert cell.plain == "inef. 100% → 20%" and str(cell.style) == "green"


async def test_the_bundle_view_lists_what_was_kept_per_triggering_turn(app_factory, demo_ws: Path) -> None:
    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        await open_agent(pilot, "ops")
        app.action_show_bundle()
        await wait_until(pilot, lambda: isinstance(app.screen, TextView))
        text = app.screen.text
        assert text.startswith("── what the bundle holds ──\nparts: triggering turns ")
        assert "triggering turns: 8, 8 in the bundle, most recent first" in text
        assert "# Effect of the latest change to each skill read" in text


async def test_a_bundle_that_cannot_be_built_is_said_and_the_app_stays(app_factory, demo_ws: Path) -> None:
    """The agent's folder went away under the app: b and r say why, as any refused intent does."""
    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        await open_agent(pilot, "ops")
        shutil.rmtree(demo_ws / "agents" / "ops")
        for key, said in (("b", "no agent 'ops'"), ("r", "cannot build the bundle: no agent 'ops'")):
            await pilot.press(key)
            await wait_until(pilot, lambda said=said: any(said in n.message for n in app._notifications))
        assert app.is_running and not isinstance(app.screen, TextView)


async def test_reflect_now_without_a_key_says_what_to_set(app_factory, demo_ws: Path, monkeypatch) -> None:
    """The demo names a model whose key is not set: r says what to set and where, and offers no send."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        await open_agent(pilot, "coder")
        await pilot.press("2", "r")
        await wait_until(pilot, lambda: any("not configured" in n.message for n in app._notifications))
        (note,) = [n for n in app._notifications if "not configured" in n.message]
        assert "$OPENAI_API_KEY is not set" in note.message and "orkas.toml" in note.message
        assert not isinstance(app.screen, Choose)


async def test_after_a_reflection_the_cursor_is_on_the_new_proposal(app_factory, demo_ws: Path) -> None:
    """The Proposals cursor left on an older proposal moves to the one the reflection wrote (issue 33)."""
    paths = Workspace.open(demo_ws).agent("coder")
    settings = Workspace.open(demo_ws).settings
    for n in range(3):
        create_proposal(paths, settings, f"older {n}", [{"op": "update_self", "note": "profile", "content": f"x{n}\n"}], NOW, {})
    answer = {
        "summary": "Use pnpm everywhere",
        "operations": [{"op": "update_self", "note": "strategies", "content": "- Use pnpm.\n"}],
    }
    with ModelServer([reply(answer)]) as server:
        use_model(demo_ws, server)
        app = app_factory()
        async with app.run_test(size=SIZE) as pilot:
            await open_agent(pilot, "coder")
            await pilot.press("4")
            pane = app.query_one(ProposalsPane)
            await wait_until(pilot, lambda: pane.proposals.row_count >= 3)
            pane.proposals.move_cursor(row=pane.proposals.row_count - 1, animate=False)
            await settle(pilot)
            before = pane.proposals.current_key()
            await pilot.press("2", "r")
            await wait_until(pilot, lambda: isinstance(app.screen, Choose))
            await pilot.click("#answer-send")
            await wait_until(pilot, lambda: any(p.summary == "Use pnpm everywhere" for p in app.views["coder"].proposals))
            new = next(p.id for p in app.views["coder"].proposals if p.summary == "Use pnpm everywhere")
            await pilot.press("4")
            await settle(pilot)
            assert new != before and pane.proposals.current_key() == new
            assert pane.current() is not None and pane.current().summary == "Use pnpm everywhere"
