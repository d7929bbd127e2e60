"""Corrections read in context, end to end: real files, the observer, ``status --json`` and the bundle."""

from __future__ import annotations

from pathlib import Path

from tests.core.helpers import make_agent, write_lines
from tests.trust.conftest import cli, only_agent, status_json

T = "2026-11-20T10:{:02d}:00Z"


def turn(n: int, user: str, *, said: str = "Done: the deploy ran.", status: str = "ok", ran: bool = False) -> list[dict]:
    """One turn; ``ran``: the agent ran a tool in it (a call and its result) before it ended."""
    at = T.format(n)
    tool = [
        {"ts": at, "type": "tool_call", "id": f"c{n}", "name": "Bash", "args": {"command": "psql -f migrate.sql"}},
        {"ts": at, "type": "tool_result", "id": f"c{n}", "ok": True, "output": "ALTER TABLE"},
    ]
    return [
        {"ts": at, "type": "turn_start", "turn": f"t{n}", "skills_indexed": []},
        {"ts": at, "type": "user", "text": user},
        *(tool if ran else []),
        {"ts": at, "type": "assistant", "text": said},
        {"ts": at, "type": "turn_end", "turn": f"t{n}", "status": status},
    ]


def evidence(root: Path) -> dict[str, str | None]:
    """Each turn's ``user_correction`` evidence, as ``status --json`` prints it."""
    return {t["turn"]: t["evidence"].get("user_correction") for t in only_agent(status_json(root))["turns"]}


def test_the_first_prompt_is_a_task_and_a_later_one_corrects_with_its_reason(tmp_path: Path) -> None:
    agent = make_agent(tmp_path)
    task = "Deploy the api; it should be on the staging cluster, not prod, instead of last week's setup"
    write_lines(agent / "conversations" / "c1.jsonl", [*turn(1, task), *turn(2, "it still fails on staging")])
    found = evidence(tmp_path)
    assert found["t1"] is None  # "should be", "instead": the words of a task, not a correction
    assert found["t2"] is not None and found["t2"].startswith("reported a failure after the agent's work: 'still fails")


def test_the_prompt_after_an_interruption_redirects_and_a_phrase_gives_its_phrase(tmp_path: Path) -> None:
    agent = make_agent(tmp_path)
    events = [
        *turn(1, "Migrate the users table"),
        *turn(2, "Add an index on email", said="Adding the index now", status="aborted", ran=True),
        *turn(3, "use a partial index on active users"),  # no marker word: its place says it
        *turn(4, "Write the rollback"),
        *turn(5, "Actually, keep the old column"),
    ]
    write_lines(agent / "conversations" / "c1.jsonl", events)
    found = evidence(tmp_path)
    assert found["t3"] is not None and found["t3"].startswith("interrupted the agent, then redirected it: 'use a partial")
    assert found["t4"] is None
    assert found["t5"] is not None and found["t5"].startswith("matched 'Actually'")


def test_a_conversation_read_on_after_a_restart_keeps_its_place(tmp_path: Path) -> None:
    """The second run reads on from the cache: the turn before is known to have been interrupted."""
    agent = make_agent(tmp_path)
    path = agent / "conversations" / "c1.jsonl"
    write_lines(path, [*turn(1, "Migrate the users table"), *turn(2, "Add the index", status="aborted")])
    assert evidence(tmp_path) == {"t2": None, "t1": None}
    write_lines(path, turn(3, "use a partial index on active users"))
    found = evidence(tmp_path)
    assert found["t3"] is not None and found["t3"].startswith("interrupted the agent, then redirected it")


def test_an_interruption_before_the_agent_ran_anything_reads_a_completed_prompt_as_the_users_own(tmp_path: Path) -> None:
    """The issue's "the user correcting their own earlier message", as the labellers who opened the
    transcripts read it (docs/rules.md): stopped before it ran a tool, the agent did nothing wrong
    when the user sends the same prompt again, completed; a different prompt still redirects it."""
    agent = make_agent(tmp_path)
    events = [
        *turn(1, "Migrate the users table"),
        *turn(2, "Add an index on", said="", status="aborted"),
        *turn(3, "Add an index on email, the column users log in with"),  # their own words, completed
        *turn(4, "Write the rollback", status="aborted"),
        *turn(5, "use a partial index on active users"),  # a new instruction: the interruption says it
    ]
    write_lines(agent / "conversations" / "c1.jsonl", events)
    found = evidence(tmp_path)
    assert found["t3"] is None
    assert found["t5"] is not None and found["t5"].startswith("interrupted the agent, then redirected it")


def test_the_bundle_shows_the_reason_with_the_prompt(tmp_path: Path) -> None:
    """The turn's opening prompt is its correction: the signal's evidence gives the reason (a correction
    later in a turn is listed with it too: tests/reflection/test_bundle_signals.py)."""
    agent = make_agent(tmp_path)
    write_lines(agent / "conversations" / "c1.jsonl", [*turn(1, "Deploy the api"), *turn(2, "it still fails on staging")])
    code, out, err = cli("reflect", "a1", "--dry-run", "--workspace", str(tmp_path), "--now", "2026-11-21T00:00:00Z")
    assert code == 0, err
    said = "reported a failure after the agent's work: 'still fails', in the user's message: \"it still fails on staging\""
    assert f"user_correction (0.9, the user's message reads as a correction): {said}" in out


def test_after_an_interruption_a_retry_a_resume_or_a_plan_is_no_correction() -> None:
    """Real cases of the first set (relabelled in round two) and of the second: "commit" sent again
    after it was interrupted, "continue, network should be better now", Claude Code's plan text."""
    from orkas_tui.core.observe.corrections import matcher_for
    from orkas_tui.core.observe.in_context import Context, judge
    from orkas_tui.core.read.settings import Settings

    matcher = matcher_for(Settings().correction_phrases)

    def after_abort(text: str, earlier: tuple[str, ...] = ()) -> str | None:
        context = Context(before="ok", prompts=0)
        for said in earlier:
            context.prompted(said)
        context.ended("aborted", True)
        found = judge(text, context, matcher)
        return found.kind if found else None

    assert after_abort("commit", ("commit",)) is None
    assert after_abort("continue, network should be better now") is None
    assert after_abort("let's continue please") is None
    assert after_abort("please continue coordinating work, and ensure local main is updated") == "interrupt"
    assert after_abort("Implement the following plan: # Plan: Fix Error Handling in main.go") is None
    assert after_abort("commit only the docs", ("commit",)) == "interrupt"
