r"""The built-in strategies and the registry of strategies by name.

The paper's, RS ... MRI-worst (§2.3, §4, §5.1), and three of ours, not the paper's: CvMRI and PoolMRI
(estimators of :math:`Q^c` that test the retrained models out of sample, unlike SMRI) and Margin.

The registry also names scikit-activeml's peers (:data:`PEER_NAMES`: ``"SkUS-margin"`` ... ``"SkCoreSet"``),
built by :func:`mri_theory.strategies.skactiveml.peer`, which this module imports only when a peer is asked
for (scikit-activeml, the ``peers`` extra, is never imported at import time).  They are always registered,
so :func:`get_strategy` of a peer without scikit-activeml raises an ``ImportError`` naming the extra, but
:func:`list_strategies` (and so the runners' ``"all"``) lists them only where scikit-activeml is installed.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from scipy import special

from mri_theory._utils import validation as check
from mri_theory._utils.registry import Registry
from mri_theory.classifiers import KNN, Classifier, LogisticRegression, RandomForest
from mri_theory.engine.population import Population
from mri_theory.engine.retraining import check_method, future_losses
from mri_theory.engine.targets import true_q_c
from mri_theory.strategies._peers import PEERS, skactiveml_installed
from mri_theory.strategies.base import ORIGINS, Context, Strategy

__all__ = ["RandomSelection", "ShannonEntropy", "LeastConfidence", "VoteEntropy", "AverageKL", "EfeLc",
           "SimpleMRI", "BootstrapMRI", "MRIBest", "MRIWorst", "CrossValidatedMRI", "PoolMRI", "MarginSampling",
           "cross_validation_folds", "entropy", "get_strategy", "list_strategies", "register_strategy",
           "registered_strategy", "unregister_strategy", "second_classifier", "COMMITTEE", "FOREST_TREES",
           "BMRI_FOREST_TREES", "MAX_RESAMPLES", "CV_FOLDS", "MAX_FOLDS", "PEER_NAMES", "STRATEGY_REGISTRY",
           "strategy_names", "KNN_KERNELS", "BMRI_AGGREGATES", "CANDIDATES", "EFELC_CANDIDATES"]


class RandomSelection(Strategy):
    """RS: every candidate scores 0, so the random tie-break picks uniformly.

    Examples
    --------
    Every candidate scores 0, so :func:`~mri_theory.strategies.select`'s random tie-break picks uniformly:

    >>> import numpy as np
    >>> from mri_theory.classifiers import LDA
    >>> from mri_theory.problems import get_problem
    >>> from mri_theory.strategies import Context, RandomSelection
    >>> problem, rng = get_problem("four-gaussian"), np.random.default_rng(0)
    >>> X, y = problem.sample(10, rng)
    >>> pool = problem.sample(30, rng)[0]
    >>> ctx = Context(X, y, candidates=pool[:6], pool=pool, classifier=LDA(), n_classes=2, rng=rng)
    >>> RandomSelection().scores(ctx).tolist()
    [0.0, 0.0, 0.0, 0.0, 0.0, 0.0]
    """

    name = "RS"
    origin = "paper"

    def scores(self, ctx):
        r"""Score 0 for every candidate, so that the random tie-break chooses uniformly.

        Parameters
        ----------
        ctx : Context
            Only the number of rows of ``ctx.candidates`` is read.

        Returns
        -------
        ndarray (m,)
            Zeros, one per candidate.
        """
        return np.zeros(ctx.candidates.shape[0])


def entropy(p: np.ndarray) -> np.ndarray:
    r"""Shannon entropy :math:`-\sum_j p_j \ln p_j` (in nats) of each distribution along the last axis.

    Terms with :math:`p_j = 0` count 0 (``scipy.special.xlogy``).

    Parameters
    ----------
    p : ndarray
        Probabilities, the classes along the last axis (shape ``(..., k)``).

    Returns
    -------
    ndarray
        Shape ``p.shape[:-1]``: the entropy of each distribution.

    Examples
    --------
    >>> import numpy as np
    >>> from mri_theory.strategies.builtin import entropy
    >>> (entropy(np.array([[0.5, 0.5], [1.0, 0.0]])) + 0.0).round(6).tolist()  # ln 2, and 0 (0 ln 0 = 0)
    [0.693147, 0.0]
    """
    return -np.sum(special.xlogy(p, p), axis=-1)


class ShannonEntropy(Strategy):
    r"""SE: :math:`-\sum_j \hat p_j \ln \hat p_j` of the base classifier.

    See Also
    --------
    mri_theory.strategies.LeastConfidence : 1 - the largest probability.
    mri_theory.strategies.MarginSampling : The gap between the two largest probabilities.

    Examples
    --------
    The entropy of the base classifier's predicted probabilities, computed here by hand as well:

    >>> import numpy as np
    >>> from mri_theory.classifiers import LDA
    >>> from mri_theory.problems import get_problem
    >>> from mri_theory.strategies import Context, ShannonEntropy
    >>> problem, rng = get_problem("four-gaussian"), np.random.default_rng(0)
    >>> X, y = problem.sample(10, rng)
    >>> pool = problem.sample(30, rng)[0]
    >>> ctx = Context(X, y, candidates=pool[:6], pool=pool, classifier=LDA(), n_classes=2, rng=rng)
    >>> scores = ShannonEntropy().scores(ctx)
    >>> p = ctx.fitted().predict_proba(ctx.candidates)
    >>> bool(np.allclose(scores, -(p * np.log(p)).sum(axis=1))), int(scores.argmax())
    (True, 2)
    """

    name = "SE"
    origin = "paper"

    def scores(self, ctx):
        r"""The entropy :math:`-\sum_j \hat p_j \ln \hat p_j` of the base classifier's probabilities at each candidate.

        Parameters
        ----------
        ctx : Context
            Its base classifier is fitted on the labelled data (``ctx.fitted()``) and predicts the
            candidates.

        Returns
        -------
        ndarray (m,)
            The entropies (:func:`~mri_theory.strategies.builtin.entropy`), in nats.
        """
        return entropy(ctx.fitted().predict_proba(ctx.candidates))


class LeastConfidence(Strategy):
    r"""LC: :math:`1 - \max_j \hat p_j` of the base classifier.

    See Also
    --------
    mri_theory.strategies.ShannonEntropy : The entropy of the same probabilities.
    mri_theory.strategies.MarginSampling : The gap between the two largest probabilities.

    Examples
    --------
    One minus the largest predicted probability; with two classes it chooses what SE chooses (both decrease with
    the largest probability):

    >>> import numpy as np
    >>> from mri_theory.classifiers import LDA
    >>> from mri_theory.problems import get_problem
    >>> from mri_theory.strategies import Context, LeastConfidence, ShannonEntropy
    >>> problem, rng = get_problem("four-gaussian"), np.random.default_rng(0)
    >>> X, y = problem.sample(10, rng)
    >>> pool = problem.sample(30, rng)[0]
    >>> ctx = Context(X, y, candidates=pool[:6], pool=pool, classifier=LDA(), n_classes=2, rng=rng)
    >>> scores = LeastConfidence().scores(ctx)
    >>> p = ctx.fitted().predict_proba(ctx.candidates)
    >>> bool(np.allclose(scores, 1 - p.max(axis=1)))
    True
    >>> int(scores.argmax()) == int(ShannonEntropy().scores(ctx).argmax())
    True
    """

    name = "LC"

    def scores(self, ctx):
        r"""The least confidence :math:`1 - \max_j \hat p_j` of the base classifier at each candidate.

        Parameters
        ----------
        ctx : Context
            Its base classifier is fitted on the labelled data (``ctx.fitted()``) and predicts the
            candidates.

        Returns
        -------
        ndarray (m,)
            One minus the largest class probability.
        """
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

#: The QBC committee of §5.1 (factories, so each fit starts fresh), with plain-vote k-NNs (``knn_kernel``
#: ``"rectangular"``, the default of :class:`VoteEntropy` and :class:`AverageKL`).
COMMITTEE: tuple[Callable[[], Classifier], ...] = (
    LogisticRegression, lambda: KNN(5), lambda: KNN(21), lambda: RandomForest(FOREST_TREES),
)

#: The kernels of the k-NNs the strategies fit (SMRI's and BMRI's 5-NN :math:`\theta_2`, the committee's 5-NN and
#: 21-NN), an open choice (:doc:`/deviations`): ``"rectangular"`` (a plain vote, the default) or ``"optimal"``
#: (kknn's rank weights: the paper's k-NN is R's kknn, Appendix C, line 1401, with its default kernel).
KNN_KERNELS = ("rectangular", "optimal")


def _check_kernel(kernel: Any, name: str) -> str:
    if kernel not in KNN_KERNELS:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, KNN_KERNELS))}, got {kernel!r}")
    return kernel


def _committee_proba(ctx: Context, knn_kernel: str = "rectangular") -> np.ndarray:
    """Members' probabilities, shape ``(members, m, k)``: :data:`COMMITTEE`, its k-NNs of kernel ``knn_kernel``."""
    members = COMMITTEE if knn_kernel == "rectangular" else (
        LogisticRegression, lambda: KNN(5, knn_kernel), lambda: KNN(21, knn_kernel),
        lambda: RandomForest(FOREST_TREES))
    return np.stack([make().fit(ctx.X, ctx.y, ctx.n_classes).predict_proba(ctx.candidates) for make in members])




