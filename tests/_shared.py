"""Constants and helpers that several test files share (importable: ``pythonpath = ["tests"]``).

Fixtures shared by several files are in ``tests/conftest.py``.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import re
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import numpy as np

from mri_theory.runners import Execution, _curves

#: The runners' execution without a progress bar (in this process): ``run_curves(..., execution=QUIET)``.
QUIET = Execution(progress=False)
#: Two joblib worker processes, without a progress bar.
TWO_WORKERS = Execution(n_jobs=2, progress=False)
#: numpy's ComplexWarning (``numpy.exceptions`` from numpy 1.25; the top-level name before, and in the floor's 1.24).
COMPLEX_WARNING = getattr(np, "exceptions", np).ComplexWarning

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


# ---------------------------------------------------------------------------------------------- the paper's source

#: The paper's LaTeX source (``mri-paper.tex``): ``$MRI_PAPER_TEX``, else ``shared/reference/mri-paper.tex`` beside
#: the repository (``../shared/reference`` from its root, where the project keeps it).
PAPER_TEX = Path(os.environ.get("MRI_PAPER_TEX")
                 or Path(__file__).resolve().parents[2] / "shared" / "reference" / "mri-paper.tex")

#: The repository's excerpt of it: every line of its table environments as ``<line number>|<text>``
#: (``scripts/paper_excerpt.py``; checked against the full source by ``tests/evaluation/test_tables.py``).
PAPER_EXCERPT = Path(__file__).resolve().parent / "data" / "mri-paper-tables.txt"


def excerpt_lines() -> dict[int, str]:
    """The excerpt's lines by their line number in the paper's source."""
    out = {}
    for line in PAPER_EXCERPT.read_text(encoding="utf-8").splitlines():
        if not line.startswith("#"):
            number, _, text = line.partition("|")
            out[int(number)] = text
    return out


def paper_lines() -> list[str]:
    """The lines of the paper's LaTeX source (line ``i`` at index ``i - 1``): the full source where it is present,
    else the excerpt, with the lines outside its tables empty (so every table keeps its line numbers)."""
    if PAPER_TEX.is_file():
        return PAPER_TEX.read_text(encoding="utf-8").splitlines()
    excerpt = excerpt_lines()
    return [excerpt.get(number, "") for number in range(1, max(excerpt) + 1)]


def _plain(cell: str) -> str:
    """A table cell without ``\\makecell{}``/``\\textbf{}`` and surrounding blanks."""
    return re.sub(r"\\(?:makecell|textbf)\{([^{}]*)\}", r"\1", cell).strip()


def paper_table_rows(label: str) -> list[tuple[int, list[str]]]:
    """The rows of the table environment labelled ``label`` in the paper's source: ``(line number, cells)``.

    A row is a line with ``&`` that ends in ``\\\\``; its cells are split at ``&``, without markup.
    """
    lines = paper_lines()
    starts = [i for i, line in enumerate(lines) if f"\\label{{{label}}}" in line]
    assert len(starts) == 1, f"\\label{{{label}}} occurs {len(starts)} times in {PAPER_TEX}"
    rows = []
    for number, line in enumerate(lines[starts[0]:], start=starts[0] + 1):
        if "\\end{table}" in line:
            break
        text = line.rstrip()
        if "&" in text and text.endswith("\\\\"):
            rows.append((number, [_plain(cell) for cell in text[:-2].split("&")]))
    return rows


# ---------------------------------------------------------------- the documentation's pages

#: The repository's root and its documentation folder.
REPOSITORY = Path(__file__).resolve().parent.parent
DOCS = REPOSITORY / "docs"
#: A fenced Python block of a Markdown page (its code is group 1).
PYTHON_BLOCK = re.compile(r"^```python\n(.*?)^```", re.MULTILINE | re.DOTALL)
#: What the documentation build writes (git-ignored, absent from a fresh clone).
DOCS_BUILD_OUTPUTS = tuple(DOCS / name for name in ("_build", "notebooks", "api/generated", "runs"))


def is_docs_build_output(path: Path) -> bool:
    """Whether ``path`` is written by the documentation build: under :data:`DOCS_BUILD_OUTPUTS`, or one of the
    reference pages ``docs/api/*.rst`` that ``docs/conf.py`` generates."""
    path = path.resolve()
    generated_page = path.parent == DOCS / "api" and path.suffix == ".rst"
    return generated_page or any(path.is_relative_to(out) for out in DOCS_BUILD_OUTPUTS)


def documentation_pages() -> list[Path]:
    """The documentation's own Markdown pages, as a fresh clone has them."""
    return [page for page in sorted(DOCS.rglob("*.md")) if not is_docs_build_output(page)]



def api_names() -> ModuleType:
    """``docs/_api_names.py``, the module that lists the public names the API reference documents."""
    sys.path.insert(0, str(DOCS))
    try:
        return importlib.import_module("_api_names")
    finally:
        sys.path.remove(str(DOCS))
