"""A full disk while an output folder is staged: one library error naming the folder and saying the earlier
output is intact, nothing left behind; leftovers of dead or long-gone runs are swept by the next run (issue 48).

The full disk is real where this process may mount a tiny tmpfs (root); elsewhere the same write fails by an
``OSError(ENOSPC)`` raised at the OS boundary (``os.mkdir`` / ``Path.write_text``), the call a full disk fails.
"""

from __future__ import annotations

import errno
import os
import subprocess
import time
import uuid
from pathlib import Path

import pytest

from icml_topics.errors import IcmlTopicsError, OutputWriteError
from icml_topics.store.folders import output_folder, verify_folder
from icml_topics.store.swap import STAGING_MARK


def _write(out: Path, payload: bytes) -> None:
    with output_folder(out) as staging:
        (staging / "topics.csv").write_bytes(payload)


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture
def tiny_disk(tmp_path):
    """A 256 KiB tmpfs, unmounted afterwards; skipped where mounting is not allowed."""
    mount = tmp_path / f"disk-{uuid.uuid4().hex[:6]}"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(mount)], capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({done.stderr.decode().strip()})")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def _fill(disk: Path) -> None:
    fd = os.open(disk / "filler", os.O_CREAT | os.O_WRONLY)
    try:
        while True:
            os.write(fd, b"x" * 4096)
    except OSError as exc:
        assert exc.errno == errno.ENOSPC
    finally:
        os.close(fd)


def _assert_refused_cleanly(out: Path, before: dict[str, bytes], err: pytest.ExceptionInfo) -> None:
    message = str(err.value)
    assert isinstance(err.value, IcmlTopicsError) and isinstance(err.value, OSError)
    assert str(out) in message and "disk is full" in message and "earlier output there is intact" in message
    assert _snapshot(out) == before
    verify_folder(out)
    assert sorted(p.name for p in out.parent.iterdir() if p.name != "filler") == [out.name]  # no probe, no staging


def test_a_really_full_disk_keeps_the_earlier_output_and_leaves_nothing(tiny_disk):
    out = tiny_disk / "out"
    _write(out, b"topic,label\n0,first\n")
    before = _snapshot(out)
    _fill(tiny_disk)
    with pytest.raises(OutputWriteError) as err:
        _write(out, b"topic,label\n" + b"0,a longer second output\n" * 2000)
    _assert_refused_cleanly(out, before, err)


def test_a_full_disk_when_the_staging_folder_is_made(tmp_path, monkeypatch):
    """The failure of the issue: the staging marker cannot be written (before: a bare Errno 28 and an empty
    .out.probe-<pid>/ left behind)."""
    out = tmp_path / "out"
    _write(out, b"topic,label\n0,first\n")
    before = _snapshot(out)
    real = Path.write_text

    def full(self, *args, **kwargs):
        if self.name == STAGING_MARK:
            self.touch()  # the file is created, its bytes do not fit
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(self))
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Path, "write_text", full)
    with pytest.raises(OutputWriteError) as err:
        _write(out, b"second\n")
    _assert_refused_cleanly(out, before, err)


def test_a_full_disk_when_the_probe_folder_is_made(tmp_path, monkeypatch):
    out = tmp_path / "out"
    _write(out, b"topic,label\n0,first\n")
    before = _snapshot(out)
    real = os.mkdir

    def full(path, *args, **kwargs):
        if ".probe-" in os.fspath(path):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), os.fspath(path))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(os, "mkdir", full)
    with pytest.raises(OutputWriteError) as err:
        _write(out, b"second\n")
    _assert_refused_cleanly(out, before, err)


def _leftover(parent: Path, name: str, pid: int, age_s: float) -> Path:
    path = parent / name.format(pid=pid)
    path.mkdir()
    (path / STAGING_MARK).write_text(str(pid), encoding="utf-8")
    (path / "half.csv").write_text("a\n", encoding="utf-8")
    if name.startswith(".out.probe"):
        (path / "half.csv").unlink()
    then = time.time() - age_s
    for p in [*path.iterdir(), path]:
        os.utime(p, (then, then), follow_symlinks=False)
    return path


def _dead_pid() -> int:
    child = subprocess.Popen(["true"])
    child.wait()
    return child.pid


@pytest.mark.parametrize("name", ["out.tmp-{pid}", ".out.probe-{pid}"])
def test_the_next_run_sweeps_leftovers_of_dead_and_long_gone_runs(tmp_path, name):
    out = tmp_path / "out"
    # pids alive but not ours: reused by other processes after the runs that made these were killed
    dead = _leftover(tmp_path, name, _dead_pid(), age_s=5)
    old = _leftover(tmp_path, name, 1, age_s=3 * 24 * 3600)
    recent = _leftover(tmp_path, name, os.getppid(), age_s=5)  # perhaps a run writing now: never touched
    _write(out, b"topic\n")
    assert not dead.exists() and not old.exists()
    assert recent.is_dir() and (recent / STAGING_MARK).is_file()


def test_a_users_folder_named_like_a_leftover_is_never_swept(tmp_path):
    out = tmp_path / "out"
    mine = tmp_path / f"out.tmp-{_dead_pid()}"
    mine.mkdir()
    (mine / "notes.txt").write_text("mine\n", encoding="utf-8")
    _write(out, b"topic\n")
    assert (mine / "notes.txt").read_text(encoding="utf-8") == "mine\n"
