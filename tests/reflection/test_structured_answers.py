"""Structured answers through the real litellm client and the local model server.

A model that litellm's bundled map says takes a JSON schema (``gpt-4o-mini``) is sent
the answer's schema as ``response_format``; an unknown one (``test-model``) gets the
plain instructions alone. An answer that does not fit is asked for again once, with
the errors quoted, and that try is counted; a second misfit writes nothing. No
connection leaves 127.0.0.1 (a guard on the socket layer records any attempt).
"""

from __future__ import annotations

import json
import socket
import threading
from datetime import timedelta
from pathlib import Path

import orjson
import pytest

from orkas_tui.core.read.workspace import Workspace, read_state
from orkas_tui.core.reflect.llm import model_config, takes_response_schema
from orkas_tui.core.reflect.reflection import VALIDATING, reflect
from orkas_tui.core.store.answer import SCHEMA_NAME, answer_schema
from orkas_tui.core.store.proposals import list_proposals
from tests.modelserver import ModelServer, error, reply
from tests.reflection.conftest import NOW, run_cli, set_reflected, trigger_turn

VALID = {
    "summary": "The user wants staging first.",
    "operations": [
        {
            "op": "create_skill",
            "name": "Deploy to staging first",
            "description": "When asked to deploy",
            "body": "When asked to deploy, always deploy to staging first.",
        }
    ],
}
# an op the schema does not know, and a patch without its "replace"
MISFIT = {
    "summary": "s",
    "operations": [
        {"op": "make_skill", "name": "x"},
        {"op": "patch_skill", "skill": "deploy-docs", "find": "a"},
    ],
}
SCHEMA_MODEL, PLAIN_MODEL = "openai/gpt-4o-mini", "openai/test-model"


@pytest.fixture(autouse=True)
def _loopback_only(monkeypatch: pytest.MonkeyPatch):
    """Refuse (and record) every connection that is not to 127.0.0.1: litellm must work offline."""
    attempts: list[object] = []
    connect = socket.socket.connect

    def guarded(self, address):
        if not (isinstance(address, tuple) and address[0] == "127.0.0.1"):
            attempts.append(address)
            raise OSError("network disabled by the test")
        return connect(self, address)

    monkeypatch.setattr(socket.socket, "connect", guarded)
    yield
    assert attempts == []


def workspace(root: Path, server: ModelServer, model: str) -> Workspace:
    set_reflected(root, "a1", NOW - timedelta(days=2))
    trigger_turn(root, "a1", NOW - timedelta(hours=3))
    (root / "orkas.toml").write_text(
        f'[model]\nname = "{model}"\napi_base = "{server.url}"\ntimeout_s = 5\nmax_retries = 0\n', "utf-8"
    )
    return Workspace(root)


def events(root: Path, kind: str) -> list[dict]:
    path = root / "agents" / "a1" / "events.jsonl"
    return [e for e in map(orjson.loads, path.read_bytes().splitlines()) if e["type"] == kind]


def one_answer_cost() -> float:
    import litellm  # already imported by the reflection, offline (LITELLM_LOCAL_MODEL_COST_MAP)

    prompt, completion = litellm.cost_per_token(model="gpt-4o-mini", prompt_tokens=1200, completion_tokens=80)
    return prompt + completion


@pytest.mark.parametrize(
    ("model", "takes"), [(SCHEMA_MODEL, True), ("gpt-4o", True), (PLAIN_MODEL, False), ("ollama/llama3", False)]
)
def test_litellm_says_offline_which_models_take_a_schema(root, server, model, takes) -> None:
    assert takes_response_schema(model_config(workspace(root, server, model).settings)) is takes


def test_a_model_that_takes_a_schema_is_sent_the_answers_schema(root, server) -> None:
    server.steps = [reply(VALID)]
    outcome = reflect(workspace(root, server, SCHEMA_MODEL), "a1", NOW)
    assert outcome.status == "proposed" and outcome.response_schema and outcome.asks == 1
    [request] = server.requests
    assert request["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": SCHEMA_NAME, "schema": answer_schema(), "strict": False},
    }
    assert "ONE JSON object" in request["messages"][0]["content"]  # the instructions still say it


def test_a_model_that_does_not_take_one_gets_plain_instructions(root, server) -> None:
    server.steps = [reply(VALID)]
    outcome = reflect(workspace(root, server, PLAIN_MODEL), "a1", NOW)
    assert outcome.status == "proposed" and not outcome.response_schema
    [request] = server.requests
    assert "response_format" not in request
    assert "ONE JSON object" in request["messages"][0]["content"]


