"""An import is fast and still durable: batched syncs keep the order a power cut needs, a kill
at any write is completed or rolled back by the next import, and timestamps keep their text."""

from __future__ import annotations

import functools
import json
import os
import threading
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from orkas_tui.core.disk.write import GROUP_SYNC, atomic_write_all
from orkas_tui.core.read.timefmt import format_ts, parse_ts
from orkas_tui.core.read.workspace import AgentPaths
from orkas_tui.importers import run
from orkas_tui.importers.run import import_files
from orkas_tui.importers.writer import spec_time
from tests.importers.test_claude_code import session
from tests.importers.test_incremental import conversation_bytes, fresh
from tests.importers.transcripts import write_lines
from tests.trust.test_crashes import killed_run

LINUX_FDS = Path("/proc/self/fd")


def sources(folder: Path, count: int, fraction: float = 1.0) -> list[Path]:
    """``count`` sessions (the synthetic one under different ids), each cut to ``fraction`` of its lines."""
    lines = session()
    kept = lines[: int(len(lines) * fraction)]
    return [write_lines(folder / f"s{n}.jsonl", kept) for n in range(count)]


def one_shot(tmp: Path, count: int) -> dict[str, bytes]:
    workspace, agent = fresh(tmp / "one-shot")
    import_files(agent, workspace.settings, "claude-code", sources(tmp / "one-shot-src", count), settle=0)
    return conversation_bytes(agent)


# --- timestamps: the source's text kept when it already is the spec's form ---


def shaped(year: int, month: int, day: int, hour: int, minute: int, second: int, millis: int) -> str:
    return f"{year:04d}-{month:02d}-{day:02d}T{hour:02d}:{minute:02d}:{second:02d}.{millis:03d}Z"


def reference(raw: object) -> str | None:
    moment = parse_ts(raw)
    return None if moment is None else format_ts(moment)


@given(
    st.one_of(
        st.builds(
            shaped,
            *(st.integers(0, 9999), st.integers(0, 99), st.integers(0, 99)),
            *[st.integers(0, 99)] * 3,
            st.integers(0, 999),
        ),
        st.from_regex(r"\A\d{4}-\d\d-\d\d[T t]\d\d:\d\d:\d\d([.,]\d{1,7})?([Zz]|[+-]\d\d:\d\d)?\Z"),
        st.text(max_size=30),
        st.none(),
        st.integers(),
    )
)
@example("2026-02-11T10:12:13.000Z")
@example("2026-02-30T10:12:13.456Z")
@example("0000-01-01T00:00:00.000Z")
@example("0001-01-01T00:00:00.001Z")
@example("2026-02-11T10:12:13.456Z\n")
@example("２026-02-11T10:12:13.456Z")
def test_a_time_is_written_as_parsing_and_formatting_it_would(raw: object) -> None:
    assert spec_time(raw) == reference(raw)


def test_real_sample_times_are_kept_as_the_source_wrote_them() -> None:
    assert spec_time("2026-02-11T22:12:24.357Z") == "2026-02-11T22:12:24.357Z"
    assert spec_time("2026-02-11T22:12:24.000Z") == "2026-02-11T22:12:24Z"


@given(st.binary(max_size=200) | st.lists(st.sampled_from([b"{}", b" ", b"\n", b"\r", b"\r\n", b"x"]), max_size=30).map(b"".join))
def test_the_sniff_looks_at_the_lines_splitlines_gives(head: bytes) -> None:
    """It splits lazily (only the first lines are looked at), yet sees the same non-empty lines."""
    assert [found.group() for found in run.LINE.finditer(head)] == [line for line in head.splitlines() if line]


# --- the order a power cut needs: no state is renamed into place before what it claims is synced ---


