"""A realistic demo workspace, written through the runtime API like a real agent would.

Five agents with different characters over three weeks: English, Chinese and
Spanish corrections; real and transient errors (time-outs, 429s, resets); aborted
turns; edited outputs; skills that help, fail or are never used; self notes; one
agent with nothing new since its last reflection. The same seed and anchor give
the same bytes.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

from orkas_tui.core.disk.write import atomic_write
from orkas_tui.core.read.settings import settings_path
from orkas_tui.core.read.timefmt import UTC, format_ts
from orkas_tui.core.read.workspace import Workspace, write_state
from orkas_tui.core.runtime import AgentRuntime, Conversation
from orkas_tui.core.store.changes import approve
from orkas_tui.core.store.proposals import create_proposal
from orkas_tui.core.store.skills import slugify
from orkas_tui.core.store.system_events import log_event

DEFAULT_ANCHOR = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)


@dataclass
class Clock:
    now: datetime

    def __call__(self) -> datetime:
        return self.now

    def tick(self, rng: random.Random, low: int = 2, high: int = 40) -> None:
        self.now += timedelta(seconds=rng.randint(low, high))


@dataclass
class Character:
    id: str
    name: str
    description: str
    tools: list[tuple[str, dict]]
    asks: list[str]
    corrections: list[str]
    real_errors: list[tuple[str, str]]  # (tool, message)
    transient_errors: list[tuple[str, str, int | None]]
    skills: list[tuple[str, str, str]]  # (name, description, body)
    used_skills: dict[str, float]  # slug -> chance of being read in a turn
    failing_skill: str | None
    profile: str
    strategies: str
    conversations: int
    tool_range: tuple[int, int]
    edit_chance: float = 0.08
    abort_chance: float = 0.05
    days_since_reflection: float | None = None
    first_day: int = 21
    fix: tuple[int, str, str] | None = None  # (after conversation n, find, replace): the failing skill patched then
    fail_chance: float = 0.7  # a turn that read the failing skill ends in its error (after the fix: a fifth of it)
    replies: list[str] = field(default_factory=lambda: ["Done.", "Here is the result.", "Finished; summary below."])


CHARACTERS = [
    Character(
        id="coder",
        name="Ada",
        description="Coding assistant for a TypeScript/Python monorepo; terse, runs the tests.",
        tools=[
            ("read_file", {"path": "src/api/client.ts"}),
            ("grep", {"pattern": "fetchUser"}),
            ("edit_file", {"path": "src/api/client.ts"}),
            ("bash", {"cmd": "pnpm -C web build"}),
            ("run_tests", {"target": "tests/unit"}),
            ("bash", {"cmd": "git diff --stat"}),
        ],
        asks=[
            "Add retry logic to the API client",
            "Rename fetchUser to loadUser everywhere",
            "Fix the flaky date test",
            "Add a --verbose flag to the CLI",
            "Bump the lockfile and make the build pass",
            "Write a unit test for parseConfig",
        ],
        corrections=[
            "Actually, use pnpm, not npm, in this repo",
            "That's not what I asked: keep the public API unchanged",
            "Wrong file, I meant src/api/client.ts",
            "Try again, and run the tests before you say it works",
            "It should be a keyword argument instead of a positional one",
        ],
        real_errors=[
            ("run_tests", "3 failed, 41 passed: AssertionError in test_parse_config"),
            ("bash", "npm ERR! ERESOLVE unable to resolve dependency tree"),
            ("edit_file", "old_string not found in src/api/client.ts"),
            ("bash", "exit status 2: tsc found 4 errors"),
        ],
        transient_errors=[
            ("bash", "ETIMEDOUT registry.npmjs.org", None),
            ("bash", "503 Service Unavailable from the package registry", 503),
            ("run_tests", "connection reset by peer while pulling the postgres image", None),
        ],
        skills=[
            (
                "Use pnpm in the monorepo",
                "When installing or running scripts in this repo, always use pnpm, never npm or yarn",
                "## Rule\nWhen a command installs packages or runs a script here, always use `pnpm` (`pnpm i`, `pnpm -C web build`).\n\n## Why\nThe lockfile is pnpm-lock.yaml; npm rewrites it.\n",
            ),
            (
                "Run tests before claiming done",
                "Before saying a change works, run the unit tests for the touched package",
                "## Rule\nWhen a change touches `src/`, always run `pnpm test -- --run <package>` before replying that it works.\n",
            ),
            (
                "Python type hints",
                "When writing Python, add type hints to every public function",
                "## Rule\nAlways annotate parameters and return types of public functions.\n",
            ),
            (
                "Legacy webpack config",
                "When editing webpack.config.js, keep the legacy loaders",
                "## Rule\nNever remove `babel-loader` from webpack.config.js; the legacy widgets need it.\n",
            ),
        ],
        used_skills={"use-pnpm-in-the-monorepo": 0.45, "run-tests-before-claiming-done": 0.3},
        failing_skill=None,
        profile="I do well at small, well-scoped refactors.\nI stumble on dependency installs: `bash` with npm in this monorepo, and `run_tests` when fixtures need a database.\n",
        strategies="- Always use pnpm here.\n- Run the touched package's tests before saying a change works.\n- Keep public APIs stable unless told otherwise.\n",
        conversations=12,
        tool_range=(2, 11),
        days_since_reflection=2.2,
    ),
    Character(
        id="researcher",
        name="Lin",
        description="中文研究助理: finds sources, checks figures, summarises papers.",
        tools=[
            ("web_search", {"q": "2023 新能源汽车 销量 统计"}),
            ("fetch_url", {"url": "https://example.org/report.pdf"}),
            ("summarize", {"max_words": 200}),
            ("fetch_url", {"url": "https://example.org/stats"}),
        ],
        asks=["查一下2023年新能源汽车的销量", "总结这篇论文的主要结论", "找三个关于储能成本的可靠来源", "对比一下两份报告的数据"],
        corrections=[
            "不对，应该是2023年的数据，不是2022年的",
            "错了，重新查一下官方统计",
            "这个来源不对，请用国家统计局的数据",
            "重新总结，控制在五点以内",
        ],
        real_errors=[
            ("fetch_url", "PDF parse failed: file is encrypted"),
            ("summarize", "input exceeds the summarizer's 20k-character limit"),
        ],
        transient_errors=[
            ("web_search", "429 Too Many Requests", 429),
            ("fetch_url", "connection reset by peer", None),
            ("fetch_url", "getaddrinfo failed: Name or service not known", None),
            ("web_search", "request timed out after 30s", None),
        ],
        skills=[
            (
                "官方统计优先",
                "When citing Chinese market figures, always prefer National Bureau of Statistics sources",
                "## 规则\n引用中国市场数据时，总是优先使用国家统计局或行业协会的原始数据。\n",
            )
        ],
        used_skills={slugify("官方统计优先"): 0.5},
        failing_skill=None,
        profile="I do well at finding primary sources.\nI stumble when `fetch_url` meets encrypted PDFs.\n",
        strategies="- 回答时先给结论，再给来源。\n- 数据必须注明年份。\n",
        conversations=9,
        tool_range=(2, 9),
        days_since_reflection=None,
        first_day=18,
    ),
    Character(
        id="writer",
        name="Sofía",
        description="Redactora de informes en español; formal tone, weekly reports for a family office.",
        tools=[
            ("draft", {"section": "resumen"}),
            ("style_check", {"guide": "formal"}),
            ("export_docx", {"file": "informe.docx"}),
        ],
        asks=[
            "Redacta el informe semanal de la cartera",
            "Resume la reunión del lunes",
            "Prepara el correo para los inversores",
            "Revisa el tono del informe",
        ],
        corrections=[
            "Incorrecto, el tono debería ser más formal",
            "En vez de viñetas usa párrafos cortos",
            "Otra vez, pero más corto: máximo cinco puntos",
            "En realidad la conclusión va primero",
        ],
        real_errors=[("export_docx", "template informe.dotx not found"), ("style_check", "unknown style guide 'formal-es'")],
        transient_errors=[("export_docx", "upstream service overloaded, try later", None), ("draft", "Gateway Timeout", 504)],
        skills=[
            (
                "Informe semanal",
                "When writing the weekly family-office report, always lead with the conclusion and keep at most 5 bullet points",
                "## Regla\nAl redactar el informe semanal, presenta siempre primero la conclusión y después el razonamiento.\nNunca más de 5 puntos en una lista.\n",
            ),
            (
                "Tono formal",
                "When writing to investors, always use usted and avoid exclamation marks",
                "## Regla\nCon inversores, usa siempre *usted* y nunca signos de exclamación.\n",
            ),
        ],
        used_skills={"informe-semanal": 0.6, "tono-formal": 0.25},
        failing_skill=None,
        profile="Escribo bien resúmenes ejecutivos.\nTropiezo con `export_docx` cuando falta la plantilla.\n",
        strategies="- La conclusión va primero.\n- Máximo cinco puntos por lista.\n",
        conversations=10,
        tool_range=(1, 5),
        edit_chance=0.35,
        days_since_reflection=0.1,
    ),
    Character(
        id="ops",
        name="Otto",
        description="Ops agent for a Kubernetes platform: deploys, rollbacks, incident triage.",
        tools=[
            ("kubectl", {"args": "get pods -n web"}),
            ("kubectl", {"args": "rollout status deploy/web"}),
            ("ssh", {"host": "bastion-1"}),
            ("terraform", {"args": "plan"}),
            ("curl", {"url": "https://status.internal/health"}),
            ("kubectl", {"args": "logs deploy/web --tail 200"}),
        ],
        asks=[
            "Roll back the web deployment to the previous release",
            "Why is the checkout service crash-looping?",
            "Scale the workers to 6 replicas",
            "Plan the terraform change for the new bucket",
            "Rotate the staging TLS certificate",
        ],
        corrections=[
            "No, use the staging context instead",
            "That's not the right namespace, I meant payments",
            "Wrong cluster. Try again on eu-west",
        ],
        real_errors=[
            ("kubectl", 'error: deployment "web" exceeded its progress deadline'),
            ("kubectl", "Error from server (Forbidden): pods is forbidden"),
            ("terraform", "Error: Invalid reference in main.tf line 42"),
            ("ssh", "Permission denied (publickey)"),
        ],
        transient_errors=[
            ("curl", "502 Bad Gateway", 502),
            ("kubectl", "dial tcp 10.0.0.12:6443: i/o timeout", None),
            ("ssh", "Connection refused", None),
        ],
        skills=[
            (
                "Rollback deployment",
                "When a deploy fails its rollout, roll back with kubectl rollout undo",
                "## Steps\n1. `kubectl rollout history deploy/<name>`\n2. `kubectl rollout undo deploy/<name>`\n3. Watch `rollout status`.\n",
            ),
            (
                "Check the context first",
                "Before any kubectl command, always print the current context and namespace",
                "## Rule\nAlways run `kubectl config current-context` before changing anything.\n",
            ),
            ("Terraform fmt", "When editing .tf files, run terraform fmt", "## Rule\nRun `terraform fmt` after every edit.\n"),
        ],
        used_skills={"rollback-deployment": 0.4, "check-the-context-first": 0.3},
        failing_skill="rollback-deployment",
        profile="I do well at read-only triage.\nI stumble with `kubectl` rollouts that need RBAC, and with `terraform` references.\n",
        strategies="- Confirm the cluster and namespace before acting.\n",
        conversations=11,
        tool_range=(5, 14),
        abort_chance=0.15,
        days_since_reflection=10.0,
        fix=(
            3,
            "3. Watch `rollout status`.",
            "3. Watch `rollout status`.\n4. When a rollout exceeds its progress deadline, check the pods' events "
            "(`kubectl describe pod`) before undoing again.",
        ),
    ),
    Character(
        id="archivist",
        name="Quill",
        description="Files and tags documents; quiet, nothing new since its last reflection.",
        tools=[("list_folder", {"path": "inbox"}), ("move_file", {"to": "archive/2026"}), ("tag", {"tags": ["invoice"]})],
        asks=["File the invoices from the inbox", "Tag last month's receipts"],
        corrections=["Actually, put receipts under finance/ instead"],
        real_errors=[("move_file", "destination exists: archive/2026/invoice-114.pdf")],
        transient_errors=[("list_folder", "network drive temporarily unavailable", None)],
        skills=[
            (
                "Invoice folders",
                "When filing invoices, always use archive/<year>/<vendor>/",
                "## Rule\nFile invoices as `archive/<year>/<vendor>/<file>`.\n",
            )
        ],
        used_skills={"invoice-folders": 0.7},
        failing_skill=None,
        profile="I file documents reliably.\n",
        strategies="- Ask before deleting anything.\n",
        conversations=3,
        tool_range=(1, 4),
        days_since_reflection=None,
        first_day=9,
    ),
]


def write_demo(root: Path, seed: int = 7, anchor: datetime = DEFAULT_ANCHOR) -> Path:
    """Write the demo workspace under ``root`` (which must not hold agents yet)."""
    root.mkdir(parents=True, exist_ok=True)
    if (root / "agents").exists() and any((root / "agents").iterdir()):
        raise FileExistsError(f"{root} already holds agents; choose an empty folder")
    atomic_write(settings_path(root), DEMO_TOML)
    for index, character in enumerate(CHARACTERS):
        _write_agent(root, character, random.Random(f"{seed}:{character.id}"), anchor, index)
    return root


DEMO_TOML = """\
# orkas-tui settings for the demo workspace. Every key is optional.
threshold = 0.7

