"""Issue 32, part 3: a lesson learned in one repository is exported into that repository, with a clean git status."""

from __future__ import annotations

import json
import shutil
import subprocess
from datetime import timedelta
from pathlib import Path

import pytest

from orkas_tui.core.read.repos import repository_of
from orkas_tui.core.reflect.reflection import reflect
from orkas_tui.core.store.changes import approve
from orkas_tui.core.store.export import export_agent, hand_edited
from orkas_tui.core.store.proposals import create_proposal
from orkas_tui.core.store.provenance import Source
from orkas_tui.core.store.scopes import choose, load_places, record_places
from orkas_tui.core.store.skills import SkillStore
from orkas_tui.importers.run import import_files
from orkas_tui.importers.skills import SkillIndex
from tests.importers.transcripts import cc_text, cc_user, cx, cx_user, write_lines
from tests.modelserver import reply
from tests.reflection.conftest import NOW, configure, run_cli, set_reflected, trigger_turn

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

LINK = '[agents.coder]\nformat = "claude-code"\nexport_skills = "~/.claude/skills"\n'
CREATE = {
    "op": "create_skill",
    "sources": ["u1"],
    "name": "Check the kube context",
    "description": "Before any kubectl command",
    "body": "Always run `kubectl config current-context` before a kubectl command.",
}
SLUG = "check-the-kube-context"


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.email=t@example.com", "-c", "user.name=t", *args], cwd=cwd, capture_output=True, text=True, check=True
    )
    return done.stdout


def make_repo(path: Path) -> Path:
    path.mkdir(parents=True)
    git(path, "init", "-q")
    (path / "README").write_text("hello\n")
    git(path, "add", "README")
    git(path, "commit", "-q", "-m", "init")
    return path


@pytest.fixture
def repos(tmp_path):
    """Two repositories, the first with a linked worktree (and a subfolder sessions run in)."""
    alpha, beta = make_repo(tmp_path / "code" / "alpha"), make_repo(tmp_path / "code" / "beta")
    git(alpha, "worktree", "add", "-q", str(tmp_path / "code" / "alpha-wt"))
    (alpha / "src").mkdir()
    return alpha, beta, tmp_path / "code" / "alpha-wt"


def open_ws(root: Path, server=None, **kw):
    """The workspace with agent ``coder`` (made if missing) and ``orkas.toml`` written."""
    (root / "agents" / "coder").mkdir(parents=True, exist_ok=True)
    return configure(root, server, **kw)


def user(text: str, conversation: str, id_: str = "u1") -> Source:
    return Source(id=id_, origin="user", text=text, conversation=conversation)


def learned_in(root: Path, place: Path, extra: str = ""):
    """The workspace and ``coder``'s paths, with a proposal to create the skill from a typed lesson in
    conversation ``c1``, which ran in ``place``."""
    ws = open_ws(root, extra=extra)
    paths = ws.agent("coder")
    record_places(paths, {"c1": str(place)})
    create_proposal(paths, ws.settings, "one", [CREATE], NOW, {}, {"u1": user("check the context first", "c1")})
    return ws, paths


def events_of(paths, kind: str) -> list[dict]:
    return [e for e in map(json.loads, (paths.root / "events.jsonl").read_text("utf-8").splitlines()) if e["type"] == kind]


def exported_in(folder: Path) -> Path:
    return folder / ".claude" / "skills" / SLUG / "SKILL.md"


def test_a_worktree_and_a_subfolder_are_their_main_repository(repos, tmp_path):
    alpha, beta, worktree = repos
    assert repository_of(worktree).root == alpha and repository_of(worktree / "gone" / "deeper").root == alpha
    assert repository_of(alpha / "src").git_dir == alpha / ".git" and repository_of(beta).root == beta
    assert repository_of(tmp_path) is None
    git(alpha, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(beta), "vendor/beta")
    assert repository_of(alpha / "vendor" / "beta").root == alpha / "vendor" / "beta"  # a submodule is its own
    git(tmp_path, "clone", "-q", "--bare", str(beta), "bare.git")
    git(tmp_path / "bare.git", "worktree", "add", "-q", str(tmp_path / "bare-wt"))
    assert repository_of(tmp_path / "bare-wt").root == tmp_path / "bare-wt"  # no main working tree to share


