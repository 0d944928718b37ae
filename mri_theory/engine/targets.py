r"""The true targets on the general path: :math:`Q^c`, :math:`Q^a`, :math:`B^c` for known problems.

:math:`Q^c(x) = L(\theta(D_S)) - \sum_j p_j(x) L(\theta(D_S \cup (x, c_j)))`
(Eq. ``eqc``) with the problem's Bayes posterior **p** at each candidate and
``L`` measured on a :class:`~mri_theory.engine.population.Population` (exact
posteriors as rows: the true loss, Rao-Blackwellised).
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from mri_theory._utils import validation as check
from mri_theory._utils.ties import TIE_TOLERANCE, near_maximum
from mri_theory._utils.validation import check_labels
from mri_theory.engine.contract import Classifier, check_points
from mri_theory.engine.exact import MAX_DIM, MixtureTruth
from mri_theory.engine.losses import check_loss
from mri_theory.engine.population import (
    ExactPopulation,
    Population,
    check_population,
    check_problem_interface,
)
from mri_theory.engine.retraining import current_and_future_losses, fit_on

if TYPE_CHECKING:
    from mri_theory.problems import Problem

__all__ = ["RESOLUTION_SCRAMBLES", "RESOLUTION_Z", "TRUTHS", "SampledQc", "best_is_resolved", "check_truth",
           "choice_is_resolved", "exact_truth_available", "resolve_truth", "sampled_q_c", "true_q_c",
           "true_q_c_and_loss", "true_q_a", "true_b_c"]

_MAX_BATCH = 3

#: How the runners evaluate the truth: ``"exact"`` (:meth:`Population.exact`, integrated), ``"sampled"``
#: (a QMC population of the problem, or real data's test set) or ``"auto"`` (exact where
#: :func:`exact_truth_available`, sampled otherwise).
TRUTHS = ("auto", "exact", "sampled")

#: The multiple of the standard error by which a resolved choice beats the runner-up (:func:`best_is_resolved`).
RESOLUTION_Z = 3.0

#: Independent scrambles of the sampled populations that judge a choice (:func:`choice_is_resolved`).
RESOLUTION_SCRAMBLES = 8


def check_truth(problem: Any, population: Any, points: ArrayLike,
                 name: str = "candidates") -> tuple[Problem, Population | ExactPopulation, np.ndarray]:
    """Validate the truth shared by every target: a :class:`~mri_theory.problems.Problem` matching the population,
    and the points.

    ``problem`` must be a Problem object (not a name) with the population's
    number of classes and dimension; ``points`` (named ``name``) must be a
    non-empty ``(m, d)`` array in that dimension.
    """
    problem = check_problem_interface(problem)
    population = check_population(population)
    if problem.n_classes != population.n_classes:
        raise ValueError(f"problem has {problem.n_classes} classes but population has {population.n_classes}")
    if problem.dim != population.dim:
        raise ValueError(f"problem is {problem.dim}-D but population points are {population.dim}-D")
    return problem, population, check_points(points, name, dim=population.dim, min_rows=1)


def true_q_c(
    problem: Any,
    classifier: Classifier,
    X_S: ArrayLike,
    y_S: ArrayLike,
    candidates: ArrayLike,
    population: Population | ExactPopulation,
    loss: str = "error",
) -> np.ndarray:
    r"""The true :math:`Q^c` of each candidate, Eq. ``eqc``.

    Parameters
    ----------
    problem : Problem
        Supplies the Bayes posterior :math:`\mathbf p(x)` of each candidate.
    classifier : Classifier
        Base classifier (a template; cloned).
    X_S, y_S : array_like
        The labelled data :math:`D_S`.
    candidates : array_like (m, d)
    population : Population
        Where the loss ``L`` is measured (e.g. ``Population.from_problem``).
    loss : {"error", "log"}

    Returns
    -------
    ndarray (m,)
    """
    return true_q_c_and_loss(problem, classifier, X_S, y_S, candidates, population, loss)[1]


def true_q_c_and_loss(
    problem: Any,
    classifier: Classifier,
    X_S: ArrayLike,
    y_S: ArrayLike,
    candidates: ArrayLike,
    population: Population | ExactPopulation,
    loss: str = "error",
) -> tuple[float, np.ndarray]:
    r"""The current loss :math:`L(\theta(D_S))` (term :math:`T_c`) and :func:`true_q_c`, from one engine call."""
    problem, population, candidates = check_truth(problem, population, candidates)
    L_now, future = current_and_future_losses(classifier, X_S, y_S, candidates, population, loss)
    return L_now, L_now - np.sum(problem.posterior(candidates) * future, axis=1)


class SampledQc(NamedTuple):
    """:math:`Q^c` on sampled populations with its standard error (:func:`sampled_q_c`)."""

    q_c: np.ndarray  #: (m,) mean over the independent scrambles
    se: np.ndarray  #: (m,) standard error of that mean (the scrambles' standard deviation / sqrt(R))
    replicates: np.ndarray  #: (R, m) the Q^c of each scramble, for paired comparisons (:func:`best_is_resolved`)


def sampled_q_c(
    problem: Any,
    classifier: Classifier,
    X_S: ArrayLike,
    y_S: ArrayLike,
    candidates: ArrayLike,
    size: int = 10_000,
    scrambles: int = 8,
    *,
    rng: np.random.Generator,
    loss: str = "error",
) -> SampledQc:
    r"""The true :math:`Q^c` (Eq. ``eqc``) on randomised quasi-Monte Carlo populations, with its standard error.

    ``scrambles`` independent scrambled-Sobol' populations of ``size // scrambles`` points each
    (:meth:`~mri_theory.engine.population.Population.from_problem`, ``method="qmc"``) give
    ``scrambles`` independent, unbiased values of :math:`Q^c` per candidate; their mean is the estimate
    and their standard deviation over :math:`\sqrt{R}` its standard error (randomised QMC: the
    scrambles are i.i.d., so the error is honest even though each scramble's points are not).  The
    cost is that of one population of ``size`` points plus ``scrambles - 1`` extra retraining passes (the
    current model is fitted once: its fit does not depend on the population).  Where the exact truth exists
    (:meth:`~mri_theory.engine.population.Population.exact`), prefer it: no error at all.

    Parameters
    ----------
    problem, classifier, X_S, y_S, candidates, loss
        As in :func:`true_q_c`.
    size : int
        Total population points, split evenly over the scrambles (at least 1 each).
    scrambles : int
        Independent scrambles ``R >= 2``.
    rng : numpy.random.Generator
        Draws the scrambles, in order.

    Returns
    -------
    SampledQc
    """
    scrambles = check.count(scrambles, "scrambles", minimum=2, maximum=1000)
    size = check.count(size, "size", minimum=scrambles, maximum=check.MAX_SIZE)
    rng = check.generator(rng)
    problem = check_problem_interface(problem)
    loss = check_loss(loss)
    if not isinstance(classifier, Classifier):  # everything checked before the first population is drawn
        raise TypeError(f"classifier must be an mri_theory.classifiers.Classifier, got {type(classifier).__name__}")
    X_S = check_points(X_S, "X_S", dim=problem.dim, min_rows=1)
    y_S = check_labels(y_S, problem.n_classes, "y_S")
    if X_S.shape[0] != y_S.shape[0]:
        raise ValueError(f"X_S and y_S must have the same length, got {X_S.shape[0]} and {y_S.shape[0]}")
    candidates = check_points(candidates, "candidates", dim=problem.dim, min_rows=1)
    posterior = problem.posterior(candidates)
    model = None  # fitted once: the fit does not depend on the population (the same bits as a fit per scramble)
    values = np.empty((scrambles, candidates.shape[0]))
    for r in range(scrambles):
        population = Population.from_problem(problem, size // scrambles, rng, method="qmc")
        model = fit_on(classifier, X_S, y_S, population) if model is None else model
        L_now, future = model.retraining_losses(candidates, population, loss)
        values[r] = L_now - np.sum(posterior * future, axis=1)
    return SampledQc(values.mean(axis=0), values.std(axis=0, ddof=1) / np.sqrt(scrambles), values)


def best_is_resolved(replicates: ArrayLike, z: float = 3.0, largest: bool = True) -> tuple[int, bool]:
    r"""The best candidate by the mean of ``replicates`` and whether it is *resolved* from the runner-up.

    Resolved: the best mean exceeds the runner-up's by more than ``z`` standard errors of their
    *paired* difference (the same scrambles: :attr:`SampledQc.replicates`), so that the choice does
    not rest on the population's noise.  With fewer than two candidates the best is resolved.

    Parameters
    ----------
    replicates : array_like (R, m)
        Independent replicate values per candidate, ``R >= 2``.
    z : float
        The multiple of the standard error, ``> 0`` (3: a chance of about 1e-3 of calling noise resolved).
    largest : bool
        ``True``: the best is the largest mean (MRI-best); ``False``: the smallest (MRI-worst).

    Returns
    -------
    best : int
        Index of the best mean (ties within :data:`~mri_theory._utils.ties.TIE_TOLERANCE`: the lowest index).
    resolved : bool
    """
    values = check.finite_array(replicates, "replicates")
    if values.ndim != 2 or values.shape[0] < 2 or values.shape[1] < 1:
        raise ValueError(f"replicates must have shape (R >= 2, m >= 1), got {values.shape}")
    z = check.positive_scalar(z, "z")
    signed = values if check.flag(largest, "largest") else -values
    means = signed.mean(axis=0)
    best = int(np.flatnonzero(near_maximum(means))[0])  # near-ties (TIE_TOLERANCE): the lowest index
    others = np.delete(np.arange(means.size), best)
    if others.size == 0:
        return best, True
    runners_up = others[near_maximum(means[others])]  # tied runners-up: the least separated one counts
    gaps = signed[:, [best]] - signed[:, runners_up]
    mean, se = gaps.mean(axis=0), gaps.std(axis=0, ddof=1) / np.sqrt(gaps.shape[0])
    # a gap without noise (se 0) is resolved when it is positive; identical candidates (gap 0) are not
    return best, bool(np.all(np.where(se > 0, mean > z * se, mean > 0)))


def exact_truth_available(problem: Any, classifier: Any) -> bool:
    """Whether :meth:`Population.exact(problem) <mri_theory.engine.population.Population.exact>` can score
    ``classifier``: a Gaussian-mixture problem in one or two dimensions and a classifier whose decision regions are
    integrated exactly (``Classifier.exact_truth``: quadratic or linear scores, or k-NN's polygons).  A problem
    that declares no truth (``has_truth`` False: real data, whose losses are measured on its test set) has none
    to integrate."""
    if not getattr(classifier, "exact_truth", False) or not getattr(problem, "has_truth", True):
        return False
    try:
        truth = MixtureTruth.from_problem(problem)
    except (TypeError, ValueError):  # not a Gaussian mixture
        return False
    return truth.dim <= MAX_DIM


def resolve_truth(truth: Any, problem: Any, classifier: Any, name: str = "truth") -> str:
    """The evaluation a run uses for ``truth`` (one of :data:`TRUTHS`): ``"exact"`` or ``"sampled"``.

    ``"auto"`` is exact where :func:`exact_truth_available`, sampled otherwise; ``"exact"`` where it is not
    available is a ``ValueError`` naming ``name``, the problem and the classifier.
    """
    if not isinstance(truth, str) or truth not in TRUTHS:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, TRUTHS))}, got {truth!r}")
    available = exact_truth_available(problem, classifier)
    if truth == "exact" and not available:
        raise ValueError(f"{name}: 'exact' needs a Gaussian-mixture problem in 1-D or 2-D and a classifier with "
                         f"an exact path (Classifier.exact_truth), got {type(problem).__name__} and "
                         f"{type(classifier).__name__}; use 'auto' or 'sampled'")
    return "exact" if truth == "exact" or (truth == "auto" and available) else "sampled"


def choice_is_resolved(
    problem: Any,
    classifier: Classifier,
    X_S: ArrayLike,
    y_S: ArrayLike,
    chosen: ArrayLike,
    runner_up: ArrayLike,
    size: int,
    *,
    rng: np.random.Generator,
    loss: str = "error",
    largest: bool = True,
    z: float = RESOLUTION_Z,
    scrambles: int = RESOLUTION_SCRAMBLES,
) -> bool:
    r"""Whether a choice made on a sampled population beats the runner-up on independent ones.

    The true :math:`Q^c` of the two points is sampled afresh (:func:`sampled_q_c`: ``scrambles``
    independent scrambled-Sobol' populations, ``size`` points in all), so the judgement does not share the
    noise that made the choice; the choice is *resolved* when it is the better of the two by more than ``z``
    standard errors of their paired difference (:func:`best_is_resolved`), or when the two have the same
    :math:`Q^c` (to :data:`~mri_theory._utils.ties.TIE_TOLERANCE`) on every population, an exact tie in
    which either choice is best (e.g. k-NN candidates that change no neighbourhood).  The cost is that of
    :func:`true_q_c` for two candidates on ``size`` points.

    Parameters
    ----------
    problem, classifier, X_S, y_S, loss
        As in :func:`true_q_c`.
    chosen, runner_up : array_like (d,)
        The chosen candidate and the best of the others, by the population the choice was made on.
    size : int
        Points of the independent populations, in all.
    rng : numpy.random.Generator
        Draws the scrambles.
    largest : bool
        ``True``: the choice maximises :math:`Q^c` (MRI-best); ``False``: it minimises it (MRI-worst).
    z : float
        See :func:`best_is_resolved`.
    scrambles : int
        Independent scrambles, ``>= 2``.

    Returns
    -------
    bool
    """
    z, largest = check.positive_scalar(z, "z"), check.flag(largest, "largest")  # before any population is drawn
    problem = check_problem_interface(problem)
    points = np.vstack([check_points(check.finite_array(point, name).reshape(1, -1), name, dim=problem.dim,
                                     min_rows=1) for point, name in ((chosen, "chosen"), (runner_up, "runner_up"))])
    sampled = sampled_q_c(problem, classifier, X_S, y_S, points, size, scrambles, rng=rng, loss=loss)
    gaps = sampled.replicates[:, 0] - sampled.replicates[:, 1]
    if np.all(np.abs(gaps) <= TIE_TOLERANCE * max(1.0, float(np.max(np.abs(sampled.replicates))))):
        return True  # the same Q^c on every population: an exact tie, the choice is as good as the runner-up
    best, resolved = best_is_resolved(sampled.replicates, z, largest)
    return best == 0 and resolved


def true_q_a(
    problem: Any,
    classifier: Classifier,
    X_S: ArrayLike,
    y_S: ArrayLike,
    candidates: ArrayLike,
    labels: ArrayLike,
    population: Population | ExactPopulation,
    loss: str = "error",
) -> np.ndarray:
    r""":math:`Q^a(x, y) = L(\theta(D_S)) - L(\theta(D_S \cup (x, y)))` for known labels (§3.1)."""
    problem, population, candidates = check_truth(problem, population, candidates)
    labels = check_labels(labels, population.n_classes, "labels")
    if labels.shape[0] != candidates.shape[0]:
        raise ValueError(f"labels must have one entry per candidate ({candidates.shape[0]}), got {labels.shape[0]}")
    L_now, future = current_and_future_losses(classifier, X_S, y_S, candidates, population, loss)
    return L_now - future[np.arange(labels.size), labels]


def true_b_c(
    problem: Any,
    classifier: Classifier,
    X_S: ArrayLike,
    y_S: ArrayLike,
    batch: ArrayLike,
    population: Population | ExactPopulation,
    loss: str = "error",
) -> float:
    r"""The batch target :math:`B^c` of §3.1.1 for ``r <= 3`` points: all ``k^r`` labellings, refitted."""
    problem, population, batch = check_truth(problem, population, batch, "batch")
    if batch.shape[0] > _MAX_BATCH:
        raise ValueError(f"batch: at most {_MAX_BATCH} points (k^r refits), got {batch.shape[0]}")
    loss = check_loss(loss)
    model = fit_on(classifier, X_S, y_S, population)
    p = problem.posterior(batch)
    expected = 0.0
    for labels in itertools.product(range(population.n_classes), repeat=batch.shape[0]):
        weight = float(np.prod(p[np.arange(batch.shape[0]), labels]))
        refit = model.clone().fit(np.vstack([model.X_train_, batch]), np.append(model.y_train_, labels),
                                  population.n_classes)
        expected += weight * population.loss(refit, loss)
    return population.loss(model, loss) - expected