[schedule]
cycle_interval = "12h30m"
cooldown = "4h"
force_after = "7d"
max_agents_per_cycle = 5

[model]
# any litellm model string; nothing is sent until you reflect
name = "openai/gpt-4o-mini"
api_key_env = "OPENAI_API_KEY"
"""


def _write_agent(root: Path, c: Character, rng: random.Random, anchor: datetime, index: int) -> None:
    start = anchor - timedelta(days=c.first_day, hours=index)
    clock = Clock(start)
    runtime = AgentRuntime(root, c.id, clock=clock)
    paths = runtime.paths
    atomic_write(paths.root / "agent.toml", f'name = "{c.name}"\ndescription = "{c.description}"\n')
    atomic_write(paths.note("profile"), c.profile)
    atomic_write(paths.note("strategies"), c.strategies)
    for name, description, body in c.skills:
        runtime.skills.create(name, description, body, clock(), by="reflection")
        clock.tick(rng)
    log_event(paths, "reflection", clock(), summary=f"Initial skills for {c.name}", operations=len(c.skills), by="demo")

    last_reflection = None if c.days_since_reflection is None else anchor - timedelta(days=c.days_since_reflection)
    quiet = c.id == "archivist"
    end = anchor - (timedelta(days=4) if quiet else timedelta(minutes=20))
    span = (end - start) / c.conversations
    fail_chance = c.fail_chance
    for n in range(c.conversations):
        if n == c.conversations - 1 and not quiet:  # the latest conversation runs up to the anchor
            clock.now = end - timedelta(minutes=rng.randint(60, 100))
        else:
            clock.now = (start + span * n + timedelta(minutes=rng.randint(5, 90))).replace(microsecond=0)
        conv = runtime.conversation(f"{(clock.now).strftime('%Y-%m-%d')}-{n + 1:02d}")
        running_last = c.id == "coder" and n == c.conversations - 1
        turns = rng.randint(2, 5)
        for t in range(turns):
            _play_turn(conv, c, rng, clock, running=running_last and t == turns - 1, fail_chance=fail_chance, first=t == 0)
            clock.now += timedelta(minutes=rng.randint(1, 25))
        if c.fix is not None and n == c.fix[0]:
            _fix_failing_skill(root, c, c.fix, clock())
            fail_chance = c.fail_chance / 5
        if c.id == "researcher" and n == 3:
            with open(conv.path, "ab") as handle:  # a crashed writer left half an event
                handle.write(b'{"ts": "' + format_ts(clock()).encode() + b'", "type": "assistant", "text": "\xe6\x95\xb0\n')
    if quiet:
        last_reflection = anchor - timedelta(days=2)
    if last_reflection is not None:
        write_state(paths, last_reflection_at=format_ts(last_reflection))
        log_event(paths, "reflection", last_reflection, summary="Patched skills after corrections", operations=1, by="demo")


def _fix_failing_skill(root: Path, c: Character, fix: tuple[int, str, str], now: datetime) -> None:
    """A reflection's patch to the failing skill, approved through the core, so the history has a change
    whose effect the turns after it show (``history`` and the app's skill history)."""
    _after, find, replace = fix
    workspace = Workspace.open(root)
    paths = workspace.agent(c.id)
    operations = [{"op": "patch_skill", "skill": c.failing_skill, "find": find, "replace": replace}]
    summary = "Rollouts kept failing after the skill's undo; add the step that finds why"
    proposal = create_proposal(paths, workspace.settings, summary, operations, now, {"model": "demo"})
    approve(workspace, proposal.id, now)
    log_event(paths, "reflection", now, summary=summary, operations=1, by="demo")


def _play_turn(
    conv: Conversation,
    c: Character,
    rng: random.Random,
    clock: Clock,
    running: bool = False,
    fail_chance: float = 0.7,
    first: bool = False,
) -> None:
    """One turn; a conversation's first asks (its task is never a correction)."""
    conv.start_turn()
    corrected = rng.random() < 0.28
    said = rng.choice(c.corrections) if corrected else rng.choice(c.asks)
    conv.user(c.asks[0] if first and corrected else said)  # drawn all the same: the demo's other choices stay put
    clock.tick(rng)
    read = [
        slug
        for slug, chance in c.used_skills.items()
        if slug in {s.slug for s in conv.runtime.skill_index()} and rng.random() < chance
    ]
    for slug in read:
        conv.read_skill(slug)
        clock.tick(rng, 1, 5)
    calls = rng.randint(*c.tool_range)
    real = transient = None
    if rng.random() < 0.3:
        real = rng.randrange(calls)
    if rng.random() < 0.25:
        transient = rng.randrange(calls)
    for i in range(calls):
        name, args = rng.choice(c.tools)
        call = conv.tool_call(name, args)
        clock.tick(rng)
        if i == real:
            _tool, message = rng.choice(c.real_errors)
            conv.tool_result(call, ok=False, error=message)
        elif i == transient:
            _tool, message, status = rng.choice(c.transient_errors)
            conv.tool_result(call, ok=False, error=message, status=status)
        else:
            conv.tool_result(call, ok=True, output=f"{name}: ok ({rng.randint(1, 400)} lines)")
        if running and i == calls // 2:
            return
    clock.tick(rng)
    failing = c.failing_skill in read and rng.random() < fail_chance
    roll = rng.random()
    if roll < c.abort_chance:
        conv.end_turn("aborted")
    elif failing:
        conv.end_turn("error", error=rng.choice(c.real_errors)[1])
    elif transient is not None and roll < 0.35:
        conv.end_turn("error", error=rng.choice(c.transient_errors)[1])
    else:
        conv.assistant(rng.choice(c.replies))
        conv.end_turn("ok")
        if rng.random() < c.edit_chance:
            clock.tick(rng, 60, 600)
            conv.output_edited()
