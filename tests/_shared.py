"""Constants and helpers that several test files share (importable: ``pythonpath = ["tests"]``).

Fixtures shared by several files are in ``tests/conftest.py``.
"""

from __future__ import annotations

import contextlib
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

from mri_theory.runners import Execution, _curves

#: The runners' execution without a progress bar (in this process): ``run_curves(..., execution=QUIET)``.
QUIET = Execution(progress=False)
#: Two joblib worker processes, without a progress bar.
TWO_WORKERS = Execution(n_jobs=2, progress=False)
#: The Gaussian plug-in classifiers (one fitted-parameter fast path for their future losses).
GAUSSIAN_CLASSIFIERS = ("lda", "qda", "nb", "mean")


def snapshot(folder: Path) -> dict:
    """Every file under ``folder`` by relative path, as bytes; a study's ``timings.csv`` (the measured seconds
    of its tasks, different in every run) by its rows' keys only."""
    out = {}
    for p in sorted(folder.rglob("*")):
        if p.is_file():
            data = p.read_bytes()
            if p.name == "timings.csv":
                data = b"\n".join(sorted(line.rsplit(b",", 2)[0] for line in data.splitlines()))
            out[p.relative_to(folder)] = data
    return out


def count_pairs(monkeypatch) -> list:
    """Record the (strategy, replicate) pairs that ``run_curves`` computes."""
    calls = []
    original = _curves.run_pair

    def counting(cfg, strategy, replicate):
        calls.append((strategy, replicate))
        return original(cfg, strategy, replicate)

    monkeypatch.setattr(_curves, "run_pair", counting)
    return calls


#: A process that takes a folder's writer lock (``.lock``, ``fcntl.flock``) as a runner does, writes its pid into
#: it, prints "locked" and holds the lock until its stdin closes (or it is killed): ``python -c LOCK_HOLDER folder``.
LOCK_HOLDER = textwrap.dedent("""
    import fcntl, os, sys
    fd = os.open(os.path.join(sys.argv[1], ".lock"), os.O_RDWR | os.O_CREAT, 0o666)
    fcntl.flock(fd, fcntl.LOCK_EX)
    os.ftruncate(fd, 0)
    os.write(fd, f"{os.getpid()}\\n".encode())
    print("locked", flush=True)
    sys.stdin.read()  # hold the lock until the test closes stdin (or kills this process)
""")


@contextlib.contextmanager
def lock_held(folder: Path) -> Iterator[int]:
    """Another process holds ``folder``'s writer lock in the block (:data:`LOCK_HOLDER`); yields its pid."""
    holder = subprocess.Popen([sys.executable, "-c", LOCK_HOLDER, str(folder)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        yield holder.pid
    finally:
        holder.kill()
        holder.wait(timeout=30)
