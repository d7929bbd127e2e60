"""The tail reader: only new bytes, partial lines held back, truncation and replacement noticed."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from orkas_tui.core.disk.confine import open_regular
from orkas_tui.core.read.tail import BEFORE, BOM, JsonlTail, read_span


def parsed(raw: bytes) -> dict | None:
    """Each line as a plain object, so these tests see exactly the bytes the tail hands on."""
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None
    return value if isinstance(value, dict) and isinstance(value.get("type"), str) else None


def events(tail: JsonlTail) -> tuple[bool, list]:
    reset, lines = tail.poll(parsed)
    return reset, [line.event for line in lines]


def test_reads_only_new_bytes(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    path.write_bytes(b'{"type":"user","text":"a"}\n')
    tail = JsonlTail(path)
    assert events(tail) == (False, [{"type": "user", "text": "a"}])
    assert events(tail) == (False, [])
    with open(path, "ab") as handle:
        handle.write(b'{"type":"user","text":"b"}\n')
    assert events(tail) == (False, [{"type": "user", "text": "b"}])
    assert tail.offset == path.stat().st_size


def test_partial_last_line_is_held_back_until_its_newline(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    path.write_bytes(b'{"type":"user","text":"a"}\n{"type":"user","te')
    tail = JsonlTail(path)
    assert events(tail) == (False, [{"type": "user", "text": "a"}])
    with open(path, "ab") as handle:
        handle.write(b'xt":"b"}')
    assert events(tail) == (False, [])
    with open(path, "ab") as handle:
        handle.write(b"\n")
    assert events(tail) == (False, [{"type": "user", "text": "b"}])


def test_malformed_lines_are_reported_and_skipped(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    path.write_bytes(b'not json\n[1,2]\n{"no_type":1}\n{"type":7}\n\n\xff\xfe\n{"type":"user","text":"ok"}\n')
    _reset, parsed = events(JsonlTail(path))
    assert parsed == [None, None, None, None, None, None, {"type": "user", "text": "ok"}]


def test_truncated_file_is_read_again_from_the_start(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    path.write_bytes(b'{"type":"user","text":"a"}\n{"type":"user","text":"b"}\n')
    tail = JsonlTail(path)
    events(tail)
    with open(path, "r+b") as handle:
        handle.truncate(0)
        handle.write(b'{"type":"user","text":"c"}\n')
    assert events(tail) == (True, [{"type": "user", "text": "c"}])


def test_replaced_file_with_same_size_is_noticed(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    path.write_bytes(b'{"type":"user","text":"a"}\n')
    tail = JsonlTail(path)
    events(tail)
    replacement = tmp_path / "new.jsonl"
    replacement.write_bytes(b'{"type":"user","text":"z"}\n{"type":"user","text":"y"}\n')
    os.replace(replacement, path)
    assert events(tail) == (True, [{"type": "user", "text": "z"}, {"type": "user", "text": "y"}])


def test_rewritten_in_place_with_other_content_is_noticed(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    path.write_bytes(b'{"type":"user","text":"a"}\n')
    tail = JsonlTail(path)
    events(tail)
    with open(path, "r+b") as handle:  # same inode, longer, different head
        handle.write(b'{"type":"user","text":"q"}\n{"type":"user","text":"r"}\n')
    reset, parsed = events(tail)
    assert reset and [e["text"] for e in parsed] == ["q", "r"]


def test_deleted_file_resets(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    path.write_bytes(b'{"type":"user","text":"a"}\n')
    tail = JsonlTail(path)
    events(tail)
    path.unlink()
    assert events(tail) == (True, [])


def test_writer_appending_half_lines_while_reading_loses_and_duplicates_nothing(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    path.touch()
    total = 2000
    done = threading.Event()

    def writer() -> None:
        with open(path, "ab", buffering=0) as handle:
            for i in range(total):
                line = orjson.dumps({"type": "user", "text": f"m{i}"}) + b"\n"
                cut = len(line) // 2
                handle.write(line[:cut])
                handle.write(line[cut:])
        done.set()

    tail = JsonlTail(path)
    seen: list[str] = []
    thread = threading.Thread(target=writer)
    thread.start()
    while not done.is_set():
        reset, parsed = events(tail)
        assert not reset
        assert None not in parsed
        seen.extend(e["text"] for e in parsed)
    thread.join()
    seen.extend(e["text"] for e in events(tail)[1])
    assert seen == [f"m{i}" for i in range(total)]


def test_large_file_read_in_chunks_keeps_spans(tmp_path: Path, monkeypatch) -> None:
    import orkas_tui.core.read.tail as tail_module

    monkeypatch.setattr(tail_module, "CHUNK", 64)
    path = tmp_path / "c.jsonl"
    lines = [orjson.dumps({"type": "user", "text": "x" * (i % 50)}) + b"\n" for i in range(300)]
    path.write_bytes(b"".join(lines))
    got = list(JsonlTail(path).poll()[1])
    assert [len(g.event.text) for g in got] == [i % 50 for i in range(300)]
    with open_regular(path) as handle:
        span = read_span(handle, path, got[10].start, got[12].end)
    assert span == [(g.start, g.event) for g in got[10:13]]


PIECES = st.lists(
    st.one_of(
        st.binary(max_size=90),  # any bytes, newlines or not
        st.integers(1, 120).map(lambda n: b"x" * n + b"\n"),  # a line, some over the cap below
        st.just(b"\n"),
    ),
    max_size=25,
)


@settings(max_examples=300, deadline=None)
@given(st.booleans(), PIECES, st.lists(st.integers(0, 25), max_size=6))
def test_the_bytes_kept_before_the_offset_are_the_files(
    tmp_path_factory, bom: bool, pieces: list[bytes], polls: list[int]
) -> None:
    """What the tail keeps from before its offset (the cache's probe, so it need not open the file
    again) is the file's bytes there, whatever was written between polls, lines over the cap included."""
    path = tmp_path_factory.mktemp("tail") / "c.jsonl"
    path.write_bytes(BOM if bom else b"")
    tail = JsonlTail(path, max_line=50)  # chunks of 50 bytes: many blocks, and lines skipped for their length
    written = 0
    for stop in sorted({*polls, len(pieces)}):
        with open(path, "ab") as handle:
            handle.write(b"".join(pieces[written:stop]))
        written = max(written, stop)
        _reset, blocks = tail.poll_blocks()
        for _ in blocks:
            pass
        data = path.read_bytes()
        assert tail.before is None or tail.before == data[max(0, tail.offset - BEFORE) : tail.offset]
    if not bom and all(len(line) < 50 for line in b"".join(pieces).split(b"\n")):
        assert tail.before is not None  # read from the start, nothing skipped: always known