class VoteEntropy(Strategy):
    """QbcV: entropy of the committee's vote distribution (each member votes its argmax).

    Parameters
    ----------
    knn_kernel : {"rectangular", "optimal"}, default "rectangular"
        The kernel of the committee's 5-NN and 21-NN (:data:`KNN_KERNELS`; the
        committee of §5.1, line 1027: logistic regression, 5-nn, 21-nn and a
        random forest).

    See Also
    --------
    mri_theory.strategies.AverageKL : QbcA, the committee's mean divergence.

    Examples
    --------
    The entropy of the committee's votes, counted here by hand: with four members and two classes a 4-0 vote
    scores 0, a 3-1 vote -(3/4) ln(3/4) - (1/4) ln(1/4) = 0.5623 and a 2-2 vote ln 2:

    >>> import numpy as np
    >>> from mri_theory.classifiers import LDA
    >>> from mri_theory.problems import get_problem
    >>> from mri_theory.strategies import COMMITTEE, Context, VoteEntropy
    >>> from mri_theory.strategies.builtin import entropy
    >>> problem, rng = get_problem("four-gaussian"), np.random.default_rng(0)
    >>> X, y = problem.sample(10, rng)
    >>> pool = problem.sample(30, rng)[0]
    >>> ctx = Context(X, y, candidates=pool[:6], pool=pool, classifier=LDA(), n_classes=2, rng=rng)
    >>> votes = np.stack([make().fit(X, y, 2).predict(ctx.candidates) for make in COMMITTEE])
    >>> votes.sum(axis=0).tolist()  # members voting for class 1, at each candidate
    [3, 3, 4, 2, 2, 4]
    >>> shares = np.stack([1 - votes.mean(axis=0), votes.mean(axis=0)], axis=1)
    >>> scores = VoteEntropy().scores(ctx)
    >>> bool(np.allclose(scores, entropy(shares))), (scores + 0.0).round(4).tolist()
    (True, [0.5623, 0.5623, 0.0, 0.6931, 0.6931, 0.0])
    """

    name = "QbcV"
    origin = "paper"
    repr_if_changed = ("knn_kernel",)

    def __init__(self, knn_kernel: str = "rectangular") -> None:
        self.knn_kernel = _check_kernel(knn_kernel, "knn_kernel")

    def scores(self, ctx):
        r"""The entropy of the committee's vote shares at each candidate.

        Parameters
        ----------
        ctx : Context
            The four members (:data:`COMMITTEE`, k-NNs of kernel ``knn_kernel``) are fitted afresh on
            ``ctx.X``, ``ctx.y``; each votes for its most probable class.

        Returns
        -------
        ndarray (m,)
            The entropy, in nats, of the fractions of members voting for each class.
        """
        proba = _committee_proba(ctx, self.knn_kernel)
        votes = np.eye(ctx.n_classes)[np.argmax(proba, axis=2)].mean(axis=0)
        return entropy(votes)


class AverageKL(Strategy):
    r"""QbcA: :math:`\frac1M \sum_m KL(\hat{\mathbf p}_m \,\|\, \bar{\mathbf p})` (the average, not the maximum).

    Parameters
    ----------
    knn_kernel : {"rectangular", "optimal"}, default "rectangular"
        As :class:`VoteEntropy`'s.

    See Also
    --------
    mri_theory.strategies.VoteEntropy : QbcV, the entropy of the same committee's votes.

    Examples
    --------
    The committee's members (:data:`COMMITTEE`) predict each candidate; the score is their mean divergence from the
    committee's mean prediction, computed here by hand:

    >>> import numpy as np
    >>> from scipy import special
    >>> from mri_theory.classifiers import LDA
    >>> from mri_theory.problems import get_problem
    >>> from mri_theory.strategies import COMMITTEE, AverageKL, Context
    >>> problem, rng = get_problem("four-gaussian"), np.random.default_rng(0)
    >>> X, y = problem.sample(10, rng)
    >>> pool = problem.sample(30, rng)[0]
    >>> ctx = Context(X, y, candidates=pool[:6], pool=pool, classifier=LDA(), n_classes=2, rng=rng)
    >>> proba = np.stack([make().fit(X, y, 2).predict_proba(ctx.candidates) for make in COMMITTEE])
    >>> kl = special.rel_entr(proba, proba.mean(axis=0)).sum(axis=2)  # KL(member || mean), (members, candidates)
    >>> scores = AverageKL().scores(ctx)
    >>> bool(np.allclose(scores, kl.mean(axis=0))), bool(np.all(scores >= 0))
    (True, True)
    """

    name = "QbcA"
    origin = "paper"
    repr_if_changed = ("knn_kernel",)

    def __init__(self, knn_kernel: str = "rectangular") -> None:
        self.knn_kernel = _check_kernel(knn_kernel, "knn_kernel")

    def scores(self, ctx):
        r"""The mean over the committee of each member's Kullback-Leibler divergence to the mean probabilities.

        Parameters
        ----------
        ctx : Context
            The four members (:data:`COMMITTEE`, k-NNs of kernel ``knn_kernel``) are fitted afresh on
            ``ctx.X``, ``ctx.y`` and predict the candidates' class probabilities.

        Returns
        -------
        ndarray (m,)
            :math:`\frac1M \sum_m KL(\hat{\mathbf p}_m \,\|\, \bar{\mathbf p})` at each candidate, in
            nats (:math:`M = 4`).
        """
        proba = _committee_proba(ctx, self.knn_kernel)
        mean = proba.mean(axis=0)
        return np.mean(np.sum(special.rel_entr(proba, mean[None]), axis=2), axis=0)


# ------------------------------------------------------------------ retraining estimators


def second_classifier(base: Classifier, trees: int = FOREST_TREES, kernel: str = "rectangular") -> Classifier:
    r""":math:`\theta_2`, the class-probability estimator of SMRI and BMRI (§4, line 863): 5-NN of ``kernel``
    (:data:`KNN_KERNELS`), or a random forest of ``trees`` trees when the base is a nearest-neighbour method (its
    ``nearest_neighbour`` attribute, True for :class:`~mri_theory.classifiers.KNN`), so that :math:`\theta_2`
    differs from the base.

    Parameters
    ----------
    base : Classifier
        The base classifier; only its ``nearest_neighbour`` attribute is read (False when it has none).
    trees : int, default :data:`FOREST_TREES`
        Trees of the random forest, for a nearest-neighbour base.
    kernel : {"rectangular", "optimal"}, default "rectangular"
        The kernel of the 5-NN (:data:`KNN_KERNELS`), for any other base.

    Returns
    -------
    Classifier
        A new, unfitted ``RandomForest(trees)`` or ``KNN(5, kernel)``.

    Examples
    --------
    theta_2 of SMRI and BMRI: 5-NN for most base classifiers, a random forest for a k-NN base (§4, line 863):

    >>> from mri_theory.classifiers import KNN, LDA
    >>> from mri_theory.strategies import second_classifier
    >>> second_classifier(LDA())
    KNN(k=5, kernel='rectangular', scale=None)
    >>> type(second_classifier(KNN(5))).__name__
    'RandomForest'
    """
    return RandomForest(trees) if getattr(base, "nearest_neighbour", False) else KNN(5, kernel)