def test_the_importers_record_where_each_session_ran(root, repos, tmp_path):
    alpha, _beta, worktree = repos
    ws = open_ws(root)
    paths = ws.agent("coder")
    claude = write_lines(
        tmp_path / "cc" / "s1.jsonl",
        [cc_user(1, "fix the build", cwd=str(worktree), sessionId="s1"), cc_text(2, "done", cwd=str(worktree))],
    )
    codex = write_lines(
        tmp_path / "cx" / "rollout-2026-03-01T10-00-00-x1.jsonl",
        [cx(0, "turn_context", {"cwd": str(alpha / "src"), "model": "m"}), cx_user(1, "run the tests")],
    )
    import_files(paths, ws.settings, "claude-code", [claude])
    import_files(paths, ws.settings, "codex", [codex])
    import_files(paths, ws.settings, "claude-code", [claude])  # again: nothing new, nothing changed
    assert load_places(paths) == {"claude-s1": str(worktree), "codex-2026-03-01T10-00-00-x1": str(alpha / "src")}


def test_a_lesson_from_one_repository_lands_in_its_skills_folder_with_a_clean_git_status(root, home, repos, server):
    alpha, _beta, worktree = repos
    set_reflected(root, "coder", NOW - timedelta(days=2))
    trigger_turn(root, "coder", NOW - timedelta(hours=5))
    ws = open_ws(root, server, auto_apply=True, extra=LINK)
    record_places(ws.agent("coder"), {"c1": str(worktree / "src")})  # the session ran in a worktree of alpha
    server.steps = [reply({"summary": "kube", "operations": [{**CREATE, "sources": ["$USER"]}]})]

    outcome = reflect(ws, "coder", NOW)

    assert outcome.status == "applied", outcome.message
    assert "kubectl config current-context" in exported_in(alpha).read_text("utf-8")
    assert exported_in(worktree).read_text("utf-8") == exported_in(alpha).read_text("utf-8")  # seen from the worktree too
    assert not (home / ".claude" / "skills" / SLUG).exists()
    assert git(alpha, "status", "--porcelain") == "" and git(worktree, "status", "--porcelain") == ""
    exclude = (alpha / ".git" / "info" / "exclude").read_text("utf-8")
    assert exclude.count(f"/.claude/skills/{SLUG}/SKILL.md\n") == 1 and exclude.startswith("# git ls-files")
    export_agent(ws.agent("coder"), ws.settings, "claude-code", home / ".claude" / "skills", force=True)
    assert (alpha / ".git" / "info" / "exclude").read_text("utf-8") == exclude  # never a line twice


def test_the_same_lesson_learned_in_a_second_repository_goes_global_and_the_old_copy_is_listed(root, home, repos):
    alpha, beta, worktree = repos
    ws = open_ws(root, extra=LINK)
    paths = ws.agent("coder")
    record_places(paths, {"c1": str(alpha), "c2": str(beta)})
    create_proposal(paths, ws.settings, "one", [CREATE], NOW, {}, {"u1": user("check the context first", "c1")})
    _, first = approve(ws, "coder.p1", NOW)
    assert exported_in(alpha).exists() and first.export is not None and not first.export.elsewhere
    SkillIndex(paths, ws.settings, "claude-code", home, NOW)(str(alpha))  # a later import reads alpha's skills back

    patch = {"op": "patch_skill", "sources": ["u1"], "skill": SLUG, "find": "before a kubectl", "replace": "before any kubectl"}
    create_proposal(paths, ws.settings, "two", [patch], NOW, {}, {"u1": user("same here, check it", "c2")})
    _, second = approve(ws, "coder.p2", NOW + timedelta(minutes=1))

    assert "before any kubectl" in exported_in(home).read_text("utf-8")
    assert second.export is not None and len(second.export.elsewhere) == 2  # alpha's copy and its worktree's
    assert (
        f"now exported to ~/.claude/skills/{SLUG}/SKILL.md" in second.export.elsewhere[0]
        and "learned in 2 repositories" in second.export.elsewhere[0]
    )
    assert exported_in(alpha).exists() and exported_in(worktree).exists()  # listed, never deleted
    assert [e.get("elsewhere") for e in events_of(paths, "skill_exported")] == [None, 2]


