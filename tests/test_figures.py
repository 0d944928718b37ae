"""The figure registry and the ``mri-theory`` command line."""

from __future__ import annotations

import os
import platform
import re
import shutil
import subprocess
import sys
import sysconfig
import textwrap

import pytest

import mri_theory
from mri_theory import figures
from mri_theory.cli import main

pytestmark = pytest.mark.slow


def test_every_figure_is_registered_and_listed(capsys):
    names = figures.figure_names()
    assert {"qc_cases", "qc_vs_se_rs", "lambda_vs_noise", "noisy_selection_curves", "problems",
            "best_worst_curves", "single_realisation", "al_vs_rs", "greedy_vs_optimal", "estimator_quality",
            "estimator_errors", "truth_resolution", "leaderboard"} <= set(names)
    assert main(["figures", "--list"]) == 0
    out = capsys.readouterr().out
    for name in names:
        assert name in out


def test_quick_run_writes_png_and_pdf_for_every_figure(tmp_path):
    assert main(["figures", "--quick", "--out", str(tmp_path)]) == 0
    for name in figures.figure_names():
        for ext in ("png", "pdf"):
            path = tmp_path / f"{name}.{ext}"
            assert path.stat().st_size > 1000, path


def test_only_makes_the_named_figures(tmp_path):
    assert main(["figures", "--only", "qc_cases", "--quick", "--out", str(tmp_path)]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["VERSIONS.txt", "qc_cases.pdf", "qc_cases.png"]


def test_same_seed_gives_identical_files(tmp_path):
    for sub in ("a", "b"):
        main(["figures", "--only", "qc_vs_se_rs", "--quick", "--out", str(tmp_path / sub)])
    for ext in ("png", "pdf"):
        assert (tmp_path / "a" / f"qc_vs_se_rs.{ext}").read_bytes() == (
            tmp_path / "b" / f"qc_vs_se_rs.{ext}").read_bytes()


def test_unknown_figure_is_refused_with_the_known_names(tmp_path, capsys):
    assert main(["figures", "--only", "nope", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "nope" in err and "qc_cases" in err
    with pytest.raises(ValueError, match="known figures"):
        figures.get_figure("nope")


def test_console_script_is_installed():
    # Look beside this interpreter, so the test does not depend on the virtualenv being activated.
    script = shutil.which("mri-theory", path=sysconfig.get_path("scripts"))
    assert script is not None, f"no mri-theory script in {sysconfig.get_path('scripts')}"
    res = subprocess.run([script, "figures", "--list"], capture_output=True, text=True, check=True)
    assert "qc_cases" in res.stdout


def _module_versions() -> dict[str, str]:
    """Versions from the modules' own ``__version__`` and the interpreter: independent of package metadata."""
    import joblib
    import matplotlib
    import numpy
    import pandas
    import scipy
    import sklearn
    import sympy

    python = re.match(r"\d+\.\d+\.\d+", platform.python_version()).group()
    return {"python": python, "numpy": numpy.__version__, "scipy": scipy.__version__,
            "matplotlib": matplotlib.__version__, "pandas": pandas.__version__,
            "scikit-learn": sklearn.__version__, "sympy": sympy.__version__, "joblib": joblib.__version__,
            "mri-theory": mri_theory.__version__}


def test_versions_file_records_every_library_sorted(tmp_path):
    written = figures.make_figures(["qc_cases"], tmp_path, quick=True, progress=False)
    path = tmp_path / "VERSIONS.txt"
    assert path in written
    lines = [line for line in path.read_text(encoding="utf-8").splitlines() if not line.startswith("#")]
    pairs = [line.split("==") for line in lines]
    assert all(len(p) == 2 for p in pairs), lines
    names = [name for name, _ in pairs]
    assert names == sorted(names)
    assert dict(pairs) == _module_versions()


def test_versions_file_is_deterministic(tmp_path):
    """Same versions, same bytes: regenerating leaves a committed figures folder unchanged (no timestamps)."""
    for sub in ("a", "b"):
        main(["figures", "--only", "qc_cases", "--quick", "--out", str(tmp_path / sub)])
    first = (tmp_path / "a" / "VERSIONS.txt").read_bytes()
    assert first == (tmp_path / "b" / "VERSIONS.txt").read_bytes()
    main(["figures", "--only", "qc_cases", "--quick", "--out", str(tmp_path / "a")])  # rewrite in place
    assert (tmp_path / "a" / "VERSIONS.txt").read_bytes() == first
    assert not re.search(rb"\d{4}-\d{2}-\d{2}|\d{2}:\d{2}", first)


def test_importing_and_making_figures_leaves_the_backend_alone(tmp_path):
    """No ``matplotlib.use`` at import, no pyplot figures: a notebook's backend survives the figures."""
    code = textwrap.dedent(f"""
        import matplotlib
        assert matplotlib.get_backend() == "template", matplotlib.get_backend()
        import mri_theory.figures as figures
        assert matplotlib.get_backend() == "template", ("after import", matplotlib.get_backend())
        figures.make_figures(["qc_cases"], {str(tmp_path)!r}, quick=True, progress=False)
        assert matplotlib.get_backend() == "template", ("after make_figures", matplotlib.get_backend())
        import sys
        if "matplotlib.pyplot" in sys.modules:
            assert sys.modules["matplotlib.pyplot"].get_fignums() == [], "a pyplot figure was left open"
    """)
    env = {**os.environ, "MPLBACKEND": "template"}
    res = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True, env=env)
    assert res.returncode == 0, res.stderr
    assert (tmp_path / "qc_cases.png").read_bytes().startswith(b"\x89PNG")
    assert (tmp_path / "qc_cases.pdf").read_bytes().startswith(b"%PDF")
