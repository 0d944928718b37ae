"""The package is clean under mypy with its committed configuration (pyproject.toml, [tool.mypy]).

``mypy`` runs at the repository root, as a developer would run it: it checks the package ``mri_theory``
(``files`` in the configuration) with the committed settings, pandas' types from pandas-stubs.  Skipped,
with the extra to install, when mypy is not installed.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from _optional import requires

ROOT = Path(__file__).resolve().parent.parent


@requires("mypy")
def test_mypy_finds_nothing():
    """``mypy`` exits 0; otherwise the failure lists every finding (file:line: error: message [code])."""
    res = subprocess.run([sys.executable, "-m", "mypy", "--no-color-output", "--no-pretty"],
                         cwd=ROOT, capture_output=True, text=True, timeout=600)
    if res.returncode != 0:
        pytest.fail(f"mypy found problems (exit {res.returncode}):\n{res.stdout}{res.stderr}", pytrace=False)
