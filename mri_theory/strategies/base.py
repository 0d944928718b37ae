r"""The strategy interface: :class:`Context` (what a strategy sees), :class:`Strategy` (what runners read of it)
and :func:`select` (the best score, ties broken by the generator within :data:`TIE_TOLERANCE`).
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mri_theory._utils import validation as check
from mri_theory._utils.ties import TIE_TOLERANCE, near_maximum
from mri_theory.classifiers import Classifier
from mri_theory.engine.population import Population

__all__ = ["ORIGINS", "Context", "Strategy", "checked_scores", "check_context", "select", "TIE_TOLERANCE",
           "near_maximum"]


@dataclass
class Context:
    """What a strategy may look at when it scores candidates.

    The fields are the constructor's parameters, in this order.

    Parameters
    ----------
    X, y : ndarray
        The labelled data :math:`D_S`: points of shape ``(n, d)`` and their
        labels in ``0..n_classes-1``, shape ``(n,)``.
    candidates : ndarray (m, d)
        The points to score (the pool, or a random sub-sample of it).
    pool : ndarray (n_p, d)
        The whole unlabelled pool :math:`X_P` (EfeLc sums over it).
    classifier : Classifier
        The base classifier (an unfitted template).
    n_classes : int
        Number of classes ``k >= 2``.
    rng : numpy.random.Generator
        The only source of randomness a strategy may draw from.
    problem : Problem, optional
        The truth, for the oracle strategies only (:attr:`~mri_theory.strategies.Strategy.needs_truth`);
        None for the others.
    population : Population or ExactPopulation, optional
        The truth, for the oracle strategies only: where they measure the
        loss (the replicate's evaluation population); None for the others.
    candidate_labels : ndarray (m,), optional
        The candidates' drawn labels (the pool's labels, which the sandbox otherwise reveals only for the point
        chosen), for the strategies that peek (:attr:`~mri_theory.strategies.Strategy.peeks`: the literature's
        label-peeking oracles) only; None for the others.
    _fitted : Classifier, optional
        Internal: the cache of :meth:`fitted`, None until its first call;
        leave it at its default.

    See Also
    --------
    mri_theory.strategies.select : Scores a context's candidates and chooses one.

    Examples
    --------
    The labelled data, the candidates to score, the pool and an unfitted base classifier; the oracles also get the
    problem and the population their truth is measured on:

    >>> import numpy as np
    >>> from mri_theory.classifiers import LDA
    >>> from mri_theory.problems import get_problem
    >>> from mri_theory.strategies import Context
    >>> problem, rng = get_problem("four-gaussian"), np.random.default_rng(0)
    >>> X, y = problem.sample(10, rng)
    >>> pool = problem.sample(30, rng)[0]
    >>> ctx = Context(X, y, candidates=pool[:6], pool=pool, classifier=LDA(), n_classes=2, rng=rng)
    >>> ctx.fitted() is ctx.fitted()  # the base classifier fitted on (X, y) once, then cached
    True
    """

    X: np.ndarray
    y: np.ndarray
    candidates: np.ndarray
    pool: np.ndarray
    classifier: Classifier
    n_classes: int
    rng: np.random.Generator
    problem: Any = None
    population: Population | None = None
    candidate_labels: np.ndarray | None = None
    _fitted: Classifier | None = field(default=None, repr=False)

    def fitted(self) -> Classifier:
        """The base classifier fitted on :math:`D_S` (cached).

        Returns
        -------
        Classifier
            A clone of ``classifier`` fitted on ``X``, ``y`` (with ``n_classes``) at the first call; the
            same object at every later call.
        """
        if self._fitted is None:
            self._fitted = self.classifier.clone().fit(self.X, self.y, self.n_classes)
        return self._fitted


#: The values of :attr:`Strategy.origin`, in the order the documentation lists the line-ups.
ORIGINS = ("paper", "oracle", "ours", "peer", "other")


class Strategy:
    r"""An AL strategy: :meth:`~Strategy.scores` candidates, larger is better.

    A subclass implements :meth:`scores` and sets the attributes below; as in
    scikit-learn, every parameter of its ``__init__`` is stored as an
    attribute of the same name, so that ``repr`` shows the parameters (the
    runners record it to tell two differently parameterised strategies of one
    name apart on resume, :func:`mri_theory.runners.sandbox.run_curves`).  The
    runners copy a strategy for each (strategy, replicate) and send the copies
    to their workers pickled: a strategy must be picklable (a class defined at
    module level), and state kept between calls of :meth:`scores` lives for
    one learning curve only.  :func:`mri_theory.testing.check_strategy`
    checks this contract on a strategy of your own.

    The attributes below are everything the runners
    (:func:`mri_theory.runners.sandbox.run_curves`, :mod:`mri_theory.runners.study`,
    :func:`mri_theory.runners.score_states`, the command line) read from
    a strategy besides :meth:`scores`; the class values here are the
    defaults of a practical (non-oracle) strategy.

    Attributes
    ----------
    name : str
        The paper's name; the label of its rows and part files when the
        strategy is given to a runner as an object (letters, digits and
        ``. _ + -``, no ``__``, when results are written to a folder).
    costly : bool
        Retrains per candidate: the sandbox may score a random sub-sample of
        the pool.
    needs_truth : bool
        Needs ``problem`` and ``population`` (the oracles).
    peeks : bool
        Reads the candidates' drawn labels (``ctx.candidate_labels``) before choosing: the literature's oracle
        baselines (:class:`~mri_theory.strategies.GreedyOracle`), which no learner choosing before the label
        could run.  The sandbox hands the labels only to a strategy that declares this, and records it in the
        strategy's parts.
    estimates_t_e : bool
        The score is :math:`-\hat T_e`, an estimate of the future-loss term
        :math:`T_e` of Eq. ``eqc`` (SMRI and BMRI, Algorithms 1-2), so that
        :math:`\hat T_e = -` score (:func:`mri_theory.runners.score_states`).
    sign : float
        For the oracles on the true :math:`Q^c` (:class:`MRIBest` and its
        subclasses): the score is ``sign`` times the true :math:`Q^c` (+1
        MRI-best, -1 MRI-worst), so that the sandbox's ``record_q_c`` reads
        :math:`Q^c` = ``sign * score`` without recomputing it.  Other
        strategies leave it at 1 (the sandbox does not read it for them).
    origin : str
        Which line-up the strategy belongs to (:data:`ORIGINS`): ``"paper"`` (the seven methods the paper
        compares, §5.1), ``"oracle"`` (MRI-best, MRI-worst), ``"ours"`` (this toolkit's estimators and
        baselines), ``"peer"`` (scikit-activeml's) or ``"other"`` (the default: a strategy of your own, and LC,
        which the paper defines but does not compare).  The registry derives its lists from it (the runners'
        ``"paper"`` set, the leaderboard's groups, the documentation's table), so a new strategy is found
        everywhere by its registration alone.
    repr_if_changed : tuple of str
        Parameters of ``__init__`` that ``repr`` shows only when they differ
        from their default: options added after results were stored under
        the older ``repr``, so that those results (a study's part files,
        keyed by the strategy's ``repr``) still match the default.

    See Also
    --------
    mri_theory.testing.check_strategy : Checks a strategy of your own against the contract.
    mri_theory.strategies.register_strategy : Makes it known by name to the runners.

    Examples
    --------
    A strategy of your own: subclass Strategy and score the candidates (larger is better); here the distance from
    the labelled data's mean:

    >>> import numpy as np
    >>> from mri_theory.classifiers import LDA
    >>> from mri_theory.problems import get_problem
    >>> from mri_theory.strategies import Context, Strategy, select
    >>> class FarFromMean(Strategy):
    ...     name = "far"
    ...     def scores(self, ctx):
    ...         return np.linalg.norm(ctx.candidates - ctx.X.mean(axis=0), axis=1)
    >>> problem, rng = get_problem("four-gaussian"), np.random.default_rng(0)
    >>> X, y = problem.sample(10, rng)
    >>> pool = problem.sample(30, rng)[0]
    >>> ctx = Context(X, y, candidates=pool, pool=pool, classifier=LDA(), n_classes=2, rng=rng)
    >>> index, scores = select(FarFromMean(), ctx)
    >>> index == int(scores.argmax())
    True
    """

    name: str = "strategy"
    repr_if_changed: tuple[str, ...] = ()
    origin: str = "other"
    costly: bool = False
    needs_truth: bool = False
    peeks: bool = False
    estimates_t_e: bool = False
    sign: float = 1.0

    def scores(self, ctx: Context) -> np.ndarray:  # pragma: no cover - abstract
        """One finite real score per row of ``ctx.candidates``, shape ``(m,)``; larger is better.

        It may draw from ``ctx.rng`` (the only source of randomness, so that
        a run is reproducible) and call ``ctx.fitted()``, but must not change
        the other fields of ``ctx``; it reads ``ctx.problem`` and
        ``ctx.population`` only if :attr:`~mri_theory.strategies.Strategy.needs_truth` (they are None otherwise),
        and ``ctx.candidate_labels`` only if :attr:`~mri_theory.strategies.Strategy.peeks`.

        Parameters
        ----------
        ctx : Context
            The labelled data, the candidates, the pool, the base classifier and the generator.

        Returns
        -------
        ndarray (m,)
            The scores of ``ctx.candidates``, in their order.
        """
        raise NotImplementedError

    def __repr__(self) -> str:
        """``Class(p=value, ...)`` for every parameter of ``__init__`` (scikit-learn's convention), but those of
        :attr:`repr_if_changed` at their default.

        Raises
        ------
        AttributeError
            If a parameter of ``__init__`` is not stored as an attribute of
            the same name (the repr could not tell two strategies apart).
        """
        shown = []
        for parameter in list(inspect.signature(type(self).__init__).parameters.values())[1:]:
            if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
                continue
            if not hasattr(self, parameter.name):
                raise AttributeError(f"{type(self).__name__} must store its __init__ parameter {parameter.name!r} "
                                     "as an attribute of the same name (Strategy's repr shows every parameter)")
            value = getattr(self, parameter.name)
            if parameter.name in self.repr_if_changed and value == parameter.default:
                continue
            shown.append(f"{parameter.name}={value!r}")
        return f"{type(self).__name__}({', '.join(shown)})"


def checked_scores(strategy: Strategy, ctx: Context) -> np.ndarray:
    """``strategy.scores(ctx)``: real, finite, one per candidate.

    Otherwise a ``TypeError`` (not real numbers) or ``ValueError`` (wrong
    shape, NaN or inf) naming the strategy and what is wrong.

    Parameters
    ----------
    strategy : Strategy
        Its :meth:`~mri_theory.strategies.Strategy.scores` is called once, with ``ctx``.
    ctx : Context
        The state scored (not checked here: :func:`check_context` does that).

    Returns
    -------
    ndarray (m,)
        The scores as a float array, one per row of ``ctx.candidates``.

    Examples
    --------
    >>> import numpy as np
    >>> from mri_theory.classifiers import LDA
    >>> from mri_theory.problems import get_problem
    >>> from mri_theory.strategies import Context, ShannonEntropy, Strategy
    >>> from mri_theory.strategies.base import checked_scores
    >>> class Broken(Strategy):
    ...     name = "broken"
    ...     def scores(self, ctx):
    ...         return np.full(len(ctx.candidates), np.nan)
    >>> problem, rng = get_problem("four-gaussian"), np.random.default_rng(0)
    >>> X, y = problem.sample(10, rng)
    >>> ctx = Context(X, y, candidates=X[:4], pool=X, classifier=LDA(), n_classes=2, rng=rng)
    >>> checked_scores(ShannonEntropy(), ctx).shape
    (4,)
    >>> try:
    ...     checked_scores(Broken(), ctx)
    ... except ValueError as error:
    ...     print("ValueError:", str(error)[:50], "...")
    ValueError: strategy 'broken' (Broken) returned non-finite sco ...
    """
    raw = strategy.scores(ctx)
    who = f"strategy {getattr(strategy, 'name', '?')!r} ({type(strategy).__name__})"
    s = check.real_array(raw, f"the scores of {who}")
    m = ctx.candidates.shape[0]
    if s.shape != (m,):
        raise ValueError(f"{who} returned scores of shape {s.shape}; scores() must return one score per "
                         f"candidate, shape ({m},)")
    bad = np.flatnonzero(~np.isfinite(s))
    if bad.size:
        raise ValueError(f"{who} returned non-finite scores (NaN or inf) for candidates {bad[:5].tolist()} "
                         f"of {m}: {s[bad[:5]].tolist()}")
    return s


def check_context(ctx: Context) -> None:
    """The fields of ``ctx`` a strategy relies on: a ValueError/TypeError naming the field otherwise.

    Parameters
    ----------
    ctx : Context
        Checked: ``X``, ``candidates`` and ``pool`` finite numpy arrays of
        one dimension ``d`` with at least one row each, ``classifier`` a
        :class:`~mri_theory.classifiers.Classifier`, ``n_classes >= 2``,
        ``y`` one label in ``0..n_classes-1`` per row of ``X``, ``rng`` a
        ``numpy.random.Generator``.  Nothing is changed.

    Examples
    --------
    >>> import numpy as np
    >>> from mri_theory.classifiers import LDA
    >>> from mri_theory.strategies import Context
    >>> from mri_theory.strategies.base import check_context
    >>> X, y = np.zeros((4, 2)), np.array([0, 1, 0, 1])
    >>> check_context(Context(X, y, candidates=X, pool=X, classifier=LDA(), n_classes=2, rng=np.random.default_rng(0)))
    >>> try:
    ...     check_context(Context(X, y, candidates=X, pool=X, classifier=LDA(), n_classes=2, rng=0))
    ... except TypeError as error:
    ...     print("TypeError:", str(error)[:40], "...")
    TypeError: ctx.rng must be a numpy.random.Generator ...
    """
    for field_name in ("X", "candidates", "pool"):
        value = getattr(ctx, field_name)
        if not isinstance(value, np.ndarray):
            raise TypeError(f"ctx.{field_name} must be a numpy array of shape (n, d), got {type(value).__name__}")
        check.finite_array(value, f"ctx.{field_name}")
    if ctx.candidates.ndim != 2 or ctx.candidates.shape[0] < 1:
        raise ValueError(f"ctx.candidates must hold at least one point, shape (m >= 1, d); got shape "
                         f"{ctx.candidates.shape}")
    d = ctx.candidates.shape[1]
    for field_name in ("X", "pool"):
        value = getattr(ctx, field_name)
        if value.ndim != 2 or value.shape[1] != d or value.shape[0] < 1:
            raise ValueError(f"ctx.{field_name} must have shape (n >= 1, {d}) like ctx.candidates, got {value.shape}")
    if not isinstance(ctx.classifier, Classifier):
        raise TypeError(f"ctx.classifier must be an mri_theory Classifier (an unfitted template), "
                        f"got {type(ctx.classifier).__name__}")
    n_classes = check.count(ctx.n_classes, "ctx.n_classes", minimum=2)
    y = check.check_labels(ctx.y, n_classes, "ctx.y")
    if y.shape[0] != ctx.X.shape[0]:
        raise ValueError(f"ctx.y must have one label per row of ctx.X ({ctx.X.shape[0]}), got {y.shape[0]}")
    check.generator(ctx.rng, "ctx.rng")
    if ctx.candidate_labels is not None:
        labels = check.check_labels(ctx.candidate_labels, n_classes, "ctx.candidate_labels")
        if labels.shape[0] != ctx.candidates.shape[0]:
            raise ValueError(f"ctx.candidate_labels must have one label per row of ctx.candidates "
                             f"({ctx.candidates.shape[0]}), got {labels.shape[0]}")


def select(strategy: Strategy, ctx: Context, tie_tol: float | None = None) -> tuple[int, np.ndarray]:
    """Choose a candidate: the best score, near-ties broken with ``ctx.rng``.

    Parameters
    ----------
    strategy : Strategy
    ctx : Context
        At least one candidate.
    tie_tol : float, optional
        Absolute tolerance: scores ``>= max - tie_tol`` are tied.  Default
        ``TIE_TOLERANCE * max(1, |max|)`` (:data:`TIE_TOLERANCE` = 1e-12), so
        that rounding differences of the order of 1e-16 (summation order,
        SIMD code paths) never decide the choice.

    Returns
    -------
    index : int
        Into ``ctx.candidates``; drawn uniformly by ``ctx.rng`` among the tied
        best (one draw per call, tied or not).
    scores : ndarray (m,)

    Raises
    ------
    TypeError
        For a ``strategy`` or ``ctx`` of the wrong type, a field of ``ctx`` of
        the wrong type (``X``, ``candidates``, ``pool`` numpy arrays,
        ``classifier`` a :class:`~mri_theory.classifiers.Classifier`, ``rng``
        a ``numpy.random.Generator``), or scores that are not real numbers
        (the message names the strategy).
    ValueError
        For no candidates, non-finite points, ``X``/``pool`` of another
        dimension than ``candidates``, labels ``y`` not in
        ``0..n_classes-1`` or not one per row of ``X``, a negative
        ``tie_tol``, or scores of the wrong shape or not finite (the message
        names the strategy and the candidates).

    See Also
    --------
    mri_theory.strategies.near_maximum : The tie rule.

    Examples
    --------
    The candidate of the best score; candidates tied with it (to a tolerance) are chosen between with ctx.rng:

    >>> import numpy as np
    >>> from mri_theory.classifiers import LDA
    >>> from mri_theory.problems import get_problem
    >>> from mri_theory.strategies import Context, RandomSelection, ShannonEntropy, select
    >>> problem, rng = get_problem("four-gaussian"), np.random.default_rng(0)
    >>> X, y = problem.sample(10, rng)
    >>> pool = problem.sample(30, rng)[0]
    >>> ctx = Context(X, y, candidates=pool, pool=pool, classifier=LDA(), n_classes=2, rng=rng)
    >>> index, scores = select(ShannonEntropy(), ctx)
    >>> index == int(scores.argmax())
    True
    >>> sorted({select(RandomSelection(), ctx)[0] for _ in range(200)}) == list(range(30))  # all tied: uniform
    True
    """
    if not isinstance(strategy, Strategy):
        raise TypeError(f"strategy must be an mri_theory.strategies.Strategy, got {type(strategy).__name__}")
    if not isinstance(ctx, Context):
        raise TypeError(f"ctx must be an mri_theory.strategies.Context, got {type(ctx).__name__}")
    check_context(ctx)
    if tie_tol is not None:
        tie_tol = check.finite_scalar(tie_tol, "tie_tol")
        if tie_tol < 0:
            raise ValueError(f"tie_tol must be >= 0, got {tie_tol}")
    s = checked_scores(strategy, ctx)
    best = np.flatnonzero(near_maximum(s, tie_tol))
    return int(best[ctx.rng.integers(best.size)]), s


# ------------------------------------------------------------------ heuristics
