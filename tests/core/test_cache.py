"""The summary cache: whatever happened to the files or the cache, a warm scan equals a cold one."""

from __future__ import annotations

import os
import tempfile
import zlib
from collections.abc import Callable
from pathlib import Path

import orjson
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from msgspec.structs import replace

from orkas_tui.core.observe.skill_metrics import skill_metrics
from orkas_tui.core.read import tail as tail_module
from orkas_tui.core.read.settings import Settings
from orkas_tui.core.read.workspace import AgentPaths
from orkas_tui.core.summary import cache
from orkas_tui.core.summary import scan as scan_module
from orkas_tui.core.summary.scan import AgentScan
from tests.core.helpers import make_agent, turn, write_lines

FAIL = {"ok": False, "error": "exit 2: no such target"}
FLAKY = {"ok": False, "error": "connection reset by peer"}


def history(agent: Path) -> None:
    """Two conversations with corrections, real and transient errors, reads, an edit, junk, and a running turn."""
    c1 = agent / "conversations" / "c1.jsonl"
    write_lines(c1, turn("t1", user="wrong, I meant the other file", calls=3, results=[FAIL], indexed=["a", "b"], read=["a"]))
    write_lines(c1, [b"not json\n", {"ts": "2026-11-20T10:05:00Z", "type": "turn_end", "turn": "x", "status": "ok"}])
    write_lines(
        c1,
        turn(
            "t2", calls=9, results=[FLAKY], indexed=["a", "b"], status="error", end={"error": "boom"}, ts="2026-11-20T11:00:00Z"
        ),
    )
    write_lines(c1, [{"ts": "2026-11-20T11:30:00Z", "type": "output_edited", "turn": "t1"}])
    c2 = agent / "conversations" / "c2.jsonl"
    write_lines(c2, turn("u1", indexed=["b"], ts="2026-11-21T09:00:00Z"))
    write_lines(c2, turn("u2", calls=2, indexed=["b"], ts="2026-11-21T10:00:00Z")[:-1])  # still running
    write_lines(c2, [b'{"ts": "2026-11-21T10:01:00Z", "type": "tool_call", "id": "half'])  # a write in progress


def picture(scan: AgentScan) -> tuple:
    """Everything a consumer can read from a refreshed scan."""
    return (
        scan.newest_turns(),
        scan.rows(),
        scan.skill_use(),
        scan.activity(),
        scan.status_fields(),
        scan.malformed_lines,
        scan.orphan_events,
        {
            stem: (s.observer.latest_at, s.open_turn or s.observer.open is not None, s.tail.offset)
            for stem, s in scan.conversations.items()
        },
    )


def cold(agent: Path, settings: Settings | None = None) -> tuple:
    scan = AgentScan(AgentPaths(agent), settings or Settings(), persist=False)
    scan.refresh()
    return picture(scan)


def saved(agent: Path, settings: Settings | None = None) -> AgentScan:
    scan = AgentScan(AgentPaths(agent), settings or Settings())
    scan.refresh()
    assert scan.save_cache()
    return scan


def warm(agent: Path, settings: Settings | None = None) -> tuple:
    scan = AgentScan(AgentPaths(agent), settings or Settings())
    result = scan.refresh()
    assert sorted(result.changed) == sorted((t.conversation, t.seq) for t in scan.records())
    return picture(scan)


def test_unchanged_files_are_not_read_again(tmp_path: Path, fed: list) -> None:
    agent = make_agent(tmp_path)
    history(agent)
    saved(agent)
    expected = cold(agent)
    fed.clear()
    assert warm(agent) == expected
    assert fed == []


def test_grown_file_reads_only_the_new_bytes(tmp_path: Path, fed: list) -> None:
    agent = make_agent(tmp_path)
    history(agent)
    saved(agent)
    c2 = agent / "conversations" / "c2.jsonl"
    size = c2.stat().st_size
    write_lines(
        c2,
        [b'", "name": "bash", "args": {}}\n', {"ts": "2026-11-21T10:02:00Z", "type": "turn_end", "turn": "u2", "status": "ok"}],
    )
    write_lines(c2, turn("u3", user="try again", ts="2026-11-21T10:05:00Z"))
    fed.clear()
    result = warm(agent)
    assert [(conv, base < size) for conv, base, _ in fed] == [("c2", True)]
    assert result == cold(agent)
    assert [t.status for t in (row.summary for row in result[0]) if t.conversation == "c2"] == ["ok", "ok", "ok"]


