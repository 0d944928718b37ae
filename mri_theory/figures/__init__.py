"""The figure registry behind ``mri-theory figures``.

Each figure lives in its own module under :mod:`mri_theory.figures`, which
registers a ``make(quick, rng)`` function returning a
:class:`matplotlib.figure.Figure`.  The registry gives it a generator seeded by
the figure's fixed seed and writes the figure as PNG and PDF.  Later modules
extend the registry by adding their module name to :data:`FIGURE_MODULES`.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

__all__ = ["FigureSpec", "register", "figure_names", "get_figure", "make_figures", "FIGURE_MODULES"]

#: Modules that define figures, imported on first use of the registry.
FIGURE_MODULES: tuple[str, ...] = ("qc_cases", "qc_vs_se_rs", "lambda_vs_noise", "noisy_selection_curves", "problems",
                                   "best_worst_curves", "single_realisation", "al_vs_rs")

_REGISTRY: dict[str, "FigureSpec"] = {}


@dataclass(frozen=True)
class FigureSpec:
    """A registered figure: its file name, a one-line description, its seed and maker."""

    name: str
    description: str
    seed: int
    make: Callable[[bool, np.random.Generator], Figure]


def register(name: str, description: str, seed: int = 0):
    """Decorator registering ``make(quick, rng) -> Figure`` under ``name``."""

    def decorator(make: Callable[[bool, np.random.Generator], Figure]):
        _REGISTRY[name] = FigureSpec(name, description, seed, make)
        return make

    return decorator


def _load() -> None:
    for module in FIGURE_MODULES:
        importlib.import_module(f"{__name__}.{module}")


def figure_names() -> list[str]:
    """Names of all registered figures, in registration order."""
    _load()
    return list(_REGISTRY)


def get_figure(name: str) -> FigureSpec:
    """The registered figure ``name``; unknown names raise ``ValueError`` listing the known ones."""
    _load()
    if name not in _REGISTRY:
        raise ValueError(f"unknown figure name {name!r}; known figures: {', '.join(_REGISTRY)}")
    return _REGISTRY[name]


def make_figures(
    names: Iterable[str] | None = None,
    out_dir: str | Path = "figures",
    quick: bool = False,
    progress: bool = True,
) -> list[Path]:
    """Make figures and write each as ``<out_dir>/<name>.png`` and ``.pdf``.

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
        The files written.  A figure already written stays on disk if a later
        one fails or the run is interrupted.
    """
    from tqdm import tqdm

    specs = [get_figure(n) for n in (figure_names() if names is None else names)]
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for spec in tqdm(specs, desc="figures", unit="fig", disable=not progress):
        fig = spec.make(quick, np.random.default_rng(spec.seed))
        for ext in ("png", "pdf"):
            path = out / f"{spec.name}.{ext}"
            # Fixed metadata keeps the committed files byte-stable across runs.
            meta = {"CreationDate": None} if ext == "pdf" else {"Software": None}
            fig.savefig(path, dpi=150, metadata=meta)
            written.append(path)
        plt.close(fig)
    return written