def _fitted_theta2(ctx: Context, data: tuple[np.ndarray, np.ndarray], trees: int = FOREST_TREES,
                   theta2: Classifier | None = None, kernel: str = "rectangular") -> Classifier:
    r""":math:`\theta_2` fitted on ``data``: a clone of ``theta2``, or :func:`second_classifier` of the base."""
    model = second_classifier(ctx.classifier, trees, kernel) if theta2 is None else theta2.clone()
    return model.fit(*data, ctx.n_classes)


def _check_theta2(theta2: Any, theta2_kernel: Any = "rectangular") -> tuple[Classifier | None, str]:
    """``theta2`` and ``theta2_kernel`` checked: a kernel other than the default is one of the default
    :math:`\theta_2`, so it is refused beside a ``theta2`` of one's own."""
    if theta2 is not None and not isinstance(theta2, Classifier):
        raise TypeError(f"theta2 must be a Classifier (an unfitted template) or None, got {type(theta2).__name__}")
    theta2_kernel = _check_kernel(theta2_kernel, "theta2_kernel")
    if theta2 is not None and theta2_kernel != "rectangular":
        raise ValueError("theta2_kernel is the kernel of the default theta2 (5-NN); with theta2 given, leave it "
                         f"at 'rectangular', got {theta2_kernel!r}")
    return theta2, theta2_kernel


#: Which candidates a costly strategy scores (the ``candidates`` option of :class:`EfeLc` and :class:`MRIBest`):
#: ``"subsample"`` the sandbox's random sub-sample of the pool (``subsample``, §4 line 874), ``"pool"`` every pool
#: point.
CANDIDATES = ("subsample", "pool")
#: :data:`CANDIDATES`, under the name EfeLc's option had first.
EFELC_CANDIDATES = CANDIDATES


def _check_candidates(candidates: object) -> str:
    """``candidates`` if it is one of :data:`CANDIDATES`, else a ValueError naming the argument (an array is
    refused, never compared)."""
    if not isinstance(candidates, str) or candidates not in CANDIDATES:
        raise ValueError(f"candidates must be one of {', '.join(map(repr, CANDIDATES))}, got {candidates!r}")
    return candidates


class EfeLc(Strategy):
    r"""EfeLc (Roy & McCallum), Eq. ``efelc``: :math:`-\sum_j \hat p_j(x) \sum_{x_i \in X_P} (1 - \max \hat p'(x_i))`.

    :math:`\hat p` is the current base classifier; the retrained model's least
    confidence is summed over the whole pool (the engine's ``"lc"`` loss,
    times the pool size).

    Parameters
    ----------
    method : {"auto", "refit"}
        The engine's fast path, or a plain refit per (candidate, class).
    candidates : {"subsample", "pool"}, default "subsample"
        ``"subsample"``: EfeLc is ``costly``, so the sandbox scores a random
        sub-sample of the pool (its ``subsample``, as for SMRI and BMRI, §4
        line 874); ``"pool"``: every pool point, as the paper's cost formula
        for EfeLc counts them (§5.1, line 996: :math:`n_p = |X_P|`
        retrainings per class).  An open choice (:doc:`/deviations`).

    See Also
    --------
    mri_theory.strategies.PoolMRI : The future error on the pool, with :math:`\theta_2`'s probabilities.

    Examples
    --------
    Roy and McCallum's expected future error on the pool (Eq. efelc), larger is better; by hand: LDA retrained with
    each candidate under each label, its least confidence summed over the pool, weighted by the current LDA's
    probabilities of the labels:

    >>> import numpy as np
    >>> from mri_theory.classifiers import LDA
    >>> from mri_theory.problems import get_problem
    >>> from mri_theory.strategies import Context, EfeLc
    >>> problem, rng = get_problem("four-gaussian"), np.random.default_rng(0)
    >>> X, y = problem.sample(10, rng)
    >>> pool = problem.sample(30, rng)[0]
    >>> ctx = Context(X, y, candidates=pool[:6], pool=pool, classifier=LDA(), n_classes=2, rng=rng)
    >>> p_hat = ctx.fitted().predict_proba(ctx.candidates)
    >>> def pool_lc(x, c):  # the retrained model's least confidence, summed over the pool
    ...     retrained = LDA().fit(np.vstack([X, x]), np.append(y, c), 2)
    ...     return float(np.sum(1 - retrained.predict_proba(pool).max(axis=1)))
    >>> by_hand = [-sum(p_hat[i, c] * pool_lc(x, c) for c in (0, 1)) for i, x in enumerate(ctx.candidates)]
    >>> scores = EfeLc().scores(ctx)
    >>> bool(np.allclose(scores, by_hand, rtol=0, atol=1e-10)), bool(np.all(scores <= 0))
    (True, True)
    """

    name = "EfeLc"
    origin = "paper"
    costly = True
    repr_if_changed = ("candidates",)

    def __init__(self, method: str = "auto", candidates: str = "subsample") -> None:
        self.method = check_method(method)
        self.candidates = _check_candidates(candidates)
        self.costly = candidates == "subsample"  # the sandbox sub-samples the candidates of costly strategies

    def scores(self, ctx):
        r"""EfeLc's :math:`f_1` of Eq. ``efelc``, minus the expected least confidence summed over the pool.

        Parameters
        ----------
        ctx : Context
            The base classifier ``ctx.classifier`` is retrained on ``ctx.X``, ``ctx.y`` plus each
            (candidate, class) pair; :math:`\hat p` is ``ctx.fitted()``, the pool ``ctx.pool``.

        Returns
        -------
        ndarray (m,)
            :math:`-\sum_j \hat p_j(x) \sum_{x_i \in X_P} (1 - \max \hat p'(x_i))`, :math:`\hat p'` the
            retrained model's probabilities (never positive).
        """
        pool = Population(ctx.pool, np.full((ctx.pool.shape[0], ctx.n_classes), 1.0 / ctx.n_classes))
        future = future_losses(ctx.classifier, ctx.X, ctx.y, ctx.candidates, pool, "lc", self.method)
        p_hat = ctx.fitted().predict_proba(ctx.candidates)
        return -ctx.pool.shape[0] * np.sum(p_hat * future, axis=1)


def _minus_expected_future_loss(ctx: Context, p_data: tuple[np.ndarray, np.ndarray],
                                t_data: tuple[np.ndarray, np.ndarray], e_data: tuple[np.ndarray, np.ndarray],
                                method: str, trees: int = FOREST_TREES,
                                theta2: Classifier | None = None, kernel: str = "rectangular") -> np.ndarray:
    r""":math:`-\hat T_e = -\hat{\mathbf p}\cdot\hat{\mathbf{L'}}` from three data sets.

    :math:`\theta_2` is trained on ``p_data`` (for :math:`\hat{\mathbf p}`); the retrained models train on
    ``t_data`` and are tested on ``e_data``.  :math:`\theta_2` is a clone of ``theta2``, or
    :func:`second_classifier` of the base when it is None.
    """
    p_hat = _fitted_theta2(ctx, p_data, trees, theta2, kernel).predict_proba(ctx.candidates)
    test = Population.from_labels(*e_data, ctx.n_classes)
    future = future_losses(ctx.classifier, *t_data, ctx.candidates, test, "error", method)
    return -np.sum(p_hat * future, axis=1)


