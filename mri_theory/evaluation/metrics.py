r"""Summaries of one learning curve: the AL performance metrics of §2.2 and §5.3.

A learning curve is the loss :math:`L(n)` of the classifier after ``n``
labelled examples, for increasing ``n`` (one row per step of iterated AL,
:mod:`mri_theory.runners.sandbox`).  The paper evaluates four metrics (§5.3, lines
1074-1076 of the source): label complexity, AUA and WI with two weightings; it
cites AUA (Guyon et al. 2011), WI (Evans et al. 2013) and label complexity
(Dasgupta 2011) without formulas, so the definitions below are **ours** where
the paper is silent; each parameter is an argument.

* :func:`aua` (higher is better): :math:`\frac{1}{n_{N-1} - n_0}\int (1 - L)\,dn`
  by the trapezoid rule, the mean accuracy along the curve; for a loss that
  is not an error rate (the log loss) :func:`mean_loss` (lower is better),
  :math:`\frac{1}{n_{N-1} - n_0}\int L\,dn`, takes its place;
* :func:`alc` (higher): Guyon et al.'s ALC, the area under the accuracy over
  :math:`\log_2 n`, 0 for a constant curve at the initial accuracy and 1 for a
  perfect curve;
* :func:`wi` (higher): :math:`\sum_i w_i (L_{RS}(n_i) - L(n_i)) / \sum_i w_i`
  over the curve points :math:`i = 0..N-1`, with :math:`w_i = e^{-\alpha (n_i - n_0)}`
  or :math:`w_i = (N - 1 - i)/(N - 1)`;
* :func:`label_complexity` (lower): the first :math:`n` with
  :math:`L(n) \le (1 + \varepsilon) L_\infty`.

:func:`~mri_theory.runners.asymptotic.asymptotic_loss` gives :math:`L_\infty`, the loss after training on a
large sample (§5.2, line ~1044: "the loss from training on a much larger
dataset"), exactly on a population.  :func:`regret` is the paper's AL regret
(Appendix E, line ~1658): the loss gap between a method's curve and the curve
of MRI-best, the greedy maximiser of the true :math:`Q^c`.  The per-step
quantity the sandbox records, the best true :math:`Q^c` among the scored
candidates minus the chosen one's, is *not* that regret; it is
:func:`q_c_shortfall`.

:func:`curve_metrics` applies the metrics to a whole sandbox table, per
(problem, classifier) pairing and method, in the two modes of the paper's R1
step (see :mod:`mri_theory.evaluation.ranking`), for error-rate curves (the paper's) or
log-loss curves (``loss="log"``: :func:`ranked_metrics`).

Every function refuses, naming the argument, what would give a meaningless
number: non-finite values, text or booleans where numbers are meant, numbers
of labelled examples that are not whole numbers >= 0, negative losses,
error rates outside [0, 1], losses above :data:`MAX_LOSS`, missing labels in
key columns, and sizes above the stated bounds.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from mri_theory._utils import validation as check
from mri_theory._utils.ties import TIE_TOLERANCE
from mri_theory.evaluation import _checks as evc
from mri_theory.evaluation import _kernels as kernel
from mri_theory.evaluation._checks import LOSS_KINDS, MAX_LOSS
from mri_theory.evaluation._kernels import WEIGHTINGS
from mri_theory.evaluation._pairings import (
    BEST,
    CURVE_COLUMNS,
    ORACLES,
    REFERENCE,
    check_inputs,
    metrics_frame,
    pairing_metrics,
)

__all__ = ["BEST", "CURVE_COLUMNS", "LOSS_KINDS", "MAX_LOSS",
           "METRIC_COLUMNS", "ORACLES", "RANKED_METRICS", "REFERENCE", "WEIGHTINGS", "LabelComplexity", "Regret",
           "alc", "aua", "curve_metrics", "label_complexity", "mean_loss", "metric_columns",
           "q_c_shortfall", "ranked_metrics", "regret", "wi"]

#: The four metrics of §5.3 that enter the overall rank, each mapped to "higher is better".
RANKED_METRICS: dict[str, bool] = {"label_complexity": False, "aua": True, "wi_linear": True,
                                   "wi_exponential": True}


class LabelComplexity(NamedTuple):
    """Result of :func:`label_complexity`.

    Parameters
    ----------
    value : float
        The first ``n`` at which the curve reaches the target loss; when it never does, ``n_max + 1`` (a lower
        bound: the true label complexity lies beyond the curve).
    censored : bool
        Whether the curve never reaches the target (``value`` is then the lower bound).

    Examples
    --------
    >>> from mri_theory.evaluation import label_complexity
    >>> result = label_complexity([2, 4, 6], [0.5, 0.3, 0.25], asymptotic_loss=0.2)
    >>> result.value, result.censored
    (7.0, True)
    """

    value: float
    censored: bool


class Regret(NamedTuple):
    """Result of :func:`regret`: the loss gap to MRI-best at each ``n`` and its mean over the curve.

    Parameters
    ----------
    per_step : ndarray of shape (n,)
        The method's loss minus MRI-best's at each point of the curve.
    mean : float
        The mean of ``per_step`` over the curve (negative where the method beats greedy MRI-best).

    Examples
    --------
    >>> from mri_theory.evaluation import regret
    >>> result = regret([0.5, 0.3, 0.2], [0.5, 0.2, 0.2])
    >>> result.per_step.round(12).tolist(), round(result.mean, 12)
    ([0.0, 0.1, 0.0], 0.033333333333)
    """

    per_step: np.ndarray
    mean: float


# ---------------------------------------------------------------- validation

def _check_n(n: Any) -> np.ndarray:
    """Numbers of labelled examples: whole numbers >= 0 (at most 2**53), strictly increasing, at least 2."""
    n = evc.number_array(n, "n")
    if n.ndim != 1 or n.size < 2:
        raise ValueError(f"n must be a 1-D array of at least 2 points, got shape {n.shape}")
    evc.counts(n, "n")
    if np.any(np.diff(n) <= 0):
        raise ValueError(f"n must be strictly increasing, got {n.tolist()}")
    return n


def _check_losses(value: Any, name: str, size: int, kind: str | None) -> np.ndarray:
    """One loss per curve point, finite and in the range of ``kind`` (``None``: any loss kind, in
    [0, MAX_LOSS])."""
    arr = evc.number_array(value, name)
    if arr.ndim != 1 or arr.size != size:
        raise ValueError(f"{name} must be a 1-D array with one loss per n ({size} points, the same n values for "
                         f"every curve), got shape {arr.shape}")
    return evc.losses(arr, name, kind)


# ---------------------------------------------------------------- public metrics of one curve

def aua(n: Any, loss: Any) -> float:
    r"""Area under the accuracy curve, normalised to a mean accuracy in [0, 1] (§2.2, §5.3).

    .. math:: \mathrm{AUA} = \frac{1}{n_{N-1} - n_0} \int_{n_0}^{n_{N-1}} (1 - L(n))\,dn

    by the trapezoid rule over the curve points.  The paper cites AUA
    (Guyon et al. 2011) without a formula (lines 1074-1075); this normalisation by
    the width of the curve is ours, so that AUA is the mean accuracy along the
    curve and comparable between curves of different lengths.

    Parameters
    ----------
    n : array_like (N,)
        Numbers of labelled examples: whole numbers >= 0, strictly
        increasing, ``N >= 2``.
    loss : array_like (N,)
        Error rates in [0, 1] at those ``n`` (:func:`mean_loss` for other losses).

    Returns
    -------
    float
        Higher is better.

    See Also
    --------
    mri_theory.evaluation.mean_loss : The same area for any loss (the mean loss along the curve).
    mri_theory.evaluation.alc : The area on a log2 axis, relative to the initial accuracy.

    Examples
    --------
    A curve from 50 % to 20 % error; AUA is its mean accuracy by the trapezoid rule, here (0.6 + 0.75) / 2:

    >>> from mri_theory.evaluation import aua
    >>> aua([2, 4, 6], [0.5, 0.3, 0.2])
    0.675
    """
    n = _check_n(n)
    loss = _check_losses(loss, "loss", n.size, "error")
    return float(kernel.aua(n, loss))


def mean_loss(n: Any, loss: Any) -> float:
    r"""Mean loss along the curve: the area under the loss curve over its width, for any loss.

    .. math:: \bar L = \frac{1}{n_{N-1} - n_0} \int_{n_0}^{n_{N-1}} L(n)\,dn

    by the trapezoid rule over the curve points.  AUA's counterpart for a
    loss that is not an error rate (the log loss): for error rates
    :math:`\mathrm{AUA} = 1 - \bar L` (:func:`aua`).  Ours; the paper ranks
    error-rate curves only.

    Parameters
    ----------
    n : array_like (N,)
        Numbers of labelled examples: whole numbers >= 0, strictly
        increasing, ``N >= 2``.
    loss : array_like (N,)
        Losses in [0, :data:`MAX_LOSS`] at those ``n``.

    Returns
    -------
    float
        Lower is better.

    Examples
    --------
    The mean loss along the curve: 1 - AUA for error rates, and defined for log losses too:

    >>> from mri_theory.evaluation import aua, mean_loss
    >>> n, loss = [2, 4, 6], [0.5, 0.3, 0.2]
    >>> mean_loss(n, loss), round(1 - aua(n, loss), 12)
    (0.325, 0.325)
    """
    n = _check_n(n)
    loss = _check_losses(loss, "loss", n.size, None)
    return float(kernel.mean_loss(n, loss))


def alc(n: Any, loss: Any) -> float:
    r"""Guyon et al.'s area under the learning curve (ALC) on a :math:`\log_2 n` axis (§2.2).

    .. math:: \mathrm{ALC} = \frac{\int (A(n) - A_0)\, d\log_2 n}{(1 - A_0)(\log_2 n_{N-1} - \log_2 n_0)},
       \qquad A = 1 - L,\ A_0 = A(n_0),

    by the trapezoid rule over the curve points in :math:`\log_2 n`: the
    area between the curve and the constant curve at the initial accuracy
    (which scores 0), relative to the same area for a perfect curve
    (accuracy 1 over the whole range, which scores 1); negative for a curve
    below its start.  Guyon et al. (2011) normalise between a random predictor
    and a perfect one; we normalise between the constant curve at the initial
    accuracy and a perfect curve, as the paper gives no formula.

    Parameters
    ----------
    n : array_like (N,)
        Numbers of labelled examples: whole numbers, strictly increasing,
        positive, ``N >= 2``.
    loss : array_like (N,)
        Error rates in [0, 1]; the initial loss must be positive (else the
        normalisation is 0/0).

    Returns
    -------
    float
        Higher is better.

    Examples
    --------
    A curve that is perfect from the second point on scores the area of the perfect curve after it:

    >>> from mri_theory.evaluation import alc
    >>> alc([2, 4, 8], [0.5, 0.0, 0.0])
    0.75
    >>> alc([2, 4, 8], [0.5, 0.5, 0.5])  # no better than its start
    0.0
    """
    n = _check_n(n)
    if n[0] <= 0:
        raise ValueError(f"n must be positive for the log2 axis of ALC, got n[0] = {n[0]}")
    loss = _check_losses(loss, "loss", n.size, "error")
    if loss[0] == 0:
        raise ValueError("loss: the initial loss is 0, so ALC's normalisation (a perfect curve) is 0/0")
    return float(kernel.alc(n, loss))


def wi(n: Any, loss: Any, loss_rs: Any, weighting: str = "exponential", alpha: float = 0.02) -> float:
    r"""Weighted improvement over random selection (§2.2, §5.3; Evans et al. 2013).

    .. math:: \mathrm{WI} = \frac{\sum_i w_i \big(L_{RS}(n_i) - L(n_i)\big)}{\sum_i w_i}

    with :math:`w_i = e^{-\alpha (n_i - n_0)}` (``"exponential"``; the paper
    uses :math:`\alpha = 0.02`, line 1075) or :math:`w_i = (N - 1 - i)/(N - 1)`
    (``"linear"``: 1 at the first point, 0 at the last; with consecutive
    ``n`` this is :math:`(n_{N-1} - n_i)/(n_{N-1} - n_0)`).  Both weightings
    stress the early part of the curve, where AL matters most.  The paper
    gives no formula; these weights are ours.

    Parameters
    ----------
    n : array_like (N,)
        Numbers of labelled examples: whole numbers >= 0, strictly
        increasing, ``N >= 2``; both curves are evaluated at these ``n``.
    loss, loss_rs : array_like (N,)
        Losses of the method and of random selection at those ``n``: error
        rates or log losses, in [0, :data:`MAX_LOSS`].
    weighting : {"exponential", "linear"}
    alpha : float
        Decay rate of the exponential weights, ``>= 0`` (0: uniform weights).

    Returns
    -------
    float
        Positive when the method's loss is below RS's (better); 0 for RS itself.

    Examples
    --------
    With uniform weights (alpha = 0) WI is the mean gap to random selection's curve:

    >>> from mri_theory.evaluation import wi
    >>> round(wi([2, 4, 6], [0.5, 0.3, 0.2], [0.5, 0.4, 0.3], alpha=0.0), 12)
    0.066666666667
    >>> wi([2, 4, 6], [0.5, 0.4, 0.3], [0.5, 0.4, 0.3])  # random selection itself
    0.0
    """
    n = _check_n(n)
    loss = _check_losses(loss, "loss", n.size, None)
    loss_rs = _check_losses(loss_rs, "loss_rs", n.size, None)
    weighting = evc.choice(weighting, "weighting", WEIGHTINGS)
    alpha = evc.nonnegative(alpha, "alpha")
    return float(kernel.wi(n, loss, loss_rs, weighting, alpha))


def label_complexity(n: Any, loss: Any, asymptotic_loss: float, epsilon: float = 0.05) -> LabelComplexity:
    r"""Labels needed to reach a fixed ratio of the asymptotic loss (§2.2, §5.3; Dasgupta 2011).

    The first :math:`n_i` with :math:`L(n_i) \le (1 + \varepsilon)\,L_\infty`
    (a loss within :data:`~mri_theory._utils.ties.TIE_TOLERANCE` of the target counts
    as reaching it).  The paper uses ":math:`\epsilon = 5`" (lines 1075-1076),
    which we read as 5 %: ``epsilon = 0.05``.  A curve that never reaches the
    target is *censored*: its label complexity exceeds the curve, and the
    value returned is ``n_max + 1`` with ``censored=True`` (so censored curves
    tie with each other and rank below every curve that reaches the target).

    Parameters
    ----------
    n : array_like (N,)
        Numbers of labelled examples: whole numbers >= 0, strictly
        increasing, ``N >= 2``.
    loss : array_like (N,)
        Losses at those ``n``: error rates or log losses, in
        [0, :data:`MAX_LOSS`].
    asymptotic_loss : float
        :math:`L_\infty` of the same loss, in [0, :data:`MAX_LOSS`], e.g.
        from :func:`~mri_theory.runners.asymptotic.asymptotic_loss`.  For the log loss the target is
        relative to the asymptotic log loss.
    epsilon : float
        Relative tolerance :math:`\varepsilon >= 0` (finite; refused if
        :math:`(1 + \varepsilon) L_\infty` overflows).

    Returns
    -------
    LabelComplexity
        ``(value, censored)``; lower ``value`` is better.

    Examples
    --------
    >>> from mri_theory.evaluation import label_complexity
    >>> label_complexity([2, 4, 6, 8], [0.5, 0.3, 0.2, 0.1], asymptotic_loss=0.1)
    LabelComplexity(value=8.0, censored=False)
    >>> label_complexity([2, 4, 6, 8], [0.5, 0.3, 0.2, 0.15], asymptotic_loss=0.1)  # never within 5 %: censored
    LabelComplexity(value=9.0, censored=True)
    """
    n = _check_n(n)
    loss = _check_losses(loss, "loss", n.size, None)
    asymptotic = check.finite_scalar(asymptotic_loss, "asymptotic_loss")
    evc.losses(np.array([asymptotic]), "asymptotic_loss", None)
    epsilon = evc.nonnegative(epsilon, "epsilon")
    value, censored = kernel.label_complexity(n, loss, evc.lc_target(asymptotic, epsilon))
    return LabelComplexity(float(value), bool(censored))


def regret(curve: Any, best_curve: Any) -> Regret:
    r"""The paper's AL regret: the loss gap between a method's curve and MRI-best's (Appendix E, line ~1658).

    "AL regret is naturally defined as the loss difference, between the
    optimal performance given by maximising :math:`Q^c`, and the actual
    performance of any given AL method."  Per point,
    :math:`L(n_i) - L_{\text{MRI-best}}(n_i)`; summarised by the mean over the
    curve points.  MRI-best is greedy (one step at a time), so another method
    can beat it over part of a curve: the regret can be negative.  In the
    runners MRI-best is ``costly`` like SMRI, BMRI and EfeLc: with a
    ``subsample`` (the studies' 100) it maximises the true :math:`Q^c` over that
    many random candidates of the pool per step, not over the whole pool, so the
    reference of the study's regret is that greedy choice, not the pool's best
    (:doc:`/deviations`); ``MRIBest(candidates="pool")`` gives the pool's best
    (the sensitivity reading ``"MRI-best whole pool"``).

    Parameters
    ----------
    curve, best_curve : array_like (N,)
        Losses of the method and of MRI-best at the same ``n`` values
        (``N >= 1``): error rates or log losses, in [0, :data:`MAX_LOSS`].

    Returns
    -------
    Regret
        ``(per_step, mean)``.

    See Also
    --------
    mri_theory.strategies.MRIBest : The greedy optimum whose curve defines the regret.
    mri_theory.evaluation.q_c_shortfall : The Q^c given up at each single selection, which is not the regret.

    Examples
    --------
    The gap to MRI-best's curve at each point, and its mean over the curve:

    >>> from mri_theory.evaluation import regret
    >>> round(regret([0.5, 0.3, 0.2], [0.5, 0.2, 0.2]).mean, 12)
    0.033333333333
    """
    curve = evc.number_array(curve, "curve")
    if curve.ndim != 1 or curve.size < 1:
        raise ValueError(f"curve must be a non-empty 1-D array of losses, got shape {curve.shape}")
    evc.losses(curve, "curve", None)
    best = _check_losses(best_curve, "best_curve", curve.size, None)
    gap = curve - best
    return Regret(gap, float(gap.mean()))


def q_c_shortfall(curves: pd.DataFrame) -> pd.Series:
    r"""The per-step :math:`Q^c` shortfall of a sandbox table: ``q_c_best - q_c_chosen``.

    At each selection step: the best true :math:`Q^c` among the candidates the
    strategy scored minus the true :math:`Q^c` of the one it chose (>= 0; 0 for
    MRI-best).  It measures single selections in the state the strategy
    reached; it is not the paper's regret (see :func:`regret`).

    Parameters
    ----------
    curves : pandas.DataFrame
        A table of :func:`mri_theory.runners.sandbox.run_curves` (columns ``q_c_best``
        and ``q_c_chosen``).

    Returns
    -------
    pandas.Series
        Named ``"q_c_shortfall"``, aligned with ``curves``; NaN on the rows
        that make no selection (the last point of each curve) or when the
        run did not record :math:`Q^c`.

    Raises
    ------
    ValueError
        If the columns hold inf, text or booleans, if a row has one of the
        two values and not the other (NaN), or if ``q_c_chosen`` exceeds
        ``q_c_best`` (beyond :data:`~mri_theory._utils.ties.TIE_TOLERANCE`): the
        chosen candidate is among those scored, so its :math:`Q^c` cannot be
        above the best.

    See Also
    --------
    mri_theory.evaluation.regret : The paper's AL regret, a loss gap between whole curves.

    Examples
    --------
    The best Q^c among the scored candidates minus the chosen one's, per step; the last point selects nothing:

    >>> import pandas as pd
    >>> from mri_theory.evaluation import q_c_shortfall
    >>> curves = pd.DataFrame({"strategy": "SE", "n_labelled": [2, 3, 4], "q_c_best": [0.2, 0.1, None],
    ...                        "q_c_chosen": [0.15, 0.1, None]})
    >>> q_c_shortfall(curves).round(6).tolist()
    [0.05, 0.0, nan]

    A whole run records the two columns with ``record_q_c=True``
    (:func:`~mri_theory.runners.sandbox.run_curves`); MRI-best, which chooses the best, gives up nothing.
    """
    if not isinstance(curves, pd.DataFrame):
        raise TypeError(f"curves must be a pandas DataFrame, got {type(curves).__name__}")
    missing = {"q_c_best", "q_c_chosen"} - set(curves.columns)
    if missing:
        raise ValueError(f"curves must have the columns q_c_best and q_c_chosen, missing {sorted(missing)}")
    if curves.columns.duplicated().any():
        raise ValueError(f"curves has a column more than once: {list(curves.columns)}")
    best, chosen = (evc.number_array(curves[c].to_numpy(), f"curves[{c!r}]", allow_nan=True)
                    for c in ("q_c_best", "q_c_chosen"))
    half = np.isnan(best) != np.isnan(chosen)
    if np.any(half):
        raise ValueError(f"curves: the row at position {int(np.argmax(half))} has only one of q_c_best and "
                         "q_c_chosen (the other is NaN)")
    with np.errstate(invalid="ignore"):
        above = chosen > best + TIE_TOLERANCE * np.maximum(1.0, np.abs(best))
    if np.any(above):
        i = int(np.argmax(above))
        raise ValueError(f"curves['q_c_chosen'] exceeds curves['q_c_best'] at position {i} ({chosen[i]} > "
                         f"{best[i]}): the best Q^c among the scored candidates bounds the chosen one's")
    return (curves["q_c_best"] - curves["q_c_chosen"]).rename("q_c_shortfall")


# ---------------------------------------------------------------- a whole sandbox table
# (split into pairings, checked and computed by mri_theory.evaluation._pairings)

#: Columns of :func:`curve_metrics` after the keys, in order, for error-rate curves (:func:`metric_columns`).
METRIC_COLUMNS = ["label_complexity", "lc_censored", "aua", "alc", "wi_linear", "wi_exponential", "regret"]
#: The ranked metrics of log-loss curves: AUA (an accuracy) is replaced by the mean loss (lower is better).
_LOG_RANKED_METRICS: dict[str, bool] = {"label_complexity": False, "mean_loss": False, "wi_linear": True,
                                        "wi_exponential": True}


def ranked_metrics(loss: str = "error") -> dict[str, bool]:
    """The four metrics of §5.3 that enter the overall rank for curves of the loss kind ``loss``.

    Parameters
    ----------
    loss : {"error", "log"}
        ``"error"``: :data:`RANKED_METRICS` (label complexity, AUA,
        WI-linear, WI-exponential).  ``"log"``: AUA, a mean accuracy that
        needs error rates, is replaced by ``mean_loss`` (:func:`mean_loss`,
        lower is better); for error rates ``aua = 1 - mean_loss``, so the
        two rank the methods identically.

    Returns
    -------
    dict
        Metric name -> higher is better, in the order of the paper's rows.

    Examples
    --------
    The four metrics of the overall rank, and whether higher is better; the log loss swaps AUA for the mean loss:

    >>> from mri_theory.evaluation import ranked_metrics
    >>> ranked_metrics()
    {'label_complexity': False, 'aua': True, 'wi_linear': True, 'wi_exponential': True}
    >>> ranked_metrics("log")
    {'label_complexity': False, 'mean_loss': False, 'wi_linear': True, 'wi_exponential': True}
    """
    return dict(RANKED_METRICS if evc.loss_kind(loss) == "error" else _LOG_RANKED_METRICS)


def metric_columns(loss: str = "error") -> list[str]:
    """The columns of :func:`curve_metrics` after the keys for the loss kind ``loss``.

    Parameters
    ----------
    loss : {"error", "log"}
        The loss of the curves.

    Returns
    -------
    list of str
        :data:`METRIC_COLUMNS`, with ``mean_loss`` in place of ``aua`` for ``"log"``.

    See Also
    --------
    mri_theory.evaluation.curve_metrics : The table with these columns.

    Examples
    --------
    >>> from mri_theory.evaluation import metric_columns
    >>> metric_columns()
    ['label_complexity', 'lc_censored', 'aua', 'alc', 'wi_linear', 'wi_exponential', 'regret']
    """
    area = "aua" if evc.loss_kind(loss) == "error" else "mean_loss"
    return [area if c == "aua" else c for c in METRIC_COLUMNS]


def curve_metrics(curves: pd.DataFrame, asymptotic: pd.DataFrame, *, mode: str = "curve", alpha: float = 0.02,
                  epsilon: float = 0.05, loss: str = "error") -> pd.DataFrame:
    r"""The metrics of every method in every (problem, classifier) pairing of a sandbox table (R1, §5.4).

    Parameters
    ----------
    curves : pandas.DataFrame
        Tidy sandbox table (:data:`mri_theory.runners.sandbox.RESULT_COLUMNS`; the
        columns :data:`CURVE_COLUMNS` are needed) for any number of
        pairings.  Names (non-empty str, no missing value) in ``problem``,
        ``classifier`` and ``strategy``; whole numbers >= 0 in ``replicate``
        and ``n_labelled``; finite losses of the kind ``loss`` in ``loss``.
        Within a pairing every strategy must have the same replicates
        (paired) and every curve the same ``n_labelled`` values (at least
        two); RS must be present.  The oracles (:data:`ORACLES`) get no row;
        MRI-best's curve defines the regret.
    asymptotic : pandas.DataFrame
        Columns ``problem``, ``classifier``, ``asymptotic_loss`` (e.g. from
        :func:`~mri_theory.runners.asymptotic.asymptotic_loss`, with the same ``loss``), one row per pairing.
    mode : {"curve", "replicate"}
        ``"curve"`` (default; the paper's R1, lines ~1131 and ~1202: "the
        average losses are calculated, over the ten Monte Carlo replicates.
        From these average losses, four AL metric numbers are calculated"):
        the metrics of the replicate-averaged curve.  ``"replicate"`` (line
        ~1166: "the true distribution of AL metric scores ... summarised here
        by the mean"): the mean over replicates of each replicate's metrics,
        WI against RS in the same replicate and censored label complexities
        counted as ``n_max + 1``.
    alpha, epsilon : float
        Of :func:`wi` (exponential) and :func:`label_complexity`, both
        finite and ``>= 0``.
    loss : {"error", "log"}
        The loss of the curves.  ``"error"`` (default): error rates in
        [0, 1], and so is every asymptotic loss.  ``"log"``: log losses in
        [0, :data:`MAX_LOSS`] (nats); AUA, a mean accuracy, is replaced by
        ``mean_loss`` (:func:`mean_loss`, lower is better; see
        :func:`ranked_metrics`); label complexity is defined on the log loss
        relative to its asymptote, the first ``n`` whose log loss is at most
        :math:`(1 + \varepsilon) L_\infty` with :math:`L_\infty` the
        asymptotic *log* loss; ALC is the same formula in terms of the loss
        (the share of the initial loss removed, averaged over
        :math:`\log_2 n`); WI and the regret are log-loss gaps.

    Returns
    -------
    pandas.DataFrame
        One row per (problem, classifier, method), pairings sorted by name and
        methods in order of first appearance: ``label_complexity``,
        ``lc_censored`` (the fraction of censored values: 0 or 1 in curve
        mode), ``aua`` (``mean_loss`` for log loss), ``alc`` (NaN if the
        initial loss is 0), ``wi_linear``, ``wi_exponential``, ``regret``
        (mean over the curve of the loss minus MRI-best's, :func:`regret`;
        the same in both modes; NaN when the pairing has no MRI-best curve)
        and ``n_replicates`` (:func:`metric_columns`).

    Raises
    ------
    ValueError, TypeError
        Naming the argument (and column) for any input outside the above,
        before any metric is computed.

    See Also
    --------
    mri_theory.evaluation.rank_pairings : Rank the methods within each pairing on these metrics.
    mri_theory.evaluation.rank_study : All of R1-R5 from the curves.

    Examples
    --------
    One pairing by hand (one replicate, three points): SE's curve lies between random selection's and MRI-best's,
    and reaches the target 1.05 x 0.1 at n = 6, where RS's never does (censored: 6 + 1):

    >>> import pandas as pd
    >>> from mri_theory.evaluation import CURVE_COLUMNS, curve_metrics
    >>> losses = {"RS": [0.5, 0.4, 0.3], "SE": [0.5, 0.3, 0.1], "MRI-best": [0.5, 0.2, 0.1]}
    >>> curves = pd.DataFrame([("four-gaussian", "lda", method, 0, n, loss) for method, curve in losses.items()
    ...                        for n, loss in zip([2, 4, 6], curve)], columns=CURVE_COLUMNS)
    >>> asymptotic = pd.DataFrame({"problem": ["four-gaussian"], "classifier": ["lda"], "asymptotic_loss": [0.1]})
    >>> metrics = curve_metrics(curves, asymptotic)
    >>> metrics[["method", "label_complexity", "aua", "wi_linear", "regret"]].round(4).to_dict("list")
    {'method': ['RS', 'SE'], 'label_complexity': [7.0, 6.0], 'aua': [0.6, 0.7], 'wi_linear': [0.0, 0.0333],
    'regret': [0.1333, 0.0333]}

    MRI-best defines the regret and gets no row; RS's WI is 0 (against itself); SE's regret is the mean of its gaps
    to MRI-best, (0 + 0.1 + 0) / 3, and its linear WI weighs its gaps to RS (0, 0.1, 0.2) by (1, 0.5, 0).
    """
    inputs = check_inputs(curves, asymptotic, mode, alpha, epsilon, loss)
    columns = metric_columns(inputs.loss)
    frames = []
    for p in inputs.pairings:
        r = p.loss.shape[1]
        frames.append(metrics_frame(p, pairing_metrics(p, inputs, np.full((1, r), 1 / r)), columns))
    return pd.concat(frames, ignore_index=True)
