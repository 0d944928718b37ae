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
from scipy.stats import t as student_t

from mri_theory._utils import validation as check
from mri_theory._utils.limits import check_memory, population_bytes
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
from mri_theory.engine.retraining import check_training_set, current_and_future_losses, fit_on

if TYPE_CHECKING:
    from mri_theory.problems import Problem

__all__ = ["DOUBLINGS", "INDIFFERENCE", "LEVEL", "RESOLUTION_SCRAMBLES", "RESOLUTION_Z", "TRUTHS", "DecisiveQc",
           "SampledQc", "best_is_resolved", "check_truth", "choice_is_resolved", "decisive_q_c",
           "exact_truth_available",
           "resolve_truth", "sampled_q_c", "true_q_c", "true_q_c_and_loss", "true_q_a", "true_b_c"]

_MAX_BATCH = 3

#: The most population points :func:`decisive_q_c` keeps to score a re-admitted candidate on the rounds it missed
#: (about 40 MB with two classes); scrambles beyond are drawn again from their seeds (the same points).
_KEPT_POINTS = 2**20

#: How the runners evaluate the truth: ``"exact"`` (:meth:`Population.exact`, integrated), ``"sampled"``
#: (a QMC population of the problem, or real data's test set) or ``"auto"`` (exact where
#: :func:`exact_truth_available`, sampled otherwise).
TRUTHS = ("auto", "exact", "sampled")

#: The multiple of the standard error by which a resolved choice beats the runner-up (:func:`best_is_resolved`).
RESOLUTION_Z = 3.0

#: Independent scrambles of the sampled populations that judge a choice (:func:`choice_is_resolved`), and of each
#: round of :func:`decisive_q_c`.
RESOLUTION_SCRAMBLES = 8

#: The indifference zone of :func:`decisive_q_c`, relative to the spread of :math:`Q^c` over the candidates (the
#: mean shortfall of a random choice): a choice whose :math:`Q^c` is, with confidence, within this fraction of the
#: spread of the best is resolved.
INDIFFERENCE = 0.05

#: The family-wise error level of :func:`decisive_q_c`: the chance, over all its contenders and all its looks, that
#: its choice falls short of the best by more than the reported ``shortfall_bound`` (so that a *resolved* choice
#: is outside the indifference zone of the best) is at most this (Bonferroni over the ``m - 1`` rivals and the
#: ``doublings + 1`` looks).  0.05, the conventional family-wise level (the leaderboard's Holm levels use it too):
#: with 100 candidates and a curve's 4 looks each comparison is then made at 1.3e-4, 6.8 standard errors of
#: Student's t with 7 degrees of freedom; 0.01 would ask 8.8, and more doublings of every close race.
LEVEL = 0.05

#: How many times :func:`decisive_q_c` may double the contenders' populations: at most ``2**DOUBLINGS`` times
#: ``size`` points per candidate.
DOUBLINGS = 7


def check_truth(problem: Any, population: Any, points: ArrayLike,
                 name: str = "candidates") -> tuple[Problem, Population | ExactPopulation, np.ndarray]:
    """Validate the truth shared by every target: a :class:`~mri_theory.problems.Problem` matching the population,
    and the points.

    ``problem`` must be a Problem object (not a name) with the population's
    number of classes and dimension, and an exact population must be the problem's own
    (:meth:`ExactPopulation.check_problem <mri_theory.engine.population.ExactPopulation.check_problem>`: the
    same mixture); ``points`` (named ``name``) must be a
    non-empty ``(m, d)`` array in that dimension.

    Parameters
    ----------
    problem : Problem
        The problem object.
    population : Population or ExactPopulation
        The population.
    points : array_like of shape (m, d)
        The points (candidates or a batch).
    name : str, default "candidates"
        The points' name in error messages.

    Returns
    -------
    problem : Problem
        The problem.
    population : Population or ExactPopulation
        The population.
    points : ndarray of shape (m, d)
        The points, as floats.

    See Also
    --------
    mri_theory.engine.true_q_c : One of the targets that validate their arguments with it.
    mri_theory.engine.check_population : Validates the population alone.

    Examples
    --------
    The points come back as a float array; a population of another dimension is refused:

    >>> from mri_theory.engine import Population
    >>> from mri_theory.engine.targets import check_truth
    >>> from mri_theory.problems import get_problem
    >>> problem = get_problem("four-gaussian")
    >>> _, _, points = check_truth(problem, Population.exact(problem), [[0, 0], [1, 1]])
    >>> points.dtype.name, points.shape
    ('float64', (2, 2))
    >>> try:
    ...     check_truth(problem, Population.exact(get_problem("two-gaussians")), [[0.0, 0.0]])
    ... except ValueError as error:
    ...     print("ValueError:", error)
    ValueError: problem is 2-D but population points are 1-D
    """
    problem = check_problem_interface(problem)
    population = check_population(population)
    if problem.n_classes != population.n_classes:
        raise ValueError(f"problem has {problem.n_classes} classes but population has {population.n_classes}")
    if problem.dim != population.dim:
        raise ValueError(f"problem is {problem.dim}-D but population points are {population.dim}-D")
    if isinstance(population, ExactPopulation):
        population.check_problem(problem)
    return problem, population, check_points(points, name, dim=population.dim, min_rows=1)


