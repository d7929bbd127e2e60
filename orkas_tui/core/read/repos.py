"""The git repository a folder belongs to, read from the files git leaves (no ``git`` subprocess).

A session's folder belongs to the nearest ancestor holding ``.git``. A linked worktree's
``.git`` is a file (``gitdir: <main>/.git/worktrees/<name>``) whose folder names the shared
git folder in ``commondir``: the worktree resolves to its main repository, so every
worktree of one repository is one scope. A submodule's ``.git`` file has no ``commondir``:
it is a repository of its own. A worktree of a bare repository (no main working tree)
counts as its own folder.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

GITDIR = "gitdir:"
HEAD_BYTES = 4_096  # a .git file holds one short line


@dataclass(frozen=True)
class Repository:
    """``root``: the main working tree (a scope's name and where its skills go);
    ``git_dir``: the git folder all its worktrees share (``info/exclude`` is there)."""

    root: Path
    git_dir: Path

    @property
    def exclude(self) -> Path:
        return self.git_dir / "info" / "exclude"

    def worktrees(self) -> list[Path]:
        """The linked worktrees on this machine (each ``<git_dir>/worktrees/<name>/gitdir`` names one's ``.git``
        file), sorted: an agent started in one reads the skills of that worktree, not the main tree's."""
        found = []
        for record in sorted((self.git_dir / "worktrees").glob("*/gitdir")):
            try:
                marker = Path(record.read_text("utf-8").strip())
                if marker.name == ".git" and marker.is_file() and repository_of(marker.parent) == self:
                    found.append(marker.parent)
            except (OSError, UnicodeDecodeError):
                continue
        return found


def repository_of(folder: Path | str) -> Repository | None:
    """The repository ``folder`` is in (it need not exist any more: its ancestors are looked at),
    or ``None`` when no ancestor holds a ``.git``."""
    start = Path(os.path.realpath(os.path.expanduser(os.fspath(folder))))
    for candidate in (start, *start.parents):
        marker = candidate / ".git"
        try:
            if marker.is_dir():
                return Repository(candidate, marker)
            if marker.is_file():
                found = _linked(candidate, marker)
                if found is not None:
                    return found
        except OSError:  # unreadable: not a repository we can name
            continue
    return None


def _linked(worktree: Path, marker: Path) -> Repository | None:
    """A ``.git`` file: the main repository of a worktree, or the folder itself (a submodule, a bare repository's worktree)."""
    with open(marker, "rb") as handle:
        head = handle.read(HEAD_BYTES).decode("utf-8", "replace").strip()
    if not head.startswith(GITDIR):
        return None
    gitdir = Path(head[len(GITDIR) :].strip())
    gitdir = Path(os.path.realpath(worktree / gitdir))
    try:
        common_text = (gitdir / "commondir").read_text("utf-8").strip()
    except (FileNotFoundError, NotADirectoryError, UnicodeDecodeError):
        return Repository(worktree, gitdir)
    common = Path(os.path.realpath(gitdir / common_text))
    if common.name == ".git" and common.is_dir():
        return Repository(common.parent, common)
    return Repository(worktree, common)  # a bare repository: no main working tree to export into


def worktree_top(path: Path | str) -> Path | None:
    """The working tree ``path`` lies in (the nearest folder above it holding ``.git``, a folder or a worktree's
    file), or ``None``: what a file's repository-relative path is taken from."""
    for folder in Path(path).expanduser().parents:
        if (folder / ".git").exists():
            return folder
    return None