class SimpleMRI(Strategy):
    r"""SimpleMRI (Algorithm 1): :math:`D_P = D_T = D_E = D_S` (naive reuse).

    Parameters
    ----------
    method : {"auto", "refit"}
    theta2 : Classifier, optional
        The class-probability estimator :math:`\theta_2` (a template, cloned
        for each fit); default :func:`second_classifier` of the base.
    theta2_kernel : {"rectangular", "optimal"}, default "rectangular"
        The kernel of the default 5-NN :math:`\theta_2` (:data:`KNN_KERNELS`;
        the paper's 5-nn is R's kknn, Appendix C); refused beside ``theta2``.

    See Also
    --------
    mri_theory.strategies.BootstrapMRI : Algorithm 2, bootstrap resamples.
    mri_theory.strategies.CrossValidatedMRI : The future losses tested on held-out folds of :math:`D_S`.
    mri_theory.strategies.PoolMRI : The future losses tested on the pool.
    mri_theory.strategies.MRIBest : The oracle that scores with the truth these estimate.
    mri_theory.engine.true_q_c : The true :math:`Q^c` of each candidate.

    Examples
    --------
    Algorithm 1 by hand: :math:`\theta_2` (5-NN, for an LDA base) gives :math:`\hat{\mathbf p}`, and LDA retrained
    with the candidate under each label is tested on :math:`D_S` itself:

    >>> import numpy as np
    >>> from mri_theory.classifiers import KNN, LDA
    >>> from mri_theory.problems import get_problem
    >>> from mri_theory.strategies import Context, SimpleMRI
    >>> problem, rng = get_problem("four-gaussian"), np.random.default_rng(0)
    >>> X, y = problem.sample(10, rng)
    >>> pool = problem.sample(30, rng)[0]
    >>> ctx = Context(X, y, candidates=pool[:6], pool=pool, classifier=LDA(), n_classes=2, rng=rng)
    >>> p_hat = KNN(5).fit(X, y, 2).predict_proba(ctx.candidates)
    >>> def error_on_d_s(x, c):  # L'_c(x): LDA trained on D_S + (x, c), its error rate on D_S
    ...     return float(np.mean(LDA().fit(np.vstack([X, x]), np.append(y, c), 2).predict(X) != y))
    >>> by_hand = [-sum(p_hat[i, c] * error_on_d_s(x, c) for c in (0, 1)) for i, x in enumerate(ctx.candidates)]
    >>> scores = SimpleMRI().scores(ctx)
    >>> bool(np.allclose(scores, by_hand, rtol=0, atol=1e-12)), (scores + 0.0).round(4).tolist()
    (True, [0.0, 0.0, 0.0, -0.08, 0.0, 0.0])

    Most retrained models fit :math:`D_S` without an error: the in-sample optimism that
    :class:`CrossValidatedMRI` and :class:`PoolMRI` avoid.
    """

    name = "SMRI"
    origin = "paper"
    costly = True
    estimates_t_e = True
    repr_if_changed = ("theta2_kernel",)

    def __init__(self, method: str = "auto", theta2: Classifier | None = None,
                 theta2_kernel: str = "rectangular") -> None:
        self.method = check_method(method)
        self.theta2, self.theta2_kernel = _check_theta2(theta2, theta2_kernel)

    def scores(self, ctx):
        r"""SimpleMRI's :math:`-\hat T_e = -\hat{\mathbf p}\cdot\hat{\mathbf{L'}}` (Algorithm 1) at each candidate.

        Parameters
        ----------
        ctx : Context
            Its labelled data serve as :math:`D_P = D_T = D_E = D_S`: :math:`\theta_2` is fitted on
            them, and each retrained model (the base classifier on :math:`D_S` plus one (candidate,
            class) pair) is tested on them: its error rate there is :math:`\hat L'_j`.

        Returns
        -------
        ndarray (m,)
            :math:`-\sum_j \hat p_j(x) \hat L'_j(x)`, :math:`\hat p` from :math:`\theta_2`.
        """
        data = (ctx.X, ctx.y)
        return _minus_expected_future_loss(ctx, data, data, data, self.method, theta2=self.theta2,
                                           kernel=self.theta2_kernel)


#: How BMRI aggregates its ``n_b`` estimates (:class:`BootstrapMRI`'s ``aggregate``).
BMRI_AGGREGATES = ("median", "mean")


class BootstrapMRI(Strategy):
    r"""BootstrapMRI (Algorithm 2): independent bootstrap datasets, median (or mean) over ``n_b`` resamples.

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
    aggregate : {"median", "mean"}, default "median"
        The final estimate from the ``n_b`` resamples' estimates: the paper
        contradicts itself (:doc:`/deviations`): its text says "averaged"
        (§4, lines 915 and 942) and its pseudocode takes the median
        (Algorithm 2, line 943).  The median is the default: the algorithm
        as written.  With error-rate losses on small labelled sets the
        median ties many candidates (each resample's estimate takes few
        values), so BMRI then chooses at random among them; the mean ties
        far fewer.
    theta2_kernel : {"rectangular", "optimal"}, default "rectangular"
        The kernel of the default 5-NN :math:`\theta_2` (:data:`KNN_KERNELS`;
        the paper's 5-nn is R's kknn, Appendix C); refused beside ``theta2``.

    See Also
    --------
    mri_theory.strategies.SimpleMRI : Algorithm 1.
    mri_theory.strategies.MRIBest : The oracle that scores with the truth it estimates.
    mri_theory.engine.true_q_c : The true :math:`Q^c` of each candidate.

    Examples
    --------
    Algorithm 2 with 10 bootstrap resamples (the paper's n_b is 25), aggregated by the median (its pseudocode) or
    the mean (its text), on the same resamples (the same seed): each resample's estimate takes few values on 10
    labelled points, so the median ties many of the 30 candidates and the mean few:

    >>> import numpy as np
    >>> from mri_theory.classifiers import LDA
    >>> from mri_theory.problems import get_problem
    >>> from mri_theory.strategies import BootstrapMRI, Context
    >>> problem, rng = get_problem("four-gaussian"), np.random.default_rng(0)
    >>> X, y = problem.sample(10, rng)
    >>> pool = problem.sample(30, rng)[0]
    >>> def bmri(aggregate):
    ...     ctx = Context(X, y, candidates=pool, pool=pool, classifier=LDA(), n_classes=2, rng=np.random.default_rng(1))
    ...     return BootstrapMRI(n_b=10, aggregate=aggregate).scores(ctx)
    >>> median, mean = bmri("median"), bmri("mean")
    >>> bool(np.all((median <= 0) & (median >= -1)))  # minus an estimated error rate
    True
    >>> len(np.unique(median.round(12))), len(np.unique(mean.round(12)))  # distinct scores of the 30 candidates
    (6, 21)
    """

    name = "BMRI"
    origin = "paper"
    costly = True
    estimates_t_e = True
    repr_if_changed = ("aggregate", "theta2_kernel")

    def __init__(self, n_b: int = 25, method: str = "auto", theta2_trees: int = BMRI_FOREST_TREES,
                 theta2: Classifier | None = None, aggregate: str = "median",
                 theta2_kernel: str = "rectangular") -> None:
        self.n_b = check.count(n_b, "n_b", maximum=MAX_RESAMPLES)
        self.method = check_method(method)
        self.theta2_trees = check.count(theta2_trees, "theta2_trees", maximum=MAX_RESAMPLES)
        self.theta2, self.theta2_kernel = _check_theta2(theta2, theta2_kernel)
        if aggregate not in BMRI_AGGREGATES:
            raise ValueError(f"aggregate must be one of {', '.join(map(repr, BMRI_AGGREGATES))}, got {aggregate!r}")
        self.aggregate = aggregate

    def scores(self, ctx):
        r"""BootstrapMRI's :math:`-\hat T_e` (Algorithm 2): the median (or mean) over ``n_b`` bootstrap triples.

        Parameters
        ----------
        ctx : Context
            ``n_b`` triples :math:`(D_P, D_T, D_E)` of bootstrap resamples of the labelled data are
            drawn from ``ctx.rng`` (once per call, shared by all candidates); each gives SimpleMRI's
            estimate with :math:`\theta_2` fitted on :math:`D_P`, the retrained models on
            :math:`D_T`, tested on :math:`D_E`.

        Returns
        -------
        ndarray (m,)
            The ``aggregate`` (median or mean) of the ``n_b`` estimates at each candidate.
        """
        n = ctx.X.shape[0]
        estimates = np.empty((self.n_b, ctx.candidates.shape[0]))
        for b in range(self.n_b):
            i_p, i_t, i_e = ctx.rng.integers(0, n, size=(3, n))
            estimates[b] = _minus_expected_future_loss(
                ctx, (ctx.X[i_p], ctx.y[i_p]), (ctx.X[i_t], ctx.y[i_t]), (ctx.X[i_e], ctx.y[i_e]), self.method,
                self.theta2_trees, self.theta2, self.theta2_kernel)
        return np.median(estimates, axis=0) if self.aggregate == "median" else np.mean(estimates, axis=0)


# ------------------------------------------------------------------ oracles