def _posterior_of(problem: Problem, points: np.ndarray, name: str) -> np.ndarray:
    """``problem.posterior(points)``; a point the problem refuses (e.g. beyond its range) is reported under
    ``name``, the argument the caller passed, not the problem's internal ``X``."""
    try:
        return problem.posterior(points)
    except ValueError as error:
        raise ValueError(f"{name}: {error}") from error


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
    population : Population or ExactPopulation
        Where the loss ``L`` is measured (e.g. ``Population.from_problem(problem, ...)``, or
        ``Population.exact(problem)``: an exact population must be the problem's own, the same mixture).
    loss : {"error", "log"}

    Returns
    -------
    ndarray (m,)

    Raises
    ------
    ValueError
        Naming ``population`` when its classes or dimension are not the problem's, or it is the exact
        population of another problem.

    See Also
    --------
    mri_theory.engine.sampled_q_c : The same on sampled populations, with standard errors.
    mri_theory.engine.decisive_q_c : Sampled, raced until the best candidate is resolved.
    mri_theory.engine.exact_truth_available : Whether the exact truth exists for a problem and classifier.
    mri_theory.analytic.q_c : The closed form of the §3.2 example.

    Examples
    --------
    Eq. eqc on Four-Gaussian with LDA: the current loss minus the expected loss after labelling, the expectation over
    the label with the Bayes posterior; here every loss is exact (integrated over the mixture):

    >>> import numpy as np
    >>> from mri_theory.classifiers import LDA
    >>> from mri_theory.engine import Population, future_losses, true_q_c, true_q_c_and_loss
    >>> from mri_theory.problems import get_problem
    >>> problem, rng = get_problem("four-gaussian"), np.random.default_rng(0)
    >>> X, y = problem.sample(10, rng)
    >>> candidates = problem.sample(4, rng)[0]
    >>> population = Population.exact(problem)
    >>> q_c = true_q_c(problem, LDA(), X, y, candidates, population)
    >>> loss, _ = true_q_c_and_loss(problem, LDA(), X, y, candidates, population)
    >>> future = future_losses(LDA(), X, y, candidates, population)  # (candidates, classes)
    >>> by_hand = loss - (problem.posterior(candidates) * future).sum(axis=1)
    >>> bool(np.allclose(q_c, by_hand, rtol=0, atol=1e-14)), q_c.round(4).tolist()
    (True, [0.0011, 0.0063, 0.0001, -0.0074])
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
    r"""The current loss :math:`L(\theta(D_S))` (term :math:`T_c`) and :func:`true_q_c`, from one engine call.

    Parameters
    ----------
    problem : Problem
        The simulated problem: it supplies the Bayes posterior.
    classifier : Classifier
        The base classifier (a template: cloned, never fitted in place).
    X_S, y_S : array_like
        The labelled data :math:`D_S`.
    candidates : array_like of shape (m, d)
        The candidates.
    population : Population or ExactPopulation
        Where the loss is measured (the problem's).
    loss : {"error", "log", "lc"}, default "error"
        The loss.

    Returns
    -------
    current : float
        :math:`L(\theta(D_S))`.
    q_c : ndarray of shape (m,)
        The true :math:`Q^c` of each candidate (Eq. ``eqc``).

    See Also
    --------
    mri_theory.engine.true_q_c : The same Q^c, without the current loss.
    mri_theory.engine.current_and_future_losses : The two terms of Eq. eqc for any population.

    Examples
    --------
    >>> import numpy as np
    >>> from mri_theory.classifiers import LDA
    >>> from mri_theory.engine import Population, current_loss, true_q_c, true_q_c_and_loss
    >>> from mri_theory.problems import get_problem
    >>> problem, rng = get_problem("four-gaussian"), np.random.default_rng(0)
    >>> X, y = problem.sample(10, rng)
    >>> candidates = problem.sample(4, rng)[0]
    >>> population = Population.exact(problem)
    >>> loss, q_c = true_q_c_and_loss(problem, LDA(), X, y, candidates, population)
    >>> same_q_c = np.array_equal(q_c, true_q_c(problem, LDA(), X, y, candidates, population))
    >>> loss == current_loss(LDA(), X, y, population), bool(same_q_c)
    (True, True)
    """
    problem, population, candidates = check_truth(problem, population, candidates)
    X_S, y_S = check_training_set(X_S, y_S, population.n_classes, population.dim, ("X_S", "y_S"))
    posterior = _posterior_of(problem, candidates, "candidates")
    L_now, future = current_and_future_losses(classifier, X_S, y_S, candidates, population, loss)
    return L_now, L_now - np.sum(posterior * future, axis=1)


class SampledQc(NamedTuple):
    """:math:`Q^c` on sampled populations with its standard error (:func:`sampled_q_c`).

    Parameters
    ----------
    q_c : ndarray of shape (m,)
        The mean over the independent scrambles.
    se : ndarray of shape (m,)
        The standard error of that mean (the scrambles' standard deviation / sqrt(R)).
    replicates : ndarray of shape (R, m)
        The :math:`Q^c` of each scramble, for paired comparisons (:func:`best_is_resolved`).

    See Also
    --------
    mri_theory.engine.sampled_q_c : Which returns it.
    mri_theory.engine.DecisiveQc : The result of the race (decisive_q_c).

    Examples
    --------
    Q^c on randomised QMC populations: the mean over 8 scrambles, with its standard error, near the exact value:

    >>> import numpy as np
    >>> from mri_theory.classifiers import LDA
    >>> from mri_theory.engine import Population, sampled_q_c, true_q_c
    >>> from mri_theory.problems import get_problem
    >>> problem, rng = get_problem("four-gaussian"), np.random.default_rng(0)
    >>> X, y = problem.sample(10, rng)
    >>> candidates = problem.sample(3, rng)[0]
    >>> sampled = sampled_q_c(problem, LDA(), X, y, candidates, size=4096, rng=rng)
    >>> exact = true_q_c(problem, LDA(), X, y, candidates, Population.exact(problem))
    >>> sampled.replicates.shape, bool(np.all(np.abs(sampled.q_c - exact) < 5 * sampled.se + 1e-12))
    ((8, 3), True)
    """

    q_c: np.ndarray
    se: np.ndarray
    replicates: np.ndarray


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
        Total population points, split evenly over the scrambles (at least 1 each); each scramble's
        population must fit in the memory available (``Population.from_problem``'s estimate), else a
        ``ValueError`` naming ``size`` before the classifier is fitted.
    scrambles : int
        Independent scrambles ``R >= 2``.
    rng : numpy.random.Generator
        Draws the scrambles, in order.

    Returns
    -------
    SampledQc

    See Also
    --------
    mri_theory.engine.true_q_c : The exact truth where the problem allows it.
    mri_theory.engine.decisive_q_c : Sampled, raced until the best candidate is resolved.
    mri_theory.engine.best_is_resolved : Whether the sampled best is resolved from the runner-up.

    Examples
    --------
    >>> import numpy as np
    >>> from mri_theory.classifiers import LDA
    >>> from mri_theory.engine import Population, sampled_q_c, true_q_c
    >>> from mri_theory.problems import get_problem
    >>> problem, rng = get_problem("four-gaussian"), np.random.default_rng(0)
    >>> X, y = problem.sample(10, rng)
    >>> candidates = problem.sample(3, rng)[0]
    >>> sampled = sampled_q_c(problem, LDA(), X, y, candidates, size=4096, rng=rng)
    >>> exact = true_q_c(problem, LDA(), X, y, candidates, Population.exact(problem))
    >>> bool(np.all(np.abs(sampled.q_c - exact) < 5 * sampled.se + 1e-12))  # within 5 standard errors
    True
    """
    scrambles = check.count(scrambles, "scrambles", minimum=2, maximum=1000)
    size = check.count(size, "size", minimum=scrambles, maximum=check.MAX_SIZE)
    rng = check.generator(rng)
    problem = check_problem_interface(problem)
    loss = check_loss(loss)
    if not isinstance(classifier, Classifier):  # everything checked before the first population is drawn
        raise TypeError(f"classifier must be an mri_theory.classifiers.Classifier, got {type(classifier).__name__}")
    X_S, y_S = check_training_set(X_S, y_S, problem.n_classes, problem.dim, ("X_S", "y_S"))
    candidates = check_points(candidates, "candidates", dim=problem.dim, min_rows=1)
    posterior = _posterior_of(problem, candidates, "candidates")
    check_memory(population_bytes(problem, size // scrambles, "qmc"), "size", size, "each scramble's population")
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

    See Also
    --------
    mri_theory.engine.SampledQc : Whose ``replicates`` it takes.
    mri_theory.engine.choice_is_resolved : The same judgement of a choice, on fresh populations.

    Examples
    --------
    >>> import numpy as np
    >>> from mri_theory.engine import best_is_resolved
    >>> replicates = np.array([[0.10, 0.02, 0.05], [0.11, 0.03, 0.04], [0.09, 0.02, 0.05]])  # scrambles x candidates
    >>> best_is_resolved(replicates)
    (0, True)
    >>> best_is_resolved(np.array([[0.10, 0.09], [0.08, 0.10], [0.10, 0.09]]))  # within noise: not resolved
    (0, False)
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
    integrated exactly (``Classifier.exact_truth``: quadratic or linear scores, k-NN's polygons, the SVM's RBF
    score rules).  A problem
    that declares no truth (``has_truth`` False: real data, whose losses are measured on its test set) has none
    to integrate.

    Parameters
    ----------
    problem : Problem
        A problem object.
    classifier : Classifier
        A classifier object.

    Returns
    -------
    bool
        Whether the exact truth is available for the pair.

    See Also
    --------
    mri_theory.engine.resolve_truth : Which truth a ``"auto"``, ``"exact"`` or ``"sampled"`` request gets.
    mri_theory.engine.true_q_c : The exact truth.
    mri_theory.engine.decisive_q_c : The sampled truth, for the others.

    Examples
    --------
    >>> from mri_theory.classifiers import LDA, SVM, KNN
    >>> from mri_theory.engine import exact_truth_available
    >>> from mri_theory.problems import get_problem
    >>> problem = get_problem("four-gaussian")
    >>> [exact_truth_available(problem, classifier) for classifier in (LDA(), KNN(5), SVM())]
    [True, True, True]
    """
    if not getattr(classifier, "exact_truth", False) or not getattr(problem, "has_truth", True):
        return False
    try:
        truth = MixtureTruth.from_problem(problem)
    except (TypeError, ValueError):  # not a Gaussian mixture
        return False
    return truth.dim <= MAX_DIM


def resolve_truth(truth: Any, problem: Any, classifier: Any, name: str = "truth") -> str:
    """The evaluation a run uses for ``truth`` (one of :data:`TRUTHS`): ``"exact"`` or ``"sampled"``.

    ``"auto"`` is exact where :func:`exact_truth_available` and the classifier takes it by default
    (``Classifier.auto_exact``: every paper classifier), sampled otherwise;
    ``"exact"`` where it is not available is a ``ValueError`` naming ``name``, the problem and the classifier.

    Parameters
    ----------
    truth : {"auto", "exact", "sampled"}
        The run's choice.
    problem : Problem
        The problem.
    classifier : Classifier
        The classifier.
    name : str, default "truth"
        The argument's name in error messages.

    Returns
    -------
    str
        ``"exact"`` or ``"sampled"``.

    See Also
    --------
    mri_theory.engine.exact_truth_available : Whether ``"exact"`` is possible.

    Examples
    --------
    >>> from mri_theory.classifiers import SVM, RandomForest
    >>> from mri_theory.engine import resolve_truth
    >>> from mri_theory.problems import get_problem
    >>> problem = get_problem("four-gaussian")
    >>> resolve_truth("auto", problem, SVM()), resolve_truth("auto", problem, RandomForest())
    ('exact', 'sampled')
    >>> resolve_truth("sampled", problem, SVM())  # exact is available, sampled asked for
    'sampled'
    """
    if not isinstance(truth, str) or truth not in TRUTHS:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, TRUTHS))}, got {truth!r}")
    available = exact_truth_available(problem, classifier)
    if truth == "exact" and not available:
        raise ValueError(f"{name}: 'exact' needs a Gaussian-mixture problem in 1-D or 2-D and a classifier with "
                         f"an exact path (Classifier.exact_truth), got {type(problem).__name__} and "
                         f"{type(classifier).__name__}; use 'auto' or 'sampled'")
    if truth == "auto":
        return "exact" if available and getattr(classifier, "auto_exact", True) else "sampled"
    return truth


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
    :func:`true_q_c` for two candidates on ``size`` points.  The runners no longer choose on one population and
    check afterwards: they decide with :func:`decisive_q_c`, whose race subsumes this judgement (and enlarges
    the populations until the choice is resolved); this function stays as a building block.

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

    See Also
    --------
    mri_theory.engine.decisive_q_c : The race the runners decide with.
    mri_theory.engine.best_is_resolved : The paired test it applies.

    Examples
    --------
    A choice made on one sampled population, judged on independent ones: the sampled best against the sampled
    worst is resolved; a point against itself is an exact tie, also resolved (either is as good):

    >>> import numpy as np
    >>> from mri_theory.classifiers import LDA
    >>> from mri_theory.engine import choice_is_resolved, sampled_q_c
    >>> from mri_theory.problems import get_problem
    >>> problem, rng = get_problem("four-gaussian"), np.random.default_rng(0)
    >>> X, y = problem.sample(10, rng)
    >>> candidates = problem.sample(6, rng)[0]
    >>> q_c = sampled_q_c(problem, LDA(), X, y, candidates, size=2048, rng=rng).q_c
    >>> best, worst = candidates[np.argmax(q_c)], candidates[np.argmin(q_c)]
    >>> choice_is_resolved(problem, LDA(), X, y, best, worst, 2048, rng=rng)
    True
    >>> choice_is_resolved(problem, LDA(), X, y, best, best, 2048, rng=rng)
    True
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


