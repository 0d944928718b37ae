"""Packaging and test hygiene: version, license, typing marker, dependencies, markers, ignores."""

from __future__ import annotations

import ast
import importlib.metadata
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from _optional import need
from packaging.requirements import Requirement
from packaging.version import Version

import mri_theory

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    tomllib = need("tomli")

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = Path(mri_theory.__file__).resolve().parent
DIST = "mri-theory"


@pytest.fixture(scope="module")
def pyproject() -> dict:
    with open(ROOT / "pyproject.toml", "rb") as fh:
        return tomllib.load(fh)


def test_version_has_a_single_source(pyproject):
    """pyproject takes the version from ``mri_theory.__version__``, and the installed metadata agrees."""
    project = pyproject["project"]
    assert "version" not in project, "a literal version in pyproject would be a second source"
    assert "version" in project["dynamic"]
    assert pyproject["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "mri_theory.__version__"}
    assert importlib.metadata.version(DIST) == mri_theory.__version__


def test_the_citation_files_name_the_version():
    """``CITATION.cff`` and the docs' citing page give the package's version (bumped with it), and cite the paper."""
    cff = (ROOT / "CITATION.cff").read_text(encoding="utf-8")
    versions = [line.split(":", 1)[1].strip() for line in cff.splitlines() if line.startswith("version:")]
    assert versions == [mri_theory.__version__]
    assert "Estimating Optimal Active Learning via Model Retraining Improvement" in cff
    page = (ROOT / "docs" / "citing.md").read_text(encoding="utf-8")
    assert f"version = {{{mri_theory.__version__}}}" in page


def test_version_is_a_literal_so_the_build_imports_nothing():
    """setuptools reads ``attr`` statically only if it is a literal; then nothing of the package is imported."""
    tree = ast.parse((PACKAGE / "__init__.py").read_text(encoding="utf-8"))
    values = [node.value for node in tree.body if isinstance(node, ast.Assign)
              and any(isinstance(t, ast.Name) and t.id == "__version__" for t in node.targets)]
    assert len(values) == 1 and isinstance(values[0], ast.Constant) and isinstance(values[0].value, str)
    assert values[0].value == mri_theory.__version__
    # And importing the package itself stays light.
    code = "import sys, mri_theory; print(sorted({'numpy', 'scipy', 'matplotlib', 'pandas'} & set(sys.modules)))"
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert res.stdout.strip() == "[]"


#: The module paths removed in 0.2.0 (deprecated in 0.1) -> a module of their new home.
REMOVED_PATHS = {
    "sandbox": "runners.sandbox", "study": "runners.study", "metrics": "evaluation.metrics",
    "ranking": "evaluation.ranking", "tables": "evaluation.tables", "population": "engine.population",
    "losses": "engine.losses", "retraining": "engine.retraining", "targets": "engine.targets",
    "two_gaussians": "analytic.two_gaussians", "guarantee": "analytic.guarantee", "nonmyopic": "analytic.nonmyopic",
    "symbolic": "analytic.symbolic", "quadrature": "analytic.quadrature", "noisy_selection": "runners.noisy_selection",
    "bayes_error": "problems.bayes_error", "adapters": "strategies.skactiveml", "diagnostics": "runners.states",
    "diagnostics.states": "runners.states", "diagnostics.summaries": "evaluation.summaries",
    "classifiers.base": "engine.contract",
}


def test_the_removed_paths_are_gone_and_the_changelog_names_their_new_home():
    """0.2.0 removed the deprecated paths: none is a module any more, and CHANGELOG.md has a row for each naming
    its new module."""
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    for old, new in REMOVED_PATHS.items():
        assert not (PACKAGE / (old.replace(".", "/") + ".py")).exists()
        assert not (PACKAGE / old.replace(".", "/") / "__init__.py").exists()
        assert f"| `mri_theory.{old}` | `mri_theory.{new}`" in changelog, old


def test_license_file_matches_the_declared_license(pyproject):
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License\n")
    assert "Copyright (c) 2026 the mri-theory developers" in text
    assert 'THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND' in text
    assert pyproject["project"]["license"] == "MIT"
    assert pyproject["project"]["license-files"] == ["LICENSE"]
    # The installed distribution carries both the SPDX expression and the file.
    assert importlib.metadata.metadata(DIST)["License-Expression"] == "MIT"
    files = importlib.metadata.files(DIST) or []
    assert any(f.name == "LICENSE" for f in files)


def test_typing_marker_ships_as_package_data(pyproject):
    assert (PACKAGE / "py.typed").is_file()
    assert "py.typed" in pyproject["tool"]["setuptools"]["package-data"]["mri_theory"]


def test_the_shipped_data_files_are_package_data(pyproject):
    """Every file of ``problems/small_data/`` matches a package-data pattern (else a wheel would lack it)."""
    patterns = pyproject["tool"]["setuptools"]["package-data"]["mri_theory"]
    files = sorted(p.relative_to(PACKAGE).as_posix() for p in (PACKAGE / "problems" / "small_data").iterdir())
    assert {f.rsplit(".", 2)[-1] for f in files} == {"gz", "md"} and len(files) == 6
    for file in files:
        assert any(Path(file).match(pattern) for pattern in patterns), file


def test_joblib_is_a_core_dependency_new_enough_for_unordered_generators():
    """The sandbox uses ``Parallel(return_as="generator_unordered")``, new in joblib 1.4."""
    requirements = [Requirement(r) for r in importlib.metadata.requires(DIST) or []]
    joblib = [r for r in requirements if r.name == "joblib"]
    assert len(joblib) == 1 and joblib[0].marker is None, "joblib must be a core (not extra) dependency"
    assert "1.4.0" in joblib[0].specifier and "1.3.2" not in joblib[0].specifier


def test_slow_marker_is_registered_and_strict(pytestconfig):
    assert any(line.startswith("slow:") for line in pytestconfig.getini("markers"))
    assert pytestconfig.option.strict_markers


@pytest.mark.slow  # a long statistical or quadrature check
def test_figure_and_notebook_tests_are_marked_slow():
    """``-m 'not slow'`` deselects every figure test and every notebook run; ``-m slow`` selects them.

    The fast selection of these modules keeps only the static notebook checks (present, committed without
    outputs, one offers sliders), which read the files and execute nothing.
    """
    modules = [str(ROOT / "tests" / "test_figures.py"), str(ROOT / "tests" / "test_notebooks.py")]
    base = [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *modules]
    fast = subprocess.run([*base, "-m", "not slow"], check=False, capture_output=True, text=True, cwd=ROOT)
    assert fast.returncode == pytest.ExitCode.OK, fast.stdout + fast.stderr
    collected = [line for line in fast.stdout.splitlines() if "::" in line]
    static = ("test_notebooks.py::test_notebooks_exist", "test_notebooks.py::test_notebook_is_committed_clean[",
              "test_notebooks.py::test_a_notebook_offers_sliders")
    assert collected and all(any(name in line for name in static) for line in collected), fast.stdout
    slow = subprocess.run([*base, "-m", "slow"], check=False, capture_output=True, text=True, cwd=ROOT)
    assert slow.returncode == pytest.ExitCode.OK, slow.stdout + slow.stderr
    assert "test_figures.py::" in slow.stdout and "test_notebooks.py::" in slow.stdout


def test_virtualenv_folders_are_ignored():
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git work tree")
    paths = [".venv/pyvenv.cfg", "venv/pyvenv.cfg"]
    res = subprocess.run(["git", "check-ignore", "--no-index", *paths], check=False, capture_output=True, text=True,
                         cwd=ROOT)
    assert res.stdout.split() == paths, res.stdout + res.stderr


def test_the_floor_environment_pins_every_declared_minimum(pyproject):
    """.ci/floor-constraints.txt pins each core dependency at exactly the lowest version pyproject allows, and
    .ci/run runs the tests in that environment (issue 40: no CI checked the declared lower bounds)."""
    declared = {}
    for line in pyproject["project"]["dependencies"]:
        requirement = Requirement(line)
        (minimum,) = [spec.version for spec in requirement.specifier if spec.operator == ">="]
        declared[requirement.name.lower()] = Version(minimum)
    pinned = {}
    for line in (ROOT / ".ci" / "floor-constraints.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            requirement = Requirement(line)
            (spec,) = requirement.specifier
            assert spec.operator == "==", line
            pinned[requirement.name.lower()] = Version(spec.version)
    assert pinned == declared
    assert "floor-constraints.txt" in (ROOT / ".ci" / "run").read_text()