class MRIBest(Strategy):
    """MRI-best: the true :math:`Q^c` (Eq. ``eqc``) on the problem's population; argmax is optimal AL.

    Parameters
    ----------
    loss : {"error", "log"}
        The loss whose expected reduction is maximised.
    candidates : {"subsample", "pool"}, default "subsample"
        ``"subsample"``: MRI-best is ``costly``, so the sandbox scores a random sub-sample of the pool (its
        ``subsample``, 100 in the paper preset, as for SMRI, BMRI and EfeLc, §4 line 874), and the regret's
        reference is the greedy best of those candidates; ``"pool"``: every pool point, the greedy optimum over
        the whole pool (the sensitivity reading ``"MRI-best whole pool"``).  An open choice (:doc:`/deviations`).

    See Also
    --------
    mri_theory.engine.true_q_c : The truth it scores with.
    mri_theory.strategies.MRIWorst : Its argmin.
    mri_theory.strategies.SimpleMRI : Algorithm 1, which estimates the same choice from the labelled data alone.
    mri_theory.strategies.BootstrapMRI : Algorithm 2, the same with bootstrap resamples.

    Examples
    --------
    The oracle: the true Q^c of each candidate, here exact (LDA's loss integrated over the mixture):

    >>> import numpy as np
    >>> from mri_theory.classifiers import LDA
    >>> from mri_theory.engine import Population
    >>> from mri_theory.problems import get_problem
    >>> from mri_theory.strategies import Context, MRIBest
    >>> problem, rng = get_problem("four-gaussian"), np.random.default_rng(0)
    >>> X, y = problem.sample(10, rng)
    >>> pool = problem.sample(30, rng)[0]
    >>> ctx = Context(X, y, candidates=pool[:6], pool=pool, classifier=LDA(), n_classes=2, rng=rng, problem=problem,
    ...               population=Population.exact(problem))
    >>> from mri_theory.engine import true_q_c
    >>> scores = MRIBest().scores(ctx)
    >>> truth = true_q_c(problem, LDA(), X, y, ctx.candidates, ctx.population)
    >>> bool(np.allclose(scores, truth, rtol=0, atol=1e-12)), int(scores.argmax())
    (True, 3)
    """

    name = "MRI-best"
    origin = "oracle"
    costly = True
    needs_truth = True
    sign = 1.0
    repr_if_changed = ("candidates",)

    def __init__(self, loss: str = "error", candidates: str = "subsample") -> None:
        if loss not in ("error", "log"):
            raise ValueError(f"loss must be 'error' or 'log' (a loss of the truth), got {loss!r}")
        self.loss = loss
        self.candidates = _check_candidates(candidates)
        self.costly = candidates == "subsample"  # the sandbox sub-samples the candidates of costly strategies

    def scores(self, ctx):
        r"""The true :math:`Q^c` of Eq. ``eqc`` at each candidate, times ``sign``.

        Parameters
        ----------
        ctx : Context
            Needs the truth: ``ctx.problem`` (the Bayes posterior) and ``ctx.population`` (where the
            loss ``loss`` is measured); the base classifier is retrained on ``ctx.X``, ``ctx.y`` plus
            each (candidate, class) pair.

        Returns
        -------
        ndarray (m,)
            ``sign`` times :math:`Q^c` (+1 for MRI-best, -1 for MRI-worst).

        Raises
        ------
        ValueError
            If ``ctx.problem`` or ``ctx.population`` is None.
        """
        if ctx.problem is None or ctx.population is None:
            raise ValueError(f"{self.name} needs the truth: pass problem and population")
        return self.sign * true_q_c(ctx.problem, ctx.classifier, ctx.X, ctx.y, ctx.candidates, ctx.population,
                                    self.loss)


class MRIWorst(MRIBest):
    """MRI-worst: the argmin of the true :math:`Q^c`, the worst possible selection.

    Its scores are minus MRI-best's (``sign = -1``), so that the best score is the smallest :math:`Q^c`.

    Parameters
    ----------
    loss : {"error", "log"}, default "error"
        As :class:`MRIBest`'s: the loss whose expected reduction is minimised.
    candidates : {"subsample", "pool"}, default "subsample"
        As :class:`MRIBest`'s: the sandbox's sub-sample of the pool, or every pool point.

    See Also
    --------
    mri_theory.strategies.MRIBest : The argmax, the best possible selection.

    Examples
    --------
    >>> import numpy as np
    >>> from mri_theory.classifiers import LDA
    >>> from mri_theory.engine import Population
    >>> from mri_theory.problems import get_problem
    >>> from mri_theory.strategies import Context, MRIWorst
    >>> problem, rng = get_problem("four-gaussian"), np.random.default_rng(0)
    >>> X, y = problem.sample(10, rng)
    >>> pool = problem.sample(30, rng)[0]
    >>> ctx = Context(X, y, candidates=pool[:6], pool=pool, classifier=LDA(), n_classes=2, rng=rng, problem=problem,
    ...               population=Population.exact(problem))
    >>> from mri_theory.strategies import MRIBest
    >>> bool(np.array_equal(MRIWorst().scores(ctx), -MRIBest().scores(ctx)))
    True
    """

    name = "MRI-worst"
    sign = -1.0


# ------------------------------------------------------------------ ours, not the paper's
#
# Estimators of Q^c that are not in the paper.  SMRI (Algorithm 1) tests the retrained models on D_S, the
# data they were trained on, so its loss estimates are in-sample: biased downwards, and the more so for
# the candidates whose retrained model fits D_S best.  CvMRI tests on held-out folds of D_S, PoolMRI on
# the unlabelled pool; Margin is the classical cheap heuristic, as a further baseline.

#: CvMRI's default number of cross-validation folds.
CV_FOLDS = 5

#: The most cross-validation folds CvMRI takes (each is one retraining pass per step).
MAX_FOLDS = 10_000


def cross_validation_folds(y: ArrayLike, folds: int, rng: np.random.Generator,
                           stratified: bool = True) -> list[np.ndarray]:
    r"""The cross-validation folds of :class:`CrossValidatedMRI`: a partition of ``0..n-1`` drawn from ``rng``.

    ``K = min(folds, n)`` folds (``n < folds`` gives leave-one-out).  One permutation
    ``rng.permutation(n)`` orders the points; with ``stratified`` they are then sorted by class,
    stably (so within a class they keep the permutation's order); the ``i``-th point of that order goes
    to fold ``i mod K``.  Every point is in exactly one fold and the fold sizes differ by at most one.
    With ``stratified`` so do each class's counts across the folds, so every training part
    :math:`D_S \setminus F_k` holds each class in nearly its proportion in :math:`D_S`, and every class
    with at least two points in :math:`D_S` is in every training part (a class with one point is
    necessarily missing from the part whose fold holds it).  Without it, the two points of a class can
    share a fold, and that fold's model is then trained without the class.

    Parameters
    ----------
    y : array_like (n,)
        The labels of :math:`D_S` (``n >= 2``).
    folds : int
        ``>= 2``.
    rng : numpy.random.Generator
        One draw: ``rng.permutation(n)``.
    stratified : bool, default True
        Sort the permuted points by class before dealing them out.

    Returns
    -------
    list of ndarray
        ``K`` arrays of indices into ``y``, each sorted.

    Raises
    ------
    TypeError
        If ``folds`` is not a number, ``rng`` not a Generator, ``stratified`` not a bool, or ``y`` not
        integer labels.
    ValueError
        If ``folds`` is not an integer in ``[2, MAX_FOLDS]``, or ``y`` has fewer than 2 labels or labels
        that are not integers.

    Examples
    --------
    >>> import numpy as np
    >>> from mri_theory.strategies.builtin import cross_validation_folds
    >>> y = np.array([0, 0, 0, 1, 1, 1, 0, 1])
    >>> folds = cross_validation_folds(y, 2, np.random.default_rng(0))
    >>> sorted(np.concatenate(folds).tolist()) == list(range(8)), [len(fold) for fold in folds]
    (True, [4, 4])
    >>> [np.bincount(y[fold]).tolist() for fold in folds]  # stratified: each class split evenly
    [[2, 2], [2, 2]]
    """
    labels = check.check_labels(y, None, "y")
    folds = check.count(folds, "folds", minimum=2, maximum=MAX_FOLDS)
    rng = check.generator(rng)
    stratified = check.flag(stratified, "stratified")
    n = labels.shape[0]
    if n < 2:
        raise ValueError(f"y must hold at least 2 labels to be split into folds, got {n}")
    k = min(folds, n)
    order = rng.permutation(n)
    if stratified:
        order = order[np.argsort(labels[order], kind="stable")]
    fold_of = np.empty(n, dtype=np.intp)
    fold_of[order] = np.arange(n) % k
    return [np.flatnonzero(fold_of == f) for f in range(k)]