class DecisiveQc(NamedTuple):
    r"""The true :math:`Q^c` raced to a decision, with its standard errors and the resolved choice
    (:func:`decisive_q_c`).

    Parameters
    ----------
    q_c : ndarray of shape (m,)
        :math:`Q^c` of every candidate.
    se : ndarray of shape (m,)
        The standard error of each value.
    chosen : int
        The best (``largest``) or worst candidate: the race's winner (near-ties: the lowest index).
    tied : ndarray
        The candidates tied with ``chosen`` (itself included), ascending: a choice among them is as good (the
        runners break the tie with the strategy's generator, as :func:`~mri_theory.strategies.select`).
    resolved : bool
        Whether the choice is resolved (:func:`decisive_q_c`, "The rule").
    epsilon : float
        The indifference zone, in units of the loss: ``indifference`` times the spread.
    loss : float
        The current loss :math:`L(\theta(D_S))` on the first round's populations.
    points : ndarray of shape (m,)
        The population points each candidate was scored on.
    gap : float
        How much the choice beats the runner-up (the rival of the smallest paired difference from it; in the
        race's direction, so ``>= 0`` up to noise), by their paired difference over the runner-up's rounds;
        NaN with one candidate.
    gap_se : float
        The standard error of ``gap`` (NaN with one candidate).
    shortfall_bound : float
        The most by which the choice's :math:`Q^c` can fall short of the best candidate's at the stated level:
        :math:`\max(0, \max_i (q s_i - \bar d_i))` over the rivals not tied exactly, :math:`\bar d_i` and
        :math:`s_i` each rival's paired difference from the choice and its standard error, :math:`q` the
        ``threshold``.  With ``level`` set, the choice falls short of the best by more than this with a chance
        of at most ``level`` (:func:`decisive_q_c`, "What is controlled"); 0 with one candidate.
    threshold : float
        The multiple :math:`q` of a standard error by which a difference is confident: Student's t quantile of
        each comparison's level (:data:`LEVEL` over the rivals and looks), or ``z`` with ``level=None``.

    See Also
    --------
    mri_theory.engine.decisive_q_c : Which returns it.
    mri_theory.engine.SampledQc : One sampled evaluation, without the race.

    Examples
    --------
    The race's result: the choice is the candidate of the largest value, and the contenders rest on more points
    than the candidates eliminated in round 0 (1024 points of 8 scrambles of 128):

    >>> import numpy as np
    >>> from mri_theory.classifiers import LDA
    >>> from mri_theory.engine import decisive_q_c
    >>> from mri_theory.problems import get_problem
    >>> problem, rng = get_problem("four-gaussian"), np.random.default_rng(0)
    >>> X, y = problem.sample(10, rng)
    >>> result = decisive_q_c(problem, LDA(), X, y, problem.sample(6, rng)[0], seed=0, size=1024)
    >>> result._fields[:8]
    ('q_c', 'se', 'chosen', 'tied', 'resolved', 'epsilon', 'loss', 'points')
    >>> result._fields[8:]
    ('gap', 'gap_se', 'shortfall_bound', 'threshold')
    >>> result.chosen == int(np.argmax(result.q_c)), result.resolved, result.points.tolist()
    (True, True, [4096, 1024, 4096, 4096, 4096, 4096])

    Resolved: the shortfall bound at the family-wise level (0.05) is inside the indifference zone (here the
    runner-up is even beaten outright, by more than ``threshold`` standard errors):

    >>> bool(result.shortfall_bound < result.epsilon), bool(result.gap > result.threshold * result.gap_se)
    (True, True)
    """

    q_c: np.ndarray
    se: np.ndarray
    chosen: int
    tied: np.ndarray
    resolved: bool
    epsilon: float
    loss: float
    points: np.ndarray
    gap: float
    gap_se: float
    shortfall_bound: float
    threshold: float


