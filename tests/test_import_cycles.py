"""The modules of mri_theory import each other without a cycle, function-level imports included.

The edges come from ``scripts/import_cycles.py`` (an ``ast`` walk over every ``import``
statement, wherever it stands, except under ``if TYPE_CHECKING:``); the detector is checked on
small packages written here, and the modules whose cycle was broken are imported first in fresh
interpreters to see which modules they load.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "import_cycles.py"


def _load_script():
    spec = importlib.util.spec_from_file_location("import_cycles", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


import_cycles = _load_script()


def _package(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "pkg"
    root.mkdir()
    (root / "__init__.py").write_text("")
    for name, text in files.items():
        (root / name).write_text(textwrap.dedent(text))
    return root


def test_the_package_has_no_import_cycle():
    edges = import_cycles.import_edges()
    assert "mri_theory.problems" in edges and "mri_theory.bayes_error" in edges["mri_theory.problems"]
    assert import_cycles.cycles(edges) == []


def test_problems_population_and_bayes_error_import_in_one_direction():
    edges = import_cycles.import_edges()
    assert "mri_theory.population" in edges["mri_theory.problems"]  # draw_replicate builds populations
    assert "mri_theory.problems" not in edges["mri_theory.population"]
    assert "mri_theory.problems" not in edges["mri_theory.bayes_error"]
    assert "mri_theory.population" not in edges["mri_theory.bayes_error"]


def test_the_detector_sees_function_level_imports(tmp_path):
    root = _package(tmp_path, {
        "a.py": "from pkg import b\n",
        "b.py": "def f():\n    from pkg.c import g\n    return g\n",
        "c.py": "import math\n\ndef g():\n    import pkg.a\n",
        "d.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg import a\nelse:\n    import pkg.c\n",
    })
    edges = import_cycles.import_edges(root)
    assert edges == {"pkg": set(), "pkg.a": {"pkg.b"}, "pkg.b": {"pkg.c"}, "pkg.c": {"pkg.a"}, "pkg.d": {"pkg.c"}}
    assert import_cycles.cycles(edges) == [["pkg.a", "pkg.b", "pkg.c", "pkg.a"]]


def test_the_detector_lists_each_cycle_once():
    edges = {"a": {"b", "c"}, "b": {"a", "c"}, "c": {"a"}, "d": {"d"}, "e": set()}
    assert import_cycles.cycles(edges) == [["d", "d"], ["a", "b", "a"], ["a", "c", "a"], ["a", "b", "c", "a"]]


@pytest.mark.parametrize("first, not_loaded", [
    ("mri_theory.population", "mri_theory.problems"),
    ("mri_theory.bayes_error", "mri_theory.problems"),
    ("mri_theory.bayes_error", "mri_theory.population"),
])
def test_a_module_imported_first_loads_no_module_above_it(first, not_loaded):
    code = f"import sys, {first}; print({not_loaded!r} in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