class CrossValidatedMRI(Strategy):
    r"""CvMRI (ours, not the paper's): :math:`-\hat T_e` of Eq. ``eqc`` with the future losses cross-validated.

    SimpleMRI (Algorithm 1) estimates each future loss :math:`L'_j` on :math:`D_E = D_S`, the data the
    retrained model :math:`\theta(D_S \cup (x, c_j))` was trained on: an in-sample error, biased
    downwards, and by more for the candidates whose retrained model fits :math:`D_S` more closely, so its
    :math:`\hat T_e` errors are correlated with :math:`Q^c`.  CvMRI tests every retrained model only on
    points it was not trained on: with the folds :math:`F_1, \dots, F_K` of :math:`D_S`
    (:func:`~mri_theory.strategies.builtin.cross_validation_folds`, drawn from ``ctx.rng`` once per call and
    shared by all candidates) and :math:`n = |D_S|`,

    .. math::

        \hat T_e(x) = \sum_j \hat p_j(x) \sum_{k=1}^K \frac{|F_k|}{n}\,
        \widehat{\mathrm{err}}_{F_k}\bigl(\theta(D_S \setminus F_k \cup (x, c_j))\bigr),

    :math:`\widehat{\mathrm{err}}_{F}` the error rate on the labelled points of :math:`F` (each point of
    :math:`D_S` is tested once, by the model that did not see it).  :math:`\hat{\mathbf p}(x)` comes from
    :math:`\theta_2` trained on all of :math:`D_S`, as in SimpleMRI (the candidates are not in
    :math:`D_S`, so that use is out of sample).  The score is :math:`-\hat T_e` (term :math:`T_c` does
    not depend on :math:`x`).

    What remains: each retrained model sees :math:`n - |F_k| + 1` points instead of :math:`n + 1`
    (cross-validation's usual pessimism, least with leave-one-out), and :math:`\hat{\mathbf p}` and the
    folds' labels both come from :math:`D_S`, so the two components are not independent (the argument of
    Eq. ``Tehat-unbiased`` is not claimed).

    Parameters
    ----------
    folds : int, default :data:`CV_FOLDS`
        ``K``, at least 2 and at most :data:`~mri_theory.strategies.builtin.MAX_FOLDS`; with fewer labelled
        points than ``folds``, leave-one-out (``K = n``).
    method : {"auto", "refit"}
        The engine's fast path, or a plain refit per (fold, candidate, class).
    theta2 : Classifier, optional
        The class-probability estimator :math:`\theta_2` (a template, cloned for the fit); default
        :func:`second_classifier` of the base.
    stratified : bool, default True
        Folds stratified by class (:func:`~mri_theory.strategies.builtin.cross_validation_folds`): with one or
        two points of a class early in a curve, a plain split can leave a training part without that class.

    Raises
    ------
    ValueError
        From :meth:`scores`, if ``ctx.X`` holds fewer than 2 labelled points (nothing to hold out).

    See Also
    --------
    mri_theory.strategies.SimpleMRI : The same estimate with the future losses tested in sample, on :math:`D_S`.
    mri_theory.strategies.PoolMRI : The future losses tested on the pool.
    mri_theory.strategies.MRIBest : The oracle that scores with the truth it estimates.
    mri_theory.engine.true_q_c : The true :math:`Q^c` of each candidate.

    Examples
    --------
    By hand, on SimpleMRI's problem (there, most retrained models make no error on :math:`D_S`): the same folds,
    drawn from a generator of the same seed, and each point of :math:`D_S` predicted by LDA trained on the other
    folds plus the candidate under each label:

    >>> import numpy as np
    >>> from mri_theory.classifiers import KNN, LDA
    >>> from mri_theory.problems import get_problem
    >>> from mri_theory.strategies import Context, CrossValidatedMRI
    >>> from mri_theory.strategies.builtin import cross_validation_folds
    >>> problem, rng = get_problem("four-gaussian"), np.random.default_rng(0)
    >>> X, y = problem.sample(10, rng)
    >>> pool = problem.sample(30, rng)[0]
    >>> ctx = Context(X, y, candidates=pool[:6], pool=pool, classifier=LDA(), n_classes=2, rng=np.random.default_rng(1))
    >>> folds = cross_validation_folds(y, 5, np.random.default_rng(1))
    >>> def cv_error(x, c):  # L'_c(x): the errors of the models that did not see the points they predict
    ...     wrong = 0
    ...     for fold in folds:
    ...         rest = np.setdiff1d(np.arange(10), fold)
    ...         model = LDA().fit(np.vstack([X[rest], x]), np.append(y[rest], c), 2)
    ...         wrong += int(np.sum(model.predict(X[fold]) != y[fold]))
    ...     return wrong / 10
    >>> p_hat = KNN(5).fit(X, y, 2).predict_proba(ctx.candidates)  # theta_2, as SimpleMRI's
    >>> by_hand = [-sum(p_hat[i, c] * cv_error(x, c) for c in (0, 1)) for i, x in enumerate(ctx.candidates)]
    >>> scores = CrossValidatedMRI(folds=5).scores(ctx)
    >>> bool(np.allclose(scores, by_hand, rtol=0, atol=1e-12)), scores.round(4).tolist()
    (True, [-0.08, -0.08, -0.12, -0.08, -0.06, -0.08])
    """

    name = "CvMRI"
    origin = "ours"
    costly = True
    estimates_t_e = True

    def __init__(self, folds: int = CV_FOLDS, method: str = "auto", theta2: Classifier | None = None,
                 stratified: bool = True) -> None:
        self.folds = check.count(folds, "folds", minimum=2, maximum=MAX_FOLDS)
        self.method = check_method(method)
        self.theta2, _ = _check_theta2(theta2)
        self.stratified = check.flag(stratified, "stratified")

    def scores(self, ctx):
        r"""CvMRI's :math:`-\hat T_e` at each candidate, the future losses cross-validated on folds of :math:`D_S`.

        Parameters
        ----------
        ctx : Context
            The folds of ``ctx.y`` are drawn from ``ctx.rng`` once per call and shared by all
            candidates; :math:`\theta_2` is fitted on all of ``ctx.X``, ``ctx.y``.

        Returns
        -------
        ndarray (m,)
            :math:`-\hat T_e(x)` (the formula of :class:`CrossValidatedMRI`).

        Raises
        ------
        ValueError
            If ``ctx.X`` holds fewer than 2 labelled points.
        """
        n = ctx.X.shape[0]
        if n < 2:
            raise ValueError(f"{self.name} needs at least 2 labelled points to cross-validate, ctx.X holds {n}")
        parts = cross_validation_folds(ctx.y, self.folds, ctx.rng, self.stratified)
        p_hat = _fitted_theta2(ctx, (ctx.X, ctx.y), theta2=self.theta2).predict_proba(ctx.candidates)
        future = np.zeros((ctx.candidates.shape[0], ctx.n_classes))
        for test in parts:
            train = np.ones(n, dtype=bool)
            train[test] = False
            held_out = Population.from_labels(ctx.X[test], ctx.y[test], ctx.n_classes)
            errors = future_losses(ctx.classifier, ctx.X[train], ctx.y[train], ctx.candidates, held_out, "error",
                                   self.method)
            future += (test.size / n) * errors
        return -np.sum(p_hat * future, axis=1)