def test_an_answer_that_does_not_fit_is_asked_again_once_with_its_errors_and_counted(root, server) -> None:
    server.steps = [reply(MISFIT), reply(VALID)]
    outcome = reflect(workspace(root, server, SCHEMA_MODEL), "a1", NOW)
    assert outcome.status == "proposed", outcome.message
    first, second = server.requests
    assert second["response_format"] == first["response_format"]
    assert second["messages"][: len(first["messages"])] == first["messages"]
    echo, follow_up = second["messages"][len(first["messages"]) :]
    assert echo == {"role": "assistant", "content": json.dumps(MISFIT)}  # the answer as it came
    assert follow_up["role"] == "user"
    assert "- operation 0 does not fit the answer's schema: unknown op 'make_skill'" in follow_up["content"]
    assert (
        "- operation 1 does not fit the answer's schema: patch_skill: missing or non-string field(s): replace"
        in follow_up["content"]
    )
    # both tries are counted: outcome, the logged event, the agent's state and the proposal
    assert (outcome.asks, outcome.prompt_tokens, outcome.completion_tokens) == (2, 2400, 160)
    assert outcome.cost_usd == pytest.approx(2 * one_answer_cost())
    assert outcome.first_error and "make_skill" in outcome.first_error
    [event] = events(root, "reflection")
    assert (event["asks"], event["prompt_tokens"], event["completion_tokens"]) == (2, 2400, 160)
    assert event["cost_usd"] == pytest.approx(outcome.cost_usd)
    assert read_state(Workspace(root).agent("a1"))["last_usage"]["prompt_tokens"] == 2400
    [proposal] = list_proposals(Workspace(root).agent("a1"))
    assert proposal.reflection["asks"] == 2 and proposal.reflection["prompt_tokens"] == 2400


def test_a_second_misfit_is_one_clear_error_and_writes_nothing(root, server) -> None:
    server.steps = [reply(MISFIT), reply("not JSON at all")]
    outcome = reflect(workspace(root, server, PLAIN_MODEL), "a1", NOW)
    assert outcome.status == "invalid_reply" and len(server.requests) == 2
    assert not any("response_format" in request for request in server.requests)
    assert outcome.message.startswith("the reply is not JSON")
    assert "the second answer did not fit either (the first answer: operation 0" in outcome.message
    paths = Workspace(root).agent("a1")
    assert list_proposals(paths) == [] and not paths.skills.exists()
    assert read_state(paths)["last_reflection_at"] == "2026-11-28T09:00:00Z"  # no cooldown spent
    assert [p.read_text() for p in (paths.private / "replies").glob("*.txt")] == ["not JSON at all"]
    [failed] = events(root, "reflection_failed")
    assert failed["status"] == "invalid_reply" and failed["asks"] == 2 and failed["attempts"] == 2
    assert (failed["prompt_tokens"], failed["completion_tokens"]) == (2400, 160)
    assert "make_skill" in failed["first_error"]
    assert outcome.cost_usd is None  # an unknown model's price is not known, for either try


def test_a_valid_first_answer_is_asked_once(root, server) -> None:
    server.steps = [reply({"summary": "nothing", "operations": []})]
    outcome = reflect(workspace(root, server, SCHEMA_MODEL), "a1", NOW)
    assert outcome.status == "nothing_to_save" and outcome.asks == 1 and len(server.requests) == 1
    assert outcome.cost_usd == pytest.approx(one_answer_cost())


def test_the_cli_says_both_answers_were_counted(root, server, capsys) -> None:
    server.steps = [reply(MISFIT), reply(VALID)]
    workspace(root, server, PLAIN_MODEL)
    code, out, err = run_cli(capsys, "reflect", "a1", "--workspace", str(root), "--now", "2026-11-30T09:00:00Z")
    assert code == 0, err
    assert "tokens: 2400 in, 160 out; cost: price unknown (both answers: the first did not fit the schema: operation 0" in out


def test_a_cancel_before_the_second_ask_is_honoured(root, server) -> None:
    server.steps = [reply(MISFIT), reply(VALID)]
    cancel = threading.Event()

    def cancel_while_validating(progress) -> None:  # the person cancels as the first answer is checked
        if progress.stage == VALIDATING:
            cancel.set()

    outcome = reflect(workspace(root, server, PLAIN_MODEL), "a1", NOW, on_progress=cancel_while_validating, cancel=cancel)
    assert outcome.status == "cancelled" and len(server.requests) == 1
    assert list_proposals(Workspace(root).agent("a1")) == []


def test_a_failed_second_call_keeps_the_first_tries_tokens(root, server) -> None:
    server.steps = [reply(MISFIT), error(400)]
    outcome = reflect(workspace(root, server, PLAIN_MODEL), "a1", NOW)
    assert outcome.status == "failed" and len(server.requests) == 2
    assert (outcome.asks, outcome.attempts, outcome.prompt_tokens, outcome.completion_tokens) == (1, 2, 1200, 80)
    [failed] = events(root, "reflection_failed")
    assert failed["prompt_tokens"] == 1200 and "make_skill" in failed["first_error"]
