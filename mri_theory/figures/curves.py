"""Plotting learning curves: mean over replicates with standard-error bands.

Public (notebooks and users import it): tables of
:func:`mri_theory.runners.sandbox.run_curves` (columns ``strategy``, ``replicate``,
``n_labelled`` and a value column, by default ``loss``) to mean curves and
plots.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from matplotlib.axes import Axes

__all__ = ["mean_curves", "plot_mean_curves"]


def mean_curves(df: pd.DataFrame, value: str = "loss") -> pd.DataFrame:
    """Mean and standard error over replicates per (strategy, n_labelled).

    Parameters
    ----------
    df : DataFrame
        A sandbox table (:func:`~mri_theory.runners.run_curves`).
    value : str, default "loss"
        The column averaged.

    Returns
    -------
    DataFrame
        Columns ``strategy``, ``n_labelled``, ``mean``, ``std``, ``count`` and ``se``.
    """
    grouped = df.groupby(["strategy", "n_labelled"], sort=False)[value]
    out = grouped.agg(["mean", "std", "count"]).reset_index()
    out["se"] = (out["std"] / np.sqrt(out["count"])).fillna(0.0)
    return out


def plot_mean_curves(ax: Axes, df: pd.DataFrame, colours: dict[str, str] | Sequence[str],
                     value: str = "loss", bands: bool = True) -> pd.DataFrame:
    """Plot each strategy's mean curve (in order of appearance) with +-1 SE bands.

    Parameters
    ----------
    ax : Axes
        Where to draw.
    df : DataFrame
        A sandbox table (:func:`~mri_theory.runners.run_curves`).
    colours : dict or sequence of str
        Strategy -> colour, or a palette taken in the strategies' order.
    value : str, default "loss"
        The column averaged.
    bands : bool, default True
        Whether to shade +-1 standard error.

    Returns
    -------
    DataFrame
        The means, as :func:`mean_curves` gives them.
    """
    curves = mean_curves(df, value)
    names = list(dict.fromkeys(df["strategy"]))
    # A colour sequence is a palette: it may hold more colours than there are strategies.
    palette = colours if isinstance(colours, dict) else dict(zip(names, colours, strict=False))
    for name in names:
        c = curves[curves.strategy == name]
        ax.plot(c.n_labelled, c["mean"], color=palette[name], lw=1.8, label=name)
        if bands:
            ax.fill_between(c.n_labelled, c["mean"] - c.se, c["mean"] + c.se, color=palette[name], alpha=0.2,
                            lw=0)
    return curves
