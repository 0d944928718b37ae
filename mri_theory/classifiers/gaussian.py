r"""Gaussian generative classifiers with an exact rank-one retraining path.

LDA, QDA, Gaussian naive Bayes and the §3.2 mean classifier (generalised to
``d`` dimensions and ``k`` classes) are all determined by per-class
sufficient statistics: counts :math:`n_j`, means :math:`m_j` and scatter
matrices :math:`S_j = \sum_{i: y_i=j} (x_i - m_j)(x_i - m_j)^T`.  Adding one
example ``(x, c_j)`` changes only class ``j``, by a rank-one update:

.. math::
    n_j' = n_j + 1, \quad m_j' = m_j + \frac{x - m_j}{n_j + 1}, \quad
    S_j' = S_j + \frac{n_j}{n_j + 1}(x - m_j)(x - m_j)^T.

Each class's log-discriminant is a quadratic in ``x``,
:math:`g_j(x) = -\tfrac12 x^T A_j x + b_j^T x + c_j`, i.e. linear in the
features :math:`\phi(x) = (x \otimes x, x, 1)`.  So the retrained models for
all candidates and classes are scored on a population with one matrix
product :math:`\phi(X_{pop}) \cdot [\text{coefficients}]` per chunk: no refits,
no Python loop over candidates.  Where a class's coefficients depend on its
own statistics alone (QDA and naive Bayes: all but the log prior), a retrained
model recomputes only class ``j`` and keeps the current model's other classes.
The inverse covariances of the retrained models follow from the current ones
by the rank-one (Sherman-Morrison) formula, :math:`O(d^2)` per model instead
of an :math:`O(d^3)` inversion: QDA's joined class, LDA's pooled covariance
(naive Bayes' are diagonal).  And the features carry only the quadratic terms
a classifier has: every product for QDA, the squares for naive Bayes, none for
LDA and the mean classifier, whose quadratic term is common to the classes
(``d + 1`` features instead of ``d^2 + d + 1``).  On ``sonar`` (d = 60) one
BMRI step (``benchmarks/bench_small_real.py``) became 9 to 34 times faster
with LDA, 6 to 11 with naive Bayes and 1.9 to 2.7 with QDA.  The plain refit path computes the
statistics from scratch and inverts each covariance; the tests hold the two to
rounding (1e-12, times the covariances' condition number where they are ill
conditioned: with fewer points than dimensions both round by up to 1e-6 in a
probability, and the rank-one update is no further from a 40-digit reference).

**Reference frame.**  Quadratic features of raw inputs cancel
catastrophically far from the origin (:math:`x^T A x` and :math:`b^T x` are
huge and nearly opposite).  So ``fit`` chooses a frame from the training
data: the scale :math:`s` is the power of two at or just below their largest
coordinate deviation from their mean (if all points coincide, their largest
coordinate; 1 if that is 0 too), and the origin :math:`o` is their mean
rounded to a multiple of :math:`s`.  Floating point is relative, so the scale
only keeps the squares clear of overflow and underflow; being a power of two,
it changes units exactly.  The rounded origin makes :math:`x - o` exact for
data far from the origin, and is 0 for data centred near it, which are then
only rescaled by a power of two (so, e.g., the mean classifier's exact ties
stay exact).  All statistics and all
features are kept in the coordinates :math:`z = (x - o)/s`; parameters given
in data units are converted exactly (the ridge ``reg * I`` becomes
``reg / s^2 * I``, the mean classifier's ``sigma`` becomes ``sigma / s``).
The class log-discriminants in :math:`z` differ from those in :math:`x` by a
constant common to all classes (:math:`d \ln s` from the densities'
normalisation), which cancels in the softmax: the model does not depend on the
frame.  The fast path therefore scores every retrained model in the current
model's frame, while a refit chooses its own; they agree to 1e-12 however far
the data lie from the origin.

**Range.**  The frame keeps every coefficient a finite, normal float while
the training points' spread lies in ``[1e-100, 1e100]`` (``MAX_SPREAD``)
and the parameters given in data units stay in that range once converted
(``reg / s**2`` in ``[1e-200, 1e200]``, ``sigma / s`` in ``[1e-100, 1e100]``);
outside, ``fit`` raises a ``ValueError`` naming ``X``, ``reg`` or ``sigma``.
A prediction point so far from the training data that its quadratic
features overflow (about ``1e150`` spreads) is refused naming ``X``.

**Equivariance.**  ``reg`` and ``sigma`` are in data units, so the model is
translation invariant but scale invariant only with them: fitting on
:math:`s x + t` with ``reg * s**2`` (``sigma * s``) gives, on :math:`s x + t`,
the probabilities of the model fitted on :math:`x`, on :math:`x`.

**Regularisation.**  Covariances are maximum-likelihood estimates plus
``reg * I`` (default ``reg = 1e-3``), so one point per class, collinear points
and a single training point all give finite, deterministic models.  Class
priors are the empirical frequencies :math:`n_j / n` (known, for the mean
classifier); a class absent from the training data gets probability 0.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mri_theory._utils import validation as check
from mri_theory.engine.contract import Classifier
from mri_theory.engine.exact import MixtureTruth, rule_losses
from mri_theory.engine.losses import pointwise_loss_from_scores
from mri_theory.engine.population import ExactPopulation, Population

__all__ = ["LDA", "QDA", "GaussianClassifier", "GaussianMeanClassifier", "GaussianNaiveBayes"]

#: The training points' spread (the scale of the frame: their largest deviation from their mean, module notes)
#: must lie in ``[1 / MAX_SPREAD, MAX_SPREAD]``, and the parameters given in data units must stay within it once
#: converted to the frame (``reg / s**2`` in ``[MAX_SPREAD**-2, MAX_SPREAD**2]``, ``sigma / s`` in
#: ``[1 / MAX_SPREAD, MAX_SPREAD]``): then every coefficient is a finite, normal float. Outside, ``fit`` refuses
#: the data or the parameter by name (before, the squares under- or overflowed into NaN probabilities or a
#: ZeroDivisionError).
MAX_SPREAD = 1e100

_SINGULAR = ("{name}: the covariance of {what} is numerically singular (its ridge is lost in rounding: the points "
             "spread over magnitudes more than ~1e16 apart in different directions); rescale or remove the outlying "
             "points, or pass a larger reg")
_CHUNK_CELLS = 2**22  # population points x models x classes scored per matrix product
#: Largest :math:`1 + w^T P^{-1} w` of a rank-one covariance update (LDA, QDA): beyond it the candidate's term
#: exceeds the covariance by more than the precision of a double, so the retrained covariance formed as a matrix
#: (as a refit forms it) has lost its ridge in rounding; the update is refused as numerically singular, as the
#: refit is (before, the inversion of that matrix raised).
_RANK_ONE_LIMIT = 2.0**52


def _features(X: np.ndarray, form: str = "full") -> np.ndarray:
    r"""Features :math:`\phi(x) = (x \otimes x, x, 1)`, shape ``(n, d^2 + d + 1)``; with ``form`` "diagonal"
    :math:`(x \odot x, x, 1)` and "none" :math:`(x, 1)` (``GaussianClassifier._quadratic_form``)."""
    n, d = X.shape
    ones = np.ones((n, 1))
    if form == "none":
        return np.hstack([X, ones])
    quadratic = X * X if form == "diagonal" else (X[:, :, None] * X[:, None, :]).reshape(n, d * d)
    return np.hstack([quadratic, X, ones])


def reference_frame(X: np.ndarray) -> tuple[np.ndarray, float]:
    """Origin ``(d,)`` and scale (a power of two) of the frame for the training points ``X`` (module notes)."""
    centre = X.mean(axis=0)
    size = np.max(np.abs(centre))
    spread = np.max(np.abs(X - centre))
    if spread <= 64 * np.finfo(float).eps * size or spread == 0.0:
        spread = 1.0  # coincident points (e.g. a bootstrap resample): rounding noise is no spread; only shift
    scale = float(np.ldexp(1.0, np.frexp(spread)[1] - 1))
    return scale * np.round(centre / scale), scale


def retrained_scales(X: np.ndarray, candidates: np.ndarray) -> np.ndarray:
    """The scale of :func:`reference_frame` of ``X`` plus each candidate, for all ``m`` candidates at once
    (``O(m d)``, not ``m`` frames of ``n + 1`` points; the centre ``(sum X + x) / (n + 1)`` may differ from
    ``mean`` in its last bit, which moves a scale only where a spread lies within an ulp of a power of two)."""
    n = X.shape[0]
    centres = (X.sum(axis=0) + candidates) / (n + 1)
    size = np.max(np.abs(centres), axis=1)
    spread = np.max(np.maximum(np.maximum(X.max(axis=0) - centres, centres - X.min(axis=0)),
                               np.abs(candidates - centres)), axis=1)
    spread = np.where((spread <= 64 * np.finfo(float).eps * size) | (spread == 0.0), 1.0, spread)
    return np.ldexp(1.0, np.frexp(spread)[1] - 1)


def class_statistics(X: np.ndarray, y: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Counts ``(k,)``, means ``(k, d)`` (0 for absent classes) and scatters ``(k, d, d)``."""
    d = X.shape[1]
    counts = np.bincount(y, minlength=k).astype(float)
    means = np.zeros((k, d))
    scatters = np.zeros((k, d, d))
    for j in range(k):
        members = X[y == j]
        if members.shape[0]:
            means[j] = members.mean(axis=0)
            dev = members - means[j]
            scatters[j] = dev.T @ dev
    return counts, means, scatters


