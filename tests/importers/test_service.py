"""``orkas-tui service install|uninstall|status``: the daemon's user unit, written, shown and taken back."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

import pytest

from orkas_tui.cli import main


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    (home / ".orkas" / "agents").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    for name in ("ORKAS_HOME", "XDG_CONFIG_HOME"):
        monkeypatch.delenv(name, raising=False)
    return home


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(["service", *argv])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def test_install_status_uninstall_leaves_nothing_behind(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    unit = home / ".config" / "systemd" / "user" / "orkas-tui.service"
    assert "not installed" in run(capsys, "status")[1]
    code, out = run(capsys, "install")
    assert code == 0 and unit.exists() and "systemctl --user enable --now orkas-tui.service" in out
    code, out = run(capsys, "status")
    assert f"installed for {home / '.orkas'}" in out and "daemon: not running" in out
    wants = unit.parent / "default.target.wants" / "orkas-tui.service"
    wants.parent.mkdir()
    wants.symlink_to(unit)  # what `systemctl --user enable` leaves
    code, out = run(capsys, "uninstall", "--dry-run")
    assert code == 0 and "would remove" in out and unit.exists()
    code, out = run(capsys, "uninstall")
    assert code == 0 and not unit.exists() and not wants.is_symlink()
    assert sorted(p.name for p in unit.parent.rglob("*")) == ["default.target.wants"]


def test_uninstall_keeps_someone_elses_unit_and_waits_for_a_running_daemon(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    unit = home / ".config" / "systemd" / "user" / "orkas-tui.service"
    unit.parent.mkdir(parents=True)
    unit.write_text("[Service]\nExecStart=/mine\n")
    code, out = run(capsys, "uninstall")
    assert code == 2 and "is not the file orkas-tui writes" in out and unit.read_text() == "[Service]\nExecStart=/mine\n"
    unit.unlink()
    assert run(capsys, "install")[0] == 0
    lock = home / ".orkas" / ".orkas" / "daemon.lock"
    lock.parent.mkdir(exist_ok=True)
    fd = os.open(lock, os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # a daemon holds its lock
        os.write(fd, b"4242\n")
        assert "daemon: running (pid 4242)" in run(capsys, "status")[1]
        code, out = run(capsys, "uninstall")
        assert code == 2 and "the daemon still runs (pid 4242)" in out and unit.exists()
    finally:
        os.close(fd)
    assert run(capsys, "uninstall")[0] == 0 and not unit.exists()
