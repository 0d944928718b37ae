"""The same bytes on any CPU: every figure at two CPU dispatch levels, in one run (issue 54, part 1).

Three things pick their code by the CPU: numpy's vectorised loops (``exp``, ``log``, ``log10``, ``power``: AVX-512
or the baseline), OpenBLAS's kernels (the summation order of a dot product: SkylakeX, Haswell, ...) and numba,
which compiles for the host CPU.  The committed ``truth_resolution`` figure once differed between an AVX-512 and an
AVX2 machine: 5-NN's Q^c of candidates that change nothing (0 in exact arithmetic, about 1e-17 in floating point,
its sign set by the dot product's kernel and the ``exp``'s loop) was ranked as it came.

So each registered figure is made twice at its quick size (``tests/_dispatch_data.py``, in fresh interpreters):
at this machine's dispatch level, and at the lowest one: ``NPY_DISABLE_CPU_FEATURES`` set to every extension numpy
dispatches above its baseline, ``OPENBLAS_CORETYPE=Prescott`` (OpenBLAS's SSE3 kernels, on x86-64) and
``NUMBA_CPU_NAME=generic`` with a fresh ``NUMBA_CACHE_DIR`` (numba's on-disk cache holds code compiled for
another CPU).  Then

* the PNG and the PDF each figure writes must be the same bytes, and its texts the same strings;
* every number it draws (lines, markers, collections, images, patches, axis limits: ``_dispatch_data.drawn_data``)
  must agree within ``RTOL`` (relative) or ``ATOL``: a choice, a rank or a threshold that moves with the last
  bits moves a drawn value by far more (the old ``truth_resolution``: 0.012 at the quick size).  The values are
  not all the same bits: a vectorised ``exp`` or ``log`` differs by an ulp between the levels, and with it, for
  example, a loss curve (at most 2.5e-12 relative in a drawn value, measured; no file changes).

And the committed studies' recomputed curves (``tests/runners/test_committed_study.py``) are recomputed at the
lowest level too.  About 3 minutes on 2 cores (the low processes compile the numba kernels for the generic CPU):
``slow``.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from mri_theory import figures

pytestmark = pytest.mark.slow

SCRIPT = Path(__file__).resolve().parent / "_dispatch_data.py"
#: The variables that set a dispatch level; the default process runs without them.
DISPATCH_VARIABLES = ("NPY_DISABLE_CPU_FEATURES", "NPY_ENABLE_CPU_FEATURES", "OPENBLAS_CORETYPE", "NUMBA_CPU_NAME",
                      "NUMBA_CPU_FEATURES", "NUMBA_CACHE_DIR")


def _numpy_dispatch() -> list[str]:
    """The SIMD extensions numpy dispatches above its baseline that this CPU has (what ``NPY_DISABLE_CPU_FEATURES``
    may turn off)."""
    try:
        from numpy._core import _multiarray_umath as umath
    except ImportError:  # numpy < 2
        from numpy.core import _multiarray_umath as umath
    return [name for name in umath.__cpu_dispatch__ if umath.__cpu_features__.get(name)]


def _low_environment(cache: Path) -> dict[str, str]:
    """The environment of the lowest dispatch level."""
    env = {key: value for key, value in os.environ.items() if key not in DISPATCH_VARIABLES}
    env.update(NUMBA_CPU_NAME="generic", NUMBA_CACHE_DIR=str(cache))
    if _numpy_dispatch():
        env["NPY_DISABLE_CPU_FEATURES"] = " ".join(_numpy_dispatch())
    if platform.machine().lower() in ("x86_64", "amd64"):
        env["OPENBLAS_CORETYPE"] = "Prescott"
    return env


#: The stated tolerances of a drawn number (module docstring).
RTOL, ATOL = 1e-9, 1e-12


def _figure_data(out: Path, env: dict[str, str]) -> tuple[dict, dict[str, np.ndarray]]:
    done = subprocess.run([sys.executable, str(SCRIPT), str(out)], env=env, capture_output=True, text=True,
                          timeout=1800)
    assert done.returncode == 0, done.stderr[-3000:]
    with np.load(f"{out}.npz") as arrays:
        return json.loads(Path(f"{out}.json").read_text(encoding="utf-8")), dict(arrays)


@pytest.fixture(scope="module")
def low_environment(tmp_path_factory) -> dict[str, str]:
    """The lowest dispatch level's environment, with one fresh numba cache for the module's tests."""
    return _low_environment(tmp_path_factory.mktemp("numba-generic"))


def test_every_figure_is_the_same_at_two_dispatch_levels(tmp_path, low_environment):
    default_env = {key: value for key, value in os.environ.items() if key not in DISPATCH_VARIABLES}
    high, high_arrays = _figure_data(tmp_path / "high", default_env)
    low, low_arrays = _figure_data(tmp_path / "low", low_environment)
    # the low process did run lower: nothing above numpy's baseline, numba's generic CPU
    assert low["level"]["numpy_dispatch"] == [] and low["level"]["numba_cpu"] == "generic", low["level"]
    if high["level"] == low["level"]:
        pytest.skip(f"this machine dispatches nothing above the baseline ({high['level']})")
    levels = f"{high['level']} against {low['level']}"
    assert sorted(high["files"]) == sorted(low["files"]) == sorted(figures.figure_names())
    moved_files = [name for name in high["files"] if high["files"][name] != low["files"][name]]
    assert not moved_files, f"figure files that depend on the CPU's dispatch ({levels}): {moved_files}"
    assert high["texts"] == low["texts"]
    assert high_arrays.keys() == low_arrays.keys()
    moved = {}
    for key, value in high_arrays.items():
        other = low_arrays[key]
        if value.shape != other.shape or not np.allclose(value, other, rtol=RTOL, atol=ATOL, equal_nan=True):
            moved[key] = (value.shape, other.shape) if value.shape != other.shape else float(
                np.nanmax(np.abs(value - other)))
    assert not moved, f"drawn numbers that depend on the CPU's dispatch ({levels}): {moved}"


def test_committed_curves_are_recomputed_at_the_lowest_dispatch_level(low_environment):
    """The committed studies' recomputed curves (``tests/runners/test_committed_study.py``: a few pairings of
    each study, the same chosen points as the archive and losses within 1e-12, relative) at the lowest dispatch
    level, all run, none skipped: the committed tables do not depend on the CPU that made them."""
    assert low_environment["NUMBA_CPU_NAME"] == "generic"
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
                           str(Path(__file__).resolve().parent / "runners" / "test_committed_study.py"),
                           "-k", "test_stored_curves_are_recomputed"], env=low_environment, capture_output=True,
                          text=True, timeout=1800, cwd=Path(__file__).resolve().parent.parent)
    summary = done.stdout.strip().splitlines()[-1]
    assert done.returncode == 0 and " passed" in summary and "skipped" not in summary, done.stdout[-3000:]