class GaussianClassifier(Classifier):
    """Shared machinery: statistics -> quadratic discriminant coefficients -> probabilities.

    Subclasses implement ``_coefficients``, mapping (stacked) statistics to
    ``(A, b, c)`` with shapes ``(..., k, d, d)``, ``(..., k, d)``, ``(..., k)``.
    Statistics, coefficients and features are in the frame coordinates
    :math:`z = (x - o)/s` (``origin_``, ``scale_``; see the module notes), so
    ``_coefficients`` converts parameters given in data units by ``scale_``.

    Input range (LDA, QDA, naive Bayes, the mean classifier): the training points' spread ``s`` in
    ``[1e-100, 1e100]`` (``MAX_SPREAD``), ``reg / s**2`` in ``[1e-200, 1e200]``, ``sigma / s`` in
    ``[1e-100, 1e100]``, and prediction points whose quadratic features stay finite; outside it ``fit`` or
    ``predict_proba`` raises a ``ValueError`` naming ``X``, ``reg`` or ``sigma``. Inside it the probabilities
    are finite and scale equivariant.

    Examples
    --------
    The base of LDA, QDA, naive Bayes and the mean classifier: statistics, then quadratic discriminants:

    >>> from mri_theory.classifiers import LDA, QDA, GaussianClassifier, GaussianNaiveBayes
    >>> all(issubclass(cls, GaussianClassifier) for cls in (LDA, QDA, GaussianNaiveBayes))
    True

    The reference frame keeps the models translation invariant, however far the data lie from the origin:

    >>> import numpy as np
    >>> from mri_theory.problems import get_problem
    >>> X, y = get_problem("four-gaussian").sample(20, np.random.default_rng(0))
    >>> near = QDA().fit(X, y).predict_proba(X[:3])
    >>> far = QDA().fit(X + 1e6, y).predict_proba(X[:3] + 1e6)
    >>> near.round(4).tolist() == far.round(4).tolist(), bool(np.allclose(near, far, rtol=0, atol=1e-8))
    (True, True)
    """

    exact_truth = True
    #: Whether each class's coefficients depend on its own statistics alone, apart from the log prior
    #: (:meth:`_class_terms`: QDA, naive Bayes; not LDA's pooled covariance).  Then a retrained model recomputes
    #: only the class its new example joins, and takes the other classes' terms from this model
    #: (:meth:`_retrained_coefficients`).
    _per_class_terms = False
    #: How the quadratic term :math:`-x^T A_j x / 2` enters the features the retrained models are scored on
    #: (:meth:`_retrained_losses`): every entry of ``A_j`` ("full", QDA), its diagonal ("diagonal", naive Bayes)
    #: or none ("none": LDA and the mean classifier, whose ``A`` is common to the classes and cancels in the
    #: softmax).  ``d + 1`` features instead of ``d^2 + d + 1`` with d = 60 (sonar): 60 times fewer products.
    _quadratic_form = "full"

    def _coefficients(self, counts, means, scatters):
        """``(A, b, c)`` of stacked statistics ``(..., k, ...)``: by default the classes' own terms
        (:meth:`_class_terms`) with the log prior added to ``c``."""
        A, b, c = self._class_terms(counts, means, scatters)
        return A, b, c + _log_priors(counts)

    def _class_terms(self, counts, means, scatters):  # pragma: no cover - abstract
        """``(A, b, c - log prior)`` of each class from its own statistics (where ``_per_class_terms``)."""
        raise NotImplementedError

    def _exact_losses(self, truth: MixtureTruth, counts, means, scatters, loss: str) -> np.ndarray:
        """Exact losses of the ``M`` models of stacked statistics ``(M, k, ...)`` under ``truth``.

        Scores and truth both in this model's frame :math:`z = (x - o)/s` (the
        truth's means shifted and scaled, covariances scaled by :math:`s^{-2}`),
        the log loss floored as the engine's (:data:`~mri_theory.engine.losses.LOG_LOSS_FLOOR`).
        """
        with np.errstate(divide="ignore", invalid="ignore"):  # absent classes: their coefficients are ignored
            A, b, c = self._coefficients(counts, means, scatters)
        return rule_losses(truth.in_frame(self.origin_, self.scale_), A, b, c, counts > 0, loss)

    def exact_loss(self, truth: MixtureTruth, loss: str) -> float:
        """The exact loss under a Gaussian-mixture truth: the scores are quadratic (:mod:`mri_theory.engine.exact`).

        Parameters
        ----------
        truth : MixtureTruth
            The problem's Gaussian mixture (:meth:`MixtureTruth.from_problem
            <mri_theory.engine.MixtureTruth.from_problem>`).
        loss : {"error", "log"}
            The loss integrated.

        Returns
        -------
        float
            The expected loss of the fitted model under ``truth``.
        """
        self._check_fitted()
        return float(self._exact_losses(truth, self.counts_[None], self.means_[None], self.scatters_[None], loss)[0])

    def _fit(self, X: np.ndarray, y: np.ndarray) -> None:
        self.origin_, self.scale_ = reference_frame(X)
        if not 1 / MAX_SPREAD <= self.scale_ <= MAX_SPREAD:
            raise ValueError(f"X: the training points spread over {self.scale_:.3g} (their largest deviation from "
                             f"their mean, as a power of two); {type(self).__name__} needs a spread in "
                             f"[{1 / MAX_SPREAD:g}, {MAX_SPREAD:g}]: rescale the data")
        self._check_parameters_in_frame()
        self.counts_, self.means_, self.scatters_ = class_statistics(self._to_frame(X), y, self.n_classes_)
        try:  # the covariance must be invertible in double precision (not only its spread in range); the
            # coefficients are kept for predict_proba (computed once per fit)
            with np.errstate(divide="ignore", invalid="ignore"):  # absent classes: their coefficients are ignored
                self.coefficients_ = self._coefficient_matrix(self.counts_[None], self.means_[None],
                                                              self.scatters_[None])[0]
        except np.linalg.LinAlgError:
            raise ValueError(_SINGULAR.format(name="X", what="the training points")) from None

    def _check_parameters_in_frame(self) -> None:
        """Refuse a ridge ``reg`` (data units) whose frame value ``reg / s**2`` leaves the range of
        ``MAX_SPREAD``; a subclass with other parameters in data units checks them here."""
        reg = getattr(self, "reg", None)
        if reg is not None and not MAX_SPREAD**-2 <= reg / self.scale_**2 <= MAX_SPREAD**2:
            raise ValueError(f"reg, X: reg / spread**2 = {reg / self.scale_**2:.3g} for the training points' (X) "
                             f"spread {self.scale_:.3g}; it must lie in [{MAX_SPREAD**-2:g}, {MAX_SPREAD**2:g}] (reg "
                             "is in data units: scale it with the data, or the data to O(1))")

    def _to_frame(self, X: np.ndarray) -> np.ndarray:
        """Points in the frame coordinates :math:`z = (x - o)/s`."""
        return (X - self.origin_) / self.scale_

    def _coefficient_matrix(self, counts, means, scatters, form: str = "full") -> np.ndarray:
        """Stacked statistics ``(M, k, ...)`` -> feature coefficients ``(M, k, f)`` of ``form``; absent classes
        get 0."""
        A, b, c = self._coefficients(counts, means, scatters)
        return _present(counts, _feature_coefficients(A, b, c, form))

    def _joined_terms(self, candidates: np.ndarray):
        """``(A, b, c - log prior)`` of each class after each candidate (frame coordinates) joins it: shapes
        ``(B, k, d, d)``, ``(B, k, d)``, ``(B, k)`` (where ``_per_class_terms``).  By default the class's terms
        of its updated statistics; QDA updates its inverse covariance by the rank-one formula instead."""
        return self._class_terms(*self._joined_statistics(candidates))

    def _retrained_coefficients(self, candidates: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Counts ``(B k, k)`` and feature coefficients ``(B k, k, f)`` (of ``_quadratic_form``) of the models
        retrained with each (candidate, class).  Where ``_per_class_terms``, the joined class's terms are
        computed (``B k`` classes, not ``B k k``: :meth:`_joined_terms`) and the others are this model's own;
        otherwise every class of every retrained model, from its stacked statistics."""
        k = self.n_classes_
        B = candidates.shape[0]
        form = self._quadratic_form
        eye = np.eye(k, dtype=bool)  # [label, class]: does this class change?
        counts = np.broadcast_to(self.counts_ + eye, (B, k, k)).reshape(B * k, k)
        if not self._per_class_terms:
            _, means, scatters = self._updated_statistics(candidates)
            return counts, self._coefficient_matrix(counts, means.reshape(B * k, k, -1),
                                                    scatters.reshape((B * k, k) + scatters.shape[-2:]), form)
        A, b, c = self._joined_terms(candidates)
        joined = _feature_coefficients(A, b, c, form)  # (B, label, f)
        A, b, c = self._class_terms(self.counts_, self.means_, self.scatters_)
        kept = _feature_coefficients(A, b, c, form)  # (class, f)
        coef = np.where(eye[None, :, :, None], joined[:, :, None, :], kept[None, None])  # (B, label, class, f)
        return _with_priors(counts, coef.reshape(B * k, k, -1))

    def _model_scores(self, phi_t: np.ndarray, counts, coef) -> np.ndarray:
        """Scores on points ``phi_t`` (features x points), points last, of ``M`` models with ``counts`` ``(M,
        k)`` and feature coefficients ``coef`` ``(M, k, f)``.

        Two classes: log-odds ``(M, n)`` (``±inf`` when a class has no data);
        otherwise ``(M, k, n)`` with ``-inf`` rows for absent classes.
        """
        M, k, f = coef.shape
        if k == 2:
            d = (coef[:, 1] - coef[:, 0]) @ phi_t
            d[counts[:, 0] == 0] = np.inf
            d[counts[:, 1] == 0] = -np.inf
            return d
        scores = (coef.reshape(M * k, f) @ phi_t).reshape(M, k, -1)
        scores[counts == 0] = -np.inf
        return scores

    @staticmethod
    def _scores_to_proba(scores: np.ndarray) -> np.ndarray:
        """Softmax over the (short) class axis, looping over classes; ``-inf`` scores give 0."""
        top = scores[..., 0]
        for j in range(1, scores.shape[-1]):
            top = np.maximum(top, scores[..., j])
        e = np.exp(scores - top[..., None])
        total = e[..., 0].copy()
        for j in range(1, scores.shape[-1]):
            total += e[..., j]
        return e / total[..., None]

    def _predict_proba(self, X: np.ndarray) -> np.ndarray:
        coef = self.coefficients_  # the fitted model's feature coefficients (k, f), from _fit
        with np.errstate(over="ignore", invalid="ignore"):  # a point too far away: refused below, by name
            scores = _features(self._to_frame(X)) @ coef.T
            scores[:, self.counts_ == 0] = -np.inf
            proba = self._scores_to_proba(scores)
        if not np.isfinite(proba).all():
            far = float(np.max(np.abs(self._to_frame(X))))
            raise ValueError(f"X: a point lies {far:.3g} training spreads from the training points' centre; the "
                             "quadratic discriminants overflow there (keep points within about 1e150 spreads)")
        return proba

    def _joined_statistics(self, candidates: np.ndarray):
        """Each class's statistics after a candidate (in frame coordinates) joins it, by the rank-one update of
        the module notes: counts ``(k,)``, means ``(B, k, d)``, scatters ``(B, k, d, d)``."""
        n = self.counts_
        dev = candidates[:, None, :] - self.means_[None, :, :]  # (B, k, d)
        new_means_j = self.means_ + dev / (n + 1)[:, None]
        new_scatter_j = self.scatters_ + (n / (n + 1))[:, None, None] * dev[..., :, None] * dev[..., None, :]
        return n + 1, new_means_j, new_scatter_j

    def _updated_statistics(self, candidates: np.ndarray):
        """Statistics after adding each (candidate, class; in frame coordinates): shapes ``(B, k_label, k, ...)``."""
        k = self.n_classes_
        B = candidates.shape[0]
        eye = np.eye(k, dtype=bool)  # [label, class]: does this class change?
        _, new_means_j, new_scatter_j = self._joined_statistics(candidates)
        counts = np.broadcast_to(self.counts_ + eye, (B, k, k))
        means = np.where(eye[None, :, :, None], new_means_j[:, None, :, :], self.means_[None, None])
        scatters = np.where(eye[None, :, :, None, None], new_scatter_j[:, None], self.scatters_[None, None])
        return counts, means, scatters

    def _future_losses(self, candidates: np.ndarray, population: Population | ExactPopulation,
                       loss: str) -> np.ndarray:
        try:
            return self._retrained_losses(candidates, population, loss)
        except np.linalg.LinAlgError:
            raise ValueError(_SINGULAR.format(name="candidates", what="the training points and a candidate")) from None

    def _retrained_losses(self, candidates: np.ndarray, population: Population | ExactPopulation,
                          loss: str) -> np.ndarray:
        """Exact fast path (the hook of :class:`~mri_theory.engine.contract.Classifier`): rank-one statistic
        updates, all models scored by matrix products.

        Every retrained model is expressed in this model's frame (the model
        does not depend on the frame; see the module notes).  Returns ``L'``,
        shape ``(m, k)``, from validated arguments.
        """
        k = self.n_classes_
        candidates = self._to_frame(candidates)
        if isinstance(population, ExactPopulation):  # every retrained rule integrated exactly, all at once
            counts, means, scatters = self._updated_statistics(candidates)
            B = candidates.shape[0]
            future = self._exact_losses(population.truth, counts.reshape(B * k, k), means.reshape(B * k, k, -1),
                                        scatters.reshape((B * k, k) + scatters.shape[-2:]), loss)
            return future.reshape(B, k)
        phi_t = np.ascontiguousarray(_features(self._to_frame(population.X), self._quadratic_form).T)
        chunk = max(1, _CHUNK_CELLS // (population.size * k * max(k - 1, 1)))
        out = np.empty((candidates.shape[0], k))
        for start in range(0, candidates.shape[0], chunk):
            block = candidates[start:start + chunk]
            B = block.shape[0]
            counts, coef = self._retrained_coefficients(block)
            values = pointwise_loss_from_scores(population.proba, self._model_scores(phi_t, counts, coef), loss,
                                                log_odds=k == 2)
            out[start:start + B] = (values @ population.weights).reshape(B, k)
        return out


def _log_priors(counts: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore"):
        return np.log(counts / counts.sum(axis=-1, keepdims=True))


def _feature_coefficients(A: np.ndarray | None, b: np.ndarray, c: np.ndarray, form: str = "full") -> np.ndarray:
    r"""``(A, b, c)`` of :math:`-x^T A x / 2 + b^T x + c` as coefficients of the features of :func:`_features`
    of ``form``: shape ``(..., d d + d + 1)`` (full), ``(..., 2 d + 1)`` (diagonal: ``A``'s diagonal) or
    ``(..., d + 1)`` (none: ``A`` is not read and may be None)."""
    d = b.shape[-1]
    if form == "none":
        return np.concatenate([b, c[..., None]], axis=-1)
    assert A is not None
    quadratic = (np.diagonal(A, axis1=-2, axis2=-1) if form == "diagonal" else A.reshape(b.shape[:-1] + (d * d,)))
    return np.concatenate([-0.5 * quadratic, b, c[..., None]], axis=-1)


def _with_priors(counts: np.ndarray, coef: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The retrained models' counts ``(M, k)`` and feature coefficients ``(M, k, f)``: each class's terms plus
    the model's log prior in the constant (the last feature), absent classes 0."""
    coef[..., -1] += _log_priors(counts)
    return counts, _present(counts, coef)


def _symmetric_inverse(P: np.ndarray) -> np.ndarray:
    """Inverses of stacked symmetric matrices, made exactly symmetric: :math:`P^{-1} v` and :math:`v^T P^{-1}` are
    then the same numbers (the rank-one updates use both)."""
    inverse = np.linalg.inv(P)
    return 0.5 * (inverse + np.swapaxes(inverse, -1, -2))


def _rank_one_denominators(w: np.ndarray, u: np.ndarray) -> np.ndarray:
    """:math:`1 + w^T u` (``u = P^{-1} w``) of stacked rank-one updates :math:`P + w w^T`, at least 1; raises
    ``LinAlgError`` beyond :data:`_RANK_ONE_LIMIT`, where the updated matrix formed as a refit forms it is
    numerically singular."""
    denominator = 1.0 + np.einsum("...d,...d->...", w, u)
    if not np.all(denominator <= _RANK_ONE_LIMIT):
        raise np.linalg.LinAlgError("a retrained covariance is numerically singular")
    return denominator


def _present(counts: np.ndarray, coef: np.ndarray) -> np.ndarray:
    """Feature coefficients with the rows of classes without data set to 0."""
    return np.where((counts > 0)[..., None], coef, 0.0)


def _gaussian_terms(cov: np.ndarray, means: np.ndarray):
    r"""``(A, b, c)`` of :math:`\ln N(x; m_j, \Sigma_j)` up to a constant, for stacked covariances (add the
    log prior to ``c`` for the class's log-discriminant).

    ``cov`` may have length 1 on the class axis (LDA's pooled covariance, shared by the classes): each
    matrix is then factorised once, and the inverse copied to every class, the same bit for bit as factorising
    the copies (numpy factorises each matrix of a stack on its own).
    """
    A = np.linalg.inv(cov)
    logdet = np.linalg.slogdet(cov)[1]
    if A.shape[:-2] != means.shape[:-1]:
        A = np.ascontiguousarray(np.broadcast_to(A, means.shape[:-1] + A.shape[-2:]))
        logdet = np.broadcast_to(logdet, means.shape[:-1])
    b = np.einsum("...ij,...j->...i", A, means)
    c = -0.5 * np.einsum("...i,...i->...", means, b) - 0.5 * logdet
    return A, b, c


class LDA(GaussianClassifier):
    r"""Linear discriminant analysis: a pooled covariance :math:`\Sigma = \sum_j S_j / n + \text{reg}\, I`.

    Parameters
    ----------
    reg : float, default 1e-3
        Ridge added to the covariance diagonal (see the module notes).

    See Also
    --------
    mri_theory.classifiers.QDA : Per-class covariances.
    mri_theory.classifiers.GaussianNaiveBayes : Per-class diagonal covariances.

    Examples
    --------
    Fitted on 20 points of Four-Gaussian; its retrained models' losses, from the fitted statistics, equal plain
    refits:

    >>> import numpy as np
    >>> from mri_theory.classifiers import LDA
    >>> from mri_theory.engine import Population, refit_future_losses
    >>> from mri_theory.problems import get_problem
    >>> problem, rng = get_problem("four-gaussian"), np.random.default_rng(0)
    >>> X, y = problem.sample(20, rng)
    >>> model = LDA().fit(X, y)
    >>> model.predict_proba(X[:2]).round(4).tolist()
    [[0.0946, 0.9054], [0.7674, 0.2326]]
    >>> population, candidates = Population.from_problem(problem, 2000, rng), problem.sample(4, rng)[0]
    >>> current, future = model.retraining_losses(candidates, population, "error")  # the fast path: no refit
    >>> refit = refit_future_losses(model, candidates, population, "error")  # one refit per candidate and class
    >>> future.shape, bool(np.allclose(future, refit, rtol=0, atol=1e-12))
    ((4, 2), True)

    Without the ridge it is scikit-learn's LDA (the same pooled maximum-likelihood covariance and empirical
    priors):

    >>> from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
    >>> theirs = LinearDiscriminantAnalysis(solver="lsqr").fit(X, y).predict_proba(X)  # 1.5's "svd" differs
    >>> bool(np.allclose(LDA(reg=1e-12).fit(X, y).predict_proba(X), theirs, rtol=0, atol=1e-8))
    True
    """

    name = "lda"
    _quadratic_form = "none"  # the pooled quadratic term is common to the classes

    def __init__(self, reg: float = 1e-3) -> None:
        check.positive_scalar(reg, "reg")
        self.reg = reg

    def _coefficients(self, counts, means, scatters):
        d = means.shape[-1]
        ridge = self.reg / self.scale_**2  # reg is in data units
        pooled = scatters.sum(axis=-3) / counts.sum(axis=-1)[..., None, None] + ridge * np.eye(d)
        A, b, c = _gaussian_terms(pooled[..., None, :, :], means)
        return np.zeros_like(A), b, c + _log_priors(counts)  # the shared quadratic term cancels in the softmax

    def _retrained_coefficients(self, candidates: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        r"""Counts ``(B k, k)`` and linear feature coefficients ``(B k, k, d + 1)`` of the retrained models, by
        the rank-one (Sherman-Morrison) update of the pooled inverse covariance.

        With ``(x, c_j)`` added, the pooled covariance is :math:`P + w w^T`, where :math:`P = \sum_l S_l / (N +
        1) + \text{reg}\, I` is common to every retrained model and :math:`w = \sqrt{n_j / ((n_j + 1)(N + 1))}\,
        (x - m_j)`; so with :math:`u = P^{-1} w`, :math:`(P + w w^T)^{-1} v = P^{-1} v - u\, (u^T v) / (1 + w^T
        u)`: :math:`P` is inverted once, and each retrained model costs :math:`O(k d)` after one product
        :math:`P^{-1} (x - m_j)` (:math:`O(d^2)`), not an inversion (:math:`O(d^3)`).  The intercepts leave
        out the log-determinant, common to the classes (it cancels in the softmax).  The coefficients agree
        with the inverse of each retrained covariance to rounding (tests: 1e-12 relative, and the losses with
        plain refits)."""
        k = self.n_classes_
        B, d = candidates.shape
        n = self.counts_
        total = n.sum()
        eye = np.eye(k, dtype=bool)  # [label, class]: does this class change?
        counts = np.broadcast_to(n + eye, (B, k, k)).reshape(B * k, k)
        ridge = self.reg / self.scale_**2  # reg is in data units
        inverse = _symmetric_inverse(self.scatters_.sum(axis=0) / (total + 1) + ridge * np.eye(d))  # P^{-1}
        dev = candidates[:, None, :] - self.means_[None, :, :]  # (B, label, d)
        inverse_dev = dev @ inverse  # (B, label, d): P^{-1} (x - m_j)
        weight = np.sqrt(n / ((n + 1) * (total + 1)))[:, None]  # w = weight (x - m_j)
        u = weight * inverse_dev
        denominator = _rank_one_denominators(weight * dev, u)
        means = np.broadcast_to(self.means_, (B, k, k, d)).copy()  # [candidate, label, class]: m'_l
        joined = self.means_ + dev / (n + 1)[:, None]  # (B, label, d)
        means[:, eye] = joined
        inverse_means = np.broadcast_to(self.means_ @ inverse, (B, k, k, d)).copy()  # P^{-1} m'_l
        inverse_means[:, eye] = (self.means_ @ inverse) + inverse_dev / (n + 1)[:, None]
        b = inverse_means - u[:, :, None, :] * (np.einsum("bjd,bjld->bjl", u, means)
                                               / denominator[:, :, None])[..., None]
        c = -0.5 * np.einsum("bjld,bjld->bjl", means, b)
        return _with_priors(counts, _feature_coefficients(None, b, c, "none").reshape(B * k, k, d + 1))


class QDA(GaussianClassifier):
    r"""Quadratic discriminant analysis: per-class :math:`\Sigma_j = S_j / n_j + \text{reg}\, I`.

    Parameters
    ----------
    reg : float, default 1e-3
        Ridge added to each covariance diagonal (a one-point class becomes
        :math:`N(x_i, \text{reg}\, I)`).

    See Also
    --------
    mri_theory.classifiers.LDA : A pooled covariance.

    Examples
    --------
    Fitted on 20 points of Four-Gaussian; its retrained models' losses (only the class a candidate joins is
    recomputed) equal plain refits:

    >>> import numpy as np
    >>> from mri_theory.classifiers import QDA
    >>> from mri_theory.engine import Population, refit_future_losses
    >>> from mri_theory.problems import get_problem
    >>> problem, rng = get_problem("four-gaussian"), np.random.default_rng(0)
    >>> X, y = problem.sample(20, rng)
    >>> model = QDA().fit(X, y)
    >>> model.predict_proba(X[:2]).round(4).tolist()
    [[0.0139, 0.9861], [0.8521, 0.1479]]
    >>> population, candidates = Population.from_problem(problem, 2000, rng), problem.sample(4, rng)[0]
    >>> current, future = model.retraining_losses(candidates, population, "error")  # the fast path: no refit
    >>> refit = refit_future_losses(model, candidates, population, "error")  # one refit per candidate and class
    >>> future.shape, bool(np.allclose(future, refit, rtol=0, atol=1e-12))
    ((4, 2), True)
    """

    name = "qda"

    def __init__(self, reg: float = 1e-3) -> None:
        check.positive_scalar(reg, "reg")
        self.reg = reg

    _per_class_terms = True

    def _class_terms(self, counts, means, scatters):
        d = means.shape[-1]
        ridge = self.reg / self.scale_**2  # reg is in data units
        cov = scatters / np.maximum(counts, 1)[..., None, None] + ridge * np.eye(d)
        return _gaussian_terms(cov, means)

    def _joined_terms(self, candidates: np.ndarray):
        r"""The joined classes' terms by the rank-one (Sherman-Morrison) update of their inverse covariances.

        With ``x`` joining class ``j``, its covariance is :math:`P_j + w w^T` with :math:`P_j = S_j / (n_j + 1)
        + \text{reg}\, I` (one per class, inverted once) and :math:`w = \sqrt{n_j} (x - m_j) / (n_j + 1)`; with
        :math:`u = P_j^{-1} w` and :math:`s = 1 + w^T u`, the inverse is :math:`P_j^{-1} - u u^T / s` and the
        log-determinant :math:`\ln |P_j| + \ln s`: :math:`O(d^2)` per candidate and class, not an inversion
        (:math:`O(d^3)`).  Agrees with inverting each joined covariance to rounding (tests: 1e-12, and the
        losses with plain refits)."""
        n = self.counts_
        d = candidates.shape[1]
        ridge = self.reg / self.scale_**2  # reg is in data units
        base = self.scatters_ / (n + 1)[:, None, None] + ridge * np.eye(d)  # P_j (k, d, d)
        inverse = _symmetric_inverse(base)
        logdet = np.linalg.slogdet(base)[1]
        dev = candidates[:, None, :] - self.means_[None, :, :]  # (B, k, d)
        w = (np.sqrt(n) / (n + 1))[:, None] * dev
        u = np.einsum("jde,bje->bjd", inverse, w)
        s = _rank_one_denominators(w, u)
        A = inverse - u[..., :, None] * (u / s[..., None])[..., None, :]
        means = self.means_ + dev / (n + 1)[:, None]
        b = np.einsum("bjde,bje->bjd", A, means)
        c = -0.5 * np.einsum("bjd,bjd->bj", means, b) - 0.5 * (logdet + np.log(s))
        return A, b, c


class GaussianNaiveBayes(GaussianClassifier):
    r"""Gaussian naive Bayes: per-class diagonal :math:`\Sigma_j = \mathrm{diag}(S_j) / n_j + \text{reg}`.

    Parameters
    ----------
    reg : float, default 1e-3
        Added to every variance.

    Examples
    --------
    Fitted on 20 points of Four-Gaussian; its retrained models' losses equal plain refits:

    >>> import numpy as np
    >>> from mri_theory.classifiers import GaussianNaiveBayes
    >>> from mri_theory.engine import Population, refit_future_losses
    >>> from mri_theory.problems import get_problem
    >>> problem, rng = get_problem("four-gaussian"), np.random.default_rng(0)
    >>> X, y = problem.sample(20, rng)
    >>> model = GaussianNaiveBayes().fit(X, y)
    >>> model.predict_proba(X[:2]).round(4).tolist()
    [[0.0294, 0.9706], [0.8029, 0.1971]]
    >>> population, candidates = Population.from_problem(problem, 2000, rng), problem.sample(4, rng)[0]
    >>> current, future = model.retraining_losses(candidates, population, "error")  # the fast path: no refit
    >>> refit = refit_future_losses(model, candidates, population, "error")  # one refit per candidate and class
    >>> future.shape, bool(np.allclose(future, refit, rtol=0, atol=1e-12))
    ((4, 2), True)

    Without the ridge it is scikit-learn's Gaussian naive Bayes without its variance smoothing:

    >>> from sklearn.naive_bayes import GaussianNB
    >>> theirs = GaussianNB(var_smoothing=0.0).fit(X, y).predict_proba(X)
    >>> bool(np.allclose(GaussianNaiveBayes(reg=1e-12).fit(X, y).predict_proba(X), theirs, rtol=0, atol=1e-8))
    True
    """

    name = "nb"

    def __init__(self, reg: float = 1e-3) -> None:
        check.positive_scalar(reg, "reg")
        self.reg = reg

    _per_class_terms = True
    _quadratic_form = "diagonal"

    def _class_terms(self, counts, means, scatters):
        d = means.shape[-1]
        ridge = self.reg / self.scale_**2  # reg is in data units
        var = np.diagonal(scatters, axis1=-2, axis2=-1) / np.maximum(counts, 1)[..., None] + ridge
        precision = 1.0 / var  # the diagonal covariance's inverse, entry by entry (no O(d^3) inversion)
        b = precision * means
        c = -0.5 * np.einsum("...i,...i->...", means, b) - 0.5 * np.sum(np.log(var), axis=-1)
        return precision[..., :, None] * np.eye(d), b, c


class GaussianMeanClassifier(GaussianClassifier):
    r"""The §3.2 mean classifier in ``d`` dimensions: estimates only the class means.

    It knows the true isotropic sd ``sigma`` and prior, so
    :math:`\hat p_j(x) \propto \pi_j \exp(-|x - m_j|^2 / 2\sigma^2)`; a class
    with no training point gets probability 0.  In one dimension with two
    classes it is :class:`mri_theory.analytic.two_gaussians.MeanClassifier`.

    Parameters
    ----------
    sigma : float, default 1
    prior : sequence of float, optional
        Known class prior (default uniform over the fitted classes).

    See Also
    --------
    mri_theory.analytic.MeanClassifier : Its one-dimensional closed forms (§3.2).

    Examples
    --------
    The §3.2 classifier (only the class means are estimated) on 20 points of Four-Gaussian; fast path against
    refits:

    >>> import numpy as np
    >>> from mri_theory.classifiers import GaussianMeanClassifier
    >>> from mri_theory.engine import Population, refit_future_losses
    >>> from mri_theory.problems import get_problem
    >>> problem, rng = get_problem("four-gaussian"), np.random.default_rng(0)
    >>> X, y = problem.sample(20, rng)
    >>> model = GaussianMeanClassifier(sigma=0.5).fit(X, y)
    >>> model.predict_proba(X[:2]).round(4).tolist()
    [[0.5718, 0.4282], [0.6628, 0.3372]]
    >>> population, candidates = Population.from_problem(problem, 2000, rng), problem.sample(4, rng)[0]
    >>> current, future = model.retraining_losses(candidates, population, "error")  # the fast path: no refit
    >>> refit = refit_future_losses(model, candidates, population, "error")  # one refit per candidate and class
    >>> future.shape, bool(np.allclose(future, refit, rtol=0, atol=1e-12))
    ((4, 2), True)
    """

    name = "mean"
    _quadratic_form = "none"  # A = 0

    def __init__(self, sigma: float = 1.0, prior: Sequence[float] | None = None) -> None:
        check.positive_scalar(sigma, "sigma")
        if prior is not None:
            check.probability_vector(prior, "prior")
        self.sigma = sigma
        self.prior = prior

    def _fit(self, X: np.ndarray, y: np.ndarray) -> None:
        k = self.n_classes_
        self.prior_ = np.full(k, 1.0 / k) if self.prior is None else check.probability_vector(self.prior, "prior")
        if self.prior_.size != k:
            raise ValueError(f"prior has {self.prior_.size} entries but n_classes is {k}")
        super()._fit(X, y)

    def _check_parameters_in_frame(self) -> None:
        if not 1 / MAX_SPREAD <= self.sigma / self.scale_ <= MAX_SPREAD:
            raise ValueError(f"sigma: sigma / spread = {self.sigma / self.scale_:.3g} for the training points' "
                             f"spread {self.scale_:.3g}; it must lie in [{1 / MAX_SPREAD:g}, {MAX_SPREAD:g}] (sigma "
                             "is in data units: scale it with the data)")

    def _coefficients(self, counts, means, scatters):
        d = means.shape[-1]
        b = means / (self.sigma / self.scale_)**2  # sigma is in data units
        c = -0.5 * np.sum(means * b, axis=-1) + np.log(self.prior_)
        return np.zeros(means.shape[:-1] + (d, d)), b, np.broadcast_to(c, counts.shape)