def test_truncated_file_is_observed_again(tmp_path: Path) -> None:
    agent = make_agent(tmp_path)
    history(agent)
    saved(agent)
    write_lines(agent / "conversations" / "c1.jsonl", turn("t9", user="should be shorter"), mode="wb")
    assert warm(agent) == cold(agent)
    assert [t.turn for t in (row.summary for row in warm(agent)[0]) if t.conversation == "c1"] == ["t9"]


def test_replaced_file_is_observed_again(tmp_path: Path) -> None:
    agent = make_agent(tmp_path)
    history(agent)
    saved(agent)
    c1 = agent / "conversations" / "c1.jsonl"
    other = tmp_path / "other.jsonl"
    write_lines(other, turn("r1", calls=12) + turn("r2"))
    os.replace(other, c1)
    assert warm(agent) == cold(agent)


def test_rewritten_just_before_the_offset_is_noticed(tmp_path: Path) -> None:
    agent = make_agent(tmp_path)
    history(agent)
    saved(agent)
    c1 = agent / "conversations" / "c1.jsonl"
    data = c1.read_bytes()
    changed = data[:-20] + data[-20:].replace(b'"t1"', b'"t2"')
    assert len(changed) == len(data) and changed != data
    with open(c1, "r+b") as handle:  # same inode, same first bytes, and it grew: only the probe tells
        handle.write(changed)
    write_lines(c1, [b"\n"])
    assert warm(agent) == cold(agent)
    assert [t.edited for t in (row.summary for row in warm(agent)[0][::-1]) if t.conversation == "c1"] == [False, True]


def test_rewritten_in_place_to_the_same_size_is_noticed_by_its_mtime(tmp_path: Path) -> None:
    agent = make_agent(tmp_path)
    history(agent)
    saved(agent)
    c1 = agent / "conversations" / "c1.jsonl"
    data = c1.read_bytes()
    changed = data.replace(b'"status":"error"', b'"status":"ok"   ')
    assert len(changed) == len(data) and changed[:64] == data[:64] and changed[-64:] == data[-64:]
    stat = c1.stat()
    with open(c1, "r+b") as handle:
        handle.write(changed)
    os.utime(c1, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    assert warm(agent) == cold(agent)
    assert [t.status for t in (row.summary for row in warm(agent)[0][::-1]) if t.conversation == "c1"] == ["ok", "ok"]


def _resigned(data: bytes, change) -> bytes:
    """A cache whose entries were changed and whose checksums still hold: only validation can catch it."""
    lines = data.splitlines()
    entries = []
    for line in lines[1:-1]:
        head, rows, traces, indexes = line.partition(b" ")[2].split(b"\t")
        entries.append({**orjson.loads(head), "r": orjson.loads(rows), "f": orjson.loads(traces), "x": orjson.loads(indexes)})
    entries.append(orjson.loads(lines[-1].partition(b" ")[2]))  # the skill-use counts
    return lines[0] + b"\n" + b"".join(map(_signed, map(change, entries)))


def _with_extra_part(data: bytes) -> bytes:
    """The first entry with a fourth part after its rows, traces and indexes, its checksum made to hold."""
    header, entry, rest = data.split(b"\n", 2)
    body = entry.partition(b" ")[2] + b"\t[]"
    return b"%s\n%08x %s\n%s" % (header, zlib.crc32(body), body, rest)


def _signed(entry) -> bytes:
    if not isinstance(entry, dict) or "uses" in entry:
        return cache._line(entry)
    rest = {key: value for key, value in entry.items() if key not in ("r", "f", "x")}
    return cache._line(rest, (orjson.dumps(entry["r"]), orjson.dumps(entry["f"]), orjson.dumps(entry["x"])))


def _uses(change) -> Callable[[dict], object]:
    """A change to the skill-use counts line only."""
    return lambda e: change(e) if "uses" in e else e


def _turns(change) -> Callable[[dict], object]:
    """A change to the conversations' entries only."""
    return lambda e: e if "uses" in e else change(e)


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: b"",
        lambda data: data[: len(data) // 2],
        lambda data: data[:-40] + b"X" * 40,
        lambda data: data.partition(b"\n")[2],
        lambda data: data.replace(b'"version":%d' % cache.VERSION, b'"version":999'),
        lambda data: _resigned(data, _turns(lambda e: {**e, "r": [["bad"], *e["r"][1:]]})),
        lambda data: _resigned(data, _turns(lambda e: {**e, "r": [{"turn": "x"}, *e["r"][1:]]})),
        lambda data: _resigned(data, _turns(lambda e: {**e, "f": [[], *e["f"][1:]]})),
        lambda data: _resigned(data, _uses(lambda e: {"uses": {**e["uses"], "a": [1]}})),
        lambda data: _resigned(data, _uses(lambda e: {"uses": {**e["uses"], "a": "many"}})),
        lambda data: data[: data.rindex(b"\n", 0, -1) + 1],
        lambda data: _resigned(data, _turns(lambda e: {**e, "at": [*e["at"][:4], -5, *e["at"][5:]]})),
        lambda data: _resigned(data, _turns(lambda e: {**e, "base": 7})),
        lambda data: _resigned(data, _turns(lambda e: {**e, "n": e["n"] + 1})),
        lambda data: _resigned(data, _turns(lambda e: [1, 2, 3])),
        lambda data: _resigned(data, _turns(lambda e: {**e, "r": [{**e["r"][0], "skills_indexed": -1}, *e["r"][1:]]})),
        lambda data: _resigned(data, _turns(lambda e: {**e, "r": [{**e["r"][0], "skills_indexed": e["ix"]}, *e["r"][1:]]})),
        lambda data: _resigned(data, _turns(lambda e: {**e, "ix": e["ix"] + 1})),
        lambda data: _resigned(data, _turns(lambda e: {**e, "x": [*e["x"], 7]})),
        lambda data: _with_extra_part(data),
    ],
    ids=[
        "empty",
        "cut",
        "flipped",
        "no-header",
        "other-version",
        "bad-rows",
        "bad-row-keys",
        "bad-facts",
        "short-uses",
        "bad-uses",
        "no-uses",
        "bad-offset",
        "bad-base",
        "turns-missing",
        "not-a-map",
        "index-below",
        "index-past",
        "index-count",
        "extra-index",
        "extra-part",
    ],
)
def test_a_damaged_cache_is_rebuilt_never_trusted(tmp_path: Path, damage, fed: list) -> None:
    agent = make_agent(tmp_path)
    history(agent)
    saved(agent)
    path = cache.cache_path(AgentPaths(agent))
    path.write_bytes(damage(path.read_bytes()))
    fed.clear()
    assert warm(agent) == cold(agent)
    assert {conv for conv, _, _ in fed} == {"c1", "c2"}