def test_a_person_s_choice_wins_and_learned_goes_back(root, home, repos, capsys):
    alpha, _beta, _worktree = repos
    ws, paths = learned_in(root, alpha, LINK)
    approve(ws, "coder.p1", NOW)

    code, out, _ = run_cli(capsys, "skills", "scope", "coder", SLUG, "global", "--workspace", str(root))
    assert code == 0 and f"{SLUG}: global (set global by a person)" in out
    assert exported_in(home).exists()
    code, out, _ = run_cli(capsys, "skills", "--workspace", str(root), "--json")
    (row,) = json.loads(out)["coder"]
    assert row["slug"] == SLUG and row["scope"] == "global" and row["why"] == "set global by a person"

    patch = {"op": "patch_skill", "sources": ["u1"], "skill": SLUG, "find": "before a kubectl", "replace": "before any kubectl"}
    create_proposal(paths, ws.settings, "two", [patch], NOW, {}, {"u1": user("check it", "c1")})
    approve(ws, "coder.p2", NOW)
    assert "before any kubectl" in exported_in(home).read_text("utf-8")  # the choice is kept over new lessons

    code, out, _ = run_cli(capsys, "skills", "scope", "coder", SLUG, "learned", "--workspace", str(root))
    assert code == 0 and f"{SLUG}: {alpha.name} (learned in this repository only)" in out
    assert "before any kubectl" in exported_in(alpha).read_text("utf-8")
    code, out, _ = run_cli(capsys, "export", "claude-code", "coder", str(home), "--dry-run", "--workspace", str(root))
    assert code == 0 and f"+ {SLUG} (into {alpha})" in out.splitlines()


def test_a_repository_gone_from_this_machine_waits_with_the_reason(root, home, repos):
    alpha, _beta, _worktree = repos
    ws, paths = learned_in(root, alpha, LINK)
    approve(ws, "coder.p1", NOW)
    shutil.rmtree(alpha)

    result = export_agent(paths, ws.settings, "claude-code", home / ".claude" / "skills")

    assert result.waiting == [f"{SLUG}: its repository {alpha} is not on this machine (learned in this repository only)"]
    assert f"! waits, not exported: {result.waiting[0]}" in result.lines()
    assert not exported_in(home).exists() and not alpha.exists()


def test_a_skills_folder_linking_out_of_the_repository_is_refused(root, home, repos, tmp_path):
    alpha, _beta, _worktree = repos
    outside = tmp_path / "outside"
    outside.mkdir()
    (alpha / ".claude").symlink_to(outside)
    ws, paths = learned_in(root, alpha)
    approve(ws, "coder.p1", NOW)

    result = export_agent(paths, ws.settings, "claude-code", home / ".claude" / "skills")

    assert result.refused == [f"{SLUG}: {alpha / '.claude' / 'skills' / SLUG} links outside its repository {alpha}; not written"]
    assert list(outside.iterdir()) == [] and not exported_in(home).exists()


def test_earlier_global_exports_are_listed_for_the_person_never_moved(root, home, repos, capsys):
    alpha, _beta, worktree = repos
    ws = open_ws(root)
    paths = ws.agent("coder")
    create_proposal(paths, ws.settings, "one", [CREATE], NOW, {}, {"u1": user("check the context first", "c9")})
    approve(ws, "coder.p1", NOW)  # no known repository: global, as every export before scopes
    dest = home / ".claude" / "skills"
    export_agent(paths, ws.settings, "claude-code", dest)
    choose(paths, SLUG, "repo", alpha / "src")

    code, out, _ = run_cli(capsys, "export", "claude-code", "coder", str(dest), "--workspace", str(root), "--json")

    doc = json.loads(out)
    assert code == 0 and doc["written"] == [str(exported_in(alpha)), str(exported_in(worktree))]
    assert len(doc["elsewhere"]) == 1 and doc["elsewhere"][0].startswith(
        f"~/.claude/skills/{SLUG}/SKILL.md: left by an earlier export"
    )
    assert f"`orkas-tui skills scope coder {SLUG} global`" in doc["elsewhere"][0]
    assert exported_in(home).exists() and git(alpha, "status", "--porcelain") == ""
    code, out, _ = run_cli(capsys, "export", "claude-code", "coder", str(dest), "--workspace", str(root))
    assert f"- {doc['elsewhere'][0]}" in out.splitlines()