class SyncTrace:
    """What the import wrote and synced, in order, by path (the real calls are made)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, agent: AgentPaths) -> None:
        self.agent = agent
        self.events: list[tuple[str, str, int]] = []
        self.checked = 0
        write, fsync, replace = os.write, os.fsync, os.replace

        def traced_write(fd: int, data: bytes) -> int:
            self.events.append(("write", os.readlink(LINUX_FDS / str(fd)), 0))
            return write(fd, data)

        def traced_fsync(fd: int) -> None:
            fsync(fd)
            self.events.append(("fsync", os.readlink(LINUX_FDS / str(fd)), os.fstat(fd).st_size))

        def traced_replace(src: str, dst: str | Path) -> None:
            self.check(str(src), Path(dst))
            replace(src, dst)

        monkeypatch.setattr(os, "write", traced_write)
        monkeypatch.setattr(os, "fsync", traced_fsync)
        monkeypatch.setattr(os, "replace", traced_replace)

    def synced_after_last_write(self, path: str) -> int | None:
        """The size ``path`` had when synced after its last write (``None``: not synced since)."""
        size = None
        for kind, where, at in self.events:
            if where == path:
                size = at if kind == "fsync" else None
        return size

    def check(self, tmp: str, target: Path) -> None:
        if target.parent.name != "imports":
            return
        assert self.synced_after_last_write(tmp) is not None, f"{target.name} renamed into place before its bytes were synced"
        claimed = json.loads(Path(tmp).read_bytes())["conv_bytes"]
        if claimed:
            conv = os.path.realpath(self.agent.conversations / f"{target.stem}.jsonl")
            synced = self.synced_after_last_write(conv)
            assert synced is not None and synced >= claimed, f"{target.name} claims {claimed} bytes of {conv}, synced: {synced}"
            created = next(i for i, (kind, where, _) in enumerate(self.events) if where == conv)
            folder = os.path.realpath(self.agent.conversations)
            assert any(kind == "fsync" and where == folder for kind, where, _ in self.events[created:]), (
                f"{target.name} claims a conversation whose name was never synced"
            )
        self.checked += 1


@pytest.mark.skipif(not LINUX_FDS.is_dir(), reason="names open files through /proc/self/fd")
def test_a_state_is_renamed_into_place_only_after_what_it_claims_is_synced(tmp_path, monkeypatch) -> None:
    """Few sessions are each fsynced: every state replaced is checked against the syncs before it."""
    workspace, agent = fresh(tmp_path / "ws")
    trace = SyncTrace(monkeypatch, agent)
    for fraction, settle in ((0.5, 3600), (1.0, 0)):  # a first import, its last turns running, then one that appends to all
        import_files(agent, workspace.settings, "claude-code", sources(tmp_path / "src", 3, fraction), settle=settle)
    assert trace.checked == 6
    assert conversation_bytes(agent) == one_shot(tmp_path, 3)


def test_many_sessions_are_synced_as_a_group(tmp_path, monkeypatch) -> None:
    """Past ``GROUP_SYNC`` sessions, Linux syncs the filesystem once per step: no fsync a session
    (only the imports folder after its renames); the conversations are those of a plain import."""
    if not hasattr(__import__("ctypes").CDLL(None), "syncfs"):
        pytest.skip("no syncfs on this system: every file is fsynced")
    count = GROUP_SYNC + 2
    workspace, agent = fresh(tmp_path / "ws")
    synced: list[str] = []
    fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(os.readlink(LINUX_FDS / str(fd))), fsync(fd))[1])
    import_files(agent, workspace.settings, "claude-code", sources(tmp_path / "src", count), settle=0)
    assert synced == [os.path.realpath(agent.private / "imports")]
    assert conversation_bytes(agent) == one_shot(tmp_path, count)


# --- a kill at any write: the next import completes it or rolls it back ---


@pytest.mark.parametrize(("count", "batch"), [(3, run.BATCH_FILES), (GROUP_SYNC + 1, GROUP_SYNC)], ids=["fsync-each", "groups"])
def test_an_import_killed_after_any_write_is_completed_by_the_next(tmp_path, monkeypatch, count, batch) -> None:
    """Killed after each of its writes and renames (appends, temporary states, renames), an import
    that grows every conversation is followed by a plain one: the conversations are byte for byte
    one import of the whole sessions, none twice. Three sessions are each fsynced; nine make a
    batch of eight synced as a group (one ``syncfs`` on Linux), then a batch of one."""
    monkeypatch.setattr(run, "BATCH_FILES", batch)
    expected = one_shot(tmp_path, count)
    kill_after, survived = 1, 0
    while True:
        workspace, agent = fresh(tmp_path / "ws")
        import_files(agent, workspace.settings, "claude-code", sources(tmp_path / "src", count, 0.5), settle=3600)
        grown = sources(tmp_path / "src", count)
        killed, calls = killed_run(
            functools.partial(import_files, agent, workspace.settings, "claude-code", grown, settle=0), kill_after
        )
        import_files(agent, workspace.settings, "claude-code", grown, settle=0)
        assert conversation_bytes(agent) == expected, f"killed after call {kill_after}"
        again = import_files(agent, workspace.settings, "claude-code", grown, settle=0)
        assert (again.lines, conversation_bytes(agent)) == (0, expected)
        if not killed:
            break
        survived += 1
        kill_after += 1
    assert survived == calls and survived >= 3 * count  # each session: an append, a temporary state, a rename


# --- locks: importers never wait on each other, and each event is written once ---


def test_two_importers_taking_sessions_in_opposite_orders_both_finish(tmp_path) -> None:
    """Each holds its batch's locks until the batch is synced; a lock another holds is never waited
    for while holding others, so opposite orders cannot deadlock (a deadlock fails the join)."""
    workspace, agent = fresh(tmp_path / "ws")
    paths = sources(tmp_path / "src", 12)
    threads = [
        threading.Thread(target=import_files, args=(agent, workspace.settings, "claude-code", order), kwargs={"settle": 0})
        for order in (paths, paths[::-1]) * 2
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert not any(thread.is_alive() for thread in threads)
    assert conversation_bytes(agent) == one_shot(tmp_path, 12)


# --- the group write: an item that fails is reported, the others are written ---


def test_a_group_write_reports_the_item_that_fails_and_writes_the_others(tmp_path) -> None:
    (tmp_path / "blocked").write_text("a file where a folder should be\n")
    items = [(tmp_path / "ok" / f"{n}.json", f"{n}\n".encode()) for n in range(GROUP_SYNC)]
    failed = atomic_write_all([*items[:3], (tmp_path / "blocked" / "x.json", b"x\n"), *items[3:]])
    assert [path for path, _ in failed] == [tmp_path / "blocked" / "x.json"]
    assert all(path.read_bytes() == data for path, data in items)
    assert sorted(p.name for p in (tmp_path / "ok").iterdir()) == sorted(path.name for path, _ in items)  # no temporary file left
