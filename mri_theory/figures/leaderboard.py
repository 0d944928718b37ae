r"""Figure ``leaderboard``: how close does each active-learning strategy get to the optimum, per phase of the curve?

The figure draws :func:`mri_theory.evaluation.leaderboard` tables (the
``leaderboard.csv`` of :func:`mri_theory.runners.run_leaderboard`): one row of
panels per table, one column per phase of the learning curve (the size
:math:`|D_S|` of the labelled set: :math:`\le 12`, 13-50, :math:`> 50`, and
all states), each strategy's mean normalised shortfall (0: the choice of the
greedy optimum MRI-best, which knows the true :math:`Q^c` of Eq. ``eqc``;
1: random selection's expected choice) as a point with its percentile
bootstrap interval over replicates (the table's ``normalised_shortfall`` and
``_ci_low``/``_ci_high`` columns), and a last column with the mean Spearman
correlation of the strategy's scores with the true :math:`Q^c` over all
states (1: the optimum's ordering, 0: random selection's).  Lines mark the
anchors MRI-best and RS.  Within a row, strategies are listed top to bottom
in the order of the table's ``"all"`` phase (sorted by mean normalised
shortfall, best first, anchors first among ties), the same in every panel of
the row.  Markers and label colours tell the groups apart: the anchors, the
paper's strategies, ours (:data:`OURS`: CvMRI, PoolMRI and Margin, not the
paper's), scikit-activeml's peers (:data:`~mri_theory.strategies.PEER_NAMES`,
``Sk...``) and the rest (LC, MRI-worst, strategies registered by a user).
A point beyond the axis (MRI-worst's shortfall can be several times RS's) is
drawn at the edge as an arrow with its value.

Data.  A full leaderboard takes about an hour of CPU, too long for
``mri-theory figures``, so the full figure computes nothing: it draws the
committed tables in :data:`TABLES` (``figures/leaderboard/`` of the source
checkout): ``design/`` (the problems the new estimators were designed on:
Four-Gaussian and quadratic, seed 0) and ``evaluation/`` (triangles,
oscillating and sharp with a fresh seed 1), the top and bottom rows, each a
copy of a finished run's folder made by
:func:`mri_theory.runners.copy_leaderboard` (``python
scripts/leaderboard_tables.py DESIGN_RUN EVALUATION_RUN``) and read by
:func:`mri_theory.runners.read_leaderboard`: a table that does not match its
checksum (or whose ``leaderboard.json`` was edited), or a missing one, stops
the figure with a ``ValueError`` naming the file.  The two splits are drawn
as separate rows rather than as one table of the five problems: the
estimators are judged on the evaluation problems, which their design did not
see.  Each row's title gives its run's problems, classifiers, replicates and
seed from ``leaderboard.json``.

Quick mode (``mri-theory figures --quick``, the tests) computes a tiny
leaderboard itself (:data:`QUICK`: Four-Gaussian, LDA and naive Bayes, both
with the exact truth, 2 replicates, steps 2 and 10, a pool of 30, seven
strategies; a few seconds), with the scoring seed drawn from the figure's
generator, and draws it as one row.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from mri_theory._utils import validation as check
from mri_theory._utils.backends import Execution
from mri_theory.evaluation import ANCHORS, leaderboard
from mri_theory.figures import register
from mri_theory.runners import read_leaderboard, score_states
from mri_theory.strategies import STRATEGY_REGISTRY, strategy_names

__all__ = ["COLUMNS", "OURS", "QUICK", "SPLITS", "TABLES", "committed_leaderboards", "plot_leaderboard",
           "quick_leaderboard", "strategy_group"]

#: The committed tables of the full figure: ``TABLES / split / leaderboard.csv`` for each of :data:`SPLITS`.
TABLES = Path(__file__).resolve().parents[2] / "figures" / "leaderboard"
#: The sub-folders of :data:`TABLES`, in the figure's row order.
SPLITS = ("design", "evaluation")
#: Our strategies (not the paper's): the estimators designed from the diagnostics, and margin sampling (those
#: whose class declares ``origin = "ours"``, :func:`~mri_theory.strategies.strategy_names`).
OURS = strategy_names("ours")
#: The columns :func:`plot_leaderboard` reads from each table.
COLUMNS = ["phase", "strategy", "anchor", "normalised_shortfall", "normalised_shortfall_ci_low",
           "normalised_shortfall_ci_high", "spearman", "spearman_ci_low", "spearman_ci_high"]
#: The quick figure's leaderboard: its grid (:func:`~mri_theory.runners.score_states` arguments) and options.
QUICK: dict[str, Any] = dict(problem="four-gaussian", classifiers=("lda", "nb"),
                             strategies=("RS", "SE", "SMRI", "CvMRI", "PoolMRI", "Margin", "MRI-best"),
                             replicates=2, steps=(2, 10), pool_size=30, population_size=2000, n_boot=200)
#: The right edge of the normalised-shortfall axes (a point beyond is drawn at the edge with its value).
SHORTFALL_MAX = 2.0
_ALL = "all"
_GROUPS = {  # label, colour, marker
    "optimum": ("optimum (MRI-best)", "tab:green", "s"),
    "random": ("random selection (RS)", "tab:orange", "s"),
    "paper": ("the paper's", "black", "o"),
    "ours": ("ours", "tab:red", "D"),
    "peer": ("scikit-activeml", "tab:blue", "^"),
    "other": ("other", "tab:gray", "v"),
}


def strategy_group(name: str) -> str:
    """The group a strategy is drawn in.

    Parameters
    ----------
    name : str
        A strategy's label.

    Returns
    -------
    str
        ``"optimum"`` (MRI-best), ``"random"`` (RS), else what the registered strategy declares
        (:attr:`Strategy.origin <mri_theory.strategies.Strategy.origin>`): ``"paper"`` (the paper's other six),
        ``"ours"`` (:data:`OURS`), ``"peer"`` (scikit-activeml's), or ``"other"`` (the rest, MRI-worst and names
        not registered included).
    """
    if name == ANCHORS[0]:
        return "optimum"
    if name == ANCHORS[1]:
        return "random"
    origin = STRATEGY_REGISTRY.tag(name, "origin", "other") if name in STRATEGY_REGISTRY else "other"
    return origin if origin in ("paper", "ours", "peer") else "other"


def quick_leaderboard(rng: np.random.Generator) -> pd.DataFrame:
    """The quick figure's table: :func:`~mri_theory.evaluation.leaderboard` of the :data:`QUICK` states.

    Parameters
    ----------
    rng : Generator
        The figure's generator: the scoring seed and the bootstrap seed are drawn from it (in that order).

    Returns
    -------
    DataFrame
        The leaderboard table.
    """
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    seed, boot_seed = (int(v) for v in rng.integers(2**31, size=2))
    sizes = {key: QUICK[key] for key in ("replicates", "steps", "pool_size", "population_size")}
    quiet = Execution(progress=False)
    states = pd.concat([score_states(QUICK["problem"], classifier, list(QUICK["strategies"]), seed=seed,
                                     execution=quiet, **sizes) for classifier in QUICK["classifiers"]],
                       ignore_index=True)
    return leaderboard(states, n_boot=QUICK["n_boot"], seed=boot_seed)


def _run_title(split: str, settings: Mapping[str, Any]) -> str:
    problems, classifiers = settings.get("problems", []), settings.get("classifiers", [])
    return (f"{split}: {', '.join(problems)}; {len(classifiers)} classifiers, {settings.get('replicates')} "
            f"replicates, seed {settings.get('seed')}")


def committed_leaderboards(folder: str | Path | None = None) -> dict[str, tuple[pd.DataFrame, dict[str, Any]]]:
    """The committed tables of the full figure, verified: ``{split: (table, settings)}`` for each of :data:`SPLITS`.

    Parameters
    ----------
    folder : path, optional
        The folder holding one sub-folder per split (default :data:`TABLES`).

    Returns
    -------
    dict
        ``leaderboard.csv`` of ``folder/split`` read by
        :func:`~mri_theory.runners.read_leaderboard`, and the ``settings`` of
        its ``leaderboard.json``.

    Raises
    ------
    ValueError
        Naming the file and how to replace it, when a split's table is
        missing, does not match its checksum, or its ``leaderboard.json`` was
        edited or is not a run's record.
    """
    root = TABLES if folder is None else Path(folder)
    out = {}
    for split in SPLITS:
        place = root / split
        try:
            stored = read_leaderboard(place)
        except ValueError as exc:
            raise ValueError(f"figure leaderboard: the committed {split} table in {place} is refused ({exc}); copy a "
                             "finished run's tables there with: python scripts/leaderboard_tables.py DESIGN_RUN "
                             "EVALUATION_RUN (or make the quick figure: mri-theory figures --quick)") from None
        out[split] = (stored.table, stored.record["settings"])
    return out


def _checked_tables(tables: Any) -> dict[str, pd.DataFrame]:
    if not isinstance(tables, Mapping) or not tables:
        raise TypeError(f"tables must be a non-empty mapping of row titles to leaderboard tables, got "
                        f"{type(tables).__name__}")
    out = {}
    for title, table in tables.items():
        if not isinstance(title, str):
            raise TypeError(f"tables: the row titles must be str, got {title!r}")
        check.data_frame(table, f"tables[{title!r}]", COLUMNS)
        if _ALL not in set(table["phase"]):
            raise ValueError(f"tables[{title!r}] has no rows of the phase {_ALL!r} (not a leaderboard table)")
        if table.duplicated(["phase", "strategy"]).any():
            raise ValueError(f"tables[{title!r}] has more than one row for a (phase, strategy)")
        out[title] = table
    return out


def _draw_points(ax: Any, rows: pd.DataFrame, stat: str, position: Mapping[str, int],
                 limits: tuple[float, float]) -> None:
    """Each row's mean and interval of ``stat`` at its strategy's height; points beyond ``limits`` at the edge."""
    low_edge, high_edge = limits
    for row in rows.itertuples(index=False):
        name = str(row.strategy)
        _, colour, marker = _GROUPS[strategy_group(name)]
        y, mean = position[name], float(getattr(row, stat))
        low, high = float(getattr(row, f"{stat}_ci_low")), float(getattr(row, f"{stat}_ci_high"))
        if not np.isfinite(mean):
            continue
        if np.isfinite(low) and np.isfinite(high):
            ax.plot([max(low, low_edge), min(high, high_edge)], [y, y], color=colour, lw=1.6, solid_capstyle="butt")
        if mean > high_edge:
            ax.plot([high_edge], [y], marker=">", color=colour, ms=6, clip_on=False)
            ax.annotate(f"{mean:.2g}", (high_edge, y), xytext=(-4, 3), textcoords="offset points", ha="right",
                        va="bottom", fontsize=7.5, color=colour)
        else:
            ax.plot([mean], [y], marker=marker, color=colour, ms=4.5, mec="white", mew=0.4, zorder=3)


def plot_leaderboard(tables: Mapping[str, pd.DataFrame], note: str = "", level: float = 0.95) -> Figure:
    """Draw leaderboard tables: one row of panels per table, one column per phase, and a Spearman column.

    Parameters
    ----------
    tables : mapping of str to pandas.DataFrame
        Row title -> a table of :func:`~mri_theory.evaluation.leaderboard`
        (at least the columns :data:`COLUMNS`, with the phase ``"all"``), in
        the figure's row order.
    note : str, default ""
        A last line of the figure's title.
    level : float, default 0.95
        The confidence level of the tables' intervals (for the title only).

    Returns
    -------
    matplotlib.figure.Figure
        The module docstring describes the panels.  The phases are the
        columns in their order in the tables (``"all"`` last); a table
        without a phase leaves its panel empty.

    Raises
    ------
    TypeError, ValueError
        Naming ``tables`` (or the row's table) when it is not a non-empty
        mapping of str to tables with the columns :data:`COLUMNS` and an
        ``"all"`` phase, one row per (phase, strategy).
    """
    checked = _checked_tables(tables)
    level = check.finite_scalar(level, "level")
    phases = list(dict.fromkeys(p for t in checked.values() for p in t["phase"] if p != _ALL)) + [_ALL]
    heights = [t["strategy"].nunique() for t in checked.values()]
    n_cols = len(phases) + 1
    # 10 inches wide at most (readable at a page's width: every text 7.5 pt or more), 0.22 inch per strategy
    fig = Figure(figsize=(1.7 * n_cols + 1.5, sum(0.22 * h + 0.9 for h in heights) + 1.4), layout="constrained")
    grid = fig.add_gridspec(len(checked), n_cols, height_ratios=heights)
    shortfall_limits = (-0.15, SHORTFALL_MAX)
    spearman_low = min(-0.2, float(np.nanmin([t["spearman_ci_low"].min() for t in checked.values()])) - 0.05)
    for r, (title, table) in enumerate(checked.items()):
        order = list(dict.fromkeys(table.loc[table["phase"] == _ALL, "strategy"]))
        order += [s for s in dict.fromkeys(table["strategy"]) if s not in order]
        position = {name: i for i, name in enumerate(order)}
        first = None
        for c in range(n_cols):
            ax = fig.add_subplot(grid[r, c], sharey=first)
            first = first or ax
            phase = phases[c] if c < len(phases) else _ALL
            stat = "normalised_shortfall" if c < len(phases) else "spearman"
            best, random = (0.0, 1.0) if stat == "normalised_shortfall" else (1.0, 0.0)
            ax.axvline(best, color=_GROUPS["optimum"][1], ls=":", lw=1.1)
            ax.axvline(random, color=_GROUPS["random"][1], ls=":", lw=1.1)
            for y in range(0, len(order), 2):  # banded rows, for reading across the panels
                ax.axhspan(y - 0.5, y + 0.5, color="0.94", lw=0, zorder=0)
            limits = shortfall_limits if stat == "normalised_shortfall" else (spearman_low, 1.05)
            _draw_points(ax, table[table["phase"] == phase], stat, position, limits)
            ax.set_xlim(*limits)
            ax.set_ylim(len(order) - 0.5, -0.5)
            ax.tick_params(axis="both", labelsize=8)
            ax.grid(axis="x", color="0.85", lw=0.5)
            if r == 0:
                ax.set_title("all states" if phase == _ALL else f"$|D_S|$ {phase}", fontsize=9.5)
                if stat == "spearman":
                    ax.set_title("Spearman with\nthe true $Q^c$ (all)", fontsize=9.5)
            if r == len(checked) - 1:
                ax.set_xlabel("normalised shortfall" if stat == "normalised_shortfall" else "Spearman", fontsize=9)
            if c == 0:
                ax.set_yticks(range(len(order)), order)
                for label, name in zip(ax.get_yticklabels(), order, strict=True):
                    group = strategy_group(name)
                    label.set_color(_GROUPS[group][1])
                    label.set_fontweight("bold" if group in ("optimum", "random") else "normal")
                ax.set_ylabel(title, fontsize=9)
            else:
                ax.tick_params(axis="y", labelleft=False)
    present = {strategy_group(name) for t in checked.values() for name in t["strategy"]}
    handles = [Line2D([], [], color=colour, marker=marker, ls="", label=label)
               for group, (label, colour, marker) in _GROUPS.items() if group in present]
    fig.legend(handles=handles, loc="outside lower center", ncol=min(len(handles), 3), fontsize=9, frameon=False)
    width = int(fig.get_figwidth() * 12)  # characters per title line at its font size
    text = (f"How close do AL strategies get to the optimum? The mean normalised shortfall per phase of the curve "
            f"(0: MRI-best, the true $Q^c$'s choice; 1: random selection) with {100 * level:g} % bootstrap "
            f"intervals over replicates")
    fig.suptitle("\n".join(textwrap.wrap(text, width) + textwrap.wrap(note, width)), fontsize=10.5)
    return fig


@register("leaderboard", "Every AL strategy's normalised shortfall against the true optimum, per phase of the curve "
                         "(committed leaderboard run; --quick computes a tiny one)", seed=22)
def make(quick: bool, rng: np.random.Generator) -> Figure:
    quick = check.flag(quick, "quick")
    if quick:
        note = (f"quick: {QUICK['problem']}, {' and '.join(QUICK['classifiers'])}, {QUICK['replicates']} replicates, "
                f"steps {', '.join(map(str, QUICK['steps']))}, pool {QUICK['pool_size']}")
        return plot_leaderboard({"quick": quick_leaderboard(rng)}, note=note)
    stored = committed_leaderboards()
    levels = {settings["level"] for _, settings in stored.values()}
    if len(levels) != 1:
        raise ValueError(f"figure leaderboard: the committed tables have different confidence levels {sorted(levels)}")
    level = levels.pop()
    return plot_leaderboard({_run_title(split, settings): table for split, (table, settings) in stored.items()},
                            level=level)