class PoolMRI(Strategy):
    r"""PoolMRI (ours, not the paper's): :math:`-\hat T_e` of Eq. ``eqc`` with the future losses measured on the pool.

    :math:`\theta_2` (as in SimpleMRI, Algorithm 1) is trained on :math:`D_S` and gives class
    probabilities :math:`\hat p_2(j \mid u)` for every point :math:`u` of the unlabelled pool
    :math:`X_P` (``ctx.pool``) and for the candidates.  The future loss of
    :math:`\theta' = \theta(D_S \cup (x, c))` is its expected error rate on the pool, labels drawn from
    those probabilities,

    .. math::

        \hat L'_c(x) = \frac{1}{|X_P|} \sum_{u \in X_P} \sum_j \hat p_2(j \mid u)\,
        \mathbb 1[\theta'(u) \ne j],
        \qquad \hat T_e(x) = \sum_c \hat p_2(c \mid x)\, \hat L'_c(x),

    the error loss of the engine on ``Population(ctx.pool, rows)`` (uniform weights, rows the
    :math:`\hat p_2(\cdot \mid u)`).  The score is :math:`-\hat T_e`.  The retrained models are never
    tested on :math:`D_S`, so SimpleMRI's in-sample loss is gone; the pool is also far larger than
    :math:`D_S` early in a curve.  It is what EfeLc (Eq. ``efelc``) estimates with the base model's
    own confidence after retraining, here with :math:`\theta_2`'s probabilities and the error loss.

    What remains: the loss is only as good as :math:`\theta_2`'s probabilities (trained on
    :math:`D_S`), which also give :math:`\hat{\mathbf p}(x)`; the candidate itself, when it is in the
    pool, is one of the :math:`|X_P|` test points.

    Parameters
    ----------
    method : {"auto", "refit"}
        The engine's fast path, or a plain refit per (candidate, class).
    theta2 : Classifier, optional
        The class-probability estimator :math:`\theta_2` (a template, cloned for the fit); default
        :func:`second_classifier` of the base.

    See Also
    --------
    mri_theory.strategies.SimpleMRI : The same estimate with the future losses tested in sample, on :math:`D_S`.
    mri_theory.strategies.CrossValidatedMRI : The future losses tested on held-out folds of :math:`D_S`.
    mri_theory.strategies.EfeLc : Roy and McCallum's future error on the pool, with the base model's confidence.
    mri_theory.strategies.MRIBest : The oracle that scores with the truth it estimates.
    mri_theory.engine.true_q_c : The true :math:`Q^c` of each candidate.

    Examples
    --------
    By hand: :math:`\theta_2` (5-NN, for an LDA base) labels the pool with its probabilities, and LDA retrained with
    the candidate under each label is scored by its expected error there:

    >>> import numpy as np
    >>> from mri_theory.classifiers import KNN, LDA
    >>> from mri_theory.problems import get_problem
    >>> from mri_theory.strategies import Context, PoolMRI
    >>> problem, rng = get_problem("four-gaussian"), np.random.default_rng(0)
    >>> X, y = problem.sample(10, rng)
    >>> pool = problem.sample(30, rng)[0]
    >>> ctx = Context(X, y, candidates=pool[:6], pool=pool, classifier=LDA(), n_classes=2, rng=rng)
    >>> theta2 = KNN(5).fit(X, y, 2)
    >>> p_pool, p_hat = theta2.predict_proba(pool), theta2.predict_proba(ctx.candidates)
    >>> def pool_error(x, c):  # L'_c(x): the chance that theta_2's label of a pool point is not the prediction
    ...     predicted = LDA().fit(np.vstack([X, x]), np.append(y, c), 2).predict(pool)
    ...     return float(np.mean(1 - p_pool[np.arange(len(pool)), predicted]))
    >>> by_hand = [-sum(p_hat[i, c] * pool_error(x, c) for c in (0, 1)) for i, x in enumerate(ctx.candidates)]
    >>> scores = PoolMRI().scores(ctx)
    >>> bool(np.allclose(scores, by_hand, rtol=0, atol=1e-12)), bool(np.all((scores <= 0) & (scores >= -1)))
    (True, True)
    """

    name = "PoolMRI"
    origin = "ours"
    costly = True
    estimates_t_e = True

    def __init__(self, method: str = "auto", theta2: Classifier | None = None) -> None:
        self.method = check_method(method)
        self.theta2, _ = _check_theta2(theta2)

    def scores(self, ctx):
        r"""PoolMRI's :math:`-\hat T_e` at each candidate, the future losses measured on the pool.

        Parameters
        ----------
        ctx : Context
            :math:`\theta_2` is fitted on ``ctx.X``, ``ctx.y`` and labels ``ctx.pool`` with its
            probabilities; the retrained models are tested there (error rate).

        Returns
        -------
        ndarray (m,)
            :math:`-\sum_c \hat p_2(c \mid x)\, \hat L'_c(x)` (the formulas of :class:`PoolMRI`).
        """
        theta2 = _fitted_theta2(ctx, (ctx.X, ctx.y), theta2=self.theta2)
        pool = Population(ctx.pool, theta2.predict_proba(ctx.pool))
        future = future_losses(ctx.classifier, ctx.X, ctx.y, ctx.candidates, pool, "error", self.method)
        return -np.sum(theta2.predict_proba(ctx.candidates) * future, axis=1)


class MarginSampling(Strategy):
    r"""Margin (ours, not the paper's): :math:`-(\hat p_{(1)} - \hat p_{(2)})` of the base classifier.

    :math:`\hat p_{(1)} \ge \hat p_{(2)}` are the two largest class probabilities at the candidate:
    the candidate whose two most probable classes are closest is chosen (margin sampling, Scheffer et
    al. 2001; with two classes it ranks as LC and SE do).  Not an estimate of :math:`Q^c`; a cheap
    baseline next to LC.

    See Also
    --------
    mri_theory.strategies.LeastConfidence : 1 - the largest probability.
    mri_theory.strategies.ShannonEntropy : The entropy of the probabilities.

    Examples
    --------
    Minus the gap between the two largest probabilities; with two classes the gap is :math:`2\hat p_{(1)} - 1`, so
    the score is :math:`2\,\mathrm{LC} - 1` (the same ranking as LC's):

    >>> import numpy as np
    >>> from mri_theory.classifiers import LDA
    >>> from mri_theory.problems import get_problem
    >>> from mri_theory.strategies import Context, LeastConfidence, MarginSampling
    >>> problem, rng = get_problem("four-gaussian"), np.random.default_rng(0)
    >>> X, y = problem.sample(10, rng)
    >>> pool = problem.sample(30, rng)[0]
    >>> ctx = Context(X, y, candidates=pool[:6], pool=pool, classifier=LDA(), n_classes=2, rng=rng)
    >>> scores = MarginSampling().scores(ctx)
    >>> p = np.sort(ctx.fitted().predict_proba(ctx.candidates), axis=1)
    >>> bool(np.allclose(scores, -(p[:, -1] - p[:, -2])))
    True
    >>> bool(np.allclose(scores, 2 * LeastConfidence().scores(ctx) - 1))
    True
    """

    name = "Margin"
    origin = "ours"

    def scores(self, ctx):
        r"""Minus the margin :math:`\hat p_{(1)} - \hat p_{(2)}` of the base classifier at each candidate.

        Parameters
        ----------
        ctx : Context
            Its base classifier is fitted on the labelled data (``ctx.fitted()``) and predicts the
            candidates.

        Returns
        -------
        ndarray (m,)
            The second largest class probability minus the largest (never positive).
        """
        top = np.sort(ctx.fitted().predict_proba(ctx.candidates), axis=1)
        return top[:, -2] - top[:, -1]


#: The strategies by name (:class:`~mri_theory.engine.Registry`), in the order :func:`list_strategies`
#: gives: the paper's (built in: :func:`unregister_strategy` refuses them), ours (registered like a user's
#: strategy), scikit-activeml's peers (built in too; their factories import the adapter when called), then those
#: added by :func:`register_strategy`.  What each is (:attr:`Strategy.origin <mri_theory.strategies.Strategy.origin>`)
#: is what its class declares; the lists of :func:`strategy_names` are derived from it.
STRATEGY_REGISTRY = Registry("strategy", Strategy, sort=False, reserved={
    "all": "the runners read it as every registered strategy",
    "peers": "the runners read it as scikit-activeml's peers (PEER_NAMES)",
    "paper": "the runners and the CLI read it as the paper's seven methods (mri_theory.runners.STRATEGY_SETS)",
    **{origin: f"it is a strategy origin, a line-up of strategy_names({origin!r})"
       for origin in ORIGINS if origin != "paper"}})
for _cls in (RandomSelection, ShannonEntropy, LeastConfidence, VoteEntropy, AverageKL, EfeLc, SimpleMRI,
             BootstrapMRI, MRIBest, MRIWorst):
    STRATEGY_REGISTRY.register(_cls.name, _cls, built_in=True)
for _ours in (CrossValidatedMRI, PoolMRI, MarginSampling):
    STRATEGY_REGISTRY.register(_ours.name, _ours)

#: The names of scikit-activeml's peers (the ``peers`` extra), in their order in :func:`list_strategies`.
PEER_NAMES: tuple[str, ...] = tuple(PEERS)


