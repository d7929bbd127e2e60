"""Garbage in skill files, self notes, state, agent.toml and orkas.toml: reported, never fatal."""

from __future__ import annotations

import shutil
import string

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from orkas_tui.core.read.settings import ConfigError, load_settings, parse_settings
from tests.trust.conftest import FUZZ, cli, only_agent, status_json

GOOD_SKILL = (
    '---\nname: "Deploy"\ndescription: "how to deploy"\ncreatedAt: "2026-11-01T00:00:00Z"\n'
    'updatedAt: "2026-11-01T00:00:00Z"\npatchCount: 0\nlastUsedAt: null\n---\n\nAlways run `make check` first.\n'
)
YAML_VALUE = st.one_of(
    st.sampled_from(
        [
            "null",
            "~",
            "[]",
            "{}",
            "-1",
            "1e999",
            "2026-13-01",
            "2026-11-01T00:00:00Z",
            "yes",
            "&a [*a]",
            "!!python/object:os.system x",
            "'unclosed",
            '"\\ud800"',
            "|\n  block",
            "[" * 300,
        ]
    ),
    st.text(alphabet=string.printable, max_size=20),
)
SKILL_TEXT = st.one_of(
    st.binary(max_size=200),
    st.lists(
        st.tuples(
            st.sampled_from(["name", "description", "createdAt", "updatedAt", "patchCount", "lastUsedAt", "x"]), YAML_VALUE
        ),
        max_size=7,
    ).map(lambda kv: ("---\n" + "".join(f"{k}: {v}\n" for k, v in kv) + "---\nbody\n").encode("utf-8", "surrogatepass")),
    st.sampled_from([b"", b"---\n---\n", b"no front matter at all", b"---\nname: x\n", b"\xff\xfe---", b"---\n- a\n---\n"]),
)


@FUZZ
@given(files=st.lists(SKILL_TEXT, max_size=5))
def test_every_skill_file_is_listed_or_reported(tmp_path_factory, files) -> None:
    root = tmp_path_factory.mktemp("ws")
    skills = root / "agents" / "a1" / "skills"
    skills.mkdir(parents=True)
    (skills / "good.md").write_text(GOOD_SKILL)
    for i, data in enumerate(files):
        (skills / f"s{i}.md").write_bytes(data)
    agent = only_agent(status_json(root))
    listed = {s["slug"] for s in agent["skills"]}
    assert "good" in listed
    reported = {p.split(".md")[0] for p in agent["problems"] if ".md" in p}
    assert listed | reported == {"good"} | {f"s{i}" for i in range(len(files))}
    assert not listed & reported
    code, _, err = cli("prompt", "--workspace", str(root), "a1")
    assert code == 0, err
    shutil.rmtree(root)


@FUZZ
@given(
    profile=st.binary(max_size=300),
    strategies=st.binary(max_size=300),
    state=st.binary(max_size=100),
    meta=st.binary(max_size=100),
)
def test_notes_state_and_agent_toml_never_stop_status(tmp_path_factory, profile, strategies, state, meta) -> None:
    root = tmp_path_factory.mktemp("ws")
    agent = root / "agents" / "a1"
    (agent / "self").mkdir(parents=True)
    (agent / ".orkas").mkdir()
    (agent / "self" / "profile.md").write_bytes(profile)
    (agent / "self" / "strategies.md").write_bytes(strategies)
    (agent / ".orkas" / "state.json").write_bytes(state)
    (agent / "agent.toml").write_bytes(meta)
    doc = only_agent(status_json(root))
    assert doc["id"] == "a1"
    code, _, err = cli("prompt", "--workspace", str(root), "a1")
    assert code == 0, err
    shutil.rmtree(root)


def test_invalid_utf8_note_is_reported(tmp_path) -> None:
    self_dir = tmp_path / "agents" / "a1" / "self"
    self_dir.mkdir(parents=True)
    (self_dir / "profile.md").write_bytes(b"I stumble on `bash` \xff\xfe")
    agent = only_agent(status_json(tmp_path))
    assert any("profile.md" in p and "UTF-8" in p for p in agent["problems"])


TOML_SCALAR = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.floats(),
    st.text(max_size=12),
    st.sampled_from(["12h30m", "4h", "7d", "99999999999999d", "1e400s", "-1h", "(", "[a-"]),
)
TOML_VALUE = st.recursive(
    TOML_SCALAR, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3), max_leaves=6
)
SECTIONS = ["weights", "corrections", "transient", "schedule", "bundle", "model", "keys", "self", "skills", "reflection"]
KEYS = [
    "threshold",
    "complex_min_tool_calls",
    "theme",
    "user_correction",
    "phrases",
    "extra",
    "statuses",
    "patterns",
    "extra_patterns",
    "cycle_interval",
    "cooldown",
    "force_after",
    "max_agents_per_cycle",
    "max_tokens",
    "max_conversations",
    "tool_output_chars",
    "redact_patterns",
    "name",
    "api_base",
    "timeout_s",
    "max_retries",
    "profile_cap",
    "max_skills",
    "max_body_chars",
    "auto_apply",
]
SETTINGS_DOC = st.dictionaries(
    st.sampled_from(SECTIONS + KEYS),
    st.one_of(TOML_VALUE, st.dictionaries(st.sampled_from(KEYS), TOML_VALUE, max_size=4)),
    max_size=5,
)


