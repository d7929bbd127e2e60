"""The status from cached summaries: whatever changed, a warm ``status --json`` prints exactly the cold run's bytes."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import orjson
import pytest
from msgspec import convert, to_builtins

from orkas_tui.cli import main
from orkas_tui.commands.status import RECENT_TURNS, render_status
from orkas_tui.core.observe.signals import score_turn
from orkas_tui.core.observe.skill_metrics import SkillMetrics, skill_metrics
from orkas_tui.core.read.not_read import read_not_read
from orkas_tui.core.read.timefmt import parse_ts
from orkas_tui.core.read.workspace import AgentPaths, Workspace, write_state
from orkas_tui.core.reflect.queue import workspace_queue
from orkas_tui.core.reflect.spend import read_usage
from orkas_tui.core.reflect.verdict import judged, verdict
from orkas_tui.core.store.history import list_changes
from orkas_tui.core.store.notes import SelfNotes
from orkas_tui.core.store.skills import SkillStore
from orkas_tui.core.summary.cache import NAME, SKILLS
from orkas_tui.core.summary.report import SkillRow, compose_status, last_reflection
from orkas_tui.core.summary.scan import AgentScan
from orkas_tui.core.summary.turn import TurnSummary, summarize
from tests.core.helpers import write_lines

NOW = "2026-11-30T09:00:00Z"


def status(ws: Path, capsys, *extra: str) -> str:
    """The whole ``status --json`` document: every turn."""
    assert main(["status", "--workspace", str(ws), "--now", NOW, "--json", "--all-turns", *extra]) == 0
    return capsys.readouterr().out


def caches(ws: Path) -> list[Path]:
    return sorted(ws.glob(f"agents/*/.orkas/{NAME}"))


def cold(ws: Path, capsys, *extra: str) -> str:
    """The output with no cache of any kind."""
    for cache in [*caches(ws), *ws.glob(f"agents/*/.orkas/{SKILLS}")]:
        cache.unlink()
    return status(ws, capsys, *extra)


def reference(ws: Path) -> str:
    """The document built with no cache from the turn records: each turn scored as it is now,
    the skill metrics counted over all turns at once (not turn by turn, as the fold does)."""
    workspace = Workspace.open(ws)
    now = parse_ts(NOW)
    scans = [AgentScan(workspace.agent(a), workspace.settings, persist=False) for a in workspace.agent_ids()]
    for scan in scans:
        scan.refresh()
    plan = workspace_queue(workspace, now, scans)
    agents = []
    for scan in scans:
        skills, problems = SkillStore(scan.paths, scan.settings).load_all()
        table = skill_metrics(scan.records())
        effects = judged(scan, list_changes(scan.paths))
        rows = [
            {
                **SkillRow(s, m := table.get(s.slug, SkillMetrics())).to_json(),
                "verdict": verdict(s.last_used_at, m, effects.get(s.slug), scan.settings.judge_after).to_json(),
            }
            for s in skills
        ]
        records = sorted(scan.records(), key=lambda r: (r.ended_at or r.started_at or "", r.conversation, r.seq), reverse=True)
        turns = [to_builtins(summarize(r, score_turn(r, scan.settings, scan.weak))) for r in records]
        fields = {**scan.status_fields(), "turns": turns}
        doc = compose_status(
            scan.paths, SelfNotes(scan.paths, scan.settings), fields, rows, problems, last_reflection(scan.paths)
        )
        reflections = [u.to_json() for u in reversed(read_usage(scan.paths)[-10:])]
        agents.append(
            {**doc, "not_read": read_not_read(scan.paths), "queue": plan.decision(scan.id).to_json(), "reflections": reflections}
        )
    queue = plan.to_json()
    doc = {
        "workspace": str(workspace.root),
        "now": NOW,
        "threshold": workspace.settings.threshold,
        **{key: queue[key] for key in ("next_cycle_at", "cycle_due_at", "run_by", "spending")},
        "agents": agents,
    }
    return orjson.dumps(doc, option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS).decode() + "\n"


def check(ws: Path, capsys) -> str:
    """Warm (from whatever cache there is) equals cold equals the reference."""
    warm = status(ws, capsys)
    assert caches(ws)
    again = status(ws, capsys)
    truth = cold(ws, capsys)
    assert warm == again == truth == reference(ws)
    return truth


def conversation(ws: Path) -> Path:
    return sorted(ws.glob("agents/*/conversations/*.jsonl"))[0]


def test_warm_output_is_the_cold_output_through_changes(demo_ws: Path, capsys) -> None:
    first = check(demo_ws, capsys)
    agent = conversation(demo_ws).parent.parent

    write_lines(  # one more turn, with a correction and a failing tool
        conversation(demo_ws),
        [
            {"ts": "2026-11-30T08:59:00Z", "type": "turn_start", "turn": "late", "skills_indexed": []},
            {"ts": "2026-11-30T08:59:01Z", "type": "user", "text": "wrong, try again"},
            {"ts": "2026-11-30T08:59:02Z", "type": "tool_call", "id": "k1", "name": "bash", "args": {}},
            {"ts": "2026-11-30T08:59:03Z", "type": "tool_result", "id": "k1", "ok": False, "error": "exit 1"},
            {"ts": "2026-11-30T08:59:04Z", "type": "turn_end", "turn": "late", "status": "ok"},
        ],
    )
    appended = check(demo_ws, capsys)
    assert appended != first and '"turn": "late"' in appended

    profile = agent / "self" / "profile.md"
    profile.write_text(profile.read_text() + "\nI stumble with `bash`.\n" if profile.exists() else "I stumble with `bash`.\n")
    weakness = check(demo_ws, capsys)
    assert weakness != appended and "known_weakness" in weakness

    (demo_ws / "orkas.toml").write_text("threshold = 0.3\n")
    assert check(demo_ws, capsys) != weakness

    skill = sorted((agent / "skills").glob("*.md"))[0]
    skill.write_text(skill.read_text().replace("description:", "description: changed", 1))
    check(demo_ws, capsys)

    write_state(AgentPaths(agent), last_reflection_at="2026-11-29T00:00:00Z")
    check(demo_ws, capsys)


@pytest.mark.parametrize("damage", ["garbage", "truncated", "flipped", "empty", "header-flipped", "row-flipped"])
def test_a_damaged_cache_is_rebuilt_not_trusted(demo_ws: Path, capsys, damage: str) -> None:
    truth = check(demo_ws, capsys)
    for cache in [*caches(demo_ws), *demo_ws.glob(f"agents/*/.orkas/{SKILLS}")]:
        data = cache.read_bytes()
        cache.write_bytes(
            {
                "garbage": b"\x00nonsense",
                "truncated": data[: len(data) - 7],
                "empty": b"",
                "flipped": data[:-20] + bytes([data[-20] ^ 1]) + data[-19:],
                "header-flipped": data.replace(b'"version":', b'"versiom":', 1),
                "row-flipped": data.replace(b'"triggers":', b'"triggerz":', 1),
            }[damage]
        )
    assert status(demo_ws, capsys) == truth
    assert status(demo_ws, capsys) == truth


def test_a_skill_turned_into_a_link_out_of_the_workspace_is_seen(demo_ws: Path, capsys, tmp_path: Path) -> None:
    check(demo_ws, capsys)
    skill = sorted(demo_ws.glob("agents/*/skills/*.md"))[0]
    outside = tmp_path / "outside.md"
    outside.write_bytes(skill.read_bytes())
    skill.unlink()
    os.symlink(outside, skill)
    out = check(demo_ws, capsys)
    assert "links outside the workspace" in out


def test_one_agent_and_text_output_use_the_same_cache(demo_ws: Path, capsys) -> None:
    doc = orjson.loads(status(demo_ws, capsys))
    agent = doc["agents"][1]
    only = orjson.loads(status(demo_ws, capsys, "--agent", agent["id"]))
    assert only["agents"] == [agent]
    assert main(["status", "--workspace", str(demo_ws), "--now", NOW, "--all-turns"]) == 0
    text = capsys.readouterr().out
    assert f"{len(agent['turns'])} turns" in text


def test_a_fifo_in_place_of_either_cache_never_hangs(demo_ws: Path, capsys) -> None:
    truth = check(demo_ws, capsys)
    for private in demo_ws.glob("agents/*/.orkas"):
        for name in (NAME, SKILLS):
            (private / name).unlink(missing_ok=True)
            os.mkfifo(private / name)
    results: list[str] = []
    worker = threading.Thread(target=lambda: results.append(status(demo_ws, capsys)), daemon=True)
    worker.start()
    worker.join(timeout=60)
    assert not worker.is_alive(), "reading a FIFO blocked"
    assert results == [truth]
    assert status(demo_ws, capsys) == truth  # the FIFOs were replaced by caches


def test_a_cold_scan_on_forked_workers_prints_what_one_process_prints(demo_ws: Path, capsys, monkeypatch) -> None:
    from concurrent.futures import ProcessPoolExecutor

    from orkas_tui.core.summary import scan

    truth = check(demo_ws, capsys)
    submitted: list[str] = []
    submit = ProcessPoolExecutor.submit

    def spy(self, fn, paths, *args):
        submitted.append(paths.id)
        return submit(self, fn, paths, *args)

    monkeypatch.setattr(scan, "PARALLEL_AFTER", 0)  # the demo is small: fork for it anyway
    monkeypatch.setattr(ProcessPoolExecutor, "submit", spy)
    assert cold(demo_ws, capsys, "--jobs", "2") == truth
    assert sorted(set(submitted)) == sorted(p.parent.parent.name for p in caches(demo_ws))
    assert len(submitted) > 1
    count = len(submitted)
    assert status(demo_ws, capsys, "--jobs", "2") == truth  # the caches written from the workers' parts are read
    assert len(submitted) == count


def test_without_fork_the_cold_scan_runs_in_this_process(demo_ws: Path, capsys, monkeypatch) -> None:
    import multiprocessing

    from orkas_tui.core.summary import scan

    truth = check(demo_ws, capsys)

    def no_fork(method=None):
        raise ValueError(f"cannot find context for {method!r}")

    monkeypatch.setattr(scan, "PARALLEL_AFTER", 0)
    monkeypatch.setattr(multiprocessing, "get_context", no_fork)
    assert cold(demo_ws, capsys, "--jobs", "4") == truth


def test_jobs_must_be_at_least_one(demo_ws: Path, capsys) -> None:
    assert main(["status", "--workspace", str(demo_ws), "--jobs", "0"]) == 2
    assert capsys.readouterr().err.strip() == "orkas-tui: --jobs: at least 1, not 0"


LATE_TURN = [
    {"ts": "2026-11-30T08:59:00Z", "type": "turn_start", "turn": "late", "skills_indexed": []},
    {"ts": "2026-11-30T08:59:01Z", "type": "user", "text": "wrong, try again"},
    {"ts": "2026-11-30T08:59:02Z", "type": "tool_call", "id": "k1", "name": "bash", "args": {}},
    {"ts": "2026-11-30T08:59:03Z", "type": "tool_result", "id": "k1", "ok": False, "error": "exit 1"},
    {"ts": "2026-11-30T08:59:04Z", "type": "turn_end", "turn": "late", "status": "ok"},
]


def append_late_turn(path: Path) -> int:
    """One more turn at the end of ``path``; returns the file's size before it."""
    size = path.stat().st_size if path.exists() else 0
    write_lines(path, LATE_TURN)
    return size