def test_changed_settings_void_the_cache(tmp_path: Path) -> None:
    agent = make_agent(tmp_path)
    history(agent)
    saved(agent)
    stricter = replace(Settings(), correction_phrases=("please",), transient_patterns=(), transient_statuses=())
    assert warm(agent, stricter) == cold(agent, stricter)
    assert warm(agent, stricter) != cold(agent)


def test_new_scoring_inputs_score_the_cached_turns_again_without_reading(tmp_path: Path, fed: list) -> None:
    agent = make_agent(tmp_path)
    history(agent)
    saved(agent)
    (agent / "self").mkdir(exist_ok=True)
    (agent / "self" / "profile.md").write_text("I stumble with `bash`.\n")
    lower = replace(Settings(), threshold=0.1)
    fed.clear()
    restored = warm(agent, lower)
    assert fed == []
    assert restored == cold(agent, lower)
    assert any("known_weakness" in row.signals for row in cold(agent, lower)[1])


def test_an_append_adds_one_entry_in_proportion_to_its_turns(tmp_path: Path, fed: list) -> None:
    agent = make_agent(tmp_path)
    history(agent)
    scan = saved(agent)
    path = cache.cache_path(AgentPaths(agent))
    before = path.read_bytes()
    write_lines(agent / "conversations" / "c1.jsonl", turn("t3", user="no, the other one", ts="2026-11-22T09:00:00Z"))
    scan.refresh()
    assert scan.save_cache()
    after = path.read_bytes()
    assert after.startswith(before) and after.count(b"\n") == before.count(b"\n") + 2  # the new turn, the counts
    # the new turn, and the turn before it, which the correcting prompt marks edited
    assert after[len(before) :].count(b'"turn":') == 2 and after[len(before) :].count(b'{"uses":') == 1
    fed.clear()
    restored = warm(agent)
    assert fed == []
    assert restored == cold(agent)
    for n in range(40):  # entries pile up: the file is written whole again, and still holds
        write_lines(agent / "conversations" / "c2.jsonl", turn(f"w{n}", ts="2026-11-23T09:00:00Z"))
        scan.refresh()
        assert scan.save_cache()
    assert path.read_bytes().count(b"\n") < 40
    assert warm(agent) == cold(agent)


