r"""How much a study's conclusions move under the readings the paper leaves open (§5.3-5.5).

:func:`conclusions` measures, on one set of curves, every conclusion the paper draws from its study, each with
its uncertainty: the final ranking (R4) with bootstrap intervals and the probability of beating RS, Kendall's
:math:`\tau` against the paper's Table 5 and against the final ranking its published rows of the study's groups
give, the beats-RS counts (R5), the regret ranks, and the paired differences that matter (BMRI − RS, BMRI − SE:
AUA and regret, bootstrap intervals over replicates, and in how many pairings the first is better).

:func:`conclusions_by_reading` recomputes them under each reading of the analysis that needs no new curves
(:data:`~mri_theory.evaluation.sensitivity.READINGS`): R1 on averaged metrics instead of the averaged curve, label
complexity's :math:`\epsilon`
as 5 points of error instead of 5 %, and leaving out one problem, one classifier, or the degenerate pairings
(:func:`degenerate_pairings`: classifiers that cannot represent the problem, whose curves every method
improves on). The readings that need new curves (BMRI's mean, the kknn kernels, e1071's Platt fit, EfeLc on
the whole pool) are strategy and classifier options; :func:`mri_theory.runners.run_sensitivity` reruns only the
curves they change and passes the result through the same :func:`conclusions`.

Every interval is a percentile bootstrap, paired (the same replicates for every method of a pairing), and is
given twice (:data:`~mri_theory.evaluation.ranking.RESAMPLING`): **replicate-only** (``ci_low``, ``ci_high``),
which resamples the replicates of every pairing, the pairings fixed (how the conclusion would move if the same
pairings were run again), and **two-level** (``two_level_low``, ``two_level_high``), which resamples the pairings
(within each group) and then the replicates within each drawn pairing (how it would move on other pairings like
these: the paper's "low sensitivity to the presence or absence of one or two specific problems", Appendix D),
as :func:`~mri_theory.evaluation.ranking.bootstrap_ranks`.  Kendall's tau is given with the ranking's ties broken
(as reported) and kept (:func:`~mri_theory.evaluation.tables.ranking_tau`), each with both intervals (tau of
every draw's final ranking); a final rank that the variance tie-break makes is marked in its ``detail``.  Every
reading draws from generators of the same seed (``SeedSequence([seed, stream])``, one stream per bootstrap).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from mri_theory._utils import validation as check
from mri_theory.evaluation import _checks as evc
from mri_theory.evaluation.metrics import REFERENCE
from mri_theory.evaluation.ranking import (  # paired_differences: its home is ranking, with the bootstraps
    MAX_BOOT,
    RESAMPLING,
    bootstrap_generator,
    bootstrap_rank_draws,
    paired_differences,
    rank_study,
)
from mri_theory.evaluation.tables import PAPER_FINAL, TAU_TIES, paper_final_ranking, ranking_tau, ranking_tau_interval

__all__ = ["CONCLUSION_COLUMNS", "DEGENERATE_RATIO", "READINGS", "conclusions", "degenerate_pairings",
           "conclusions_by_reading", "sensitivity_figure"]

#: A pairing is degenerate when its asymptotic loss exceeds this multiple of the smallest asymptotic loss of any
#: classifier on the same problem (:func:`degenerate_pairings`).
DEGENERATE_RATIO = 2.0
#: The readings of the analysis :func:`conclusions_by_reading` compares, besides leaving out a problem or a classifier.
READINGS: dict[str, str] = {
    "as reported": "R1 on the replicate-averaged curve (line 1202), label complexity at (1 + epsilon) x the "
                   "asymptotic loss (epsilon 0.05: the paper's 'epsilon = 5' as 5 %)",
    "R1 averaged metrics": "R1 as the mean of each replicate's metrics (line ~1166)",
    "epsilon absolute": "label complexity at the asymptotic loss + epsilon (the paper's 'epsilon = 5' as 5 points "
                        "of error)",
    "without degenerate pairings": f"the pairings whose asymptotic loss is above {DEGENERATE_RATIO:g} x the best "
                                   "classifier's on the problem left out",
}
#: Columns of :func:`conclusions`' table (and, after ``variant``, of :func:`conclusions_by_reading`'s):
#: ``ci_low``/``ci_high`` the replicate-only interval, ``two_level_low``/``two_level_high`` the two-level one
#: (:data:`~mri_theory.evaluation.ranking.RESAMPLING`).
CONCLUSION_COLUMNS = ["quantity", "item", "value", "ci_low", "ci_high", "two_level_low", "two_level_high", "detail"]
def degenerate_pairings(asymptotic: pd.DataFrame, ratio: float = DEGENERATE_RATIO) -> list[tuple[str, str]]:
    """The (problem, classifier) pairings whose asymptotic loss is above ``ratio`` times the smallest one of the
    same problem: a classifier that cannot represent the problem (LDA on Triangles, whose classes share mean and
    covariance), whose every curve stays far above the others' and which every method "improves".

    Parameters
    ----------
    asymptotic : pandas.DataFrame
        Columns ``problem``, ``classifier``, ``asymptotic_loss``.
    ratio : float
        At least 1.

    Returns
    -------
    list of tuple
        In the table's order.

    Examples
    --------
    Pairings whose asymptotic loss is above twice the problem's best (a classifier that cannot represent it):

    >>> import pandas as pd
    >>> from mri_theory.evaluation import degenerate_pairings
    >>> asymptotic = pd.DataFrame({"problem": ["quadratic"] * 3, "classifier": ["lda", "qda", "kknn5"],
    ...                            "asymptotic_loss": [0.31, 0.05, 0.06]})
    >>> degenerate_pairings(asymptotic)
    [('quadratic', 'lda')]
    """
    evc.frame(asymptotic, "asymptotic", ["problem", "classifier", "asymptotic_loss"])
    ratio = check.finite_scalar(ratio, "ratio")
    if ratio < 1:
        raise ValueError(f"ratio must be at least 1, got {ratio}")
    values = evc.number_array(asymptotic["asymptotic_loss"].to_numpy(), "asymptotic['asymptotic_loss']")
    best = asymptotic.assign(value=values).groupby("problem")["value"].transform("min").to_numpy()
    return [(p, c) for p, c, v, b in zip(asymptotic["problem"], asymptotic["classifier"], values, best, strict=True)
            if v > ratio * b]


def conclusions(curves: pd.DataFrame, asymptotic: pd.DataFrame, groups: Mapping[str, Sequence[str]] | None = None,
                *, seed: int = 0, n_boot: int = 1000, level: float = 0.95, mode: str = "curve", alpha: float = 0.02,
                epsilon: float = 0.05, loss: str = "error", paper_groups: Sequence[str] = ("abstract",)
                ) -> pd.DataFrame:
    """The paper's conclusions measured on one set of curves, each with its uncertainty (module docstring).

    Parameters
    ----------
    curves, asymptotic, groups, mode, alpha, epsilon, loss
        As for :func:`~mri_theory.evaluation.ranking.rank_study`.
    seed : int
        Seed of the bootstrap draws: the four bootstraps (ranks and differences, replicate-only and two-level)
        each draw from their own stream (:func:`~mri_theory.evaluation.ranking.bootstrap_generator`).
    n_boot, level
        As for :func:`~mri_theory.evaluation.ranking.bootstrap_ranks`.
    paper_groups : sequence of str
        The paper's groups whose published rows give the second final ranking ``tau`` is measured against
        (:func:`~mri_theory.evaluation.tables.paper_final_ranking`); empty: none.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`CONCLUSION_COLUMNS <mri_theory.evaluation.sensitivity.CONCLUSION_COLUMNS>`, one row per number,
        ``quantity`` one of ``final_rank`` (``item``
        a method; ``value`` its R4 mean rank, the intervals of the bootstrap mean ranks; ``detail`` its rank,
        the probability of beating RS in both bootstraps, and the methods it ties in mean rank with, if any, and
        whether the tie-break placed it), ``tau`` (``item`` ``Table 5`` or ``paper rows``: the ranks as reported,
        ties broken; ``"..., ties kept"``: tau-b of the mean ranks with their ties; intervals of the draws'
        taus; ``detail`` the p-value and the methods compared), ``beats_rs`` (``item`` a method; of ``detail``
        pairings), ``regret``
        (``item`` a method; ``value`` its mean regret over pairings, ``detail`` its rank), ``difference``
        (``item`` ``first - second: metric``, with the interval; ``detail`` in how many pairings the first is
        better).  ``ci_low``/``ci_high``: replicate-only; ``two_level_low``/``two_level_high``: two-level
        (module docstring).  Where a pairing has a single replicate, every bootstrap interval it enters (the
        final ranks', tau's and the differences') is NaN: undefined, not a zero-width interval.

    See Also
    --------
    mri_theory.evaluation.conclusions_by_reading : The same under each reading of the paper's open choices.

    Examples
    --------
    Two pairings by hand (LDA and naive Bayes on Four-Gaussian, the same curves with both, two identical replicates:
    every interval is a point, the two-level ones too).  BMRI's AUA is 0.7125 and random selection's 0.6, a
    difference of 0.1125:

    >>> import pandas as pd
    >>> from mri_theory.evaluation import CURVE_COLUMNS, conclusions
    >>> losses = {"RS": [0.5, 0.4, 0.3], "SE": [0.5, 0.3, 0.2], "BMRI": [0.5, 0.25, 0.15], "MRI-best": [0.5, 0.2, 0.1]}
    >>> curves = pd.DataFrame([("four-gaussian", classifier, method, replicate, n, loss)
    ...                        for classifier in ("lda", "nb") for replicate in (0, 1)
    ...                        for method, curve in losses.items() for n, loss in zip([2, 4, 6], curve)],
    ...                       columns=CURVE_COLUMNS)
    >>> asymptotic = pd.DataFrame({"problem": "four-gaussian", "classifier": ["lda", "nb"], "asymptotic_loss": 0.1})
    >>> table = conclusions(curves, asymptotic, n_boot=100)
    >>> list(table.columns)
    ['quantity', 'item', 'value', 'ci_low', 'ci_high', 'two_level_low', 'two_level_high', 'detail']
    >>> table[table.quantity == "final_rank"][["item", "value", "detail"]].to_dict("list")
    {'item': ['BMRI', 'SE', 'RS'], 'value': [1.0, 2.0, 3.0], 'detail': ['rank 1; P(beats RS) 1.00, two-level 1.00',
    'rank 2; P(beats RS) 1.00, two-level 1.00', 'rank 3']}
    >>> table[table.quantity == "tau"][["item", "value", "two_level_low", "two_level_high"]].round(4).to_dict("list")
    {'item': ['Table 5', 'Table 5, ties kept', 'paper rows', 'paper rows, ties kept'],
    'value': [1.0, 1.0, 1.0, 1.0], 'two_level_low': [1.0, 1.0, 1.0, 1.0], 'two_level_high': [1.0, 1.0, 1.0, 1.0]}
    >>> table[table.quantity == "difference"][["item", "value", "detail"]].round(4).to_dict("list")
    {'item': ['BMRI - RS: aua', 'BMRI - RS: regret', 'BMRI - SE: aua', 'BMRI - SE: regret'],
    'value': [0.1125, -0.1, 0.0375, -0.0333], 'detail': ['first better in 2 of 2', 'first better in 2 of 2',
    'first better in 2 of 2', 'first better in 2 of 2']}
    """
    seed = check.count(seed, "seed", minimum=0)
    check.count(n_boot, "n_boot", maximum=MAX_BOOT)  # refused before any ranking is computed
    if not 0 < check.finite_scalar(level, "level") < 1:
        raise ValueError(f"level must lie in (0, 1), got {level}")
    options: dict[str, Any] = dict(n_boot=n_boot, level=level, mode=mode, alpha=alpha, epsilon=epsilon, loss=loss)
    ranks = rank_study(curves, asymptotic, groups, mode=mode, alpha=alpha, epsilon=epsilon, loss=loss)

    boots = {resample: bootstrap_rank_draws(curves, asymptotic, groups,
                                            rng=bootstrap_generator(seed, "ranks", resample),
                                            resample=resample, **options) for resample in RESAMPLING}
    finals = {resample: boot.summary[boot.summary["classifier"] == "all"].set_index("method")
              for resample, boot in boots.items()}
    rows: list[tuple[Any, ...]] = []
    for m, mr, rank, tied in ranks.r4[["method", "mean_rank", "rank", "tied_with"]].itertuples(index=False):
        one, two = finals["replicates"].loc[m], finals["pairings"].loc[m]
        detail = f"rank {rank:g}" + ("" if m == REFERENCE else f"; P(beats RS) {one['p_beats_rs']:.2f}, "
                                                            f"two-level {two['p_beats_rs']:.2f}")
        if tied:
            detail += (f"; tied in mean rank with {tied}: "
                       + ("shared rank" if float(rank) != int(rank) else "placed by the tie-break (lower variance)"))
        rows.append(("final_rank", m, mr, one["ci_low"], one["ci_high"], two["ci_low"], two["ci_high"], detail))
    references = [("Table 5", PAPER_FINAL.methods)]
    if paper_groups:
        references.append(("paper rows", paper_final_ranking(paper_groups).set_index("method")["rank"]))
    alone = any(not np.isfinite(v) for v in finals["replicates"]["ci_low"])  # a single replicate: no interval
    for name, paper in references:
        for ties in TAU_TIES:
            tau = ranking_tau(ranks.r4, paper, ties=ties)
            intervals = [np.nan] * 4 if alone else [
                bound for resample in RESAMPLING
                for bound in ranking_tau_interval(boots[resample].draws, paper, ties=ties, level=level)]
            rows.append(("tau", name if ties == "broken" else f"{name}, ties kept", tau.tau, *intervals,
                         f"p {tau.pvalue:.3f}; n {tau.n}"))
    units = ranks.r2[["group", "classifier"]].drop_duplicates().shape[0]
    rows += [("beats_rs", m, float(v), np.nan, np.nan, np.nan, np.nan, f"of {units}") for m, v in ranks.r5.items()]
    regret = ranks.r1.groupby("method", sort=True)["regret"].mean().dropna().sort_values(kind="stable")
    rows += [("regret", m, float(v), np.nan, np.nan, np.nan, np.nan, f"rank {i}")
             for i, (m, v) in enumerate(regret.items(), 1)]
    differences = {resample: paired_differences(curves, asymptotic,
                                                rng=bootstrap_generator(seed, "differences", resample),
                                                resample=resample, groups=groups, **options)
                   for resample in RESAMPLING}
    two = differences["pairings"].set_index(["first", "second", "metric"])
    for f, s_, metric, d, lo, hi, b, n in differences["replicates"].itertuples(index=False):
        lo2, hi2 = two.loc[(f, s_, metric), ["ci_low", "ci_high"]]
        rows.append(("difference", f"{f} - {s_}: {metric}", d, lo, hi, lo2, hi2, f"first better in {b} of {n}"))
    return pd.DataFrame(rows, columns=CONCLUSION_COLUMNS)


def _absolute_epsilon(asymptotic: pd.DataFrame, epsilon: float) -> pd.DataFrame:
    """The asymptotic losses ``a'`` whose relative target ``(1 + epsilon) a'`` is the absolute ``a + epsilon``:
    label complexity is the only metric that reads them."""
    return asymptotic.assign(asymptotic_loss=(asymptotic["asymptotic_loss"] + epsilon) / (1 + epsilon))


def conclusions_by_reading(curves: pd.DataFrame, asymptotic: pd.DataFrame,
                           groups: Mapping[str, Sequence[str]] | None = None, *, seed: int = 0,
                           n_boot: int = 1000, level: float = 0.95, alpha: float = 0.02, epsilon: float = 0.05,
                           loss: str = "error", paper_groups: Sequence[str] = ("abstract",),
                           leave_out: bool = True) -> pd.DataFrame:
    """:func:`conclusions` under each reading of :data:`~mri_theory.evaluation.sensitivity.READINGS`, and without each
    problem and each classifier.

    Parameters
    ----------
    curves, asymptotic, groups, seed, n_boot, level, alpha, epsilon, loss, paper_groups
        As for :func:`conclusions` (the reading ``"as reported"`` is ``mode="curve"`` with these).
    leave_out : bool
        Add the variants ``"without <problem>"`` and ``"without <classifier>"`` (a study of one problem or one
        classifier has none of that kind).

    Returns
    -------
    pandas.DataFrame
        ``variant``, then :data:`CONCLUSION_COLUMNS <mri_theory.evaluation.sensitivity.CONCLUSION_COLUMNS>`; the
        variants in the order of :data:`~mri_theory.evaluation.sensitivity.READINGS`, then the
        problems, then the classifiers (sorted).  ``"without degenerate pairings"`` is absent when the study
        has none (:func:`degenerate_pairings`); the variant ``"epsilon absolute"`` needs ``loss="error"``.

    See Also
    --------
    mri_theory.evaluation.sensitivity.sensitivity_figure : Draws this table.
    mri_theory.runners.run_sensitivity : The readings that need new curves, recomputed and stored.

    Examples
    --------
    One pairing by hand (two replicates); the reading ``"as reported"`` is :func:`conclusions` itself, the others
    recompute it as the paper's text also allows (a study of one problem and one classifier has nothing to leave out):

    >>> import pandas as pd
    >>> from mri_theory.evaluation import CURVE_COLUMNS, conclusions, conclusions_by_reading
    >>> losses = {("RS", 0): [0.5, 0.4, 0.3], ("SE", 0): [0.5, 0.3, 0.2], ("BMRI", 0): [0.5, 0.35, 0.1],
    ...           ("RS", 1): [0.5, 0.4, 0.3], ("SE", 1): [0.5, 0.4, 0.3], ("BMRI", 1): [0.5, 0.3, 0.2]}
    >>> curves = pd.DataFrame([("four-gaussian", "lda", method, replicate, n, loss)
    ...                        for (method, replicate), curve in losses.items()
    ...                        for n, loss in zip([2, 4, 6], curve)], columns=CURVE_COLUMNS)
    >>> asymptotic = pd.DataFrame({"problem": ["four-gaussian"], "classifier": ["lda"], "asymptotic_loss": [0.1]})
    >>> table = conclusions_by_reading(curves, asymptotic, n_boot=50)
    >>> list(dict.fromkeys(table.variant))
    ['as reported', 'R1 averaged metrics', 'epsilon absolute']
    >>> reported = table[table.variant == "as reported"].drop(columns="variant").reset_index(drop=True)
    >>> reported.equals(conclusions(curves, asymptotic, n_boot=50))
    True
    """
    leave_out = check.flag(leave_out, "leave_out")
    common: dict[str, Any] = dict(seed=seed, n_boot=n_boot, level=level, alpha=alpha, loss=loss,
                                  paper_groups=paper_groups)
    variants: dict[str, tuple[pd.DataFrame, pd.DataFrame, dict[str, Any]]] = {
        "as reported": (curves, asymptotic, {"mode": "curve", "epsilon": epsilon}),
        "R1 averaged metrics": (curves, asymptotic, {"mode": "replicate", "epsilon": epsilon}),
    }
    if evc.loss_kind(loss) == "error":
        variants["epsilon absolute"] = (curves, _absolute_epsilon(asymptotic, epsilon),
                                        {"mode": "curve", "epsilon": epsilon})
    degenerate = set(degenerate_pairings(asymptotic))
    pairs = list(zip(curves["problem"], curves["classifier"], strict=True))
    if degenerate:
        keep = np.array([pair not in degenerate for pair in pairs])
        variants["without degenerate pairings"] = (curves[keep], asymptotic, {"mode": "curve", "epsilon": epsilon})
    if leave_out:
        for column in ("problem", "classifier"):
            values = sorted(curves[column].unique())
            for value in values if len(values) > 1 else []:
                variants[f"without {value}"] = (curves[curves[column] != value], asymptotic,
                                                {"mode": "curve", "epsilon": epsilon})
    frames = []
    for name, (part, targets, options) in variants.items():
        used = set(part["problem"])
        kept_groups = None if groups is None else {g: [p for p in ps if p in used] for g, ps in groups.items()}
        kept_groups = None if kept_groups is None else {g: ps for g, ps in kept_groups.items() if ps}
        table = conclusions(part.reset_index(drop=True), targets, kept_groups, **common, **options)
        frames.append(table.assign(variant=name))
    out = pd.concat(frames, ignore_index=True)
    return out[["variant"] + CONCLUSION_COLUMNS]


#: The methods whose final mean rank :func:`sensitivity_figure` draws (the paper's claims are about them).
FIGURE_METHODS = ("BMRI", "SE", "QbcV", "RS")


def sensitivity_figure(table: pd.DataFrame, methods: Sequence[str] = FIGURE_METHODS) -> Figure:
    """Each conclusion's interval under each reading, as a figure.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`conclusions_by_reading`'s table (or any with its columns): a row of the figure per ``variant``.
    methods : sequence of str
        The methods whose final mean rank is drawn (those present).

    Returns
    -------
    matplotlib.figure.Figure
        Four panels: the final mean rank of ``methods`` with its bootstrap intervals; Kendall's tau against
        Table 5 and the paper's rows (ties broken and kept); the paired differences in the area metric and in
        the regret, with their intervals.  Each interval twice: replicate-only (with caps) and two-level (thin,
        light).

    Examples
    --------
    A table of two readings by hand (:func:`conclusions_by_reading` gives such a table): one panel per kind of
    conclusion, one row per reading, the first reading on top:

    >>> import pandas as pd
    >>> from mri_theory.evaluation.sensitivity import CONCLUSION_COLUMNS, sensitivity_figure
    >>> rows = [("final_rank", "BMRI", 1.5, 1.0, 2.5, 1.0, 3.5), ("tau", "Table 5", 0.6, 0.3, 0.8, 0.1, 0.9),
    ...         ("difference", "BMRI - RS: aua", 0.02, -0.01, 0.05, -0.03, 0.07),
    ...         ("difference", "BMRI - RS: regret", -0.01, -0.03, 0.01, -0.05, 0.02)]
    >>> table = pd.DataFrame([(variant, *row, "") for variant in ("as reported", "without nb") for row in rows],
    ...                      columns=["variant", *CONCLUSION_COLUMNS])
    >>> figure = sensitivity_figure(table)
    >>> len(figure.axes), [label.get_text() for label in figure.axes[0].get_yticklabels()]
    (4, ['as reported', 'without nb'])
    """
    evc.frame(table, "table", ["variant"] + CONCLUSION_COLUMNS)
    variants = list(dict.fromkeys(table["variant"]))
    y = np.arange(len(variants))[::-1].astype(float)
    where = dict(zip(variants, y, strict=True))
    fig = Figure(figsize=(13.5, 0.32 * len(variants) + 1.8), layout="constrained")
    axes = fig.subplots(1, 4, sharey=True)
    colours = ("tab:red", "tab:blue", "tab:green", "tab:grey", "tab:purple", "tab:orange", "tab:brown")

    def draw(ax, rows, label, colour, offset):  # the two-level interval thin and light under the replicate-only
        ys = [where[v] + offset for v in rows["variant"]]
        for (lo, hi), style in ((("two_level_low", "two_level_high"), dict(fmt="none", elinewidth=0.8, alpha=0.45,
                                                                            capsize=0)),
                                (("ci_low", "ci_high"), dict(fmt="o", ms=4, capsize=2, label=label))):
            low = (rows["value"] - rows[lo]).clip(lower=0).fillna(0)
            high = (rows[hi] - rows["value"]).clip(lower=0).fillna(0)
            ax.errorbar(rows["value"], ys, xerr=np.vstack([low, high]), color=colour, **style)

    ranks = table[table["quantity"] == "final_rank"]
    shown = [m for m in methods if m in set(ranks["item"])]
    for i, method in enumerate(shown):
        draw(axes[0], ranks[ranks["item"] == method], method, colours[i % len(colours)],
             0.3 * (i / max(1, len(shown) - 1) - 0.5))
    axes[0].set_xlabel("final mean rank (1 = best)")
    taus = table[table["quantity"] == "tau"]
    for i, item in enumerate(dict.fromkeys(taus["item"])):
        draw(axes[1], taus[taus["item"] == item], f"vs {item}", colours[i], 0.15 * (i - 0.5))
    axes[1].set_xlabel("Kendall tau, ours vs the paper")
    differences = table[table["quantity"] == "difference"]
    for ax, metric in zip(axes[2:], ("area", "regret"), strict=True):
        rows = differences[differences["item"].str.endswith(": regret") == (metric == "regret")]
        for i, item in enumerate(dict.fromkeys(rows["item"])):
            draw(ax, rows[rows["item"] == item], item, colours[i], 0.2 * (i - 0.5))
        ax.axvline(0.0, color="black", lw=0.8)
        ax.set_xlabel("paired difference, " + ("area (AUA: higher is better)" if metric == "area"
                                                else "regret (lower is better)"))
    for ax in axes:
        ax.grid(axis="x", alpha=0.3)
        ax.legend(fontsize=7, loc="best")
    axes[0].set_yticks(y, variants, fontsize=8)
    fig.suptitle("How robust is the ranking? Each conclusion under each reading: bootstrap intervals over "
                 "replicates (with caps; the pairings fixed) and two-level (thin, light: pairings, then replicates)",
                 fontsize=10)
    return fig
