r"""The built-in strategies RS ... MRI-worst (§2.3, §4, §5.1) and the registry of strategies by name.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

import numpy as np
from scipy import special

from mri_theory._utils import validation as check
from mri_theory._utils.registry import made, register, registered, unregister
from mri_theory.classifiers import KNN, Classifier, LogisticRegression, RandomForest
from mri_theory.engine.population import Population
from mri_theory.engine.retraining import check_method, current_and_future_losses
from mri_theory.engine.targets import true_q_c
from mri_theory.strategies.base import Context, Strategy

__all__ = ["RandomSelection", "ShannonEntropy", "LeastConfidence", "VoteEntropy", "AverageKL", "EfeLc",
           "SimpleMRI", "BootstrapMRI", "MRIBest", "MRIWorst", "entropy", "get_strategy", "list_strategies",
           "register_strategy", "registered_strategy", "unregister_strategy", "second_classifier", "COMMITTEE",
           "FOREST_TREES", "BMRI_FOREST_TREES", "MAX_RESAMPLES"]


class RandomSelection(Strategy):
    """RS: every candidate scores 0, so the random tie-break picks uniformly."""

    name = "RS"

    def scores(self, ctx):
        return np.zeros(ctx.candidates.shape[0])


def entropy(p: np.ndarray) -> np.ndarray:
    return -np.sum(special.xlogy(p, p), axis=-1)


class ShannonEntropy(Strategy):
    r"""SE: :math:`-\sum_j \hat p_j \ln \hat p_j` of the base classifier."""

    name = "SE"

    def scores(self, ctx):
        return entropy(ctx.fitted().predict_proba(ctx.candidates))


class LeastConfidence(Strategy):
    r"""LC: :math:`1 - \max_j \hat p_j` of the base classifier."""

    name = "LC"

    def scores(self, ctx):
        return 1.0 - ctx.fitted().predict_proba(ctx.candidates).max(axis=1)


#: Trees in the random forests that strategies fit at every step (the QBC member, SMRI's
#: :math:`\theta_2`).  The paper does not give the forest size; scikit-learn's per-tree
#: overhead dominates on small data, so forests are kept small.
FOREST_TREES = 25

#: The largest number of BMRI's bootstrap resamples and of trees per forest: every one is a fit at
#: every selection step (the paper uses 25).
MAX_RESAMPLES = 10_000

#: Trees in each of BMRI's 25 :math:`\theta_2` forests per step (one per bootstrap
#: resample): the median over resamples already aggregates 25 x 10 trees.
BMRI_FOREST_TREES = 10

#: The QBC committee of §5.1 (factories, so each fit starts fresh).
COMMITTEE: tuple[Callable[[], Classifier], ...] = (
    LogisticRegression, lambda: KNN(5), lambda: KNN(21), lambda: RandomForest(FOREST_TREES),
)


def _committee_proba(ctx: Context) -> np.ndarray:
    """Members' probabilities, shape ``(members, m, k)``."""
    return np.stack([make().fit(ctx.X, ctx.y, ctx.n_classes).predict_proba(ctx.candidates)
                     for make in COMMITTEE])


class VoteEntropy(Strategy):
    """QbcV: entropy of the committee's vote distribution (each member votes its argmax)."""

    name = "QbcV"

    def scores(self, ctx):
        proba = _committee_proba(ctx)
        votes = np.eye(ctx.n_classes)[np.argmax(proba, axis=2)].mean(axis=0)
        return entropy(votes)


class AverageKL(Strategy):
    r"""QbcA: :math:`\frac1M \sum_m KL(\hat{\mathbf p}_m \,\|\, \bar{\mathbf p})` (the average, not the maximum)."""

    name = "QbcA"

    def scores(self, ctx):
        proba = _committee_proba(ctx)
        mean = proba.mean(axis=0)
        return np.mean(np.sum(special.rel_entr(proba, mean[None]), axis=2), axis=0)


# ------------------------------------------------------------------ retraining estimators


def second_classifier(base: Classifier, trees: int = FOREST_TREES) -> Classifier:
    r""":math:`\theta_2`, the class-probability estimator of SMRI and BMRI (§4): 5-NN, or a random forest
    of ``trees`` trees when the base is a nearest-neighbour method (its ``nearest_neighbour`` attribute,
    True for :class:`~mri_theory.classifiers.KNN`), so that :math:`\theta_2` differs from the base."""
    return RandomForest(trees) if getattr(base, "nearest_neighbour", False) else KNN(5)


def _check_theta2(theta2: Any) -> Classifier | None:
    if theta2 is not None and not isinstance(theta2, Classifier):
        raise TypeError(f"theta2 must be a Classifier (an unfitted template) or None, got {type(theta2).__name__}")
    return theta2