def test_a_person_who_commits_the_scoped_skills_gets_no_exclude_line(root, home, repos):
    alpha, _beta, worktree = repos
    ws, paths = learned_in(root, alpha, "[export]\ncommit_scoped_skills = true\n")
    approve(ws, "coder.p1", NOW)
    before = (alpha / ".git" / "info" / "exclude").read_bytes()

    result = export_agent(paths, ws.settings, "codex", home / ".codex" / "skills")

    written = [str(tree / ".agents" / "skills" / SLUG / "SKILL.md") for tree in (alpha, worktree)]
    assert result.written == written and not result.excluded
    assert (alpha / ".git" / "info" / "exclude").read_bytes() == before
    assert git(alpha, "status", "--porcelain") == "?? .agents/\n"
    ws = open_ws(root)  # the person stops committing them: the next export excludes what it wrote before
    again = export_agent(paths, ws.settings, "codex", home / ".codex" / "skills")
    assert again.unchanged == result.written and again.excluded == [str(alpha / ".git" / "info" / "exclude")]
    assert git(alpha, "status", "--porcelain") == "" == git(worktree, "status", "--porcelain")


def test_a_hand_edit_in_the_repository_is_left_alone_and_flagged(root, home, repos):
    alpha, _beta, _worktree = repos
    ws, paths = learned_in(root, alpha, LINK)
    approve(ws, "coder.p1", NOW)
    target = exported_in(alpha)
    target.write_text(target.read_text("utf-8") + "\nMy own line.\n", "utf-8")
    skills = SkillStore(paths, ws.settings).load_all()[0]

    assert hand_edited(paths, ws.settings.agents["coder"], skills) == {SLUG: str(target)}
    result = export_agent(paths, ws.settings, "claude-code", home / ".claude" / "skills")
    assert result.conflicts == [str(target)] and "My own line." in target.read_text("utf-8")


def test_a_damaged_scopes_file_is_refused_with_one_line_and_never_replaced(root, home, repos, capsys):
    alpha, _beta, _worktree = repos
    ws, paths = learned_in(root, alpha, LINK)
    scopes = paths.private / "scopes.json"
    scopes.write_text('{"check-the-kube-context": {"chosen": "glo', "utf-8")  # cut off mid-write by someone

    _, result = approve(ws, "coder.p1", NOW)  # the skill is applied all the same, read as of no known scope

    assert result.applied and scopes.read_text("utf-8").endswith('"glo')
    assert result.export is not None and any(str(scopes) in p for p in result.export.problems)
    events = [json.loads(line) for line in (paths.root / "events.jsonl").read_text("utf-8").splitlines()]
    assert [e["repositories"] for e in events if e["type"] == "scope_not_recorded"] == [[str(alpha)]]
    code, _out, err = run_cli(capsys, "skills", "scope", "coder", SLUG, "global", "--workspace", str(root))
    assert code == 2 and err.splitlines() == [
        f"orkas-tui: {scopes}: cannot be read (not JSON); fix or delete it, nothing was written"
    ]
    assert scopes.read_text("utf-8").endswith('"glo')


def test_a_worktree_removed_since_is_left_out_quietly(root, home, repos):
    alpha, _beta, worktree = repos
    ws, paths = learned_in(root, worktree)
    approve(ws, "coder.p1", NOW)
    dest = home / ".claude" / "skills"
    assert export_agent(paths, ws.settings, "claude-code", dest).written == [str(exported_in(alpha)), str(exported_in(worktree))]
    shutil.rmtree(worktree)

    result = export_agent(paths, ws.settings, "claude-code", dest)

    assert result.unchanged == [str(exported_in(alpha))] and not result.elsewhere and not result.stale and not result.problems


