"""Skill files written by the store are read without YAML, with exactly python-frontmatter's result."""

from __future__ import annotations

import frontmatter
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from orkas_tui.core.store.skills import Skill, _plain_front_matter, parse_skill

TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=40)
STAMP = st.one_of(st.none(), st.just("2026-11-30T09:00:00Z"), TEXT)


@settings(max_examples=400, deadline=None)
@given(name=TEXT, description=TEXT, body=TEXT, used=STAMP, patches=st.integers(0, 10**6))
def test_plain_reading_equals_frontmatter_or_defers_to_it(name: str, description: str, body: str, used, patches: int) -> None:
    text = Skill("s", name, description, "2026-11-01T00:00:00Z", "2026-11-02T00:00:00Z", patches, used, body).render()
    plain = _plain_front_matter(text)
    try:
        post = frontmatter.loads(text)
    except yaml.YAMLError:
        assert plain is None  # what YAML refuses is never read the plain way
        return
    if plain is not None:
        assert plain == (post.metadata, post.content)


def test_ordinary_skills_take_the_plain_path() -> None:
    text = Skill(
        "s",
        "Use pnpm — 官方",
        "When installing, always use pnpm",
        "2026-11-01T00:00:00Z",
        "2026-11-01T00:00:00Z",
        2,
        None,
        "## Rule\nAlways pnpm.\n",
    ).render()
    assert _plain_front_matter(text) is not None


def test_hand_written_yaml_defers_to_frontmatter() -> None:
    for text in (
        "---\nname: Plain words\ndescription: when x, do y\n---\nbody\n",
        '---\nname: "x" # a comment\n---\nbody\n',
        '---\nname: "x"\nname: "y"\n---\nbody\n',
        '---\nname: "a\\u2028b"\n---\nbody\n',
        '---\nname: "x"\npatchCount: 1e3\n---\n',
    ):
        assert _plain_front_matter(text) is None
    skill = parse_skill("s", b"---\nname: Plain words\ndescription: when x, do y\npatchCount: 3\n---\nbody\n")
    assert (skill.name, skill.description, skill.patch_count, skill.body) == ("Plain words", "when x, do y", 3, "body\n")


def test_crlf_in_a_body_defers_to_frontmatter() -> None:
    """Found by hypothesis: python-frontmatter reads CRLF as LF, so the plain path must not read it."""
    text = Skill("s", "n", "d", "2026-11-01T00:00:00Z", "2026-11-01T00:00:00Z", 0, None, "0\r\n0").render()
    assert _plain_front_matter(text) is None
    assert parse_skill("s", text.encode()).body == frontmatter.loads(text).content + "\n"