@FUZZ
@given(doc=SETTINGS_DOC)
def test_settings_are_loaded_or_refused_with_the_key_named(tmp_path_factory, doc) -> None:
    """Any value in any key: either valid settings or one ConfigError naming the file."""
    path = tmp_path_factory.getbasetemp() / "orkas.toml"
    try:
        parse_settings(doc, path)
    except ConfigError as exc:
        assert str(path) in str(exc)


@FUZZ
@given(data=st.binary(max_size=200))
def test_orkas_toml_garbage_is_one_line_not_a_traceback(tmp_path_factory, data) -> None:
    root = tmp_path_factory.mktemp("ws")
    (root / "orkas.toml").write_bytes(data)
    try:
        load_settings(root)
    except ConfigError:
        code, out, err = cli("status", "--workspace", str(root), "--json")
        assert code == 2 and out == "" and err.startswith("orkas-tui: ") and err.count("\n") == 1
    shutil.rmtree(root)


def test_state_file_of_the_wrong_shape_reads_as_never_reflected(tmp_path) -> None:
    private = tmp_path / "agents" / "a1" / ".orkas"
    private.mkdir(parents=True)
    for state in ([1], {"last_reflection_at": 5}, {"last_reflection_at": "soon"}, "x"):
        (private / "state.json").write_bytes(orjson.dumps(state))
        assert only_agent(status_json(tmp_path))["last_reflection_at"] is None


@pytest.mark.parametrize(
    "doc",
    [
        {"schedule": {"cooldown": "99999999999999d"}},
        {"schedule": {"force_after": 1e300}},
        {"schedule": {"cycle_interval": 10**30}},
        {"schedule": {"cooldown": float("nan")}},
        {"threshold": float("nan")},
        {"threshold": float("inf")},
        {"model": {"timeout_s": float("inf")}},
        {"weights": {"complex_task": float("nan")}},
    ],
)
def test_out_of_range_numbers_and_durations_are_refused(tmp_path, doc) -> None:
    """A NaN threshold would silently never trigger; a huge duration would overflow the schedule."""
    with pytest.raises(ConfigError):
        parse_settings(doc, tmp_path / "orkas.toml")


@FUZZ
@given(
    events=st.lists(
        st.one_of(
            st.binary(max_size=80).map(lambda b: b.replace(b"\n", b"")),
            st.dictionaries(st.sampled_from(["ts", "type", "skill", "source", "reason"]), TOML_SCALAR, max_size=5).map(
                lambda d: orjson.dumps(d, option=orjson.OPT_NON_STR_KEYS, default=str)
            ),
        ),
        max_size=20,
    ),
    cache=st.binary(max_size=200),
)
def test_garbage_events_and_cache_never_stop_a_dry_run_or_change_status(tmp_path_factory, events, cache) -> None:
    """events.jsonl feeds the bundle; a corrupt scan cache must be ignored, never trusted."""
    root = tmp_path_factory.mktemp("ws")
    agent = root / "agents" / "a1"
    conv = agent / "conversations" / "c1.jsonl"
    conv.parent.mkdir(parents=True)
    conv.write_bytes(
        b"".join(
            orjson.dumps(e) + b"\n"
            for e in [
                {"ts": "2026-11-29T10:00:00Z", "type": "turn_start", "turn": "t1"},
                {"ts": "2026-11-29T10:00:00Z", "type": "user", "text": "that's wrong"},
                {"ts": "2026-11-29T10:00:01Z", "type": "turn_end", "turn": "t1", "status": "ok"},
            ]
        )
    )
    (agent / "events.jsonl").write_bytes(b"".join(e + b"\n" for e in events))
    clean = status_json(root)
    (agent / ".orkas").mkdir(exist_ok=True)
    (agent / ".orkas" / "scan-cache.json").write_bytes(cache)
    assert status_json(root) == clean
    code, _out, err = cli("reflect", "a1", "--dry-run", "--json", "--workspace", str(root))
    assert code == 0, err
    shutil.rmtree(root)


@pytest.mark.parametrize("moment", ["9999-12-31T23:59:59Z", "0001-01-01T00:00:00Z"])
def test_times_at_the_ends_of_the_calendar_never_crash_status_or_queue(tmp_path, moment) -> None:
    """Hand-edited state or logs may hold any valid RFC 3339 time; the schedule must not overflow."""
    agent = tmp_path / "agents" / "a1"
    conv = agent / "conversations" / "c1.jsonl"
    conv.parent.mkdir(parents=True)
    conv.write_bytes(
        b"".join(
            orjson.dumps(e) + b"\n"
            for e in [
                {"ts": moment, "type": "turn_start", "turn": "t1"},
                {"ts": moment, "type": "user", "text": "that's wrong"},
                {"ts": moment, "type": "turn_end", "turn": "t1", "status": "ok"},
            ]
        )
    )
    (agent / ".orkas").mkdir()
    (agent / ".orkas" / "state.json").write_bytes(orjson.dumps({"last_reflection_at": moment}))
    (tmp_path / ".orkas").mkdir()
    (tmp_path / ".orkas" / "state.json").write_bytes(orjson.dumps({"last_cycle_at": moment}))
    assert only_agent(status_json(tmp_path))["last_reflection_at"] == moment
    code, _out, err = cli("queue", "--json", "--workspace", str(tmp_path), "--now", "2026-11-30T09:00:00Z")
    assert code == 0, err