class EfeLc(Strategy):
    r"""EfeLc (Roy & McCallum), Eq. ``efelc``: :math:`-\sum_j \hat p_j(x) \sum_{x_i \in X_P} (1 - \max \hat p'(x_i))`.

    :math:`\hat p` is the current base classifier; the retrained model's least
    confidence is summed over the whole pool (the engine's ``"lc"`` loss,
    times the pool size).

    Parameters
    ----------
    method : {"auto", "refit"}
        The engine's fast path, or a plain refit per (candidate, class).
    """

    name = "EfeLc"
    costly = True

    def __init__(self, method: str = "auto") -> None:
        self.method = check_method(method)

    def scores(self, ctx):
        pool = Population(ctx.pool, np.full((ctx.pool.shape[0], ctx.n_classes), 1.0 / ctx.n_classes))
        _, future = current_and_future_losses(ctx.classifier, ctx.X, ctx.y, ctx.candidates, pool, "lc",
                                              self.method)
        p_hat = ctx.fitted().predict_proba(ctx.candidates)
        return -ctx.pool.shape[0] * np.sum(p_hat * future, axis=1)


def _minus_expected_future_loss(ctx: Context, p_data: tuple[np.ndarray, np.ndarray],
                                t_data: tuple[np.ndarray, np.ndarray], e_data: tuple[np.ndarray, np.ndarray],
                                method: str, trees: int = FOREST_TREES,
                                theta2: Classifier | None = None) -> np.ndarray:
    r""":math:`-\hat T_e = -\hat{\mathbf p}\cdot\hat{\mathbf{L'}}` from three data sets.

    :math:`\theta_2` is trained on ``p_data`` (for :math:`\hat{\mathbf p}`); the retrained models train on
    ``t_data`` and are tested on ``e_data``.  :math:`\theta_2` is a clone of ``theta2``, or
    :func:`second_classifier` of the base when it is None.
    """
    theta2 = second_classifier(ctx.classifier, trees) if theta2 is None else theta2.clone()
    p_hat = theta2.fit(*p_data, ctx.n_classes).predict_proba(ctx.candidates)
    test = Population.from_labels(*e_data, ctx.n_classes)
    _, future = current_and_future_losses(ctx.classifier, *t_data, ctx.candidates, test, "error", method)
    return -np.sum(p_hat * future, axis=1)


class SimpleMRI(Strategy):
    r"""SimpleMRI (Algorithm 1): :math:`D_P = D_T = D_E = D_S` (naive reuse).

    Parameters
    ----------
    method : {"auto", "refit"}
    theta2 : Classifier, optional
        The class-probability estimator :math:`\theta_2` (a template, cloned
        for each fit); default :func:`second_classifier` of the base.
    """

    name = "SMRI"
    costly = True
    estimates_t_e = True

    def __init__(self, method: str = "auto", theta2: Classifier | None = None) -> None:
        self.method = check_method(method)
        self.theta2 = _check_theta2(theta2)

    def scores(self, ctx):
        data = (ctx.X, ctx.y)
        return _minus_expected_future_loss(ctx, data, data, data, self.method, theta2=self.theta2)


class BootstrapMRI(Strategy):
    r"""BootstrapMRI (Algorithm 2): independent bootstrap datasets, median over ``n_b`` resamples.

    Parameters
    ----------
    n_b : int, default 25
        Bootstrap resamples, at most :data:`MAX_RESAMPLES`.
    method : {"auto", "refit"}
    theta2_trees : int, default :data:`BMRI_FOREST_TREES`
        Trees of each :math:`\theta_2` forest (nearest-neighbour base, no ``theta2``, only), at most
        :data:`MAX_RESAMPLES`.
    theta2 : Classifier, optional
        The class-probability estimator :math:`\theta_2` (a template, cloned
        for each resample); default :func:`second_classifier` of the base.
    """

    name = "BMRI"
    costly = True
    estimates_t_e = True

    def __init__(self, n_b: int = 25, method: str = "auto", theta2_trees: int = BMRI_FOREST_TREES,
                 theta2: Classifier | None = None) -> None:
        self.n_b = check.count(n_b, "n_b", maximum=MAX_RESAMPLES)
        self.method = check_method(method)
        self.theta2_trees = check.count(theta2_trees, "theta2_trees", maximum=MAX_RESAMPLES)
        self.theta2 = _check_theta2(theta2)

    def scores(self, ctx):
        n = ctx.X.shape[0]
        estimates = np.empty((self.n_b, ctx.candidates.shape[0]))
        for b in range(self.n_b):
            i_p, i_t, i_e = ctx.rng.integers(0, n, size=(3, n))
            estimates[b] = _minus_expected_future_loss(
                ctx, (ctx.X[i_p], ctx.y[i_p]), (ctx.X[i_t], ctx.y[i_t]), (ctx.X[i_e], ctx.y[i_e]), self.method,
                self.theta2_trees, self.theta2)
        return np.median(estimates, axis=0)


# ------------------------------------------------------------------ oracles