def _peer_factory(name: str) -> Callable[..., Strategy]:
    """The registry's factory of the peer ``name``: imports the adapter (and scikit-activeml) when called."""
    def make_peer(**options: Any) -> Strategy:
        from mri_theory.strategies.skactiveml import peer  # on use: the adapter imports scikit-activeml

        return peer(name, **options)

    make_peer.__name__ = make_peer.__qualname__ = f"peer_{name.replace('-', '_')}"
    make_peer.origin = "peer"  # type: ignore[attr-defined]  # what the registry reads without importing the peer
    return make_peer


#: The peers' own factories (a name re-registered with another factory is no longer a peer's).
_PEER_FACTORIES = {name: _peer_factory(name) for name in PEER_NAMES}
for _name, _factory in _PEER_FACTORIES.items():  # built in, as the paper's: the runners' set "peers" lists them
    STRATEGY_REGISTRY.register(_name, _factory, built_in=True)


def strategy_names(origin: str) -> tuple[str, ...]:
    """The registered strategies that declare ``origin`` (:data:`~mri_theory.strategies.base.ORIGINS`), in the
    registry's order: ``"paper"`` gives the paper's seven methods (the runners' ``"paper"`` set), ``"ours"``
    CvMRI, PoolMRI and Margin, and so on; a strategy registered under a name reads ``origin`` from its factory
    (a class's attribute), ``"other"`` when the factory does not say.

    Parameters
    ----------
    origin : str
        One of :data:`~mri_theory.strategies.base.ORIGINS`: ``"paper"``, ``"oracle"``, ``"ours"``, ``"peer"``
        or ``"other"``.

    Returns
    -------
    tuple of str
        The names, in registration order.

    Raises
    ------
    ValueError
        If ``origin`` is not one of ``ORIGINS``.

    Examples
    --------
    >>> from mri_theory.strategies import strategy_names
    >>> strategy_names("paper")
    ('RS', 'SE', 'QbcV', 'QbcA', 'EfeLc', 'SMRI', 'BMRI')
    >>> strategy_names("ours")
    ('CvMRI', 'PoolMRI', 'Margin')
    """
    if origin not in ORIGINS:
        raise ValueError(f"origin must be one of {', '.join(map(repr, ORIGINS))}, got {origin!r}")
    return STRATEGY_REGISTRY.tagged("origin", origin, default="other")


def list_strategies() -> list[str]:
    """The strategy names: the paper's, in its order, then ours (CvMRI, PoolMRI, Margin), then scikit-activeml's
    peers (:data:`PEER_NAMES`) where scikit-activeml is installed (the ``peers`` extra), then the registered ones in
    registration order.

    Without scikit-activeml the peers stay registered (:func:`get_strategy` of one raises an ``ImportError``
    naming the extra) but are not listed, so the runners' ``"all"`` keeps working.

    Returns
    -------
    list of str
        The names, in that order.

    Examples
    --------
    >>> from mri_theory.strategies import list_strategies
    >>> list_strategies()[:10]
    ['RS', 'SE', 'LC', 'QbcV', 'QbcA', 'EfeLc', 'SMRI', 'BMRI', 'MRI-best', 'MRI-worst']
    """
    hidden = set() if skactiveml_installed() else {name for name, factory in _PEER_FACTORIES.items()
                                                     if name in STRATEGY_REGISTRY
                                                     and STRATEGY_REGISTRY.factory(name) is factory}
    return [name for name in STRATEGY_REGISTRY.names() if name not in hidden]


def register_strategy(name: str, factory: Callable[[], Strategy], *, overwrite: bool = False) -> None:
    """Register a strategy under ``name`` for :func:`get_strategy` and the runners.

    Parameters
    ----------
    name : str
        Letters, digits and ``. _ + -``, without ``__`` (it labels rows and
        names part files); not a reserved selection word
        (``STRATEGY_REGISTRY.reserved``: ``"all"``, ``"peers"``, and the
        origins ``"paper"``, ``"oracle"``, ``"ours"``, ``"peer"``,
        ``"other"``: the runners' words for every strategy, scikit-activeml's
        peers and the paper's seven methods, and the line-ups of
        :func:`strategy_names`).
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
        If ``name`` is not a safe name, is reserved, or is taken and
        ``overwrite`` is False.

    Notes
    -----
    The registry lives in this process: the runners resolve names here and
    send the strategy objects to their workers (joblib or Dask), so a
    registration needs no import in the workers.

    See Also
    --------
    mri_theory.strategies.registered_strategy : The same for a ``with`` block.

    Examples
    --------
    >>> from mri_theory.strategies import SimpleMRI, get_strategy, register_strategy, unregister_strategy
    >>> register_strategy("SMRI-refit", lambda: SimpleMRI(method="refit"))
    >>> get_strategy("SMRI-refit")
    SimpleMRI(method='refit', theta2=None)
    >>> unregister_strategy("SMRI-refit")
    """
    STRATEGY_REGISTRY.register(name, factory, overwrite=overwrite)


def unregister_strategy(name: str) -> None:
    """Remove the strategy registered as ``name`` from :func:`get_strategy` and the runners.

    The built-in names, the paper's strategies, the oracles and scikit-activeml's
    peers (:data:`PEER_NAMES`, the runners' set ``"peers"``), cannot be unregistered,
    also after ``overwrite=True`` replaced one: their names always stay available.
    Replace one for a while with :func:`registered_strategy` and
    ``overwrite=True`` instead.

    Parameters
    ----------
    name : str
        A name registered with :func:`register_strategy` (or ours: CvMRI, PoolMRI, Margin).

    Raises
    ------
    TypeError
        If ``name`` is not a str.
    ValueError
        If ``name`` is built in, or not registered (the message lists the
        registered names).

    Examples
    --------
    >>> from mri_theory.strategies import SimpleMRI, list_strategies, register_strategy, unregister_strategy
    >>> register_strategy("SMRI-refit", lambda: SimpleMRI(method="refit"))
    >>> unregister_strategy("SMRI-refit")
    >>> "SMRI-refit" in list_strategies()
    False
    """
    STRATEGY_REGISTRY.unregister(name)


def registered_strategy(name: str, factory: Callable[[], Strategy], *,
                        overwrite: bool = False) -> AbstractContextManager[None]:
    """A context manager: :func:`register_strategy` for the ``with`` block, then the previous state exactly.

    On exit (an exception included) ``name`` is registered as before: the
    factory a replaced name had (``overwrite=True``), in its place in
    :func:`list_strategies`, or not at all.  Arguments and errors as for
    :func:`register_strategy`, raised before anything changes.

    Parameters
    ----------
    name, factory, overwrite
        As in :func:`register_strategy`.

    Returns
    -------
    object
        A context manager (:class:`contextlib.AbstractContextManager`): ``name`` is registered when its
        ``with`` block starts (the block gets None) and restored when it ends.

    Examples
    --------
    >>> from mri_theory.strategies import SimpleMRI, list_strategies, registered_strategy
    >>> with registered_strategy("SMRI-refit", lambda: SimpleMRI(method="refit")):
    ...     list_strategies()[-1]
    'SMRI-refit'
    >>> "SMRI-refit" in list_strategies()
    False
    """
    return STRATEGY_REGISTRY.registered(name, factory, overwrite=overwrite)


def get_strategy(name: str, **options: Any) -> Strategy:
    """A strategy by name; ``options`` go to its constructor (e.g. ``method="refit"``, ``n_b=10``).

    Parameters
    ----------
    name : str
        A registered name (:func:`list_strategies`, or a peer of :data:`PEER_NAMES`).
    **options
        Keyword arguments of the registered factory (a strategy's class: its constructor's parameters).

    Returns
    -------
    Strategy
        A new object at every call.

    Raises
    ------
    TypeError
        If ``name`` is not a str, an option is not a parameter of the strategy, or its factory
        returns no :class:`Strategy`.
    ValueError
        If ``name`` is unknown (the message lists the known names) or an option's value is invalid.

    See Also
    --------
    mri_theory.strategies.list_strategies : The names it accepts.

    Examples
    --------
    >>> from mri_theory.strategies import get_strategy
    >>> get_strategy("SE")
    ShannonEntropy()
    >>> get_strategy("BMRI", n_b=10, aggregate="mean")
    BootstrapMRI(n_b=10, method='auto', theta2_trees=10, theta2=None, aggregate='mean')
    """
    return STRATEGY_REGISTRY.get(name, **options)