def test_a_read_only_workspace_has_no_cache_and_still_reads(tmp_path: Path) -> None:
    agent = make_agent(tmp_path)
    history(agent)
    private = AgentPaths(agent).private
    private.mkdir(parents=True, exist_ok=True)
    private.chmod(0o500)
    try:
        scan = AgentScan(AgentPaths(agent), Settings())
        scan.refresh()
        assert not scan.save_cache() or os.geteuid() == 0
        assert picture(scan) == cold(agent)
    finally:
        private.chmod(0o700)


def test_added_and_removed_conversations(tmp_path: Path) -> None:
    agent = make_agent(tmp_path)
    history(agent)
    saved(agent)
    (agent / "conversations" / "c2.jsonl").unlink()
    write_lines(agent / "conversations" / "c3.jsonl", turn("v1", user="actually no"))
    assert warm(agent) == cold(agent)


def test_refresh_saves_once_enough_was_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    agent = make_agent(tmp_path)
    history(agent)
    path = cache.cache_path(AgentPaths(agent))
    AgentScan(AgentPaths(agent), Settings()).refresh()
    assert not path.exists()  # a small history is cheaper to read than to cache
    monkeypatch.setattr(scan_module, "SAVE_AFTER", 1)
    AgentScan(AgentPaths(agent), Settings()).refresh()
    assert path.exists()
    AgentScan(AgentPaths(agent), Settings(), persist=False).refresh()
    assert warm(agent) == cold(agent)


def test_reading_on_from_the_cache_builds_only_what_new_events_can_change(tmp_path: Path) -> None:
    agent = make_agent(tmp_path)
    history(agent)
    saved(agent)
    c1 = agent / "conversations" / "c1.jsonl"
    write_lines(c1, turn("t3", ts="2026-11-22T09:00:00Z"))
    scan = AgentScan(AgentPaths(agent), Settings())
    scan.refresh()
    state = scan.conversations["c1"]
    assert state.observer.turns[0] is None and state.observer.turns[-1].turn == "t3"  # the old turns stay rows
    assert picture(scan) == cold(agent)
    scan.save_cache()
    write_lines(c1, [{"ts": "2026-11-22T10:00:00Z", "type": "output_edited", "turn": "t2"}])  # an earlier turn changes
    assert warm(agent) == cold(agent)
    assert [t.edited for t in (row.summary for row in warm(agent)[0][::-1]) if t.conversation == "c1"] == [True, True, False]


def test_reading_on_from_the_cache_in_several_blocks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from orkas_tui.core.read import tail

    agent = make_agent(tmp_path)
    history(agent)
    saved(agent)
    c1 = agent / "conversations" / "c1.jsonl"
    write_lines(c1, turn("t3", calls=3, ts="2026-11-22T09:00:00Z") + turn("t4", user="wrong", ts="2026-11-22T10:00:00Z"))
    monkeypatch.setattr(tail, "CHUNK", 256)  # the new bytes come in many blocks
    scan = AgentScan(AgentPaths(agent), Settings())
    scan.refresh()
    assert scan.save_cache()
    assert picture(scan) == cold(agent)
    assert warm(agent) == cold(agent)


def test_the_skills_cache_outlives_a_theme_change_but_not_a_skill_setting(tmp_path: Path) -> None:
    """Keyed on the skill settings the store reads, not on every setting (a theme or model change kept it before)."""
    from datetime import UTC, datetime

    from orkas_tui.core.store.skills import SkillStore

    paths = AgentPaths(tmp_path / "agents" / "coder")
    settings = Settings()
    SkillStore(paths, settings).create(
        "Deploy docs", "When deploying", "Always run make docs first.", datetime(2026, 11, 1, tzinfo=UTC)
    )
    names = sorted(os.listdir(paths.skills))
    rows = cache.read_skills(paths, settings, names).skills
    saved = paths.private / cache.SKILLS

    def inode() -> int:
        return os.stat(saved).st_ino  # every write of the cache is a rename: a new inode

    first = inode()
    assert cache.read_skills(paths, replace(settings, theme="gruvbox"), names).skills == rows and inode() == first
    assert cache.read_skills(paths, replace(settings, max_skills=10), names).skills == rows and inode() != first


