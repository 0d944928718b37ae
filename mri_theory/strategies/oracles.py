r"""The literature's label-peeking oracle baselines, on the future-loss engine.

Active-learning papers bound their methods with *oracles* that look at what no learner can: the drawn labels of
the candidates, and a test set.  Each is registered here with its source's settings as defaults and every setting
an option, so that it can be put next to the truth this toolkit computes (:class:`~mri_theory.strategies.MRIBest`,
the greedy optimum of the true :math:`Q^c`, Eq. ``eqc``, which chooses *before* seeing the label).

The peeking score is one column of MRI-best's future-loss matrix: retrained with the drawn label :math:`y_x` of
candidate :math:`x`, the model's loss falls by

.. math:: g(x) = L(\theta(D)) - L(\theta(D \cup (x, y_x))),

and over the label's law :math:`\mathbb E_{y_x} g(x) = Q^c(x)` (pool labels are drawn from the Bayes posterior,
:meth:`~mri_theory.problems.Problem.draw_replicate`).  An oracle that maximises :math:`g` therefore reaches beyond
the greedy optimum of any strategy that chooses before the label: the gap is the value of label peeking.  The
retrainings are the engine's (:func:`~mri_theory.engine.current_and_future_losses`), so every classifier's exact
fast path serves them.

================ ==========================================================================================
GreedyOracle     CDALBench's oracle (Werner et al. 2024): :math:`\tau` random candidates, each retrained with its
                 drawn label, the largest loss reduction kept
LookaheadOracle  the non-myopic oracle policy (Discovery Science 2023): sets of up to ``depth`` candidates
                 retrained with their drawn labels, the candidate of the best set kept
AnnealingOracle  Zhou et al. (AISTATS 2021): simulated annealing over the acquisition order of the whole
                 budget, the lowest mean loss over the learning curve, then the planned points in turn
BossOracle       BoSS (arXiv 2603.13109): of the candidates several strategies propose on random subsets, the
                 one whose retraining with its drawn label lowers the loss most
================ ==========================================================================================

A peeking strategy declares :attr:`~mri_theory.strategies.Strategy.peeks`; the sandbox then hands it the
candidates' drawn labels (``ctx.candidate_labels``) and records ``"peeks": true`` in its parts.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np

from mri_theory._utils import validation as check
from mri_theory._utils.ties import near_maximum
from mri_theory.engine.population import ExactPopulation, Population
from mri_theory.engine.retraining import current_and_future_losses
from mri_theory.strategies.base import Context, Strategy, check_context, select
from mri_theory.strategies.builtin import STRATEGY_REGISTRY

__all__ = ["BOSS_BATCHES", "BOSS_PROPOSERS", "CDALBENCH_TAU", "GAIN_TOLERANCE", "LOOKAHEAD_DEPTH", "LOOKAHEAD_SETS",
           "MAX_PROPOSALS", "MAX_SEARCH_STEPS", "ZHOU_ANNEAL_FACTOR", "ZHOU_GREEDY_STEPS", "ZHOU_STEPS",
           "AnnealingOracle", "BossOracle", "GreedyOracle", "LookaheadOracle", "PeekingOracle", "candidate_sets",
           "curve_losses", "peeked_gains", "set_losses"]

#: CDALBench's number of candidates per step (``evaluate_oracle.py``, ``--sample_size 20``).
CDALBENCH_TAU = 20

#: A loss reduction at most this (relative to the current loss, at least 1) is no reduction: the literature's
#: strict "the score must be positive" test, made independent of the last bit of a floating-point sum.
GAIN_TOLERANCE = 1e-12


def _truth_and_labels(strategy: Strategy, ctx: Context) -> np.ndarray:
    """``ctx.candidate_labels`` as ints, after checking that ``ctx`` carries the truth and the labels."""
    if ctx.problem is None or ctx.population is None:
        raise ValueError(f"{strategy.name} needs the truth: pass problem and population")
    if ctx.candidate_labels is None:
        raise ValueError(f"{strategy.name} peeks at the candidates' drawn labels: pass candidate_labels")
    check_context(ctx)  # the labels' values and length among the rest
    return np.asarray(ctx.candidate_labels).astype(int)


def peeked_gains(ctx: Context, rows: np.ndarray, labels: np.ndarray, evaluation: Any,
                 loss: str = "error") -> tuple[float, np.ndarray]:
    r"""The current loss and the loss reductions :math:`g(x) = L(\theta(D)) - L(\theta(D \cup (x, y_x)))` of the
    candidates ``rows``.

    Parameters
    ----------
    ctx : Context
        The labelled data, the candidates and the base classifier.
    rows : ndarray of int
        Which of ``ctx.candidates`` to retrain with (at least one).
    labels : ndarray of int
        The drawn labels of all of ``ctx.candidates``.
    evaluation : Population or ExactPopulation
        Where the loss is measured (the truth, or a finite labelled test set).
    loss : {"error", "log"}, default "error"

    Returns
    -------
    current : float
        :math:`L(\theta(D))` on ``evaluation``.
    gains : ndarray (len(rows),)
        :math:`g` of each, from the engine's future-loss matrix (one retraining per class and candidate, the
        classifier's fast path): its column :math:`y_x`.

    Examples
    --------
    The gains' mean over the label's law is the true :math:`Q^c`:

    >>> import numpy as np
    >>> from mri_theory.classifiers import LDA
    >>> from mri_theory.engine import Population, true_q_c
    >>> from mri_theory.problems import get_problem
    >>> from mri_theory.strategies import Context
    >>> from mri_theory.strategies.oracles import peeked_gains
    >>> problem, rng = get_problem("four-gaussian"), np.random.default_rng(0)
    >>> X, y = problem.sample(10, rng)
    >>> pool = problem.sample(3, rng)[0]
    >>> exact = Population.exact(problem)
    >>> ctx = Context(X, y, pool, pool, LDA(), 2, rng, problem, exact)
    >>> rows = np.arange(3)
    >>> gains = [peeked_gains(ctx, rows, np.full(3, c), exact)[1] for c in (0, 1)]
    >>> mean = sum(problem.posterior(pool)[:, c] * gains[c] for c in (0, 1))
    >>> bool(np.allclose(mean, true_q_c(problem, LDA(), X, y, pool, exact), rtol=0, atol=1e-12))
    True
    """
    labels, loss = _check_retraining(ctx, labels, None, evaluation, loss)
    rows = _indices(rows, "rows", ctx.candidates.shape[0])
    now, future = current_and_future_losses(ctx.classifier, ctx.X, ctx.y, ctx.candidates[rows], evaluation, loss)
    return now, now - future[np.arange(rows.size), labels[rows]]


class PeekingOracle(Strategy):
    """The base of the label-peeking oracles: they need the truth and the candidates' drawn labels, and measure a
    retrained model's loss on the truth or on a test set drawn once per curve (``test_size``).

    Examples
    --------
    >>> from mri_theory.strategies import GreedyOracle
    >>> from mri_theory.strategies.oracles import PeekingOracle
    >>> oracle = GreedyOracle()
    >>> isinstance(oracle, PeekingOracle), oracle.peeks, oracle.needs_truth, oracle.origin
    (True, True, True, 'oracle')
    """

    origin = "oracle"
    needs_truth = True
    peeks = True
    test_size: int | None
    test_set_: Population | None

    def evaluation(self, ctx: Context) -> Any:
        """Where a retrained model's loss is measured: ``ctx.population``, or this curve's test set.

        Parameters
        ----------
        ctx : Context
            The truth: ``ctx.population``, or ``ctx.problem`` to draw the test set from (with ``ctx.rng``, at the
            first call).

        Returns
        -------
        Population or ExactPopulation
            ``ctx.population`` if ``test_size`` is None, else :attr:`test_set_`.
        """
        if self.test_size is None:
            return ctx.population
        if self.test_set_ is None:
            X, y = ctx.problem.sample(self.test_size, ctx.rng)
            self.test_set_ = Population.from_labels(X, y, ctx.n_classes)
        return self.test_set_


def _indices(value: Any, name: str, m: int, ndim: int = 1) -> np.ndarray:
    """``value`` as an int array of ``ndim`` dimensions (at least one entry) of indices in ``0..m-1``."""
    arr = np.asarray(value)
    if arr.dtype == bool or not np.issubdtype(arr.dtype, np.integer):
        raise TypeError(f"{name} must hold integer indices, got dtype {arr.dtype}")
    if arr.ndim != ndim or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty {ndim}-D array of indices, got shape {arr.shape}")
    if arr.min() < 0 or arr.max() >= m:
        raise ValueError(f"{name} must hold indices in 0..{m - 1}, got values from {arr.min()} to {arr.max()}")
    return arr.astype(int)


def _check_retraining(ctx: Any, labels: Any, n: int | None, evaluation: Any, loss: Any) -> tuple[np.ndarray, str]:
    """The arguments the retraining helpers share: a Context, ``n`` labels (default one per candidate), a
    population, a loss."""
    if not isinstance(ctx, Context):
        raise TypeError(f"ctx must be an mri_theory.strategies.Context, got {type(ctx).__name__}")
    n = ctx.candidates.shape[0] if n is None else n
    labels = check.check_labels(labels, ctx.n_classes, "labels")
    if labels.shape != (n,):
        raise ValueError(f"labels must hold one label per point ({n}), got shape {labels.shape}")
    if not isinstance(evaluation, (Population, ExactPopulation)):
        raise TypeError(f"evaluation must be a Population or ExactPopulation, got {type(evaluation).__name__}")
    return labels, _check_loss(loss)


def _check_loss(loss: Any) -> str:
    if loss not in ("error", "log"):
        raise ValueError(f"loss must be 'error' or 'log' (a loss of the truth), got {loss!r}")
    return loss


class GreedyOracle(PeekingOracle):
    r"""CDALBench's oracle (Werner et al. 2024): the best of :math:`\tau` random candidates retrained with their labels.

    At each step :math:`\tau` candidates are drawn uniformly from those offered (the whole pool: the oracle is not
    ``costly``, it sub-samples itself, as CDALBench does), each is retrained with its **drawn label**, and the one
    whose retrained model has the lowest loss is chosen (:func:`~mri_theory.strategies.oracles.peeked_gains`).  If none
    lowers the loss, the
    candidate of the smallest margin among the :math:`\tau` is chosen (CDALBench's fallback).

    The source is CDALBench's ``evaluate_oracle.py`` (``--sample_size 20``, line 17) and ``core/environment.py``
    (``OracleALGame.step``, lines 260--302 at commit 88dda957: the :math:`\tau` candidates drawn with
    ``pool_rng.choice``, each retrained with its true label, score the test accuracy after minus before, the
    ``topk`` kept; if no score is positive, the largest :math:`1 - (\hat p_{(1)} - \hat p_{(2)})`).  Deviations
    (:doc:`/deviations`): the candidate chosen is the one scored (that file adds ``x_unlabeled[position]``,
    a position among the :math:`\tau`, lines 291--297, not the pool index it scored); with fewer than
    :math:`\tau` candidates left every one is scored (CDALBench draws with replacement); the loss is measured
    on the problem's truth by default, not on the test set the curve is reported on.

    Parameters
    ----------
    tau : int or None, default 20
        Candidates per step (:data:`~mri_theory.strategies.oracles.CDALBENCH_TAU`); None scores every candidate offered
        (the greedy peeking
        optimum over the pool).
    test_size : int or None, default None
        None measures each retrained model's loss on the truth (``ctx.population``: exact where the problem's
        truth is); an int draws a labelled test set of that many points from the problem once per learning
        curve (the first call, from ``ctx.rng``), its empirical loss the literature's finite test set.
    fallback : {"margin", None}, default "margin"
        What chooses when no candidate lowers the loss (every :math:`g \le`
        :data:`~mri_theory.strategies.oracles.GAIN_TOLERANCE`):
        CDALBench's smallest margin among the :math:`\tau`, or None to keep the largest :math:`g` all the same.
    loss : {"error", "log"}, default "error"
        The loss measured (CDALBench: test accuracy, i.e. the error rate).

    Attributes
    ----------
    test_set_ : Population or None
        The test set of this learning curve (``test_size`` given), drawn at the first call; None before it (the
        runners score a fresh copy of the strategy for each curve).

    See Also
    --------
    mri_theory.strategies.MRIBest : The greedy optimum without peeking: the mean of :math:`g` over the label.
    mri_theory.strategies.oracles.peeked_gains : The score.

    Examples
    --------
    Over the whole pool and on the exact loss, the oracle chooses the candidate whose drawn label lowers the true
    loss most:

    >>> import numpy as np
    >>> from mri_theory.classifiers import LDA
    >>> from mri_theory.engine import Population, current_loss
    >>> from mri_theory.problems import get_problem
    >>> from mri_theory.strategies import Context, GreedyOracle, select
    >>> problem, rng = get_problem("four-gaussian"), np.random.default_rng(0)
    >>> X, y = problem.sample(10, rng)
    >>> pool, labels = problem.sample(30, rng)
    >>> exact = Population.exact(problem)
    >>> ctx = Context(X, y, pool, pool, LDA(), 2, rng, problem, exact, candidate_labels=labels)
    >>> index, scores = select(GreedyOracle(tau=None), ctx)
    >>> after = current_loss(LDA(), np.vstack([X, pool[index]]), np.append(y, labels[index]), exact)
    >>> bool(np.isclose(current_loss(LDA(), X, y, exact) - after, scores.max(), rtol=0, atol=1e-12))
    True
    """

    name = "GreedyOracle"

    def __init__(self, tau: int | None = CDALBENCH_TAU, test_size: int | None = None,
                 fallback: str | None = "margin", loss: str = "error") -> None:
        self.tau = None if tau is None else check.count(tau, "tau", minimum=1)
        self.test_size = None if test_size is None else check.count(test_size, "test_size", minimum=1)
        if fallback not in ("margin", None):
            raise ValueError(f"fallback must be 'margin' or None, got {fallback!r}")
        self.fallback = fallback
        self.loss = _check_loss(loss)
        self.test_set_ = None

    def scores(self, ctx: Context) -> np.ndarray:
        r"""The drawn candidates' :math:`g`, or (fallback) minus their margins; the others below every one.

        Parameters
        ----------
        ctx : Context
            Needs the truth (``ctx.problem``, ``ctx.population``) and ``ctx.candidate_labels``.

        Returns
        -------
        ndarray (m,)
            :math:`g(x)` of the :math:`\tau` drawn candidates (or, if none is above
            :data:`~mri_theory.strategies.oracles.GAIN_TOLERANCE` and
            ``fallback="margin"``, :math:`\hat p_{(2)} - \hat p_{(1)}`); every candidate not drawn scores one less
            than the lowest of those, so that it is never chosen.

        Raises
        ------
        ValueError
            If ``ctx`` lacks the truth or the candidates' labels.
        """
        labels = _truth_and_labels(self, ctx)
        m = ctx.candidates.shape[0]
        rows = np.arange(m) if self.tau is None or self.tau >= m else np.sort(ctx.rng.choice(m, self.tau,
                                                                                            replace=False))
        now, drawn = peeked_gains(ctx, rows, labels, self.evaluation(ctx), self.loss)
        if self.fallback == "margin" and drawn.max() <= GAIN_TOLERANCE * max(1.0, abs(now)):
            top = np.sort(ctx.fitted().predict_proba(ctx.candidates[rows]), axis=1)
            drawn = top[:, -2] - top[:, -1]
        out = np.full(m, drawn.min() - 1.0)
        out[rows] = drawn
        return out


#: The non-myopic oracle policy's look-ahead in its paper's comparison (``optimal_2_1_200_ascending``): sets of up
#: to 2 candidates.
LOOKAHEAD_DEPTH = 2
#: The same configuration's sets drawn of each size.
LOOKAHEAD_SETS = 200


def candidate_sets(members: np.ndarray, size: int, count: int | None, rng: np.random.Generator) -> np.ndarray:
    """``count`` distinct sets of ``size`` of ``members``, drawn with ``rng``; all of them when there are no more
    than ``count`` (or ``count`` is None).

    The non-myopic oracle policy's ``generate_sampled_sets`` (``utils/optimal_strategy.py``, lines 25--50): sets
    drawn uniformly, distinct, each sorted.

    Parameters
    ----------
    members : ndarray of int
        The candidates the sets are drawn from (indices).
    size : int
        Candidates per set (at most ``len(members)``).
    count : int or None
        How many sets; None for all of them.
    rng : numpy.random.Generator
        Draws the sets (not used when all of them are taken).

    Returns
    -------
    ndarray of int (n_sets, size)
        One set per row, its members ascending; the rows ascending when all sets are taken, else sorted.

    Examples
    --------
    >>> import numpy as np
    >>> from mri_theory.strategies.oracles import candidate_sets
    >>> candidate_sets(np.array([4, 1, 7]), 2, None, np.random.default_rng(0)).tolist()  # C(3, 2) = 3: all
    [[1, 4], [1, 7], [4, 7]]
    >>> candidate_sets(np.arange(20), 3, 5, np.random.default_rng(0)).shape
    (5, 3)
    """
    members = _indices(members, "members", np.iinfo(np.int64).max)
    size = check.count(size, "size", maximum=members.size)
    count = None if count is None else check.count(count, "count")
    check.generator(rng, "rng")
    total = math.comb(members.size, size)
    if count is None or total <= count:
        return np.array(list(itertools.combinations(np.sort(members), size)), dtype=int).reshape(-1, size)
    drawn: set[tuple[int, ...]] = set()
    while len(drawn) < count:
        drawn.add(tuple(np.sort(rng.choice(members, size, replace=False)).tolist()))
    return np.array(sorted(drawn), dtype=int)


def set_losses(ctx: Context, sets: np.ndarray, labels: np.ndarray, evaluation: Any, loss: str = "error") -> np.ndarray:
    """The loss of the model retrained on :math:`D_S` plus each set of candidates with their drawn labels.

    A model's loss depends on the set, not on the order of its points, so each set is split into a shared part
    (all its candidates but one: the part that the most sets share, the first such one in sorted order) and the
    one left.  The sets that share a part share one fit: the classifier is fitted on :math:`D_S` plus that part,
    and the candidates left are added by the engine's fast path (one column of its future-loss matrix each); a
    part shared by no other set is one plain refit on the whole set, which costs less.

    Parameters
    ----------
    ctx : Context
        The labelled data, the candidates and the base classifier.
    sets : ndarray of int (n_sets, size)
        One set per row: indices into ``ctx.candidates``, distinct within a row.
    labels : ndarray of int
        The drawn labels of all of ``ctx.candidates``.
    evaluation : Population or ExactPopulation
        Where the loss is measured.
    loss : {"error", "log"}, default "error"

    Returns
    -------
    ndarray (n_sets,)
        The loss after each set.

    Examples
    --------
    The loss after a pair equals the plain refit on the labelled data plus both points:

    >>> import numpy as np
    >>> from mri_theory.classifiers import LDA
    >>> from mri_theory.engine import Population
    >>> from mri_theory.problems import get_problem
    >>> from mri_theory.strategies import Context
    >>> from mri_theory.strategies.oracles import set_losses
    >>> problem, rng = get_problem("four-gaussian"), np.random.default_rng(0)
    >>> X, y = problem.sample(10, rng)
    >>> pool, labels = problem.sample(4, rng)
    >>> exact = Population.exact(problem)
    >>> ctx = Context(X, y, pool, pool, LDA(), 2, rng, problem, exact, labels)
    >>> losses = set_losses(ctx, np.array([[0, 1], [0, 2], [1, 3]]), labels, exact)
    >>> refit = exact.loss(LDA().fit(np.vstack([X, pool[[1, 3]]]), np.append(y, labels[[1, 3]]), 2))
    >>> bool(np.isclose(losses[2], refit, rtol=0, atol=1e-12))
    True
    """
    labels, loss = _check_retraining(ctx, labels, None, evaluation, loss)
    sets = _indices(sets, "sets", ctx.candidates.shape[0], ndim=2)
    if any(np.unique(row).size < row.size for row in sets):
        raise ValueError("sets must not repeat a candidate within a set")
    out = np.empty(sets.shape[0])
    size = sets.shape[1]
    if size == 1:
        parts = {(): list(range(sets.shape[0]))}
    else:
        counts: dict[tuple[int, ...], int] = {}
        for members in sets:
            for part in itertools.combinations(members.tolist(), size - 1):
                counts[part] = counts.get(part, 0) + 1
        parts = {}
        for row, members in enumerate(sets):
            shared = max(sorted(itertools.combinations(members.tolist(), size - 1)), key=counts.__getitem__)
            parts.setdefault(shared, []).append(row)
    for part, rows in parts.items():
        first: list[int] = list(part)
        X = np.vstack([ctx.X, ctx.candidates[first]]) if first else ctx.X
        y = np.append(ctx.y, labels[first]) if first else ctx.y
        last = np.array([next(c for c in sets[row].tolist() if c not in part) for row in rows], dtype=int)
        if len(rows) == 1 and first:
            X, y = np.vstack([X, ctx.candidates[last]]), np.append(y, labels[last])
            out[rows] = evaluation.loss(ctx.classifier.clone().fit(X, y, ctx.n_classes), loss)
            continue
        _, future = current_and_future_losses(ctx.classifier, X, y, ctx.candidates[last], evaluation, loss)
        out[rows] = future[np.arange(last.size), labels[last]]
    return out


class LookaheadOracle(PeekingOracle):
    r"""The non-myopic oracle policy (Discovery Science 2023): the best candidate of the best small labelled set.

    At each step, for each size :math:`s = 1, \dots,` ``depth``, sets of :math:`s` candidates are drawn
    (``sets`` of them, distinct; all when there are fewer; the sets of size :math:`s \ge 2` only from candidates
    in the sets of size :math:`s - 1`), the model is retrained on :math:`D_S` plus each set with its **drawn
    labels**, and each candidate's risk at size :math:`s` is the lowest loss of a set that contains it.  The
    candidates of the lowest risk over all sizes are kept; with ``mode="ascending"`` (the paper's comparison),
    ties are broken by the lowest risk at size 1, then 2, and so on; the remaining ties by the generator.  Each
    set is scored by its loss after the whole set, not along a path.

    The source is the authors' code (``ies-research/non-myopic-oracle-policy`` at 5a35cf9:
    ``utils/optimal_strategy.py`` lines 186--222, ``generate_sampled_sets`` lines 25--50,
    ``utils/candidate_selection.py`` ``select_one_candidate`` lines 5--53; the paper's configurations
    ``optimal_2_1_200_ascending`` and ``optimal_5_1_1000_ascending``).  Deviations (:doc:`/deviations`): the loss
    is measured on the problem's truth by default, not as a count of errors on a validation set (``test_size``
    gives a finite test set); the sets are drawn from ``ctx.rng`` afresh at each step (the code re-seeds the same
    stream at every call).

    Parameters
    ----------
    depth : int, default 2
        The largest set (the look-ahead, :data:`~mri_theory.strategies.oracles.LOOKAHEAD_DEPTH`).
    sets : int or None, default 200
        Sets drawn of each size (:data:`~mri_theory.strategies.oracles.LOOKAHEAD_SETS`); None takes every set (all
        pairs at depth 2).
    mode : {"ascending", "rand"}, default "ascending"
        How ties in the lowest risk are broken: by the risks at sizes 1, 2, ... in turn, or by the generator only.
    test_size : int or None, default None
        As :class:`GreedyOracle`'s: the truth, or a labelled test set drawn once per curve.
    loss : {"error", "log"}, default "error"
        The loss measured.

    Attributes
    ----------
    test_set_ : Population or None
        As :class:`GreedyOracle`'s.

    See Also
    --------
    mri_theory.strategies.GreedyOracle : The same with sets of one (``depth=1``, every candidate: ``tau=None``).
    mri_theory.analytic.optimal_policy : The exact non-myopic optimum, where it can be computed.

    Examples
    --------
    With depth 1 it is the greedy peeking oracle over every candidate:

    >>> import numpy as np
    >>> from mri_theory.classifiers import LDA
    >>> from mri_theory.engine import Population
    >>> from mri_theory.problems import get_problem
    >>> from mri_theory.strategies import Context, GreedyOracle, LookaheadOracle, select
    >>> problem, rng = get_problem("four-gaussian"), np.random.default_rng(0)
    >>> X, y = problem.sample(10, rng)
    >>> pool, labels = problem.sample(30, rng)
    >>> ctx = Context(X, y, pool, pool, LDA(), 2, rng, problem, Population.exact(problem), candidate_labels=labels)
    >>> from mri_theory.engine import current_loss
    >>> now = current_loss(LDA(), X, y, ctx.population)
    >>> greedy = GreedyOracle(tau=None, fallback=None).scores(ctx)
    >>> bool(np.allclose(LookaheadOracle(depth=1).scores(ctx) + now, greedy, rtol=0, atol=1e-12))
    True
    """

    name = "LookaheadOracle"

    def __init__(self, depth: int = LOOKAHEAD_DEPTH, sets: int | None = LOOKAHEAD_SETS, mode: str = "ascending",
                 test_size: int | None = None, loss: str = "error") -> None:
        self.depth = check.count(depth, "depth", minimum=1)
        self.sets = None if sets is None else check.count(sets, "sets", minimum=1)
        if mode not in ("ascending", "rand"):
            raise ValueError(f"mode must be 'ascending' or 'rand', got {mode!r}")
        self.mode = mode
        self.test_size = None if test_size is None else check.count(test_size, "test_size", minimum=1)
        self.loss = _check_loss(loss)
        self.test_set_ = None

    def risks(self, ctx: Context) -> np.ndarray:
        """Each candidate's risk at each set size: the lowest loss of a drawn set of that size containing it.

        Parameters
        ----------
        ctx : Context
            Needs the truth and ``ctx.candidate_labels``.

        Returns
        -------
        ndarray (m, min(depth, m))
            ``inf`` where no drawn set of that size contains the candidate (no set is larger than ``m``).
        """
        labels = _truth_and_labels(self, ctx)
        evaluation = self.evaluation(ctx)
        m = ctx.candidates.shape[0]
        risk = np.full((m, self.depth), np.inf) if self.depth <= m else np.full((m, m), np.inf)
        members = np.arange(m)
        for size in range(1, risk.shape[1] + 1):
            if members.size < size:
                break
            sets = candidate_sets(members, size, self.sets, ctx.rng)
            losses = set_losses(ctx, sets, labels, evaluation, self.loss)
            for column in range(size):
                np.minimum.at(risk[:, size - 1], sets[:, column], losses)
            members = np.unique(sets)
        return risk

    def scores(self, ctx: Context) -> np.ndarray:
        r"""Minus each candidate's lowest risk over the set sizes (``mode="ascending"``: the candidates tied at the
        lowest but not lowest at size 1, 2, ... in turn one less, so that they are not chosen).

        Parameters
        ----------
        ctx : Context
            Needs the truth (``ctx.problem``, ``ctx.population``) and ``ctx.candidate_labels``.

        Returns
        -------
        ndarray (m,)
            The scores; a candidate in no drawn set scores one less than the lowest of the others.

        Raises
        ------
        ValueError
            If ``ctx`` lacks the truth or the candidates' labels.
        """
        risk = self.risks(ctx)
        lowest = risk.min(axis=1)
        seen = np.isfinite(lowest)
        scores = np.where(seen, -lowest, 0.0)
        scores[~seen] = scores[seen].min() - 1.0
        if self.mode == "ascending":
            best = near_maximum(np.where(seen, scores, -np.inf))
            for column in range(risk.shape[1]):
                keep = best & near_maximum(np.where(best, -risk[:, column], -np.inf))
                scores[best & ~keep] -= 1.0
                best = keep
        return scores


#: Zhou et al.'s annealing steps (``object_classification/search.py``, lines 99--121).
ZHOU_STEPS = 40_000
#: Zhou et al.'s greedy steps after the annealing (the same lines).
ZHOU_GREEDY_STEPS = 5_000
#: Zhou et al.'s inverse temperature per step: ``0.1 * (t + 1)`` at step ``t`` (the same lines).
ZHOU_ANNEAL_FACTOR = 0.1


def curve_losses(ctx: Context, points: np.ndarray, labels: np.ndarray, evaluation: Any, loss: str = "error",
                 start: int = 0, losses: np.ndarray | None = None) -> np.ndarray:
    """The learning curve of an acquisition order: the loss of the model fitted on :math:`D_S` plus the first
    ``k`` of ``points`` (with ``labels``), for ``k = 0, ..., len(points)``.

    Parameters
    ----------
    ctx : Context
        The labelled data :math:`D_S` and the base classifier.
    points : ndarray (T, d)
        The points in the order they are labelled.
    labels : ndarray of int (T,)
        Their labels.
    evaluation : Population or ExactPopulation
        Where the loss is measured.
    loss : {"error", "log"}, default "error"
    start : int, default 0
        With ``losses``: the first position of the order that changed.
    losses : ndarray (T + 1,), optional
        A curve of the same length: only the entries ``k > start`` are computed again (a change of the order at
        position ``start`` and after changes no earlier prefix); the others are copied.

    Returns
    -------
    ndarray (T + 1,)
        The losses after 0, 1, ..., T labels.

    Examples
    --------
    >>> import numpy as np
    >>> from mri_theory.classifiers import LDA
    >>> from mri_theory.engine import Population
    >>> from mri_theory.problems import get_problem
    >>> from mri_theory.strategies import Context
    >>> from mri_theory.strategies.oracles import curve_losses
    >>> problem, rng = get_problem("four-gaussian"), np.random.default_rng(0)
    >>> X, y = problem.sample(6, rng)
    >>> pool, labels = problem.sample(3, rng)
    >>> exact = Population.exact(problem)
    >>> ctx = Context(X, y, pool, pool, LDA(), 2, rng, problem, exact, labels)
    >>> curve = curve_losses(ctx, pool, labels, exact)
    >>> curve.shape, bool(curve[0] == exact.loss(LDA().fit(X, y, 2)))
    ((4,), True)
    """
    points = check.finite_array(points, "points")
    if points.ndim != 2:
        raise ValueError(f"points must have shape (T, d), got {points.shape}")
    labels, loss = _check_retraining(ctx, labels, points.shape[0], evaluation, loss)
    if points.shape[1] != ctx.X.shape[1]:
        raise ValueError(f"points must have shape (T, {ctx.X.shape[1]}) like ctx.X, got {points.shape}")
    start = check.count(start, "start", minimum=0, maximum=points.shape[0])
    if losses is not None:
        losses = check.finite_array(losses, "losses")
        if losses.shape != (points.shape[0] + 1,):
            raise ValueError(f"losses must have shape ({points.shape[0] + 1},), got {losses.shape}")
    out = np.empty(points.shape[0] + 1) if losses is None else losses.copy()
    for k in range(0 if losses is None else start + 1, points.shape[0] + 1):
        X = np.vstack([ctx.X, points[:k]])
        y = np.append(ctx.y, labels[:k])
        out[k] = evaluation.loss(ctx.classifier.clone().fit(X, y, ctx.n_classes), loss)
    return out


class AnnealingOracle(PeekingOracle):
    r"""Zhou et al.'s oracle (AISTATS 2021): simulated annealing over the acquisition order of the whole budget.

    At its first call the oracle plans: it searches the orders of ``budget`` candidates (with their **drawn
    labels**) for the lowest mean loss over the learning curve, the points after ``k = 0, 1, ..., budget`` labels
    (the area under the curve; Zhou et al. score accuracy on a validation set), then labels the planned points in
    turn: each call scores 1 the next planned point still among the candidates and 0 the others.  The sandbox
    offers it the whole pool (it is not ``costly``), so that the planned point is always there.

    The search follows Zhou et al.'s code (``YilunZhou/optimal-active-learning`` at 9ddd822,
    ``object_classification/search.py``, ``Runner.run`` lines 55--94 and ``swap_kernel`` lines 10--22): a
    random initial order; at step :math:`t` a proposal swaps, with probability 1/2, two acquired positions, or
    else an acquired and a not-acquired point (always two acquired ones when the budget is the whole pool, always
    one of each when it is one point); it is accepted if a uniform draw is below
    :math:`\exp((q' - q)\,\beta_t)` with the inverse temperature :math:`\beta_t = ` ``anneal_factor`` :math:`(t + 1)`
    and :math:`q = -` the mean loss; the best accepted order is kept, then ``greedy_steps`` more proposals from
    it are accepted only if strictly better.  Deviations (:doc:`/deviations`): one point per batch (their batches
    are 20 or 25 points); the search draws from ``ctx.rng`` (theirs from Python's unseeded global generator); the
    loss is measured on the truth by default; where the orders are no more than ``steps + greedy_steps``, every
    order is scored instead and the best taken (the search's exact optimum, reached with no more losses computed).

    Parameters
    ----------
    budget : int or None, default None
        The labels planned for; None plans the whole pool offered at the first call.  Set it to the sandbox's
        ``budget`` when the curve stops before the pool is exhausted.
    steps : int, default 40000
        Annealing steps (:data:`~mri_theory.strategies.oracles.ZHOU_STEPS`; at most
        :data:`~mri_theory.strategies.oracles.MAX_SEARCH_STEPS`, as ``greedy_steps``).
    greedy_steps : int, default 5000
        Greedy steps after the annealing (:data:`~mri_theory.strategies.oracles.ZHOU_GREEDY_STEPS`).
    anneal_factor : float, default 0.1
        The inverse temperature's growth per step (:data:`~mri_theory.strategies.oracles.ZHOU_ANNEAL_FACTOR`).  With
        fewer ``steps`` than
        Zhou et al.'s, ``4000 / steps`` ends at their final inverse temperature.
    test_size : int or None, default None
        As :class:`GreedyOracle`'s: the truth, or a labelled test set drawn once per curve.
    loss : {"error", "log"}, default "error"
        The loss measured.

    Attributes
    ----------
    plan_ : ndarray or None
        The planned points, in order (drawn at the first call).
    plan_losses_ : ndarray or None
        The planned order's learning curve (:func:`~mri_theory.strategies.oracles.curve_losses`), ``budget + 1`` losses.
    test_set_ : Population or None
        As :class:`GreedyOracle`'s.

    See Also
    --------
    mri_theory.strategies.LookaheadOracle : A receding-horizon look-ahead, re-planned at every step.
    mri_theory.analytic.optimal_policy : The exact non-myopic optimum, where it can be computed.

    Examples
    --------
    The plan of a short budget; the first point labelled is the plan's first:

    >>> import numpy as np
    >>> from mri_theory.classifiers import LDA
    >>> from mri_theory.engine import Population
    >>> from mri_theory.problems import get_problem
    >>> from mri_theory.strategies import AnnealingOracle, Context, select
    >>> problem, rng = get_problem("four-gaussian"), np.random.default_rng(0)
    >>> X, y = problem.sample(6, rng)
    >>> pool, labels = problem.sample(12, rng)
    >>> ctx = Context(X, y, pool, pool, LDA(), 2, rng, problem, Population.exact(problem), candidate_labels=labels)
    >>> oracle = AnnealingOracle(budget=3, steps=200, greedy_steps=50, anneal_factor=20.0)
    >>> index, scores = select(oracle, ctx)
    >>> bool(np.array_equal(pool[index], oracle.plan_[0])), oracle.plan_losses_.shape
    (True, (4,))
    """

    name = "AnnealingOracle"

    def __init__(self, budget: int | None = None, steps: int = ZHOU_STEPS, greedy_steps: int = ZHOU_GREEDY_STEPS,
                 anneal_factor: float = ZHOU_ANNEAL_FACTOR, test_size: int | None = None,
                 loss: str = "error") -> None:
        self.budget = None if budget is None else check.count(budget, "budget", minimum=1)
        self.steps = check.count(steps, "steps", minimum=0, maximum=MAX_SEARCH_STEPS)
        self.greedy_steps = check.count(greedy_steps, "greedy_steps", minimum=0, maximum=MAX_SEARCH_STEPS)
        self.anneal_factor = check.finite_scalar(anneal_factor, "anneal_factor")
        if self.anneal_factor <= 0:
            raise ValueError(f"anneal_factor must be > 0, got {anneal_factor!r}")
        self.test_size = None if test_size is None else check.count(test_size, "test_size", minimum=1)
        self.loss = _check_loss(loss)
        self.test_set_ = None
        self.plan_: np.ndarray | None = None
        self.plan_losses_: np.ndarray | None = None

    def search(self, ctx: Context) -> tuple[np.ndarray, np.ndarray]:
        """The annealed order of ``ctx.candidates``: the indices of the planned ones, and their learning curve.

        Parameters
        ----------
        ctx : Context
            Needs the truth and ``ctx.candidate_labels``; the search draws from ``ctx.rng``.

        Returns
        -------
        order : ndarray of int (budget,)
            Indices into ``ctx.candidates``, in the planned order.
        losses : ndarray (budget + 1,)
            The order's learning curve (:func:`~mri_theory.strategies.oracles.curve_losses`).
        """
        labels = _truth_and_labels(self, ctx)
        evaluation = self.evaluation(ctx)
        m = ctx.candidates.shape[0]
        budget = m if self.budget is None else min(self.budget, m)
        order = ctx.rng.permutation(m)

        def curve(order: np.ndarray, start: int = 0, losses: np.ndarray | None = None) -> np.ndarray:
            return curve_losses(ctx, ctx.candidates[order[:budget]], labels[order[:budget]], evaluation, self.loss,
                                start, losses)

        if math.perm(m, budget) <= self.steps + self.greedy_steps:  # fewer orders than steps: score every one
            return self._exhaustive(m, budget, curve, ctx.rng)
        losses = curve(order)
        best_order, best_losses = order.copy(), losses
        for t in range(self.steps):  # annealing: a worse order is accepted with probability exp((q' - q) beta_t)
            proposal = self._propose(order, budget, ctx.rng)
            if proposal is None:
                break
            new_order, new_losses = proposal[0], curve(*proposal, losses)
            gain = losses.mean() - new_losses.mean()  # q' - q, q = minus the mean loss
            if ctx.rng.random() < math.exp(min(gain * self.anneal_factor * (t + 1), 0.0)):  # libm: no SIMD kernel
                order, losses = new_order, new_losses
                if losses.mean() < best_losses.mean() - GAIN_TOLERANCE:
                    best_order, best_losses = order.copy(), losses
        order, losses = best_order, best_losses
        for _ in range(self.greedy_steps):  # then greedy from the best: only a strictly better order
            proposal = self._propose(order, budget, ctx.rng)
            if proposal is None:
                break
            new_order, new_losses = proposal[0], curve(*proposal, losses)
            if losses.mean() - new_losses.mean() > GAIN_TOLERANCE:
                order, losses = new_order, new_losses
        return order[:budget], losses

    @staticmethod
    def _exhaustive(m: int, budget: int, curve: Any, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """Every order of ``budget`` of ``m`` candidates scored (lexicographic, each curve computed from the first
        position where it differs from the previous); the lowest mean loss, near-ties drawn by ``rng``."""
        orders, curves, previous, losses = [], [], None, None
        for order in itertools.permutations(range(m), budget):
            order_ = np.array(order + tuple(i for i in range(m) if i not in order), dtype=int)
            if previous is None:
                losses = curve(order_)
            else:
                first = int(np.flatnonzero(order_[:budget] != previous[:budget])[0])
                losses = curve(order_, first, losses)
            orders.append(order_)
            curves.append(losses)
            previous = order_
        best = np.flatnonzero(near_maximum(-np.array([c.mean() for c in curves])))
        chosen = int(best[rng.integers(best.size)])
        return orders[chosen][:budget], curves[chosen]

    @staticmethod
    def _propose(order: np.ndarray, budget: int, rng: np.random.Generator) -> tuple[np.ndarray, int] | None:
        """Zhou et al.'s swap: the new order and the first position it changes (None if no swap is possible)."""
        m = order.size
        inside = budget >= 2 and (budget == m or rng.random() < 0.5)
        if not inside and budget == m:
            return None
        new = order.copy()
        if inside:
            i, j = np.sort(rng.choice(budget, 2, replace=False))
        else:
            i, j = int(rng.integers(budget)), int(rng.integers(budget, m))
        new[i], new[j] = new[j], new[i]
        return new, int(i)

    def scores(self, ctx: Context) -> np.ndarray:
        """1 at the next planned point among the candidates, 0 elsewhere (all 0 once the plan is labelled).

        Parameters
        ----------
        ctx : Context
            Needs the truth and ``ctx.candidate_labels``; the first call plans (:meth:`search`).

        Returns
        -------
        ndarray (m,)

        Raises
        ------
        ValueError
            If ``ctx`` lacks the truth or the candidates' labels.
        """
        if self.plan_ is None:
            order, self.plan_losses_ = self.search(ctx)
            self.plan_ = ctx.candidates[order].copy()
        else:
            _truth_and_labels(self, ctx)
        out = np.zeros(ctx.candidates.shape[0])
        for point in self.plan_:
            match = np.flatnonzero((ctx.candidates == point).all(axis=1))
            if match.size:
                out[match[0]] = 1.0
                break
        return out


#: The most proposals per step of :class:`BossOracle` (a bound, so that a step's time stays bounded).
MAX_PROPOSALS = 100_000
#: The most annealing steps, and greedy steps, of :class:`AnnealingOracle` (likewise).
MAX_SEARCH_STEPS = 10**7

#: BoSS's proposals per step (``configs/active_learning.yaml`` of ``dhuseljic/dal-toolbox``, ``num_batches``).
BOSS_BATCHES = 100

#: The proposers of :class:`BossOracle` by default: the toolkit's strategies that choose without retraining
#: (BoSS's published mix is of deep-learning strategies, of which random and margin sampling exist here).
BOSS_PROPOSERS = ("RS", "Margin", "SE", "QbcV", "QbcA")


class BossOracle(PeekingOracle):
    r"""A BoSS-like oracle (arXiv 2603.13109): the best of the candidates that several strategies propose.

    At each step, ``batches`` proposals are made: each draws a strategy of ``proposers`` (with equal
    probabilities) and a random subset of the candidates (its size uniform between ``min(4, m)`` and all ``m``),
    and the strategy chooses its best candidate there (:func:`~mri_theory.strategies.select`; it sees neither the
    truth nor the labels).  Each distinct proposal is retrained with its **drawn label**, and the one with the
    lowest loss is chosen (:func:`~mri_theory.strategies.oracles.peeked_gains`; no comparison with the current loss, as
    in BoSS).

    The source is ``dhuseljic/dal-toolbox`` (``dal_toolbox/active_learning/oracles/boss.py``, ``BoSS.query``
    lines 101--215 and ``select_strategy_batches`` lines 217--246; the paper's settings in
    ``publications/boss_oracle/configs/active_learning.yaml`` lines 20--48: 100 batches from 10 strategies in equal
    ratios, subset sizes varied).  Deviations (:doc:`/deviations`): batches of one point (the sandbox labels one
    at a time; the paper's are 10); the proposers are this toolkit's strategies (the published mix is of
    deep-learning strategies: random and margin sampling have counterparts here, TypiClust, BADGE, BAIT, AlfaMix,
    DropQuery and the others do not); a proposal is scored once however often it is proposed; subset sizes are
    drawn from ``ctx.rng`` (BoSS draws the strategy mix from numpy's global generator); the loss is measured on
    the truth by default, not on the test set the curve is reported on.

    Parameters
    ----------
    proposers : tuple of str or Strategy, default :data:`~mri_theory.strategies.oracles.BOSS_PROPOSERS`
        The strategies that propose (registered names, or strategy objects); none may need the truth or peek.
    batches : int, default 100
        Proposals per step (:data:`~mri_theory.strategies.oracles.BOSS_BATCHES`; at most
        :data:`~mri_theory.strategies.oracles.MAX_PROPOSALS`).
    test_size : int or None, default None
        As :class:`GreedyOracle`'s: the truth, or a labelled test set drawn once per curve.
    loss : {"error", "log"}, default "error"
        The loss measured.

    Attributes
    ----------
    test_set_ : Population or None
        As :class:`GreedyOracle`'s.

    See Also
    --------
    mri_theory.strategies.GreedyOracle : The same score over random candidates instead of proposals.

    Examples
    --------
    >>> import numpy as np
    >>> from mri_theory.classifiers import LDA
    >>> from mri_theory.engine import Population
    >>> from mri_theory.problems import get_problem
    >>> from mri_theory.strategies import BossOracle, Context, select
    >>> problem, rng = get_problem("four-gaussian"), np.random.default_rng(0)
    >>> X, y = problem.sample(10, rng)
    >>> pool, labels = problem.sample(30, rng)
    >>> ctx = Context(X, y, pool, pool, LDA(), 2, rng, problem, Population.exact(problem), candidate_labels=labels)
    >>> index, scores = select(BossOracle(batches=20), ctx)
    >>> proposed = scores > scores.min()  # the candidates proposed; the others score below every one of them
    >>> bool(proposed[index]), int(proposed.sum()) <= 20
    (True, True)
    """

    name = "BossOracle"

    def __init__(self, proposers: tuple[str | Strategy, ...] = BOSS_PROPOSERS, batches: int = BOSS_BATCHES,
                 test_size: int | None = None, loss: str = "error") -> None:
        if isinstance(proposers, (str, Strategy)) or not isinstance(proposers, (tuple, list)) or not proposers:
            raise TypeError(f"proposers must be a non-empty tuple of strategy names or Strategy objects, "
                            f"got {proposers!r}")
        for proposer in proposers:
            strategy = _proposer(proposer)
            if strategy.needs_truth or strategy.peeks:
                raise ValueError(f"proposers: {strategy.name} needs the truth or peeks; a proposer must be a "
                                 "practical strategy")
        self.proposers = tuple(proposers)
        self.batches = check.count(batches, "batches", minimum=1, maximum=MAX_PROPOSALS)
        self.test_size = None if test_size is None else check.count(test_size, "test_size", minimum=1)
        self.loss = _check_loss(loss)
        self.test_set_ = None

    def proposals(self, ctx: Context) -> np.ndarray:
        """The distinct candidates proposed at this step (indices into ``ctx.candidates``, ascending).

        Parameters
        ----------
        ctx : Context
            The proposers see its labelled data, the classifier and random subsets of its candidates.

        Returns
        -------
        ndarray of int
        """
        m = ctx.candidates.shape[0]
        proposers = [_proposer(p) for p in self.proposers]
        chosen = set()
        for _ in range(self.batches):
            proposer = proposers[int(ctx.rng.integers(len(proposers)))]
            size = int(ctx.rng.integers(min(4, m), m + 1))
            subset = np.sort(ctx.rng.choice(m, size, replace=False))
            sub = Context(ctx.X, ctx.y, ctx.candidates[subset], ctx.pool, ctx.classifier, ctx.n_classes, ctx.rng)
            chosen.add(int(subset[select(proposer, sub)[0]]))
        return np.array(sorted(chosen), dtype=int)

    def scores(self, ctx: Context) -> np.ndarray:
        """The proposals' loss reductions :math:`g` with their drawn labels; the others one less than the lowest.

        Parameters
        ----------
        ctx : Context
            Needs the truth (``ctx.problem``, ``ctx.population``) and ``ctx.candidate_labels``.

        Returns
        -------
        ndarray (m,)

        Raises
        ------
        ValueError
            If ``ctx`` lacks the truth or the candidates' labels.
        """
        labels = _truth_and_labels(self, ctx)
        rows = self.proposals(ctx)
        _, gains = peeked_gains(ctx, rows, labels, self.evaluation(ctx), self.loss)
        out = np.full(ctx.candidates.shape[0], gains.min() - 1.0)
        out[rows] = gains
        return out


def _proposer(proposer: Any) -> Strategy:
    """A proposer of :class:`BossOracle`: a registered name's strategy, or the Strategy object itself."""
    if isinstance(proposer, Strategy):
        return proposer
    if not isinstance(proposer, str):
        raise TypeError(f"proposers must hold strategy names or Strategy objects, got {type(proposer).__name__}")
    return STRATEGY_REGISTRY.get(proposer)


for _oracle in (GreedyOracle, LookaheadOracle, AnnealingOracle, BossOracle):
    STRATEGY_REGISTRY.register(_oracle.name, _oracle)