def _seed_sequence(seed: Any) -> np.random.SeedSequence:
    """``seed`` (an int >= 0 or a ``numpy.random.SeedSequence``) as a SeedSequence; TypeError/ValueError otherwise."""
    if isinstance(seed, np.random.SeedSequence):
        return seed
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"seed must be an int >= 0 or a numpy.random.SeedSequence, got {type(seed).__name__}")
    return np.random.SeedSequence(check.count(seed, "seed", minimum=0))


def _scramble(seed: np.random.SeedSequence, number: int) -> np.random.Generator:
    """The generator of scramble ``number`` of a race: ``SeedSequence(entropy, spawn_key=(*spawn_key, number))``
    (a pure function of the seed and the number: no state is consumed)."""
    return np.random.default_rng(np.random.SeedSequence(seed.entropy, spawn_key=(*seed.spawn_key, number)))


def decisive_q_c(
    problem: Any,
    classifier: Classifier,
    X_S: ArrayLike,
    y_S: ArrayLike,
    candidates: ArrayLike,
    *,
    seed: int | np.random.SeedSequence,
    size: int = 10_000,
    scrambles: int = RESOLUTION_SCRAMBLES,
    loss: str = "error",
    largest: bool = True,
    z: float = RESOLUTION_Z,
    indifference: float = INDIFFERENCE,
    doublings: int = DOUBLINGS,
    level: float | None = LEVEL,
) -> DecisiveQc:
    r"""The true :math:`Q^c` (Eq. ``eqc``) on sampled populations, raced until the best candidate is decided.

    The sampled truth of a classifier without an exact one (:func:`exact_truth_available`: the SVM, a random
    forest, a problem in three or more dimensions): :math:`Q^c` of every candidate on randomised quasi-Monte
    Carlo populations *common to all candidates* (common random numbers: a difference between two candidates
    is measured on the same points, so it is far more precise than either value), and more populations for the
    candidates that compete for the best until the choice is resolved.

    **The race.**  Round 0 scores every candidate on ``scrambles`` independent scrambled-Sobol' populations of
    :math:`n_0` points each, :math:`n_0` the largest power of two not above ``size // scrambles`` (so that every
    elementary interval of the points is balanced: the classes of a problem with equal priors get exactly equal
    shares; 1024 for ``size = 10**4``) (:meth:`Population.from_problem
    <mri_theory.engine.population.Population.from_problem>`, ``method="qmc"``; the sampled truth of
    :func:`sampled_q_c`).  Round ``r >= 1`` scores the candidates still racing on ``scrambles`` new independent
    populations of :math:`2^{r - 1} n_0` points each, doubling their points, up to ``doublings`` rounds: at most
    :math:`2^{doublings} n_0` times ``scrambles`` points per candidate.  After each round
    the *leader* is the candidate of the best mean (``largest``: the largest :math:`Q^c`, else the smallest;
    near-ties within :data:`~mri_theory._utils.ties.TIE_TOLERANCE`: the lowest index) among those racing, and
    every candidate is compared with it by their *paired* difference over the candidate's rounds (the same
    points): its mean :math:`\bar d` (the rounds weighted by their points) and standard error :math:`s` (each
    round's scrambles are independent and identically distributed: :math:`s^2` is the sum over rounds of the
    round's weight squared times its scrambles' variance over their number).  A candidate is *eliminated* when
    the leader beats it confidently (:math:`\bar d > q s`, "The rule"); one eliminated earlier that
    the leader does not beat so is scored on the rounds it missed (their populations drawn again from their
    seeds) and races again, so that every eliminated candidate is beaten by the final leader itself.

    **The rule.**  A difference is *confident* when :math:`\bar d > q s`, :math:`q` the ``threshold``: Student's
    t quantile (``scipy.stats.t``, ``scrambles - 1`` degrees of freedom) of the one-sided level
    ``level / ((m - 1) (doublings + 1))``, the family-wise ``level`` (:data:`LEVEL`, 0.05) shared by Bonferroni
    over the ``m - 1`` rivals of the choice and the ``doublings + 1`` looks the race may take (the cap, fixed
    before any look: 6.8 standard errors for 100 candidates, 8 scrambles and a curve's 3 doublings).  A candidate
    is eliminated when the leader beats it confidently.  The choice (the last leader) is *resolved* when every
    other candidate is beaten by it, is tied with it exactly (the same :math:`Q^c` to ``TIE_TOLERANCE`` on every
    population: either is as good, e.g. two copies of a point), or is within the *indifference zone*:
    :math:`\bar d > q s - \varepsilon`.  Equivalently: the ``shortfall_bound``
    :math:`B = \max(0, \max_i (q s_i - \bar d_i))` (over the rivals not tied exactly) is below
    :math:`\varepsilon`.  :math:`\varepsilon` is ``indifference`` times the spread of :math:`Q^c` over the
    candidates, :math:`\tfrac1m \sum_i (\max_j Q_j - Q_i)` (the mean shortfall of a random choice, the
    denominator of :func:`~mri_theory.evaluation.summarise_states`' normalised shortfall), computed after each
    look from every candidate's *pooled* value over its rounds (the rounds weighted by their points), not from
    round 0's alone, whose noise inflates it.  The race stops as soon as the choice is resolved, or after
    ``doublings`` rounds, unresolved.

    **What is controlled.**  Let :math:`b` be the best candidate (the true :math:`Q^c`).  If the choice falls short
    of it by more than :math:`B`, then at the last look the comparison of the choice with :math:`b` overstated
    the choice's advantage by more than :math:`q` standard errors.  That comparison is one of at most ``m - 1``
    (the choice ranges over the others) at each of at most ``doublings + 1`` looks, each wrong with a chance of
    at most ``level / ((m - 1) (doublings + 1))``; so, whichever look the race stops at and whichever candidate
    leads, :math:`P(\max_j Q_j - Q_{choice} > B) \le` ``level``, and a resolved race claims a choice outside the
    indifference zone of the best with a chance of at most ``level`` (its error is contained in that event).
    This rests on each paired difference's scrambles being normal, and treats the pooled statistic of several
    rounds as Student's t with ``scrambles - 1`` degrees of freedom (a round's own; pooling rounds adds degrees
    of freedom, so this errs on the safe side).  It is not a bound for the values of the candidates eliminated
    early (only for the choice against the best), and exact ties need no test.  Bonferroni over the rivals, not
    Holm's step-down: Holm's guarantee holds for a family fixed in advance, but the choice is the sample's best,
    chosen from the same data, and with one candidate :math:`\varepsilon` above many equal ones Holm's last step
    (the rival hardest to beat, tested at the full level) errs about ``m - 1`` times too often.  ``level=None``
    keeps the rule of the releases before it (``threshold = z`` per comparison and per look, no family-wise
    control, :math:`\varepsilon` from round 0's values), so that results computed with it can be recomputed.

    **The values.**  The choice's value is its round-0 :math:`Q^c` (:math:`L(\theta(D_S))` and the future losses
    on the same ``size`` points); every other candidate's is the choice's minus their paired difference over
    the candidate's rounds.  So a candidate eliminated in round 0 has its own round-0 value (the sampled truth
    of :func:`sampled_q_c`, unbiased); a contender's difference from the choice carries the race's precision;
    the choice has the largest value and every eliminated candidate's is below it by more than ``threshold``
    standard errors of their difference.  ``se`` is each value's standard error from the scrambles' spread (as
    :class:`SampledQc`'s), ``points`` the points it rests on.  Accuracy (``benchmarks/bench_decisive_truth.py``,
    against an independent reference of :math:`2^{20}` points per candidate; the SVM's error rate, the abstract
    problems, 100 candidates, 20 states): the choice was the reference's best in every state; round 0's standard
    error of a value is about :math:`3 \cdot 10^{-4}`, a few hundredths of the spread of :math:`Q^c` early in a
    curve (median error at most 0.022 of the spread, largest 0.106, at ``|D_S| <= 30``) but as large as the spread
    late (``|D_S| = 150``, spreads of :math:`4 \cdot 10^{-4}` to :math:`2 \cdot 10^{-3}`: largest error 1.2 of
    it), where only the contenders' differences from the choice are precise; the standard errors are honest to a
    factor of about 1.5 (root mean square of the standardised errors 0.56 to 1.66), and, coming from 8 scrambles,
    understate the error of a value that rests on a region few points reach.

    **Randomness.**  Scramble ``g`` of the race (``g = 0, 1, ...``, round 0's first, each round's numbered on
    from the last one's) is drawn from ``numpy.random.default_rng(SeedSequence(seed.entropy,
    spawn_key=(*seed.spawn_key, g)))``: a pure function of the seed and ``g``, so the same seed gives the same
    bytes in one process or many, and a larger cap only adds rounds after the same ones.  The classifier is
    fitted once (its fit does not depend on the population); round 0 computes the current and future losses,
    the later rounds the future losses alone (:meth:`Classifier.future_retraining_losses
    <mri_theory.engine.contract.Classifier.future_retraining_losses>`).

    Parameters
    ----------
    problem, classifier, X_S, y_S, candidates, loss
        As in :func:`true_q_c`; the problem must have the truth (``has_truth``) and a QMC sampler.
    seed : int or numpy.random.SeedSequence
        The race's randomness (above).
    size : int
        Round 0's points per candidate (at least ``scrambles``), split evenly over its scrambles and rounded down to
        a power of two per scramble (above: between half of ``size`` and ``size`` points in all).
    scrambles : int
        Independent scrambles per round, ``>= 2``.
    largest : bool
        ``True``: decide the largest :math:`Q^c` (MRI-best); ``False``: the smallest (MRI-worst).
    z : float
        Standard errors of a confident difference, ``> 0``, with ``level=None`` only (otherwise the threshold
        comes from ``level``).
    indifference : float
        The indifference zone relative to the spread, in ``[0, 1]``; 0: only a strict win resolves.
    doublings : int
        The most rounds after round 0, ``>= 0``.
    level : float or None
        The family-wise error level in ``(0, 1)`` ("What is controlled"), default :data:`LEVEL`; ``None``: the
        per-comparison rule of earlier releases (``z``, round 0's spread).

    Returns
    -------
    DecisiveQc

    Raises
    ------
    TypeError
        Naming the argument: a problem name or an object without the problem interface, a classifier that is
        not a :class:`~mri_theory.engine.contract.Classifier`, a ``seed`` that is not an int or a SeedSequence,
        a non-integer count, a flag that is not a bool.
    ValueError
        Naming the argument: a problem without the truth, points of another dimension or not finite, labels out
        of range or not one per row, an unknown loss, counts out of range, a negative ``z``, an
        ``indifference`` outside ``[0, 1]``, a ``level`` outside ``(0, 1)``, a cap above
        ``mri_theory._utils.validation.MAX_SIZE``; all before
        any population is drawn.

    See Also
    --------
    mri_theory.engine.sampled_q_c : One sampled evaluation, without the race.
    mri_theory.engine.true_q_c : The exact truth where the problem allows it.
    mri_theory.engine.DecisiveQc : The result.

    Examples
    --------
    Raced on more QMC points until the best candidate is resolved (or the cap).  LDA on Four-Gaussian also has the
    exact truth, so the race can be checked against it: the same choice, and values within a few standard errors:

    >>> import numpy as np
    >>> from mri_theory.classifiers import LDA
    >>> from mri_theory.engine import Population, decisive_q_c, true_q_c
    >>> from mri_theory.problems import get_problem
    >>> problem, rng = get_problem("four-gaussian"), np.random.default_rng(0)
    >>> X, y = problem.sample(10, rng)
    >>> candidates = problem.sample(6, rng)[0]
    >>> result = decisive_q_c(problem, LDA(), X, y, candidates, seed=0, size=1024)
    >>> exact = true_q_c(problem, LDA(), X, y, candidates, Population.exact(problem))
    >>> result.resolved, result.chosen, int(np.argmax(exact))
    (True, 4, 4)
    >>> bool(np.all(np.abs(result.q_c - exact) < 4 * result.se))
    True
    """
    seed = _seed_sequence(seed)
    scrambles = check.count(scrambles, "scrambles", minimum=2, maximum=1000)
    size = check.count(size, "size", minimum=scrambles, maximum=check.MAX_SIZE)
    doublings = check.count(doublings, "doublings", minimum=0, maximum=30)
    n0 = 1 << ((size // scrambles).bit_length() - 1)  # a power of two: every elementary interval balanced
    if scrambles * n0 * 2**doublings > check.MAX_SIZE:
        raise ValueError(f"doublings: round 0's points times 2**doublings must be <= {check.MAX_SIZE:_} per "
                         f"candidate, got {scrambles * n0} * 2**{doublings}")
    z = check.positive_scalar(z, "z")
    indifference = check.finite_scalar(indifference, "indifference")
    if not 0.0 <= indifference <= 1.0:
        raise ValueError(f"indifference must be in [0, 1] (a fraction of the spread of Q^c), got {indifference}")
    if level is not None:
        if isinstance(level, (bool, np.bool_)) or not isinstance(level, (int, float, np.integer, np.floating)):
            raise TypeError(f"level must be a number in (0, 1) or None, got {type(level).__name__}")
        level = check.finite_scalar(level, "level")
        if not 0.0 < level < 1.0:
            raise ValueError(f"level must be in (0, 1) (a family-wise error level), got {level}")
    sign = 1.0 if check.flag(largest, "largest") else -1.0
    problem = check_problem_interface(problem)
    if not getattr(problem, "has_truth", True):
        raise ValueError(f"problem: {type(problem).__name__} has no truth (has_truth is False: real data), so no "
                         "population can be drawn from it")
    loss = check_loss(loss)
    if not isinstance(classifier, Classifier):
        raise TypeError(f"classifier must be an mri_theory.classifiers.Classifier, got {type(classifier).__name__}")
    X_S, y_S = check_training_set(X_S, y_S, problem.n_classes, problem.dim, ("X_S", "y_S"))
    candidates = check_points(candidates, "candidates", dim=problem.dim, min_rows=1)

    m = candidates.shape[0]
    posterior = _posterior_of(problem, candidates, "candidates")
    fit: list[Classifier] = []  # the model, fitted once (its fit does not depend on the population)
    sizes: list[int] = []  # points of each scramble of each round
    terms: list[np.ndarray] = []  # per round, the future-loss term T = sum_j p_j L' (scrambles, m); NaN: not scored
    now = np.empty(scrambles)  # round 0's current loss on each scramble
    last = np.full(m, -1)  # the last round each candidate was scored in: its rounds are 0..last

    kept: dict[int, Population] = {}  # the scrambles drawn, while they hold at most _KEPT_POINTS points

    def score(indices: np.ndarray, round_: int) -> None:
        """Score the candidates ``indices`` on round ``round_``'s scrambles (kept, or drawn again from their seeds)."""
        for r in range(scrambles):
            number = round_ * scrambles + r
            population = kept.get(number)
            if population is None:
                population = Population.from_problem(problem, sizes[round_], _scramble(seed, number), method="qmc")
                if sum(p.size for p in kept.values()) + population.size <= _KEPT_POINTS:
                    kept[number] = population
            if not fit:
                fit.append(fit_on(classifier, X_S, y_S, population))
            if round_ == 0:
                now[r], future = fit[0].retraining_losses(candidates[indices], population, loss)
            else:
                future = fit[0].future_retraining_losses(candidates[indices], population, loss)
            terms[round_][r, indices] = np.sum(posterior[indices] * future, axis=1)
        last[indices] = round_

    q = z if level is None else _threshold(level, m, doublings, scrambles)
    epsilon, resolved, leader = 0.0, False, 0
    racing = np.ones(m, dtype=bool)
    for round_ in range(doublings + 1):
        sizes.append(n0 * 2 ** max(round_ - 1, 0))
        terms.append(np.full((scrambles, m), np.nan))
        score(np.flatnonzero(racing), round_)
        while True:  # the leader, and every candidate compared with it on the rounds both were scored in
            means = _pooled(sizes, last, -sign * np.nan_to_num(np.stack(terms)))  # the signed Q^c, less L
            leader = int(np.flatnonzero(racing)[np.flatnonzero(near_maximum(means[racing]))[0]])
            d, se, tied = _paired(terms, sizes, last, leader, sign)
            beaten = ~tied & np.where(se > 0, d > q * se, d > TIE_TOLERANCE * _scale(terms))
            back = ~racing & ~beaten  # eliminated, but not beaten by this leader: race again, on every round
            if not back.any():
                break
            for k in range(int(last[back].min()) + 1, round_ + 1):
                score(np.flatnonzero(back & (last < k)), k)
            racing |= back
        if level is not None:  # the spread of every candidate's pooled value, after each look
            epsilon = indifference * _spread(means)
        elif round_ == 0:  # the earlier rule: round 0's paired differences
            epsilon = indifference * float(np.mean(d))
        resolved = bool(np.all(tied | beaten | (d > q * se - epsilon)))
        racing &= ~beaten
        if resolved:
            break
    values, errors = _race_values(now, terms, sizes, last, leader)
    d, se, tied = _paired(terms, sizes, last, leader, sign)
    same = tied & racing  # an exact tie with the choice: the same value and error, bit for bit
    values, errors = np.where(same, values[leader], values), np.where(same, errors[leader], errors)
    tied_with = np.union1d([leader], np.flatnonzero(near_maximum(sign * values)))
    points = np.array([scrambles * sum(sizes[: k + 1]) for k in last], dtype=np.int64)
    gap, gap_se, bound = _gap_and_bound(d, se, tied, leader, q)
    return DecisiveQc(values, errors, leader, tied_with, resolved, epsilon, float(now.mean()), points,
                      gap, gap_se, bound, float(q))


def _threshold(level: float, m: int, doublings: int, scrambles: int) -> float:
    """The multiple of a standard error of a confident difference in :func:`decisive_q_c`: Student's t quantile
    (``scrambles - 1`` degrees of freedom) of the one-sided level ``level / ((m - 1) (doublings + 1))``."""
    return float(student_t.isf(level / (max(m - 1, 1) * (doublings + 1)), scrambles - 1))


def _spread(means: np.ndarray) -> float:
    """The spread of :math:`Q^c` over the candidates from their signed values: the mean of ``max - value``."""
    return float(np.mean(np.max(means) - means))


def _gap_and_bound(d: np.ndarray, se: np.ndarray, tied: np.ndarray, leader: int,
                   q: float) -> tuple[float, float, float]:
    r"""The choice's ``gap`` over the runner-up (the rival of the smallest paired difference ``d``, the lowest
    index among equal ones), its standard error, and the ``shortfall_bound``
    :math:`\max(0, \max_i (q s_i - \bar d_i))` over the rivals not tied exactly (:class:`DecisiveQc`)."""
    rivals = np.flatnonzero(np.arange(d.size) != leader)
    if rivals.size == 0:
        return float("nan"), float("nan"), 0.0
    runner_up = int(rivals[np.argmin(d[rivals])])
    open_ = rivals[~tied[rivals]]
    bound = max(0.0, float(np.max(q * se[open_] - d[open_]))) if open_.size else 0.0
    return float(d[runner_up]), float(se[runner_up]), bound


def _scale(terms: list[np.ndarray]) -> float:
    """``max(1, max |T|)`` over the scored terms: the scale of a tie (:data:`~mri_theory._utils.ties.TIE_TOLERANCE`)."""
    return max(1.0, float(np.nanmax(np.abs(np.stack(terms)))))


def _shares(sizes: list[int], last: np.ndarray) -> np.ndarray:
    """``(rounds, m)``: each round's share of a candidate's points over its rounds ``0..last`` (0 after them)."""
    n = np.array(sizes, dtype=float)[:, None] * (np.arange(len(sizes))[:, None] <= last[None, :])
    return n / n.sum(axis=0, keepdims=True)


def _pooled(sizes: list[int], last: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Each candidate's points-weighted mean of ``values`` ``(rounds, scrambles, m)`` over its rounds."""
    return np.einsum("km,km->m", _shares(sizes, last), values.mean(axis=1))


def _paired(terms: list[np.ndarray], sizes: list[int], last: np.ndarray, leader: int,
            sign: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every candidate against ``leader`` over the candidate's rounds: the mean of the signed difference
    :math:`Q_{leader} - Q_i` (the rounds weighted by their points), its standard error (each round's weight squared
    times its scrambles' variance over their number, summed), and whether the two are tied (to
    :data:`~mri_theory._utils.ties.TIE_TOLERANCE`) on every scramble."""
    T = np.nan_to_num(np.stack(terms))  # (rounds, scrambles, m); a candidate's unscored rounds have weight 0
    gaps = sign * (T - T[:, :, [leader]])  # Q_leader - Q_i = T_i - T_leader (the current loss cancels)
    w = _shares(sizes, last)
    d = np.einsum("km,km->m", w, gaps.mean(axis=1))
    se = np.sqrt(np.einsum("km,km->m", w**2, gaps.var(axis=1, ddof=1)) / T.shape[1])
    scored = np.arange(len(terms))[:, None, None] <= last[None, None, :]
    tied = np.all((np.abs(gaps) <= TIE_TOLERANCE * _scale(terms)) | ~scored, axis=(0, 1))
    return d, se, tied


def _race_values(now: np.ndarray, terms: list[np.ndarray], sizes: list[int], last: np.ndarray,
                 leader: int) -> tuple[np.ndarray, np.ndarray]:
    r"""The values of :func:`decisive_q_c` and their standard errors.

    The choice's value is its round-0 :math:`Q^c`, :math:`\bar L_0 - \bar T_{c,0}`; every other candidate's is the
    choice's minus their difference over the candidate's rounds, :math:`\sum_k w_k (\bar T_{i,k} - \bar T_{c,k})`.
    Each value is a linear combination of the rounds' scramble means (``coef[i, k]``: candidate ``i``'s
    coefficients of round ``k``'s :math:`T`; every value carries round 0's current loss once), so it is the sum
    over rounds of the mean of a per-scramble combination, and its variance the sum over rounds of that
    combination's variance over the number of scrambles.
    """
    rounds, (scrambles, m) = len(terms), terms[0].shape
    w = _shares(sizes, last)  # (rounds, m)
    coef = np.zeros((m, rounds, m))
    coef[:, 0, leader] = -1.0  # the choice's round-0 value: L - T_c
    candidates = np.arange(m)
    coef[candidates, :, candidates] -= w.T  # minus (T_i - T_c) over the candidate's rounds
    coef[:, :, leader] += w.T
    values, variances = np.zeros(m), np.zeros(m)
    for k, term in enumerate(terms):
        per_scramble = np.nan_to_num(term) @ coef[:, k, :].T + (now[:, None] if k == 0 else 0.0)
        values += per_scramble.mean(axis=0)
        variances += per_scramble.var(axis=0, ddof=1) / scrambles
    return values, np.sqrt(variances)

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
    r""":math:`Q^a(x, y) = L(\theta(D_S)) - L(\theta(D_S \cup (x, y)))` for known labels (§3.1).

    Parameters
    ----------
    problem : Problem
        The simulated problem: it supplies the Bayes posterior.
    classifier : Classifier
        The base classifier (a template: cloned, never fitted in place).
    X_S, y_S : array_like
        The labelled data :math:`D_S`.
    candidates : array_like of shape (m, d)
        The candidates.
    labels : array_like of shape (m,)
        Each candidate's label.
    population : Population or ExactPopulation
        Where the loss is measured.
    loss : {"error", "log", "lc"}, default "error"
        The loss.

    Returns
    -------
    ndarray of shape (m,)
        :math:`Q^a` of each (candidate, label).

    See Also
    --------
    mri_theory.engine.true_q_c : Its expectation over the label.

    Examples
    --------
    Q^a with the label known; Q^c is its expectation over the label under the Bayes posterior:

    >>> import numpy as np
    >>> from mri_theory.classifiers import LDA
    >>> from mri_theory.engine import Population, true_q_a, true_q_c
    >>> from mri_theory.problems import get_problem
    >>> problem, rng = get_problem("four-gaussian"), np.random.default_rng(0)
    >>> X, y = problem.sample(10, rng)
    >>> candidates = problem.sample(3, rng)[0]
    >>> population = Population.exact(problem)
    >>> q_a = np.stack([true_q_a(problem, LDA(), X, y, candidates, np.full(3, label), population)
    ...                 for label in (0, 1)], axis=1)
    >>> q_c = true_q_c(problem, LDA(), X, y, candidates, population)
    >>> bool(np.allclose((problem.posterior(candidates) * q_a).sum(axis=1), q_c, rtol=0, atol=1e-14))
    True
    """
    problem, population, candidates = check_truth(problem, population, candidates)
    labels = check_labels(labels, population.n_classes, "labels")
    if labels.shape[0] != candidates.shape[0]:
        raise ValueError(f"labels must have one entry per candidate ({candidates.shape[0]}), got {labels.shape[0]}")
    X_S, y_S = check_training_set(X_S, y_S, population.n_classes, population.dim, ("X_S", "y_S"))
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
    r"""The batch target :math:`B^c` of §3.1.1 for ``r <= 3`` points: all ``k^r`` labellings, refitted.

    Parameters
    ----------
    problem : Problem
        The simulated problem: it supplies the Bayes posterior.
    classifier : Classifier
        The base classifier (a template: cloned, never fitted in place).
    X_S, y_S : array_like
        The labelled data :math:`D_S`.
    batch : array_like
        The batch, ``(r, d)`` with ``r <= 3`` points.
    population : Population or ExactPopulation
        Where the loss is measured.
    loss : {"error", "log", "lc"}, default "error"
        The loss.

    Returns
    -------
    float
        :math:`B^c` of the batch.

    See Also
    --------
    mri_theory.engine.true_q_c : The target of one point.

    Examples
    --------
    The batch target: with one point, B^c is Q^c:

    >>> import numpy as np
    >>> from mri_theory.classifiers import LDA
    >>> from mri_theory.engine import Population, true_b_c, true_q_c
    >>> from mri_theory.problems import get_problem
    >>> problem, rng = get_problem("four-gaussian"), np.random.default_rng(0)
    >>> X, y = problem.sample(10, rng)
    >>> point = problem.sample(1, rng)[0]
    >>> population = Population.exact(problem)
    >>> bool(np.isclose(true_b_c(problem, LDA(), X, y, point, population),
    ...                 true_q_c(problem, LDA(), X, y, point, population)[0], rtol=0, atol=1e-14))
    True
    >>> round(true_b_c(problem, LDA(), X, y, problem.sample(2, rng)[0], population), 4)  # a batch of two
    -0.0106
    """
    problem, population, batch = check_truth(problem, population, batch, "batch")
    if batch.shape[0] > _MAX_BATCH:
        raise ValueError(f"batch: at most {_MAX_BATCH} points (k^r refits), got {batch.shape[0]}")
    loss = check_loss(loss)
    X_S, y_S = check_training_set(X_S, y_S, population.n_classes, population.dim, ("X_S", "y_S"))
    p = _posterior_of(problem, batch, "batch")
    model = fit_on(classifier, X_S, y_S, population)
    expected = 0.0
    for labels in itertools.product(range(population.n_classes), repeat=batch.shape[0]):
        weight = float(np.prod(p[np.arange(batch.shape[0]), labels]))
        refit = model.clone().fit(np.vstack([model.X_train_, batch]), np.append(model.y_train_, labels),
                                  population.n_classes)
        expected += weight * population.loss(refit, loss)
    return population.loss(model, loss) - expected