def test_an_appended_turn_is_the_only_thing_read_again(demo_ws: Path, capsys, fed: list) -> None:
    check(demo_ws, capsys)
    grown = conversation(demo_ws)
    before = append_late_turn(grown)
    fed.clear()
    out = status(demo_ws, capsys)
    assert fed == [(grown.stem, before, grown.stat().st_size - before)]  # only the new bytes, of the one file
    fed.clear()
    assert status(demo_ws, capsys) == out and fed == []  # and then warm again
    assert out == cold(demo_ws, capsys) == reference(demo_ws)
    assert '"turn": "late"' in out


def test_conversations_added_and_removed_update_the_cached_status(demo_ws: Path, capsys, fed: list) -> None:
    check(demo_ws, capsys)
    folder = conversation(demo_ws).parent
    others = sorted(folder.glob("*.jsonl"))
    others[-1].unlink()
    append_late_turn(folder / "zz-new.jsonl")
    fed.clear()
    out = status(demo_ws, capsys)
    assert {conv for conv, _, _ in fed} == {"zz-new"}
    assert out == cold(demo_ws, capsys) == reference(demo_ws)


def test_text_status_reads_the_same_summaries(demo_ws: Path, capsys) -> None:
    doc = orjson.loads(cold(demo_ws, capsys))
    assert main(["status", "--workspace", str(demo_ws), "--now", NOW]) == 0
    warm_text = capsys.readouterr().out
    for cache in caches(demo_ws):
        cache.unlink()
    assert main(["status", "--workspace", str(demo_ws), "--now", NOW]) == 0
    assert capsys.readouterr().out == warm_text
    for agent in doc["agents"]:
        assert f"== {agent['id']}" in warm_text and f"{len(agent['turns'])} turns" in warm_text


