"""The figure registry behind ``mri-theory figures``.

Each figure lives in its own module under :mod:`mri_theory.figures`, which
registers a ``make(quick, rng)`` function returning a
:class:`matplotlib.figure.Figure`.  The registry gives it a generator seeded by
the figure's fixed seed and writes the figure as PNG and PDF, and records the
library versions in ``VERSIONS.txt`` beside them.  Later modules extend the
registry by adding their module name to :data:`FIGURE_MODULES`.

Figures are built as bare :class:`~matplotlib.figure.Figure` objects, not
through :mod:`matplotlib.pyplot`: saving needs no backend (``savefig`` picks the
Agg canvas for PNG and the PDF canvas by itself), so importing this package
changes no global matplotlib state and works before or after ``%matplotlib
inline``.  In a notebook, show a figure by making it a cell's last expression.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure

from mri_theory._utils import validation as check
from mri_theory._utils.backends import one_thread
from mri_theory._utils.versions import VERSIONED_DISTRIBUTIONS, library_versions

__all__ = ["FigureSpec", "register", "figure_names", "get_figure", "make_figures", "library_versions",
           "FIGURE_MODULES", "VERSIONED_DISTRIBUTIONS", "VERSIONS_FILE"]

#: Modules that define figures, imported on first use of the registry.
FIGURE_MODULES: tuple[str, ...] = ("qc_cases", "qc_vs_se_rs", "lambda_vs_noise", "noisy_selection_curves", "problems",
                                   "best_worst_curves", "single_realisation", "al_vs_rs",
                                   "greedy_vs_optimal", "estimator_quality", "estimator_errors",
                                   "truth_resolution", "leaderboard")

#: File name, in the output folder, of the versions record written by :func:`make_figures`.
VERSIONS_FILE = "VERSIONS.txt"

_REGISTRY: dict[str, FigureSpec] = {}


@dataclass(frozen=True)
class FigureSpec:
    """A registered figure: its file name, a one-line description, its seed and maker.

    Parameters
    ----------
    name : str
        The figure's name: its files are ``<name>.png`` and ``<name>.pdf``.
    description : str
        The one line ``mri-theory figures --list`` prints.
    seed : int
        The seed of the generator the figure is made with.
    make : callable
        ``make(quick, rng)``: the figure (a :class:`~matplotlib.figure.Figure`), small with ``quick``.
    """

    name: str
    description: str
    seed: int
    make: Callable[[bool, np.random.Generator], Figure]


def register(name: str, description: str, seed: int = 0):
    """Decorator registering ``make(quick, rng) -> Figure`` under ``name``.

    Parameters
    ----------
    name : str
        The figure's name (its file names).
    description : str
        A one-line description.
    seed : int, default 0
        The seed of the generator passed to ``make``.

    Returns
    -------
    callable
        The decorator: it registers ``make`` and returns it unchanged.
    """

    def decorator(make: Callable[[bool, np.random.Generator], Figure]):
        _REGISTRY[name] = FigureSpec(name, description, seed, make)
        return make

    return decorator


def _load() -> None:
    for module in FIGURE_MODULES:
        importlib.import_module(f"{__name__}.{module}")


def figure_names() -> list[str]:
    """Names of all registered figures, in registration order.

    Returns
    -------
    list of str
        The names.
    """
    _load()
    return list(_REGISTRY)


def get_figure(name: str) -> FigureSpec:
    """The registered figure ``name``.

    Parameters
    ----------
    name : str
        A registered figure's name.

    Returns
    -------
    FigureSpec
        Its name, description, seed and maker.

    Raises
    ------
    ValueError
        For an unknown name, listing the known ones.
    """
    _load()
    if name not in _REGISTRY:
        raise ValueError(f"unknown figure name {name!r}; known figures: {', '.join(_REGISTRY)}")
    return _REGISTRY[name]


def _write_versions(out: Path) -> Path:
    """Write ``<out>/VERSIONS.txt``: one ``name==version`` line per library, no timestamp."""
    lines = ["# Library versions the figures in this folder were made with (written by mri-theory figures)."]
    lines += [f"{name}=={version}" for name, version in library_versions().items()]
    path = out / VERSIONS_FILE
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def make_figures(
    names: Iterable[str] | None = None,
    out_dir: str | Path = "figures",
    quick: bool = False,
    progress: bool = True,
) -> list[Path]:
    """Make figures, write each as ``<out_dir>/<name>.png`` and ``.pdf``, and record the versions.

    ``<out_dir>/VERSIONS.txt`` lists the versions of Python and of the libraries
    the figures depend on (:func:`library_versions`), one ``name==version`` line
    each, sorted and without a timestamp, so regenerating the figures with the
    same versions leaves the folder unchanged.  It is written before the first
    figure, so it also describes the figures of an interrupted run.

    Parameters
    ----------
    names : iterable of str, optional
        Figures to make (default: all registered).
    out_dir : path
        Output folder, created if needed.
    quick : bool
        Small sizes, for a smoke test.
    progress : bool
        Show a tqdm progress bar.

    Returns
    -------
    list of Path
        The files written, ``VERSIONS.txt`` first.  A figure already written
        stays on disk if a later one fails or the run is interrupted.
    """
    from tqdm import tqdm

    quick, progress = check.flag(quick, "quick"), check.flag(progress, "progress")
    if isinstance(names, str):
        raise TypeError(f"names must be a sequence of figure names, not a single str ({names!r})")
    specs = [get_figure(n) for n in (figure_names() if names is None else names)]
    out = check.output_folder(out_dir, "out_dir")
    check.create_folder(out, "out_dir")
    written = [_write_versions(out)]
    for spec in tqdm(specs, desc="figures", unit="fig", disable=not progress):
        with one_thread():  # sums summed as with one BLAS thread: the same bytes on any machine
            fig = spec.make(quick, np.random.default_rng(spec.seed))
        for ext in ("png", "pdf"):
            path = out / f"{spec.name}.{ext}"
            # Fixed metadata keeps the committed files byte-stable across runs.
            meta = {"CreationDate": None} if ext == "pdf" else {"Software": None}
            fig.savefig(path, dpi=150, metadata=meta)
            written.append(path)
    return written
