r"""The asymptotic loss :math:`L_\infty` of a (problem, classifier) pairing (§5.2-5.3): a simulation.

The loss after training on a much larger dataset, the target of the label complexity
(:func:`mri_theory.evaluation.metrics.label_complexity`); the study computes one per pairing.
:func:`asymptotic_pool_size` applies the paper's pool rule with it: the smallest pool whose final loss is
close to :math:`L_\infty`.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from mri_theory._utils import limits
from mri_theory._utils import validation as check
from mri_theory.engine.losses import check_loss
from mri_theory.engine.population import Population
from mri_theory.problems import DataProblem
from mri_theory.runners._resolve import resolve

__all__ = ["MAX_N_TRAIN", "MAX_POPULATION", "MAX_REPLICATES", "POOL_RULE", "POOL_RULE_COLUMNS", "POOL_RULE_REPLICATES",
           "POOL_RULE_SIZES", "POOL_RULE_TOLERANCE", "AsymptoticPool", "asymptotic_loss", "asymptotic_pool_size",
           "pool_rule_generator"]

# Bounds on the sizes of asymptotic_loss (a simulation), so that memory and time stay bounded: the runners' own
# bounds, so a study whose settings pass its checks also passes these.
#: The largest training sample of :func:`asymptotic_loss` (``n_train``), the runners' largest population.
MAX_N_TRAIN = limits.MAX_POPULATION_SIZE
#: The most replicates :func:`asymptotic_loss` averages (``replicates``), as for the runners.
MAX_REPLICATES = limits.MAX_REPLICATES
#: The largest population of :func:`asymptotic_loss` (``population_size``), the runners' largest population.
MAX_POPULATION = limits.MAX_POPULATION_SIZE


def asymptotic_loss(problem: Any, classifier: Any, n_train: int = 5000, replicates: int = 5, *,
                    rng: np.random.Generator, population_size: int = 20_000, loss: str = "error") -> float:
    r"""The classifier's loss after training on a large sample, exact on a population (§5.2, line ~1044).

    The paper's asymptotic loss is "the loss from training on a much larger
    dataset"; here each of ``replicates`` i.i.d. training samples of
    ``n_train`` points from the problem trains the classifier, whose *true*
    loss is computed on its own QMC population with the exact Bayes posteriors
    (:meth:`mri_theory.engine.population.Population.from_problem`, ``method="qmc"``),
    and the losses are averaged.  The target of :func:`mri_theory.evaluation.metrics.label_complexity`.

    For a :class:`~mri_theory.problems.DataProblem` (real data, no truth) the
    largest training set there is stands in for "a much larger dataset": in
    each replicate the data are split at random as in the sandbox
    (:meth:`~mri_theory.problems.DataProblem.split`, the same held-out test set
    size), the classifier is trained on *every* row outside the test set (the
    initial set, the whole pool and the rows a replicate leaves unused) and
    its empirical loss on the test set is averaged over the replicates;
    ``n_train`` and ``population_size`` are then ignored (still validated).

    Parameters
    ----------
    problem : Problem or str
        A problem object or a registered name (:func:`mri_theory.problems.get_problem`).
    classifier : Classifier or str
        A classifier object (cloned, never fitted in place) or a registered
        name (:func:`mri_theory.classifiers.get_classifier`).
    n_train : int
        Training-sample size, at most :data:`MAX_N_TRAIN` (ignored for a
        DataProblem).
    replicates : int
        Independent training samples (and populations) averaged, at most
        :data:`MAX_REPLICATES`; for a DataProblem, random train/test splits.
    rng : numpy.random.Generator
        Draws the training samples and populations (the splits), in replicate order.
    population_size : int
        QMC points of each population, at most :data:`MAX_POPULATION`
        (ignored for a DataProblem).
    loss : {"error", "log"}

    Returns
    -------
    float

    See Also
    --------
    mri_theory.runners.asymptotic_pool_size : The smallest pool whose final loss is close to it.
    mri_theory.evaluation.label_complexity : The labels a curve needs to come close to it.

    Examples
    --------
    On the §3.2 problem, :math:`N(\mp 1, 1)`, the mean classifier trained on many points puts its threshold
    near 0, so its loss tends to the Bayes error :math:`\Phi(-1)`; trained on 4 points it does worse:

    >>> import numpy as np
    >>> from mri_theory.problems import get_problem
    >>> from mri_theory.runners import asymptotic_loss
    >>> rng = np.random.default_rng(0)
    >>> large = asymptotic_loss("two-gaussians", "mean", n_train=5000, replicates=2, rng=rng, population_size=4096)
    >>> round(large, 3), round(get_problem("two-gaussians").bayes_error, 3)
    (0.159, 0.159)
    >>> asymptotic_loss("two-gaussians", "mean", n_train=4, replicates=2, rng=rng, population_size=4096) > large
    True
    """
    (_, problem), (_, classifier) = resolve(problem, "problem", "problem"), resolve(classifier, "classifier",
                                                                                    "classifier")
    n_train = check.count(n_train, "n_train", maximum=MAX_N_TRAIN)
    replicates = check.count(replicates, "replicates", maximum=MAX_REPLICATES)
    rng = check.generator(rng)
    population_size = check.count(population_size, "population_size", maximum=MAX_POPULATION)
    loss = check_loss(loss)
    return float(np.mean(_replicate_losses(problem, classifier, n_train, replicates, rng, population_size, loss)))


def _replicate_losses(problem: Any, classifier: Any, n_train: int, replicates: int, rng: np.random.Generator,
                      population_size: int, loss: str) -> np.ndarray:
    """The true loss of the classifier trained on each of ``replicates`` samples (checked arguments)."""
    values = []
    for _ in range(replicates):
        if isinstance(problem, DataProblem):
            X, y, population = problem.split(rng)
        else:
            X, y = problem.sample(n_train, rng)
            population = Population.from_problem(problem, population_size, rng, method="qmc")
        values.append(population.loss(classifier.clone().fit(X, y, problem.n_classes), loss))
    return np.asarray(values, dtype=float)


#: ``run_study``'s word for the rule (``pool_size="asymptotic"``: each pairing's pool by :func:`asymptotic_pool_size`).
POOL_RULE = "asymptotic"
#: The replicates of the rule in ``run_study`` (its standard errors a few tenths of a percent of the ratio for most
#: pairings; the study's asymptotic losses take ``asymptotic_replicates``).
POOL_RULE_REPLICATES = 20
#: The spawn key that separates the rule's streams from the study's (:func:`pool_rule_generator`).
_POOL_RULE_KEY = zlib.crc32(b"pool rule")
#: The pool sizes :func:`asymptotic_pool_size` tries by default: the study's 250, doubled up to 4,000.
POOL_RULE_SIZES = (250, 500, 1000, 2000, 4000)
#: The default of "close to the asymptotic loss" (§5.2, line 1044): the final loss at most 5 % above it.
POOL_RULE_TOLERANCE = 0.05
#: The columns of :attr:`AsymptoticPool.table`.
POOL_RULE_COLUMNS = ["pool_size", "loss", "loss_se", "ratio", "ratio_se", "close"]


class AsymptoticPool(NamedTuple):
    r"""What :func:`asymptotic_pool_size` found for a (problem, classifier) pairing.

    Parameters
    ----------
    pool_size : int or None
        The smallest size tried whose final loss is within the tolerance of the asymptote; None if none is.
    asymptote : float
        The asymptotic loss :math:`L_\infty` (:func:`asymptotic_loss` at ``n_train``).
    asymptote_se : float
        The standard error of ``asymptote`` over its replicates.
    table : DataFrame
        One row per size tried (:data:`POOL_RULE_COLUMNS`): the mean final loss over the replicates and its standard
        error, its ratio to the asymptote with the ratio's standard error (delta method, the two estimates
        independent), and whether the ratio is at most ``1 + tolerance``.

    See Also
    --------
    mri_theory.runners.asymptotic_pool_size : Finds it.

    Examples
    --------
    >>> import numpy as np
    >>> from mri_theory.runners import POOL_RULE_COLUMNS, AsymptoticPool, asymptotic_pool_size
    >>> found = asymptotic_pool_size("two-gaussians", "mean", rng=np.random.default_rng(0), sizes=(2, 20, 200),
    ...                              replicates=2, n_train=2000, population_size=1024)
    >>> isinstance(found, AsymptoticPool), found._fields
    (True, ('pool_size', 'asymptote', 'asymptote_se', 'table'))
    >>> list(found.table.columns) == POOL_RULE_COLUMNS, found.table.pool_size.tolist()
    (True, [2, 20, 200])

    The pool is the first size tried that is close to the asymptote:

    >>> found.pool_size, found.table.close.tolist()
    (200, [False, False, True])
    >>> bool(np.allclose(found.table.ratio, found.table.loss / found.asymptote))
    True
    """

    pool_size: int | None
    asymptote: float
    asymptote_se: float
    table: pd.DataFrame


def pool_rule_generator(seed: int, problem: str, classifier: str) -> np.random.Generator:
    """The generator of the pool rule's draws for the pairing labelled ``(problem, classifier)`` of a study seeded
    ``seed``: ``SeedSequence(seed, spawn_key=(crc32("pool rule"), crc32(problem), crc32(classifier)))``, so a
    pairing's rule does not depend on the grid it is in (``run_study`` and ``scripts/pool_rule.py`` use it).

    Parameters
    ----------
    seed : int
        ``>= 0``.
    problem, classifier : str
        The pairing's labels.

    Returns
    -------
    numpy.random.Generator

    See Also
    --------
    mri_theory.runners.asymptotic_pool_size : The rule that draws from it.

    Examples
    --------
    The generator is the one its docstring spells out, so a pairing's draws can be reproduced without the library:

    >>> import zlib
    >>> import numpy as np
    >>> from mri_theory.runners import pool_rule_generator
    >>> by_hand = np.random.default_rng(np.random.SeedSequence(0, spawn_key=(
    ...     zlib.crc32(b"pool rule"), zlib.crc32(b"four-gaussian"), zlib.crc32(b"nb"))))
    >>> bool(np.array_equal(pool_rule_generator(0, "four-gaussian", "nb").random(3), by_hand.random(3)))
    True

    Another pairing or another seed draws other numbers:

    >>> first = pool_rule_generator(0, "four-gaussian", "nb").random()
    >>> other_pairing = pool_rule_generator(0, "four-gaussian", "lda").random()
    >>> other_seed = pool_rule_generator(1, "four-gaussian", "nb").random()
    >>> first == other_pairing, first == other_seed
    (False, False)
    """
    seed = check.count(seed, "seed", minimum=0)
    for name, value in (("problem", problem), ("classifier", classifier)):
        if not isinstance(value, str):
            raise TypeError(f"{name} must be a label (str), got {type(value).__name__}")
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(
        _POOL_RULE_KEY, zlib.crc32(problem.encode()), zlib.crc32(classifier.encode()))))


def asymptotic_pool_size(problem: Any, classifier: Any, *, rng: np.random.Generator,
                         tolerance: float = POOL_RULE_TOLERANCE, sizes: Sequence[int] = POOL_RULE_SIZES,
                         replicates: int = 5, n_train: int = 5000, population_size: int = 20_000,
                         loss: str = "error") -> AsymptoticPool:
    r"""The paper's pool rule for one pairing: the smallest pool whose final loss is close to the asymptotic loss.

    The paper chooses the pool of each simulated problem "such that when all of the pool has been labelled, the
    final classifier loss is close to its asymptotic loss" (§5.2, line 1044), without a number; the study's
    default is a fixed 250 (:data:`~mri_theory.runners.SIMULATED_POOL_SIZE`).  Once the whole pool is labelled
    the classifier has been trained on the initial set (one point per class) and every pool point, whatever the
    strategy, so its expected final loss is that of a classifier trained on ``pool_size + n_classes`` random
    points: estimated here as :func:`asymptotic_loss` estimates :math:`L_\infty`, the true loss on an exact QMC
    population averaged over ``replicates`` training samples, for each size of ``sizes`` in turn, and compared
    with :math:`L_\infty` itself (``n_train`` points).  The rule's pool is the first size whose mean final loss
    is at most ``(1 + tolerance)`` times the mean asymptote.  Both are Monte Carlo means: the table gives their
    standard errors, so a reader sees where a decision is within the noise.

    Parameters
    ----------
    problem : Problem or str
        A simulated problem (real data have a whole pool: ``pool_size="all"``), or its registered name.
    classifier : Classifier or str
        A classifier, or its registered name.
    rng : numpy.random.Generator
        Draws the asymptote's samples first, then each size's, in the order of ``sizes``.
    tolerance : float, default 0.05
        ``>= 0``: how far above :math:`L_\infty` "close" may be, relative.
    sizes : sequence of int, default (250, 500, 1000, 2000, 4000)
        Pool sizes to try, strictly increasing, each at least 1 and, with the initial set, at most
        :data:`MAX_N_TRAIN`.
    replicates, n_train, population_size, loss
        As in :func:`asymptotic_loss` (``replicates >= 2``: a standard error needs two).

    Returns
    -------
    AsymptoticPool

    Raises
    ------
    TypeError, ValueError
        Naming the argument, before any work: a real-data problem, a bad size list, a tolerance below 0.

    See Also
    --------
    mri_theory.runners.asymptotic_loss : The asymptote, :math:`L_\infty`.
    mri_theory.runners.pool_rule_generator : The generator a study gives each pairing's rule.

    Examples
    --------
    The mean classifier on the §3.2 problem, two replicates of each size, a small asymptote:

    >>> import numpy as np
    >>> from mri_theory.runners import asymptotic_pool_size
    >>> found = asymptotic_pool_size("two-gaussians", "mean", rng=np.random.default_rng(0), sizes=(2, 20, 200),
    ...                              replicates=2, n_train=2000, population_size=1024)
    >>> found.pool_size
    200
    >>> found.table[["pool_size", "close"]].values.tolist()
    [[2, False], [20, False], [200, True]]

    "Close" is a final loss at most 5 % above the asymptote (``tolerance``):

    >>> table = found.table
    >>> table.close.tolist() == (table.loss <= 1.05 * found.asymptote).tolist()
    True

    A tolerance no size reaches gives no pool:

    >>> asymptotic_pool_size("two-gaussians", "mean", rng=np.random.default_rng(0), sizes=(2, 20), tolerance=0.01,
    ...                      replicates=2, n_train=2000, population_size=1024).pool_size is None
    True
    """
    (_, problem), (_, classifier) = resolve(problem, "problem", "problem"), resolve(classifier, "classifier",
                                                                                    "classifier")
    if isinstance(problem, DataProblem):
        raise ValueError("problem: a real data set's pool is the whole data set but its test rows "
                         "(pool_size='all'); the rule is for simulated problems")
    tolerance = check.finite_scalar(tolerance, "tolerance")
    if tolerance < 0:
        raise ValueError(f"tolerance must be >= 0, got {tolerance}")
    if isinstance(sizes, (str, bytes)) or not isinstance(sizes, Sequence) or not sizes:
        raise TypeError(f"sizes must be a non-empty sequence of pool sizes (int), got {type(sizes).__name__}")
    sizes = [check.count(size, "sizes", maximum=MAX_N_TRAIN - problem.n_classes) for size in sizes]
    if any(b <= a for a, b in zip(sizes[:-1], sizes[1:], strict=True)):
        raise ValueError(f"sizes must be strictly increasing, got {sizes}")
    n_train = check.count(n_train, "n_train", maximum=MAX_N_TRAIN)
    replicates = check.count(replicates, "replicates", minimum=2, maximum=MAX_REPLICATES)
    rng = check.generator(rng)
    population_size = check.count(population_size, "population_size", maximum=MAX_POPULATION)
    loss = check_loss(loss)

    def mean_se(values: np.ndarray) -> tuple[float, float]:
        return float(np.mean(values)), float(np.std(values, ddof=1) / np.sqrt(values.size))

    asymptote, asymptote_se = mean_se(_replicate_losses(problem, classifier, n_train, replicates, rng,
                                                        population_size, loss))
    rows = []
    for size in sizes:
        final, final_se = mean_se(_replicate_losses(problem, classifier, size + problem.n_classes, replicates, rng,
                                                     population_size, loss))
        ratio = final / asymptote if asymptote > 0 else np.inf
        ratio_se = ratio * np.hypot(final_se / final, asymptote_se / asymptote) if final > 0 < asymptote else np.nan
        rows.append((size, final, final_se, ratio, ratio_se, bool(final <= (1 + tolerance) * asymptote)))
    table = pd.DataFrame(rows, columns=POOL_RULE_COLUMNS)
    close = table.pool_size[table.close]
    return AsymptoticPool(int(close.iloc[0]) if len(close) else None, asymptote, asymptote_se, table)