def test_a_conversation_rewritten_in_place_is_observed_from_its_start(demo_ws: Path, capsys, fed: list) -> None:
    check(demo_ws, capsys)
    path = conversation(demo_ws)
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines[: len(lines) // 2]))  # a shorter file: what was observed no longer holds
    fed.clear()
    out = status(demo_ws, capsys)
    assert [(conv, base) for conv, base, _ in fed] == [(path.stem, 0)]
    assert out == cold(demo_ws, capsys) == reference(demo_ws)


def test_when_most_conversations_changed_the_status_is_built_again_whole(demo_ws: Path, capsys) -> None:
    check(demo_ws, capsys)
    for path in sorted(demo_ws.glob("agents/*/conversations/*.jsonl")):
        append_late_turn(path)
    out = status(demo_ws, capsys)
    assert out == status(demo_ws, capsys) == cold(demo_ws, capsys) == reference(demo_ws)
    assert out.count('"turn": "late"') == len(list(demo_ws.glob("agents/*/conversations/*.jsonl")))


def test_json_carries_the_turns_the_text_shows_and_all_turns_every_one(demo_ws: Path, capsys) -> None:
    """Both forms carry the same facts: the newest turns of each agent and how many there are;
    ``--all-turns`` every turn, in both."""
    whole = orjson.loads(status(demo_ws, capsys))
    assert main(["status", "--workspace", str(demo_ws), "--now", NOW, "--json"]) == 0
    newest = orjson.loads(capsys.readouterr().out)
    assert main(["status", "--workspace", str(demo_ws), "--now", NOW]) == 0
    text = capsys.readouterr().out
    assert any(len(agent["turns"]) > RECENT_TURNS for agent in whole["agents"])
    for full, short in zip(whole["agents"], newest["agents"], strict=True):
        assert short["turns"] == full["turns"][:RECENT_TURNS]
        assert short.pop("turn_count") == len(full["turns"])
        assert {**short, "turns": full["turns"]} == full
        shown = f"last {RECENT_TURNS} of {len(full['turns'])} turns" if len(full["turns"]) > RECENT_TURNS else "turns"
        assert text.count(shown) >= 1
        assert all(f"{turn['conversation']}" in text for turn in short["turns"])


def test_text_status_shows_the_newest_turns_of_the_whole_document(demo_ws: Path, capsys) -> None:
    doc = orjson.loads(cold(demo_ws, capsys))
    assert max(len(agent["turns"]) for agent in doc["agents"]) > RECENT_TURNS  # some agent shows only its newest
    for agent in doc["agents"]:  # the printed rows read back as the summaries they print
        agent["turns"] = convert(agent["turns"], list[TurnSummary])
    for extra, recent in (([], RECENT_TURNS), (["--all-turns"], None)):
        assert main(["status", "--workspace", str(demo_ws), "--now", NOW, *extra]) == 0  # from the packed cache
        assert capsys.readouterr().out == render_status(doc, recent) + "\n"


def test_packed_rows_print_as_decoded_ones_whatever_they_hold(demo_ws: Path, capsys) -> None:
    write_lines(
        conversation(demo_ws),
        [
            {"ts": "2026-11-30T08:59:00Z", "type": "turn_start", "turn": 'é"\\', "skills_indexed": []},
            {"ts": "2026-11-30T08:59:01Z", "type": "user", "text": '错了，不是这个 "quoted" \\ back'},
            {"ts": "2026-11-30T08:59:02Z", "type": "tool_call", "id": "k1", "name": "bash", "args": {}},
            {"ts": "2026-11-30T08:59:03Z", "type": "tool_result", "id": "k1", "ok": False, "error": 'a\nb\t"c"'},
            {"ts": "2026-11-30T08:59:04Z", "type": "turn_end", "turn": 'é"\\', "status": "error"},
        ],
    )
    truth = check(demo_ws, capsys)
    assert '"skills_indexed": [],' in truth and "错了" in truth


@pytest.mark.parametrize("lists", [1, 2, 9])
def test_turns_that_list_different_skill_indexes_print_each_its_own(demo_ws: Path, capsys, lists: int) -> None:
    """One conversation whose index changes turn to turn (some runtimes index per turn): few
    distinct lists are spliced in one way, many (9 here) another; both print what the rows hold."""
    path = conversation(demo_ws).with_name("indexes.jsonl")
    written, events = [], []
    for n in range(12):
        turn, at = f"x{n}", f"2026-11-30T08:{n:02d}:00Z"
        index = [f"skill-{n % lists}", *(["a-skill"] if n % 2 else [])] if n % 3 else []
        written.append(index)
        events += [
            {"ts": at, "type": "turn_start", "turn": turn, "skills_indexed": index},
            {"ts": at, "type": "user", "text": f"do {n}"},
            {"ts": at, "type": "turn_end", "turn": turn, "status": "ok"},
        ]
    write_lines(path, events, mode="wb")
    truth = check(demo_ws, capsys)
    agent = next(a for a in orjson.loads(truth)["agents"] if a["id"] == path.parent.parent.name)
    assert [t["skills_indexed"] for t in agent["turns"] if t["conversation"] == "indexes"] == written[::-1]


def test_conversations_that_interleave_or_run_back_in_time_print_in_the_documents_order(demo_ws: Path, capsys) -> None:
    """Newest first across conversations: two whose turns alternate in time, and one whose
    turns end out of order (a clock set back), print turn by turn where they interleave."""
    folder = conversation(demo_ws).parent

    def write(name: str, times: list[str]) -> None:
        events = [
            {"ts": at, "type": kind, "turn": f"{name}{n}", **extra}
            for n, at in enumerate(times)
            for kind, extra in (("turn_start", {"skills_indexed": []}), ("turn_end", {"status": "ok"}))
        ]
        write_lines(folder / f"{name}.jsonl", events, mode="wb")

    write("odd", ["2026-11-30T08:01:00Z", "2026-11-30T08:03:00Z", "2026-11-30T08:05:00Z"])
    write("even", ["2026-11-30T08:02:00Z", "2026-11-30T08:04:00Z", "2026-11-30T08:06:00Z"])
    write("skewed", ["2026-11-30T07:10:00Z", "2026-11-30T07:05:00Z", "2026-11-30T07:20:00Z"])
    truth = check(demo_ws, capsys)
    agent = next(a for a in orjson.loads(truth)["agents"] if a["id"] == folder.parent.name)
    turns = [t["turn"] for t in agent["turns"] if t["conversation"] in ("odd", "even", "skewed")]
    assert turns == ["even2", "odd2", "even1", "odd1", "even0", "odd0", "skewed2", "skewed0", "skewed1"]


def test_every_field_of_a_turn_summary_is_printed_in_order(demo_ws: Path, capsys) -> None:
    """A field added to TurnSummary is a key of every printed turn, cold and from the cache."""
    for printed in (cold(demo_ws, capsys), status(demo_ws, capsys)):
        doc = orjson.loads(printed)
        turns = [turn for agent in doc["agents"] for turn in agent["turns"]]
        assert turns and all(list(turn) == list(TurnSummary.__struct_fields__) for turn in turns)


def test_one_agent_s_cold_scan_is_split_by_conversation(tmp_path: Path, capsys, monkeypatch) -> None:
    """One agent uses every worker (issue 35.2): its conversations are read in runs side by side,
    and the output and the cache are byte for byte what one process writes."""
    from concurrent.futures import ProcessPoolExecutor

    from benchmarks.workspace import Params, generate
    from orkas_tui.core.summary import scan

    ws = tmp_path / "ws"
    generate(ws, Params(agents=1, events=6_000, skills=40, indexed=8, conversations=24))
    alone = cold(ws, capsys, "--jobs", "1")
    (one,) = caches(ws)
    written = one.read_bytes()
    submitted: list[list[str]] = []
    submit = ProcessPoolExecutor.submit

    def spy(self, fn, paths, settings, profile, names):
        submitted.append(names)
        return submit(self, fn, paths, settings, profile, names)

    monkeypatch.setattr(scan, "PARALLEL_AFTER", 0)
    monkeypatch.setattr(ProcessPoolExecutor, "submit", spy)
    for jobs in ("2", "3"):
        assert cold(ws, capsys, "--jobs", jobs) == alone
        assert one.read_bytes() == written
    assert len(submitted) > 2
    listed = sorted(path.name for path in ws.glob("agents/*/conversations/*.jsonl"))
    assert sorted(name for names in submitted for name in names) == sorted(listed * 2)
    assert status(ws, capsys, "--jobs", "2") == alone
