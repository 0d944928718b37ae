"""The repository is clean under ruff with its committed configuration (pyproject.toml, [tool.ruff]).

``ruff check`` runs at the repository root, as a developer would run it: it lints the package, the tests, the
scripts, the benchmarks, figures/diagnostics and the notebooks with the committed rules.  Skipped, with the extra
to install, when ruff is not installed.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from _optional import requires

ROOT = Path(__file__).resolve().parent.parent


@requires("ruff")
def test_ruff_check_finds_nothing():
    """``ruff check`` exits 0; otherwise the failure lists every finding (file:line:column: rule message)."""
    res = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format", "concise"],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    if res.returncode != 0:
        pytest.fail(f"ruff check found problems (exit {res.returncode}):\n{res.stdout}{res.stderr}", pytrace=False)