# One step of a history's life, drawn: (what, conversation, turn status, skills indexed, skills read, edited).
STEPS = st.lists(
    st.tuples(
        st.sampled_from(["append", "append", "append", "truncate", "remove", "save", "restart", "rescore"]),
        st.integers(0, 3),
        st.sampled_from(["ok", "error", "aborted"]),
        st.lists(st.sampled_from("abcd"), max_size=3),
        st.lists(st.sampled_from("abce"), max_size=2),
        st.booleans(),
    ),
    min_size=1,
    max_size=14,
)


@settings(max_examples=60, deadline=None)
@given(STEPS)
@example(
    [
        ("append", 0, "ok", ["a"], ["a"], False),
        ("save", 0, "ok", [], [], False),
        ("remove", 0, "ok", [], [], False),
        ("restart", 0, "ok", [], [], False),
    ]
)
def test_the_skill_counts_kept_by_the_cache_are_every_turn_counted_again(steps: list) -> None:
    """The agent's skill counts are kept and folded, never summed again; after any appends,
    truncations, removals, saves, restarts from the cache and rescorings they are exactly what
    counting every turn from scratch gives."""
    with tempfile.TemporaryDirectory() as root:
        agent = make_agent(Path(root))
        folder = agent / "conversations"
        scan = AgentScan(AgentPaths(agent), Settings())
        for n, (what, conv, status, indexed, read, edited) in enumerate(steps):
            path = folder / f"c{conv}.jsonl"
            if what == "append":
                events = turn(f"t{n}", status=status, indexed=indexed, read=read, ts=f"2026-11-20T10:{n:02d}:00Z")
                write_lines(
                    path, events + ([{"ts": "2026-11-20T11:00:00Z", "type": "output_edited", "turn": f"t{n}"}] if edited else [])
                )
            elif what == "truncate":
                write_lines(path, turn(f"t{n}", indexed=indexed, read=read), mode="wb")
            elif what == "remove":
                path.unlink(missing_ok=True)
            elif what == "save":
                scan.save_cache()
            elif what == "restart":
                scan = AgentScan(AgentPaths(agent), Settings())
            else:
                scan.rescore("I stumble with `bash`." if n % 2 else "")
            scan.refresh()
            assert scan.skill_use() == skill_metrics(scan.records())


def test_a_cold_scan_and_its_cache_open_each_conversation_once(tmp_path: Path, monkeypatch) -> None:
    """The cache's probe (the bytes before each offset) is what the tail just read, not a second
    open of every conversation file; the cache written is the one a warm scan trusts."""
    agent = make_agent(tmp_path)
    history(agent)
    opened: list[str] = []
    for module in (tail_module, cache):
        real = module.open_regular
        monkeypatch.setattr(module, "open_regular", lambda path, real=real: opened.append(Path(path)) or real(path))
    scan = saved(agent)
    assert sorted(p.name for p in opened if p.parent.name == "conversations") == ["c1.jsonl", "c2.jsonl"]
    monkeypatch.undo()
    for state in scan.conversations.values():
        data = state.path.read_bytes()
        assert state.tail.before == data[max(0, state.tail.offset - cache.PROBE) : state.tail.offset]
    assert warm(agent) == cold(agent)


def test_a_correcting_prompt_after_a_cached_turn_start_marks_the_turn_before_edited(tmp_path: Path) -> None:
    """The cache saved between a turn's start and its prompt: read on, the prompt still opens the
    turn, and its correction marks the turn before it edited, as a cold scan does."""
    agent = make_agent(tmp_path)
    conv = agent / "conversations" / "c1.jsonl"
    write_lines(conv, turn("t1", user="write the notes", indexed=["a"], read=["a"]))
    write_lines(conv, [{"ts": "2026-11-22T09:00:00Z", "type": "turn_start", "turn": "t2", "skills_indexed": ["a"]}])
    saved(agent)
    write_lines(conv, [{"ts": "2026-11-22T09:00:01Z", "type": "user", "text": "that's wrong, try again"}])
    scan = AgentScan(AgentPaths(agent), Settings())
    scan.refresh()
    assert [t.edited for t in scan.records()] == [True, False]
    assert picture(scan) == cold(agent)