class MRIBest(Strategy):
    """MRI-best: the true :math:`Q^c` (Eq. ``eqc``) on the problem's population; argmax is optimal AL.

    Parameters
    ----------
    loss : {"error", "log"}
        The loss whose expected reduction is maximised.
    """

    name = "MRI-best"
    costly = True
    needs_truth = True
    sign = 1.0

    def __init__(self, loss: str = "error") -> None:
        if loss not in ("error", "log"):
            raise ValueError(f"loss must be 'error' or 'log' (a loss of the truth), got {loss!r}")
        self.loss = loss

    def scores(self, ctx):
        if ctx.problem is None or ctx.population is None:
            raise ValueError(f"{self.name} needs the truth: pass problem and population")
        return self.sign * true_q_c(ctx.problem, ctx.classifier, ctx.X, ctx.y, ctx.candidates, ctx.population,
                                    self.loss)


class MRIWorst(MRIBest):
    """MRI-worst: the argmin of the true :math:`Q^c`, the worst possible selection."""

    name = "MRI-worst"
    sign = -1.0


_REGISTRY: dict[str, Callable[[], Strategy]] = {
    cls.name: cls
    for cls in (RandomSelection, ShannonEntropy, LeastConfidence, VoteEntropy, AverageKL, EfeLc,
                SimpleMRI, BootstrapMRI, MRIBest, MRIWorst)
}

#: The names :func:`unregister_strategy` refuses (the paper's strategies).
_BUILT_IN = frozenset(_REGISTRY)


def list_strategies() -> list[str]:
    """The strategy names: the paper's, in its order, then the registered ones in registration order."""
    return list(_REGISTRY)


def register_strategy(name: str, factory: Callable[[], Strategy], *, overwrite: bool = False) -> None:
    """Register a strategy under ``name`` for :func:`get_strategy` and the runners.

    Parameters
    ----------
    name : str
        Letters, digits and ``. _ + -``, without ``__`` (it labels rows and
        names part files); not ``"all"`` (the runners' word for every strategy).
    factory : callable
        Returns a new :class:`Strategy`; a class works.  Keyword options of
        :func:`get_strategy` go to it.
    overwrite : bool, default False
        Replace an existing registration (the paper's strategies included).

    Raises
    ------
    TypeError
        If ``name`` is not a str, or ``factory`` is not callable or cannot be
        called without arguments (checked with :func:`inspect.signature`).
    ValueError
        If ``name`` is not a safe name, is ``"all"``, or is taken and
        ``overwrite`` is False.

    Notes
    -----
    The registry lives in this process: the runners resolve names here and
    send the strategy objects to their workers (joblib or Dask), so a
    registration needs no import in the workers.
    """
    if name == "all":
        raise ValueError("name 'all' is reserved: the runners read it as every registered strategy")
    register(_REGISTRY, name, factory, overwrite, "strategy")


def unregister_strategy(name: str) -> None:
    """Remove the strategy registered as ``name`` from :func:`get_strategy` and the runners.

    The paper's strategies (the built-in names) cannot be unregistered, also
    after ``overwrite=True`` replaced one: their names always stay available.
    Replace one for a while with :func:`registered_strategy` and
    ``overwrite=True`` instead.

    Raises
    ------
    TypeError
        If ``name`` is not a str.
    ValueError
        If ``name`` is built in, or not registered (the message lists the
        registered names).
    """
    unregister(_REGISTRY, name, _BUILT_IN, "strategy")


def registered_strategy(name: str, factory: Callable[[], Strategy], *,
                        overwrite: bool = False) -> AbstractContextManager[None]:
    """A context manager: :func:`register_strategy` for the ``with`` block, then the previous state exactly.

    On exit (an exception included) ``name`` is registered as before: the
    factory a replaced name had (``overwrite=True``), in its place in
    :func:`list_strategies`, or not at all.  Arguments and errors as for
    :func:`register_strategy`, raised before anything changes.

    Examples
    --------
    >>> from mri_theory.strategies import SimpleMRI, list_strategies, registered_strategy
    >>> with registered_strategy("SMRI-refit", lambda: SimpleMRI(method="refit")):
    ...     list_strategies()[-1]
    'SMRI-refit'
    >>> "SMRI-refit" in list_strategies()
    False
    """
    return registered(_REGISTRY, register_strategy, name, factory, overwrite)


def get_strategy(name: str, **options: Any) -> Strategy:
    """A strategy by name; ``options`` go to its constructor (e.g. ``method="refit"``, ``n_b=10``).

    Raises
    ------
    TypeError
        If ``name`` is not a str, an option is not a parameter of the strategy, or its factory
        returns no :class:`Strategy`.
    ValueError
        If ``name`` is unknown (the message lists the known names) or an option's value is invalid.
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be a str, got {type(name).__name__}")
    if name not in _REGISTRY:
        raise ValueError(f"unknown strategy {name!r}; known strategies: {', '.join(_REGISTRY)}")
    factory = _REGISTRY[name]
    parameters = inspect.signature(factory).parameters.values()
    if not any(p.kind is p.VAR_KEYWORD for p in parameters):  # a factory taking **kwargs checks its own
        accepted = [p.name for p in parameters]
        unknown = sorted(set(options) - set(accepted))
        if unknown:
            raise TypeError(f"options {unknown} are not parameters of strategy {name!r}; it accepts "
                            f"{accepted or 'no options'}")
    return made(factory(**options), Strategy, name, "strategy")