def _edits(turn: str, at, prompt: str, files: list[str]) -> list[dict]:
    """A turn: the typed prompt, then one Edit of each file (absolute paths, as Claude Code writes them)."""
    stamp = at.strftime("%Y-%m-%dT%H:%M:%SZ")
    events = [
        {"ts": stamp, "type": "turn_start", "turn": turn, "skills_indexed": []},
        {"ts": stamp, "type": "user", "text": prompt},
    ]
    for i, file in enumerate(files):
        events.append({"ts": stamp, "type": "tool_call", "id": f"{turn}-{i}", "name": "Edit", "args": {"file_path": file}})
        events.append({"ts": stamp, "type": "tool_result", "id": f"{turn}-{i}", "ok": True})
    events.append({"ts": stamp, "type": "assistant", "text": "Done."})
    return [*events, {"ts": stamp, "type": "turn_end", "turn": turn, "status": "ok"}]


def test_a_lesson_about_one_folder_loads_only_for_its_files(root, home, repos, server):
    """The agent edited two files under src/api/ after the prompt the lesson rests on (the session ran in a
    worktree): the skill exported into the repository carries Claude Code's `paths: ["src/api/**"]`."""
    from tests.reflection.conftest import CORRECTION, add_events

    alpha, _beta, worktree = repos
    set_reflected(root, "coder", NOW - timedelta(days=2))
    api = worktree / "src" / "api"
    add_events(root, "coder", "c1", _edits("t1", NOW - timedelta(hours=6), "add the health route", [str(api / "health.py")]))
    corrected = [str(api / "v2" / "routes.py"), str(api / "health.py")]
    add_events(root, "coder", "c1", _edits("t2", NOW - timedelta(hours=5), CORRECTION, corrected))
    ws = open_ws(root, server, auto_apply=True, extra=LINK)
    record_places(ws.agent("coder"), {"c1": str(worktree)})
    server.steps = [reply({"summary": "kube", "operations": [{**CREATE, "sources": ["$USER"]}]})]

    outcome = reflect(ws, "coder", NOW)

    assert outcome.status == "applied", outcome.message
    text = exported_in(alpha).read_text("utf-8")
    assert 'paths: ["src/api/**"]' in text.split("---")[1]  # in the front matter
    assert git(alpha, "status", "--porcelain") == ""
    assert (
        hand_edited(ws.agent("coder"), ws.settings.agents["coder"], SkillStore(ws.agent("coder"), ws.settings).load_all()[0])
        == {}
    )


def test_a_lesson_about_files_elsewhere_or_none_widens_the_skill_to_every_file(root, home, repos):
    alpha, _beta, _worktree = repos
    ws = open_ws(root, extra=LINK)
    paths = ws.agent("coder")
    record_places(paths, {"c1": str(alpha)})

    def prompt(text: str, edited: tuple[str, ...]) -> dict:
        return {"u1": Source(id="u1", origin="user", text=text, conversation="c1", edited=edited)}

    create_proposal(paths, ws.settings, "one", [CREATE], NOW, {}, prompt("check it", ("src/api/a.py", "src/api/b.py")))
    approve(ws, "coder.p1", NOW)
    assert 'paths: ["src/api/**"]' in exported_in(alpha).read_text("utf-8")
    patch = {"op": "patch_skill", "sources": ["u1"], "skill": SLUG, "find": "before a kubectl", "replace": "before any kubectl"}
    create_proposal(paths, ws.settings, "two", [patch], NOW, {}, prompt("same for the docs", (str(alpha / "docs" / "x.md"),)))
    approve(ws, "coder.p2", NOW + timedelta(minutes=1))
    text = exported_in(alpha).read_text("utf-8")
    assert "before any kubectl" in text and "paths:" not in text  # src/api and docs share only the top: every file
    create_proposal(paths, ws.settings, "three", [{**patch, "find": "any", "replace": "every"}], NOW, {}, prompt("and", ()))
    approve(ws, "coder.p3", NOW + timedelta(minutes=2))
    assert "paths:" not in exported_in(alpha).read_text("utf-8")


def test_one_edited_file_is_too_little_to_narrow_a_skill(root, home, repos):
    alpha, _beta, _worktree = repos
    ws = open_ws(root, extra=LINK)
    paths = ws.agent("coder")
    record_places(paths, {"c1": str(alpha)})
    sources = {"u1": Source(id="u1", origin="user", text="check it", conversation="c1", edited=("src/api/a.py",))}
    create_proposal(paths, ws.settings, "one", [CREATE], NOW, {}, sources)
    approve(ws, "coder.p1", NOW)
    assert "paths:" not in exported_in(alpha).read_text("utf-8")
