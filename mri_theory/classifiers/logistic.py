r"""Multinomial logistic regression with our own Newton solver and a batched retraining path.

**Model.**  For the classes :math:`S` present in the training data
(:math:`q = |S|`), class scores are linear, :math:`s_j(x) = w_j^T x + b_j`,
and :math:`\hat p_j(x) = e^{s_j(x)} / \sum_{l \in S} e^{s_l(x)}` (softmax; two
classes are the 2-class case).  The parameters minimise the *mean* log loss
plus a ridge on the weights (the paper's Appendix C uses Weka's ``Logistic``,
a ridge-penalised multinomial logistic regression):

.. math::
    F(W, b) = \frac1n \sum_{i=1}^n -\ln \hat p_{y_i}(x_i)
              + \frac{1}{2 C n} \sum_{j \in S} \lVert w_j \rVert^2 ,

i.e. :math:`n F = \sum_i -\ln \hat p_{y_i}(x_i) + \lVert W \rVert^2 / (2C)`,
which has the minimiser of scikit-learn's multinomial
``C * sum(log loss) + ||W||^2 / 2`` with the same ``C``.  All ``q`` weight
vectors are penalised (symmetric: at the optimum :math:`\sum_j w_j = 0`),
intercepts are not; since the probabilities are unchanged by a common shift
of the intercepts, the intercept of the first present class is fixed at 0 (so
the Hessian is positive definite and the optimum unique).  A class absent
from the training data gets probability 0; a single present class gets
probability 1.

**Relation to Weka and the default** ``C``.  Weka's ``Logistic`` minimises
:math:`-\sum_i \ln \hat p_{y_i} + r \sum_{j<k} \lVert \beta_j \rVert^2` with
``k - 1`` weight vectors relative to the last class, on standardised inputs,
ridge :math:`r = 10^{-8}`.  With two classes :math:`\beta = w_1 - w_0 = 2 w_1`
and :math:`\lVert W \rVert^2 = \lVert \beta \rVert^2 / 2`, so Weka's ridge is
``C = 1 / (4 r)`` here: ``C = 2.5e7`` for the paper's setting (in
standardised units).  That ridge is unusable on the data an AL curve starts
from: with one point per class the data are separable and the weights grow
until the ridge stops them (:math:`|\beta| \approx \ln C` over the points'
distance), the training predictions are 0 or 1 to ~1e-6, the objective is
nearly flat at its optimum (every Hessian eigenvalue is of order ``1 / C``:
the data term :math:`\hat p (1 - \hat p)` is as small as the ridge), so a
gradient tolerance pins the parameters down poorly, Newton needs ~20 steps,
a refit and the fast path agree only to ~1e-5 in log loss, and the population
log loss is much worse (overconfident).  ``benchmarks/bench_logistic.py
--default-c`` measures this for ``C`` from 1 to 2.5e7 on Four-Gaussian and
Three-Gaussians (``|D| = 2 ... 60``): ``C = 10`` has a population log loss
within 0.03 of the best ``C`` at every size on both, at most 9 Newton steps,
and fast path and refit agree to 1e-14, so it is the default.  The penalty is
in the data's units (not standardised; the problems here have O(1)
coordinates).  This is a deviation from the paper (Appendix C: Weka's
``Logistic`` with its default ridge), documented here and in the README.

**Solver.**  Damped Newton: the Newton direction from ``np.linalg.solve``,
a backtracking (Armijo) line search on :math:`F`, the full step once the
Newton decrement is below ``1e-12`` times :math:`F` (the quadratic region,
where rounding makes the Armijo test meaningless).  Converged when
:math:`\max |\nabla F| \le 10^{-10}` (the mean-form gradient, so the
criterion does not grow with ``n``; in the internal frame below, where
features are O(1)) *and* the Newton step is at most ``1e-8`` of
``max(1, max |parameter|)``, or no longer shrinks after a full step (its
rounding floor); one more full Newton step is then taken, which in the
quadratic region brings the parameters to rounding accuracy, so two solves of
the same problem from different starting points (a refit and the fast path)
agree far below the tolerance.  The step condition matters when the ridge is
weak in the frame (``C s^2`` large, below): the objective is then so flat
that its gradient is below ``1e-10`` long before the optimum.  The losses,
residuals and Hessian blocks are formed without cancellation (``_Fit``),
so they keep their relative accuracy when the training probabilities are
within 1e-13 of 0 or 1; and the weights' sum over the classes, which the
probabilities do not see and which is 0 at the optimum, is kept at 0 (the
gradient and the step are projected), so rounding in that direction, where the
only curvature is the ridge, cannot stall the solver.  Starting point: zero
weights and the log class frequencies as intercepts.  More than ``max_iter``
Newton steps raise ``RuntimeError``.  Everything is plain numpy:
deterministic.

**Internal frame.**  The fit runs in the coordinates :math:`z = (x - o)/s` of
``mri_theory.classifiers.gaussian.reference_frame`` (origin near the data
mean, scale a power of two), which conditions the Hessian for data far from
the origin or of extreme scale.  It is exactly the same model: the intercepts
absorb the shift, and the ridge becomes :math:`\lVert W_z \rVert^2 / (2 C s^2)`
on the frame weights :math:`W_z = s W` (a power of two: exact).

**Scale.**  The frame does not change the model's definition: ``C`` is in
the data's units.  So the model is translation invariant, and scale
*equivariant*: fitted on :math:`a x + t` with ``C / a**2`` it gives, at
:math:`a q + t`, the probabilities of the model fitted on :math:`x` with
``C`` at :math:`q` (tests: to 1e-9 for shifts up to 1e6 and scales 1e-6 to
1e6; the fast path equals the refit to 1e-9 there too).  A fixed ``C`` on
data of growing scale is a weaker and weaker ridge, :math:`1 / (C s^2)` in
the frame: when some classes are separable the weights then grow until only
that ridge stops them, the objective's curvature is of the ridge's size, and
the optimum is determined in double precision only to about
:math:`10^{-18} C s^2` (relative; measured on three Gaussians: fast path
and refit 2e-10 apart at ``C s^2 = 4e8``, 2e-6 at ``4e12``, 2e-2 at
``4e13``).  ``fit`` therefore refuses (``ValueError`` naming ``C``) a ridge
below :data:`RIDGE_FLOOR` ``= 1e-12`` in the frame, i.e. ``C s^2 > 1e12``
(the default ``C = 10`` accepts data spreads below :math:`2^{19} \approx
5.2 \cdot 10^5`), and a ``C`` whose ridge overflows; the fast path and the refit agree to 1e-9 while
``C s^2 <= 1e9``.  Coordinates beyond ``1e150`` are refused
(``mri_theory.classifiers._frame``).  A penalty on standardised weights
(Weka's, ``mri-paper.tex`` line 1406) would make every ``C`` scale
invariant, but it is a different model from the one the figures use.

**Fast retraining path.**  The ``m x k`` retrained models, each on the data
plus one (candidate, class), are solved together: every problem whose set of
present classes is the current one starts from the current solution (a single
added point moves the optimum little: a few Newton steps); problems whose
added class is absent from the current data have one class more and are
solved in a second batch from the refit's own starting point (exact, same
solver).  The solver is written for exactly this shape of batch: ``B``
problems sharing the ``n`` current points, each with one extra point, so the
per-model logits, gradients and Hessians (``(B, q p, q p)``, solved in one
batched ``np.linalg.solve``) come from single matrix products over the shared
points; a refit is the case ``B = 1`` (shared points: all but the last).
All models are then scored on the population in the current frame (points on
the last axis, chunked) as in :func:`mri_theory.engine.losses.pointwise_loss_from_scores`;
with two classes the weighted sums are formed directly from the log-odds
:math:`s` (error: :math:`\sum_i w_i r_{i1} + [s_i > t] \cdot w_i (r_{i0} - r_{i1})`, ``t = TIE_LOG_ODDS``
of :mod:`mri_theory.engine.losses`;
log loss: :math:`\sum_i w_i (\ln(1 + e^{s_i}) - r_{i1} s_i)` while
:math:`|s| \le 30`, so no probability reaches the log-loss floor), in place
and in cache-sized chunks, avoiding the slow ``np.logaddexp``: the population
pass is several times faster.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from mri_theory._utils import validation as check
from mri_theory.classifiers._frame import check_magnitude
from mri_theory.classifiers.gaussian import reference_frame
from mri_theory.engine.contract import Classifier, check_points, check_retraining_args
from mri_theory.engine.exact import MixtureTruth, rule_losses
from mri_theory.engine.losses import TIE_LOG_ODDS, pointwise_loss_from_scores
from mri_theory.engine.population import ExactPopulation, Population

__all__ = ["GRADIENT_TOLERANCE", "RIDGE_FLOOR", "STEP_TOLERANCE", "LogisticRegression"]

#: Convergence: largest absolute entry of the mean-form gradient (internal frame).
GRADIENT_TOLERANCE = 1e-10
#: Smallest ridge :math:`1 / (C s^2)` on the weights in the frame of scale ``s`` that ``fit`` accepts.
RIDGE_FLOOR = 1e-12
#: Convergence, also required: largest Newton step entry relative to ``max(1, largest parameter)`` (frame).
STEP_TOLERANCE = 1e-8

_ARMIJO = 1e-4  # sufficient-decrease constant of the line search
_DECREMENT_FLOOR = 1e-12  # Newton decrement, relative to the objective, below which the full step is taken
_MAX_HALVINGS = 60
_SOLVE_CELLS = 2**20  # largest solver temporary, training points x models x classes^2
_SCORE_CELLS = 2**17  # models x population points x classes scored at once (cache-sized: much faster)
_UNCAPPED_LOG_ODDS = 30.0  # below this |log-odds| no probability is under the log-loss floor 1e-15


def _with_ones(Z: np.ndarray) -> np.ndarray:
    """Features with a trailing 1 (the intercept column): ``(..., d) -> (..., d + 1)``."""
    return np.concatenate([Z, np.ones(Z.shape[:-1] + (1,))], axis=-1)


def _class_max(S: np.ndarray) -> np.ndarray:
    """Maximum over the first (class) axis."""
    top = S[0]
    for j in range(1, S.shape[0]):
        top = np.maximum(top, S[j])
    return top


def _softmax(S: np.ndarray) -> np.ndarray:
    """Softmax over the first (class) axis; ``-inf`` scores give 0."""
    e = np.exp(S - _class_max(S))
    return e / np.sum(e, axis=0)


def _class_sum(W: np.ndarray, V: np.ndarray) -> np.ndarray:
    """``sum_j W[j] * V[j]`` over the first (class) axis, broadcasting the rest."""
    out = W[0] * V[0]
    for j in range(1, V.shape[0]):
        out += W[j] * V[j]
    return out


class _Fit:
    r"""Per-point quantities of the log loss at logits ``S`` (class axis first) with one-hot labels ``Y``.

    Every quantity is formed without subtracting nearly equal numbers, so it
    keeps its *relative* accuracy when the model is confident (the training
    probabilities within 1e-13 of 0 or 1, which happens whenever the ridge is
    weak in the frame: ``C`` large or the data's scale large):
    with :math:`e_l = e^{S_l - \max S}` and :math:`o = \sum_{l \ne y} e_l`
    (the other classes' share, a masked sum), the loss is
    :math:`-\ln \hat p_y = (\max S - S_y) + \operatorname{log1p}(e_y - 1 + o)`,
    the residual :math:`\hat p - e_y` has entry :math:`-o / \sum e` for the
    label (not :math:`\hat p_y - 1`), and the Hessian block
    :math:`\operatorname{diag} \hat p - \hat p \hat p^T` has diagonal
    :math:`\hat p_j \sum_{l \ne j} \hat p_l` (not :math:`\hat p_j - \hat p_j^2`).
    """

    def __init__(self, S: np.ndarray, Y: np.ndarray, not_Y: np.ndarray) -> None:
        self.S, self.Y, self.not_Y, self.top = S, Y, not_Y, _class_max(S)
        self.E = np.exp(S - self.top)
        self.e_label, self.others = _class_sum(Y, self.E), _class_sum(not_Y, self.E)  # masks of 0 and 1: exact
        self.total = self.e_label + self.others

    def nll(self) -> np.ndarray:
        r""":math:`-\ln \hat p_y` per point."""
        return (self.top - _class_sum(self.Y, self.S)) + np.log1p((self.e_label - 1.0) + self.others)

    def residual(self) -> np.ndarray:
        r""":math:`\hat p - e_y`, class axis first."""
        return (self.E * self.not_Y - self.Y * self.others) / self.total

    def curvature(self) -> np.ndarray:
        r""":math:`\operatorname{diag} \hat p - \hat p \hat p^T` per point: ``(q, q, ...)``."""
        q = self.E.shape[0]
        P = self.E / self.total
        A = -P[:, None] * P[None, :]
        for j in range(q):
            A[j, j] = P[j] * (sum(self.E[other] for other in range(q) if other != j) / self.total)
        return A


class _Problems:
    """``B`` logistic problems: ``n`` shared points plus one extra point each.

    ``Z0 (n, p)``, ``Y0 (n, q)``: shared features (with the intercept column)
    and one-hot labels; ``z1 (B, p)``, ``Y1 (B, q)``: the extra points.
    ``ridge`` is the penalty on the weights (module notes).  Internally the
    class axis comes first and the models last, so every elementwise pass runs
    over long contiguous rows.
    """

    def __init__(self, Z0: np.ndarray, Y0: np.ndarray, z1: np.ndarray, Y1: np.ndarray, ridge: float) -> None:
        self.Z0, self.Y0, self.z1, self.Y1, self.ridge = Z0, Y0, z1, Y1, ridge
        p = Z0.shape[1]
        self.ZZ0 = (Z0[:, :, None] * Z0[:, None, :]).reshape(-1, p * p)
        self.N = Z0.shape[0] + 1
        self.Y0T = np.ascontiguousarray(self.Y0.T)[:, :, None]  # (q, n, 1): broadcasts over the models
        self.not_Y0T = 1.0 - self.Y0T

    def _fit0(self, S0: np.ndarray) -> _Fit:
        return _Fit(S0, self.Y0T, self.not_Y0T)

    def _fit1(self, S1: np.ndarray, rows: np.ndarray) -> _Fit:
        Y1 = self.Y1[rows].T
        return _Fit(S1, Y1, 1.0 - Y1)

    def starting_point(self) -> np.ndarray:
        """Zero weights, log class frequencies relative to the first class as intercepts: ``(B, q, p)``."""
        counts = self.Y0.sum(axis=0) + self.Y1  # (B, q): every class present
        theta = np.zeros(counts.shape + (self.Z0.shape[1],))
        theta[..., -1] = np.log(counts / counts[:, :1])
        return theta

    def _logits(self, theta: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Logits ``(q, n, b)`` on the shared points and ``(q, b)`` on the extra points of problems ``rows``."""
        return self.Z0 @ theta.transpose(1, 2, 0), np.einsum("bp,bqp->qb", self.z1[rows], theta)

    def objective(self, theta: np.ndarray, rows: np.ndarray) -> np.ndarray:
        r"""Mean-form objective :math:`F` of problems ``rows`` at ``theta (b, q, p)``: ``(b,)``."""
        S0, S1 = self._logits(theta, rows)
        nll = np.sum(self._fit0(S0).nll(), axis=0) + self._fit1(S1, rows).nll()
        weights = theta[..., :-1]
        return (nll + 0.5 * self.ridge * np.einsum("bqd,bqd->b", weights, weights)) / self.N

    def gradient_hessian(self, theta: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        r"""Mean-form gradient ``(b, q p)`` and Hessian ``(b, q p, q p)`` of problems ``rows``.

        :math:`\nabla F = \frac1N [\sum_i (\hat p_i - e_{y_i}) \otimes z_i + \lambda W]`,
        :math:`H = \frac1N [\sum_i (\mathrm{diag}\,\hat p_i - \hat p_i \hat p_i^T) \otimes z_i z_i^T + \lambda I_W]`,
        with the reference intercept (entry ``p - 1``) pinned: its gradient is 0
        and its Hessian row and column those of the identity, so its Newton
        step is 0.
        """
        b, q, p = theta.shape
        S0, S1 = self._logits(theta, rows)
        fit0, fit1 = self._fit0(S0), self._fit1(S1, rows)  # (q, n, b), (q, b)
        z1 = self.z1[rows]
        grad = np.swapaxes(fit0.residual(), 1, 2) @ self.Z0  # (q, b, p)
        grad += fit1.residual()[:, :, None] * z1
        grad = grad.transpose(1, 0, 2)
        grad[..., :-1] += self.ridge * theta[..., :-1]
        grad[..., :-1] -= np.mean(grad[..., :-1], axis=1, keepdims=True)  # 0 in exact arithmetic (notes)
        A0 = fit0.curvature()  # (q, q, n, b): diag(p) - p p^T
        A1 = fit1.curvature()  # (q, q, b)
        H = np.swapaxes(A0.reshape(q * q, -1, b), 1, 2) @ self.ZZ0  # (q q, b, p p)
        H = H.reshape(q, q, b, p, p) + A1[..., None, None] * (z1[:, :, None] * z1[:, None, :])
        H = H.transpose(2, 0, 3, 1, 4).reshape(b, q * p, q * p)
        weights = np.ones((q, p), dtype=bool)
        weights[:, -1] = False
        H[:, weights.ravel(), weights.ravel()] += self.ridge
        grad = grad.reshape(b, q * p) / self.N
        H /= self.N
        grad[:, p - 1] = 0.0
        H[:, p - 1, :] = 0.0
        H[:, :, p - 1] = 0.0
        H[:, p - 1, p - 1] = 1.0
        return grad, H

    def solve(self, theta: np.ndarray, max_iter: int) -> tuple[np.ndarray, int]:
        """Minimise every problem by damped Newton from ``theta (B, q, p)`` (module notes).

        The reference intercepts ``theta[:, 0, -1]`` must be 0.  Each problem
        stops on its own once converged; returns the solutions and the number
        of Newton steps of the slowest.
        """
        theta = theta.copy()
        q, p = theta.shape[1:]
        active = np.arange(theta.shape[0])
        value = self.objective(theta, active)
        previous = np.full(theta.shape[0], np.inf)  # relative size of the last full Newton step
        iteration = 0
        while True:
            grad, H = self.gradient_hessian(theta[active], active)
            try:
                step = -np.linalg.solve(H, grad[..., None])[..., 0]
            except np.linalg.LinAlgError:
                step = np.full_like(grad, np.nan)
            if not np.all(np.isfinite(step)):
                raise RuntimeError("LogisticRegression: the Newton system is numerically singular (the ridge "
                                   "1 / (C s^2) is negligible in the frame of scale s); decrease C")
            step = step.reshape(-1, q, p)
            step[..., :-1] -= np.mean(step[..., :-1], axis=1, keepdims=True)  # weights keep summing to 0
            decrement = -np.einsum("bi,bi->b", grad, step.reshape(-1, q * p))
            size = np.maximum(1.0, np.max(np.abs(theta[active]), axis=(1, 2)))
            relative = np.max(np.abs(step), axis=(1, 2)) / size
            # small enough, or no longer shrinking after a full step: rounding noise (module notes)
            converged = ((np.max(np.abs(grad), axis=1) <= GRADIENT_TOLERANCE)
                         & ((relative <= STEP_TOLERANCE) | (relative > 0.5 * previous[active])))
            if iteration == max_iter and not np.all(converged):
                raise RuntimeError(
                    f"LogisticRegression: Newton did not converge in max_iter={max_iter} steps (largest "
                    f"|gradient| {np.max(np.abs(grad)):.3g}, tolerance {GRADIENT_TOLERANCE}; largest relative "
                    f"step {np.max(relative):.3g}, tolerance "
                    f"{STEP_TOLERANCE}); increase max_iter or decrease C")
            # converged ones take a last, polishing step; so do those where the Armijo test is rounding
            full = converged | (decrement <= _DECREMENT_FLOOR * value[active])
            previous[active] = np.where(full, relative, np.inf)
            theta[active[full]] += step[full]
            value[active[full]] = np.nan  # recomputed below for those still active
            searching = np.flatnonzero(~full)
            t = 1.0
            for _ in range(_MAX_HALVINGS):
                if searching.size == 0:
                    break
                rows = active[searching]
                trial = theta[rows] + t * step[searching]
                trial_value = self.objective(trial, rows)
                ok = trial_value <= value[rows] - _ARMIJO * t * decrement[searching]
                theta[rows[ok]], value[rows[ok]] = trial[ok], trial_value[ok]
                searching = searching[~ok]
                t *= 0.5
            if searching.size:
                raise RuntimeError("LogisticRegression: the Newton line search failed; decrease C")
            active = active[~converged]
            iteration += 1
            if active.size == 0:
                return theta, iteration
            stale = active[np.isnan(value[active])]
            if stale.size:
                value[stale] = self.objective(theta[stale], stale)


def _weighted_losses(scores: np.ndarray, population: Population, loss: str) -> np.ndarray:
    """Weighted mean loss of each model from its scores: ``(B,)``.

    The values of ``pointwise_loss_from_scores(population.proba, scores, loss) @ population.weights``
    (scores laid out as there, log-odds for two classes), the two-class sums
    formed directly (module notes).
    """
    w, r = population.weights, population.proba
    if population.n_classes > 2:
        return pointwise_loss_from_scores(r, scores, loss) @ w
    if loss == "error":  # predicting class 1 (s > TIE_LOG_ODDS) errs with probability r_0, class 0 with r_1
        return (scores > TIE_LOG_ODDS) @ (w * (r[:, 0] - r[:, 1])) + w @ r[:, 1]
    if loss == "lc":  # 1 - max p = 1 / (1 + e^|s|)
        e = np.abs(scores)
        with np.errstate(over="ignore"):
            np.exp(e, out=e)
        e += 1.0
        return np.reciprocal(e, out=e) @ w
    if not (np.max(scores) <= _UNCAPPED_LOG_ODDS and np.min(scores) >= -_UNCAPPED_LOG_ODDS):
        return pointwise_loss_from_scores(r, scores, loss, log_odds=True) @ w  # the floor may apply
    e = np.exp(scores)  # -ln p_0 = softplus(s) = ln(1 + e^s) (absolute error ~1e-16 for |s| <= 30)
    e += 1.0
    return np.log(e, out=e) @ w - scores @ (w * r[:, 1])  # -ln p_1 = softplus(s) - s


class LogisticRegression(Classifier):
    r"""Multinomial logistic regression, ridge on the weights; own Newton solver and fast retraining path.

    Minimises :math:`\frac1n \sum_i -\ln \hat p_{y_i}(x_i) + \lVert W \rVert^2 / (2 C n)`
    over the present classes (symmetric weights, intercepts unpenalised, the
    first present class's intercept fixed at 0); see the module notes for the
    solver, the relation to Weka's ridge (``C = 1 / (4 r)`` for two classes:
    the paper's ``r = 1e-8`` is ``C = 2.5e7``) and the default.  scikit-learn's
    ``LogisticRegression(C=C)`` is the same model with three or more classes;
    with two it fits the single vector :math:`w_1 - w_0`, so ``C_sk = 2 C``.

    Deviation from the paper (Appendix C, ``mri-paper.tex`` line 1406: Weka's
    ``Logistic`` with its default ridge 1e-8, i.e. ``C = 2.5e7`` in
    standardised units): the default is ``C = 10`` in the data's units, which
    keeps the fit on separable data (the first steps of every AL curve)
    moderately confident, quickly solved and reproducible to 1e-14 (measured:
    ``benchmarks/bench_logistic.py --default-c``).  Being in data units, it is
    not scale invariant (Weka's penalty on standardised inputs is): on data
    scaled by ``a`` the same model is ``C / a**2``, and ``fit`` refuses a
    ``C`` whose ridge in the frame, :math:`1 / (C s^2)`, is below ``1e-12``
    (module notes, "Scale").

    Parameters
    ----------
    C : float, default 10
        Inverse ridge strength, as scikit-learn's multinomial ``C`` (``> 0``),
        in the data's units; ``fit`` requires the ridge in the frame,
        :math:`1/(C s^2)` with ``s`` the frame's scale (the data's spread
        rounded down to a power of two), to be finite and at least ``1e-12``
        (module notes, "Scale").
    max_iter : int, default 100
        Newton steps per fit before ``RuntimeError``.

    Attributes
    ----------
    coef_ : ndarray (k, d)
        Weights in data units (0 for absent classes).
    intercept_ : ndarray (k,)
        Intercepts in data units, 0 for the first present class, ``-inf`` for
        absent classes (so the softmax of ``X @ coef_.T + intercept_`` is
        :meth:`~mri_theory.classifiers.Classifier.predict_proba`).
    present_ : ndarray of int
        The classes present in the training data (sorted).
    n_iter_ : int
        Newton steps of the fit (0 with fewer than two present classes).
    """

    name = "logreg"

    exact_truth = True

    def __init__(self, C: float = 10.0, max_iter: int = 100) -> None:
        check.positive_scalar(C, "C")
        check.count(max_iter, "max_iter")
        self.C = C
        self.max_iter = max_iter

    def _ridge(self) -> float:
        """The ridge on the frame weights: :math:`1 / (C s^2)` (module notes)."""
        return 1.0 / (self.C * self.scale_**2)

    def _to_frame(self, X: np.ndarray) -> np.ndarray:
        return _with_ones((X - self.origin_) / self.scale_)

    def fit(self, X: ArrayLike, y: ArrayLike, n_classes: int | None = None) -> LogisticRegression:
        """Fit on labelled data (:meth:`Classifier.fit`).

        Refused before any work (``ValueError``): coordinates beyond ``1e150``
        (``mri_theory.classifiers._frame``), and a ``C`` so large for the
        data's scale that the ridge in the frame, :math:`1 / (C s^2)`, is
        below ``1e-12`` (class notes, "Scale").
        """
        points = check_magnitude(check_points(X, min_rows=1), "X")
        scale = reference_frame(points)[1]
        C = check.positive_scalar(self.C, "C")
        with np.errstate(over="ignore", divide="ignore"):
            ridge = 1.0 / (np.float64(C) * scale**2)
        if not np.isfinite(ridge):
            raise ValueError(f"C={self.C!r} is too small for data of this scale (spread s = {scale:.3g}): the ridge "
                             f"1 / (C s^2) on the weights overflows; pass a larger C or rescale the data")
        if ridge < RIDGE_FLOOR:
            raise ValueError(
                f"C={self.C!r} is too large for data of this scale: the ridge on the weights in units of the "
                f"data's spread s = {scale:.3g} is 1 / (C s^2) = {ridge:.2g}, below {RIDGE_FLOOR:.0e}, "
                f"where the optimum is not determined in double precision; "
                f"pass C <= {1.0 / (RIDGE_FLOOR * scale**2):.3g} "
                f"(on data of scale s, C / s**2 is the model that C is on the data divided by s)")
        return super().fit(X, y, n_classes)

    def _fit(self, X: np.ndarray, y: np.ndarray) -> None:
        self.origin_, self.scale_ = reference_frame(X)
        self.present_ = np.unique(y)
        q = self.present_.size
        theta, self.n_iter_ = np.zeros((1, q, self.dim_ + 1)), 0
        if q > 1:  # the B = 1 case of the batch solver: shared points all but the last
            Z, Y = self._to_frame(X), (y[:, None] == self.present_).astype(float)
            problems = _Problems(Z[:-1], Y[:-1], Z[-1:], Y[-1:], self._ridge())
            theta, self.n_iter_ = problems.solve(problems.starting_point(), self.max_iter)
        self.theta_ = theta[0]  # (q, d + 1), frame coordinates
        coef = self.theta_[:, :-1] / self.scale_
        intercept = self.theta_[:, -1] - coef @ self.origin_
        self.coef_ = np.zeros((self.n_classes_, self.dim_))
        self.coef_[self.present_] = coef
        self.intercept_ = np.full(self.n_classes_, -np.inf)
        self.intercept_[self.present_] = intercept - intercept[0]

    def _predict_proba(self, X: np.ndarray) -> np.ndarray:
        check_magnitude(X, "X")
        scores = np.full((self.n_classes_, X.shape[0]), -np.inf)
        scores[self.present_] = self.theta_ @ self._to_frame(X).T
        return _softmax(scores).T

    def _exact_losses(self, truth: MixtureTruth, theta: np.ndarray, present: np.ndarray, loss: str) -> np.ndarray:
        """Exact losses of models ``theta (B, q, p)`` (frame parameters of the classes ``present``) under ``truth``.

        Linear scores: :math:`A_j = 0`, :math:`b_j` the weights, :math:`c_j` the intercept, in the frame
        (the truth mapped into it); absent classes masked; the log loss floored as the engine's.
        """
        B, q, p = theta.shape
        k, d = self.n_classes_, p - 1
        b, c = np.zeros((B, k, d)), np.zeros((B, k))
        mask = np.zeros((B, k), dtype=bool)
        b[:, present], c[:, present], mask[:, present] = theta[..., :-1], theta[..., -1], True
        return rule_losses(truth.in_frame(self.origin_, self.scale_), np.zeros((B, k, d, d)), b, c, mask, loss)

    def exact_loss(self, truth: MixtureTruth, loss: str) -> float:
        """The exact loss under a Gaussian-mixture truth: the scores are linear (:mod:`mri_theory.engine.exact`)."""
        self._check_fitted()
        return float(self._exact_losses(truth, self.theta_[None], self.present_, loss)[0])

    def _retrained(self, candidates: np.ndarray, labels: np.ndarray, present: np.ndarray,
                   warm: bool) -> np.ndarray:
        """Frame parameters ``(B, q, p)`` of the models on the data plus ``(candidates[b], labels[b])``.

        ``present`` (sorted) is the set of classes of every one of these
        problems; ``warm`` starts from the current solution (same present set).
        """
        q, p = present.size, self.dim_ + 1
        if q == 1:
            return np.zeros((candidates.shape[0], 1, p))
        Z0, Y0 = self._to_frame(self.X_train_), (self.y_train_[:, None] == present).astype(float)
        z1, Y1 = self._to_frame(candidates), (labels[:, None] == present).astype(float)
        chunk = max(1, _SOLVE_CELLS // (Z0.shape[0] * q * q))
        out = []
        for start in range(0, z1.shape[0], chunk):
            problems = _Problems(Z0, Y0, z1[start:start + chunk], Y1[start:start + chunk], self._ridge())
            theta = (np.broadcast_to(self.theta_, (problems.z1.shape[0], q, p)) if warm
                     else problems.starting_point())
            out.append(problems.solve(theta, self.max_iter)[0])
        return np.concatenate(out)

    def _scores(self, theta: np.ndarray, present: np.ndarray, phi_t: np.ndarray) -> np.ndarray:
        """Scores of models ``theta (B, q, p)`` on points ``phi_t (p, n)``, points last.

        Two classes: log-odds ``(B, n)`` (``±inf`` with one class present);
        otherwise ``(B, k, n)`` with ``-inf`` rows for absent classes.
        """
        B, q, p = theta.shape
        k = self.n_classes_
        if k == 2:
            if q == 1:
                return np.full((B, phi_t.shape[1]), np.inf if present[0] == 1 else -np.inf)
            return (theta[:, 1] - theta[:, 0]) @ phi_t
        scores = np.full((B, k, phi_t.shape[1]), -np.inf)
        scores[:, present] = (theta.reshape(B * q, p) @ phi_t).reshape(B, q, -1)
        return scores

    def retraining_losses(self, candidates: np.ndarray, population: Population | ExactPopulation,
                          loss: str) -> tuple[float, np.ndarray]:
        """Fast path: all retrained models solved by batched Newton, scored in one pass (module notes).

        Agrees with the refit per (candidate, class) to the solver's accuracy
        (the tests hold the log loss to 1e-9).
        """
        candidates, population, loss = check_retraining_args(self, candidates, population, loss)
        check_magnitude(candidates, "candidates")
        if not isinstance(population, ExactPopulation):
            check_magnitude(population.X, "population")
        k, m = self.n_classes_, candidates.shape[0]
        rows = np.arange(m)
        groups = []  # (present classes, [(class, index of its models in theta)], theta)
        same = self.present_
        labels = np.repeat(same, m)
        theta = self._retrained(np.tile(candidates, (same.size, 1)), labels, same, warm=True)
        groups.append((same, [(j, rows + t * m) for t, j in enumerate(same)], theta))
        for j in np.setdiff1d(np.arange(k), same):
            present = np.union1d(same, [j])
            theta = self._retrained(candidates, np.full(m, j), present, warm=False)
            groups.append((present, [(j, rows)], theta))
        out = np.empty((m, k))
        if isinstance(population, ExactPopulation):  # every retrained linear rule integrated exactly
            for present, members, theta in groups:
                values = self._exact_losses(population.truth, theta, present, loss)
                for j, index in members:
                    out[:, j] = values[index]
            return population.loss(self, loss), out
        phi_t = np.ascontiguousarray(self._to_frame(population.X).T)
        chunk = max(1, _SCORE_CELLS // (population.size * k))
        for present, members, theta in groups:
            values = np.empty(theta.shape[0])
            for start in range(0, theta.shape[0], chunk):
                scores = self._scores(theta[start:start + chunk], present, phi_t)
                values[start:start + chunk] = _weighted_losses(scores, population, loss)
            for j, index in members:
                out[:, j] = values[index]
        return population.loss(self, loss), out
