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

**Solver.**  Damped Newton: the Newton direction from the *reduced* Newton
system (below), a backtracking (Armijo) line search on :math:`F`, the full step once the Newton decrement is below
``1e-12`` times :math:`F` (the quadratic region, where rounding makes the
Armijo test meaningless).  Converged when
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
residuals and Hessian blocks are formed without cancellation (``_newton_rows``;
with two classes from the log-odds of the label, one exponential per point),
so they keep their relative accuracy when the training probabilities are
within 1e-13 of 0 or 1; and the weights' sum over the classes, which the
probabilities do not see and which is 0 at the optimum, is kept at 0 (the
gradient and the step are projected), so rounding in that direction, where the
only curvature is the ridge, cannot stall the solver.  Starting point: zero
weights and the log class frequencies as intercepts.  More than ``max_iter``
Newton steps raise ``RuntimeError``.  The loop is compiled by numba
(``_newton_rows``, one problem after the other, ``fastmath`` off):
one pass over the points per Newton step forms the loss and the gradient and
Hessian sums together (with many features, where the curvature sums are most
of that pass, a trial point of the line search is evaluated for the loss
alone and the sums formed once it is accepted: the same values); repeated points (a
bootstrap resample has about a third) are merged into one point counted as
often; deterministic.  It replaced a batched numpy solver with the same
iteration (kept in the tests as a reference: the solutions agree to 1e-11 of
the parameters' size).

*The reduced Newton system.*  The Newton step of the ``q p`` parameters
lies where the weights sum to 0 over the classes and the pinned intercept
does not move (the ridge makes the weights' class sum of the step that of the
gradient, 0).  So the step is :math:`s = T u`: :math:`u` holds classes
``1 .. q-1`` (weights and intercepts), class 0's weights are
:math:`-\sum_j u_j` and its intercept step 0, and :math:`u` solves the
``(q - 1) p`` system :math:`T^T H T\, u = -T^T g`, the same step in exact
arithmetic (with two classes: the ``p x p`` system of the log-odds, a
quarter of the size).  It is symmetric positive definite while the ridge is:
solved by Cholesky, by Gaussian elimination with partial pivoting on it if a
pivot is not positive (singular: status 2, as before).  Against the
``q p`` system by elimination this is 16 times fewer operations with two
classes and 3.5 with six; with the loops written so that they vectorise
(unsigned loop bounds: no negative-index wraparound) one BMRI step (25
resamples, 100 candidates, the study's state) of logistic regression on
``sonar`` (d = 60, ``|D_S| = 26``) went from 12.9 s to 1.2 s, on ``glass``
(6 classes, ``|D_S| = 30``) from 4.7 s to 2.1 s
(``benchmarks/bench_small_real.py``).  The iterates differ from the
elimination's by rounding only (the tests hold the solutions to the reference
solver's to 1e-11; on those steps every problem took as many Newton steps as
before), and BMRI's scores are unchanged.

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
5.2 \cdot 10^5`), and a ridge above :data:`RIDGE_CEILING` ``= 1e12``, i.e. ``C s^2 < 1e-12``: there the
frame weights are of the order of the tie tolerance ``1e-12`` of :mod:`mri_theory.engine.losses`, so the
probabilities are tied at (nearly) every point, while the exact path (:mod:`mri_theory.engine.exact`) would
still split the plane by the sign of those rounding-level scores (issue 40: at scale ``1e-8`` with the default
``C``, an exact error rate of 0.16 for a model whose own predictions are all ties, error 0.5; the default
``C = 10`` accepts data spreads down to :math:`2^{-21} \approx 4.8 \cdot 10^{-7}`); the fast path and the refit
agree to 1e-9 (relative; the log losses differ by up to 5e-9 at ``C s^2 = 8e8``, with the numpy solver before as with
the compiled one) while ``C s^2 <= 1e9``.  Coordinates beyond ``1e150`` are refused
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
problems sharing the ``n`` current points, each with one extra point; when
they all start from the same parameters (the current solution, or the refit's
starting point with the same added class) the shared points' loss, gradient
and Hessian sums there are formed once, so every problem's first Newton step
costs one point, not ``n + 1`` (it is the closed-form one-step update of the
current solution); the later steps evaluate each problem in full.  A refit is
the case ``B = 1`` (shared points: all but the last).
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
from mri_theory.classifiers._compiled import on_first_call
from mri_theory.classifiers._frame import check_magnitude
from mri_theory.classifiers._repeats import distinct_rows
from mri_theory.classifiers.gaussian import reference_frame, retrained_scales
from mri_theory.engine.contract import Classifier, check_points
from mri_theory.engine.exact import MixtureTruth, rule_losses
from mri_theory.engine.losses import TIE_LOG_ODDS, pointwise_loss_from_scores
from mri_theory.engine.population import ExactPopulation, Population

__all__ = ["GRADIENT_TOLERANCE", "RIDGE_CEILING", "RIDGE_FLOOR", "STEP_TOLERANCE", "LogisticRegression"]

#: Convergence: largest absolute entry of the mean-form gradient (internal frame).
GRADIENT_TOLERANCE = 1e-10
#: Smallest ridge :math:`1 / (C s^2)` on the weights in the frame of scale ``s`` that ``fit`` accepts.
RIDGE_FLOOR = 1e-12
#: Largest ridge :math:`1 / (C s^2)` in the frame that ``fit`` accepts: beyond it the frame weights are within the
#: tie tolerance of 0 and every prediction is a tie (class notes, "Scale").
RIDGE_CEILING = 1e12
#: Convergence, also required: largest Newton step entry relative to ``max(1, largest parameter)`` (frame).
STEP_TOLERANCE = 1e-8

_ARMIJO = 1e-4  # sufficient-decrease constant of the line search
_DECREMENT_FLOOR = 1e-12  # Newton decrement, relative to the objective, below which the full step is taken
_MAX_HALVINGS = 60
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


def _newton_rows(Z0, labels0, weights0, z1, labels1, theta, ridge, max_iter, common, evaluate_only, iterations,
                 values, gradients, hessians,
                 report):  # pragma: no cover - compiled by numba (its pure-Python run is tested against it)
    r"""Damped Newton (module notes, "Solver") on ``B`` problems, one after the other, compiled.

    Problem ``b`` has the ``n`` shared points ``Z0 (n, p)`` (frame features with the intercept column last)
    with class indices ``labels0 (n,)``, each counted ``weights0`` times (duplicates merged), and one extra
    point ``z1[b]``, ``labels1[b]``; ``theta (B, q, p)``
    holds the starting points and receives the solutions; ``ridge`` is :math:`\lambda`.  With ``common``
    every problem starts from ``theta[0]``, and the shared points' sums there are formed once (so the first
    Newton step of each problem costs one point, not ``n + 1``).  Each problem runs to the module's
    convergence criterion (then one more full step), writing its number of Newton steps to
    ``iterations[b]``, and its objective, gradient and Hessian at the last point where a step was computed
    to ``values[b]``, ``gradients[b] (q p)``, ``hessians[b] (q p, q p)`` (the full pinned Hessian, formed for
    this output only; an empty ``hessians``, ``(0, q p, q p)``, as :func:`_solve` passes, skips the gradients
    and Hessians).  With ``evaluate_only`` no step is taken: those three are written at ``theta[b]``.  The
    Newton step solves the reduced system (module notes, "The reduced Newton system").

    Returns 0, or on the first failure (then ``report`` holds the largest absolute gradient entry and the
    relative step of the failing problem): 1, ``max_iter`` steps without convergence; 2, a numerically
    singular Newton system; 3, the line search failed.

    Per point, with the logits :math:`s = \theta z`, :math:`e_l = e^{s_l - \max s}`, :math:`o = \sum_{l \ne y}
    e_l` and :math:`t = e_y + o`: the loss :math:`(\max s - s_y) + \operatorname{log1p}(e_y - 1 + o)`, the
    residual :math:`e_l / t` (:math:`l \ne y`) and :math:`-o / t` (the label), the Hessian block's
    off-diagonal :math:`-\hat p_j \hat p_l` and its diagonal :math:`\sum_{l \ne j} \hat p_j \hat p_l`: no
    cancellation, so every quantity keeps its relative accuracy when the model is confident.  One pass over
    the points forms the loss and the sums :math:`\sum_i r_{ij} z_i` and :math:`\sum_i \hat p_{ij} \hat p_{il}
    z_i z_i^T` (``j < l``, upper triangle), from which the gradient and every Hessian block follow.
    """
    n, p = Z0.shape
    B, q, _ = theta.shape
    want_hessians = hessians.shape[0] > 0  # an empty hessians array: neither it nor the gradients are written
    N = 1.0
    for i in range(n):
        N += weights0[i]
    m = q * p
    pin = p - 1  # the first class's intercept, fixed at 0: its Newton step is 0
    S = np.empty(q)
    E = np.empty(q)
    G = np.zeros((q, p))  # sums at the current parameters
    T = p * (p + 1) // 2  # entries of an upper triangle (c <= d) of a p x p matrix, row by row
    pair = np.empty((p, p), dtype=np.int64)  # (c, d) -> its entry
    ZZ0 = np.empty((n, T))  # z_c z_d of each shared point
    zz1 = np.empty(T)
    tri = 0
    for c in range(p):
        for d in range(c, p):
            pair[c, d] = tri
            pair[d, c] = tri
            for i in range(n):
                ZZ0[i, tri] = Z0[i, c] * Z0[i, d]
            tri += 1
    M = np.zeros((q, q, T))
    G0 = np.zeros((q, p))  # the shared points' sums at the common start
    M0 = np.zeros((q, q, T))
    grad = np.empty(m)
    H = np.empty((m, m)) if want_hessians else np.empty((0, 0))
    mr = m - p  # the reduced system's size: classes 1..q-1
    umr = np.uint64(mr)  # unsigned loop bounds: no negative-index wraparound, so axpy loops are vectorised
    up = np.uint64(p)
    uT = np.uint64(T)
    one = np.uint64(1)  # k + one, with k cast: uint64 under numba and numpy's legacy (< 2) promotion alike
    K = np.empty((mr, mr))
    R = np.empty((mr, mr))
    rhs = np.empty(mr)
    u = np.empty(mr)
    D = np.empty((q, T))
    V = np.empty((4, T))  # a block of the reduced system by the kind of (row, column): weight or intercept
    Gt = np.zeros((q, p))  # sums at a trial point of the line search (unless lazy)
    Mt = np.zeros((q, q, T))
    # lazy line search: a trial point's objective alone, its sums formed once it is accepted (a second pass over
    # the points, exponentials included), where the curvature sums are most of a pass (many features)
    lazy = (q * (q - 1) // 2) * T > 8 * q * p
    step = np.empty(m)
    centred = np.empty(q)
    th = np.empty((q, p))
    trial = np.empty((q, p))

    def add_point(par, z, zz, label, weight, Gs, Ms, sums):  # the loss at one point; with sums, its residual and
        # curvature sums added
        if q == 2:  # the log-odds u of the label: one exponential; only class 1's residual sums (class 0's: minus)
            sign = 2.0 * label - 1.0  # +1 for class 1, -1 for class 0
            s = 0.0
            for c in range(p):
                s += (par[1, c] - par[0, c]) * z[c]
            u = sign * s
            e = np.exp(-abs(u))
            inv = 1.0 / (1.0 + e)
            if not sums:
                return weight * (np.log1p(e) + max(-u, 0.0))
            other = inv if u < 0.0 else e * inv  # 1 - p_label
            r = -sign * (weight * other)  # residual of class 1: p_1 - [label = 1]
            a = weight * (e * inv * inv)  # p_0 p_1
            for c in range(up):
                Gs[1, c] += r * z[c]
            for tri in range(uT):
                Ms[0, 1, tri] += a * zz[tri]
            return weight * (np.log1p(e) + max(-u, 0.0))
        top = -np.inf
        arg = 0
        for j in range(q):
            s = 0.0
            for c in range(p):
                s += par[j, c] * z[c]
            S[j] = s
            if s > top:
                top = s
                arg = j
        others = 0.0
        for j in range(q):
            E[j] = 1.0 if j == arg else np.exp(S[j] - top)  # exp(0) = 1 exactly
            if j != label:
                others += E[j]
        total = E[label] + others
        if not sums:  # the same operations as the return below (E[label] normalised there first)
            return weight * ((top - S[label]) + np.log1p(((E[label] / total) * total - 1.0) + others))
        for j in range(q):
            r = weight * (-others / total if j == label else E[j] / total)
            for c in range(up):
                Gs[j, c] += r * z[c]
            E[j] /= total
        for j in range(q):
            for j2 in range(j + 1, q):
                a = weight * (E[j] * E[j2])
                for tri in range(uT):
                    Ms[j, j2, tri] += a * zz[tri]
        return weight * ((top - S[label]) + np.log1p((E[label] * total - 1.0) + others))

    def penalty(par):
        total = 0.0
        for j in range(q):
            for c in range(pin):
                total += par[j, c] * par[j, c]
        return 0.5 * ridge * total

    def evaluate(par, b, Gs, Ms, shared, shared_nll, sums):  # mean-form F at par; with sums, the sums to Gs, Ms
        # (from G0, M0 if shared)
        if not sums:
            total = add_point(par, z1[b], zz1, labels1[b], 1.0, Gs, Ms, False)
            for i in range(n):
                total += add_point(par, Z0[i], ZZ0[i], labels0[i], weights0[i], Gs, Ms, False)
            return (total + penalty(par)) / N
        for j in range(q):
            for c in range(p):
                Gs[j, c] = G0[j, c] if shared else 0.0
        for j in range(q):
            for j2 in range(q):
                for tri in range(T):
                    Ms[j, j2, tri] = M0[j, j2, tri] if shared else 0.0
        total = add_point(par, z1[b], zz1, labels1[b], 1.0, Gs, Ms, True)
        if shared:
            total += shared_nll
        else:
            for i in range(n):
                total += add_point(par, Z0[i], ZZ0[i], labels0[i], weights0[i], Gs, Ms, True)
        if q == 2:
            for c in range(p):
                Gs[0, c] = -Gs[1, c]
        return (total + penalty(par)) / N

    def assemble(par):  # the gradient (mean form, pinned) from G into grad; the blocks' diagonals into D
        for c in range(p):
            mean = 0.0
            for j in range(q):
                centred[j] = G[j, c] + ridge * par[j, c] if c < pin else G[j, c]
                mean += centred[j]
            mean /= q
            for j in range(q):
                grad[j * p + c] = (centred[j] - mean if c < pin else centred[j]) / N
        grad[pin] = 0.0
        for j in range(q):  # D_j = sum over the other classes l of M_jl: the data part of Hessian block (j, j)
            for tri in range(uT):
                D[j, tri] = 0.0
            for other in range(q):
                if other != j:
                    low, high = min(j, other), max(j, other)
                    for tri in range(uT):
                        D[j, tri] += M[low, high, tri]

    def entry(j, c, j2, d):  # Hessian entry (j c, j2 d), mean form, without the pin
        tri = pair[c, d]
        if j == j2:
            v = D[j, tri]
            if c == d and c < pin:
                v += ridge
        else:
            v = -M[j, j2, tri] if j < j2 else -M[j2, j, tri]
        return v / N

    def full_hessian():  # the Hessian (mean form, pinned) into H: only for the caller's output
        for j in range(q):
            for c in range(p):
                for j2 in range(q):
                    for d in range(p):
                        H[j * p + c, j2 * p + d] = entry(j, c, j2, d)
        for t in range(m):
            H[pin, t] = 0.0
            H[t, pin] = 0.0
        H[pin, pin] = 1.0

    def newton_step():  # step = -H^{-1} grad on the reduced system (module notes, "Solver"); False if singular
        # the reduced unknowns u_j (classes 1..q-1); class 0's weights are -sum_j u_j, its intercept (pinned) 0:
        # K = T^T H T with s = T u, whose blocks (j, j2) are H_jj2 - H_j0 - H_0j2 + H_00 on the weights
        for j in range(1, q):
            for c in range(p):
                rhs[(j - 1) * p + c] = -(grad[j * p + c] - grad[c]) if c < pin else -grad[j * p + c]
        for j in range(1, q):
            for j2 in range(j, q):
                for tri in range(uT):
                    own = D[j, tri] if j == j2 else -M[j, j2, tri]
                    V[0, tri] = ((own + M[0, j, tri]) + M[0, j2, tri]) + D[0, tri]  # both weights
                    V[1, tri] = own + M[0, j2, tri]  # c < pin, d == pin
                    V[2, tri] = own + M[0, j, tri]  # c == pin, d < pin
                    V[3, tri] = own  # both intercepts
                extra = ridge * (2.0 if j == j2 else 1.0)
                for c in range(p):  # the upper triangle of K (columns from the row's own on)
                    r = (j - 1) * p + c
                    for d in range(c if j2 == j else 0, p):
                        kind = (0 if d < pin else 1) if c < pin else (2 if d < pin else 3)
                        v = V[kind, pair[c, d]]
                        if c == d and c < pin:
                            v += extra
                        K[r, (j2 - 1) * p + d] = v / N
        # Cholesky K = U^T U, row by row (contiguous updates); K is symmetric positive definite while the ridge is
        for r in range(umr):
            for c in range(r, umr):
                R[r, c] = K[r, c]
        ok = True
        for k in range(umr):
            if not R[k, k] > 0.0:
                ok = False
                break
            root = np.sqrt(R[k, k])
            R[k, k] = root
            for c in range(np.uint64(k) + one, umr):
                R[k, c] /= root
            for r in range(np.uint64(k) + one, umr):
                f = R[k, r]
                if f != 0.0:
                    for c in range(r, umr):
                        R[r, c] -= f * R[k, c]
        if ok:
            for r in range(mr):
                u[r] = rhs[r]
            for k in range(umr):  # U^T y = rhs
                u[k] /= R[k, k]
                f = u[k]
                for c in range(np.uint64(k) + one, umr):
                    u[c] -= R[k, c] * f
            for k in range(mr - 1, -1, -1):  # U u = y
                s = u[k]
                for c in range(k + 1, mr):
                    s -= R[k, c] * u[c]
                u[k] = s / R[k, k]
        else:  # not numerically positive definite: Gaussian elimination with partial pivoting on K
            for r in range(mr):
                u[r] = rhs[r]
                for c in range(mr):
                    R[r, c] = K[r, c] if c >= r else K[c, r]
            for k in range(mr):
                pivot = k
                big = abs(R[k, k])
                for r in range(k + 1, mr):
                    if abs(R[r, k]) > big:
                        big = abs(R[r, k])
                        pivot = r
                if not big > 0.0:
                    return False
                if pivot != k:
                    for c in range(mr):
                        R[k, c], R[pivot, c] = R[pivot, c], R[k, c]
                    u[k], u[pivot] = u[pivot], u[k]
                for r in range(k + 1, mr):
                    f = R[r, k] / R[k, k]
                    if f != 0.0:
                        for c in range(k + 1, mr):
                            R[r, c] -= f * R[k, c]
                        u[r] -= f * u[k]
            for k in range(mr - 1, -1, -1):
                s = u[k]
                for c in range(k + 1, mr):
                    s -= R[k, c] * u[c]
                u[k] = s / R[k, k]
        for c in range(p):
            total = 0.0
            for j in range(1, q):
                step[j * p + c] = u[(j - 1) * p + c]
                total += u[(j - 1) * p + c]
            step[c] = -total if c < pin else 0.0
        return np.all(np.isfinite(step))

    shared_nll = 0.0
    if common:  # the shared points' sums at the common start, formed once
        for i in range(n):
            shared_nll += add_point(theta[0], Z0[i], ZZ0[i], labels0[i], weights0[i], G0, M0, True)
    for b in range(B):
        for c in range(p):
            for d in range(c, p):
                zz1[pair[c, d]] = z1[b, c] * z1[b, d]
        for j in range(q):
            for c in range(p):
                th[j, c] = theta[b, j, c]
        previous = np.inf  # relative size of the last full Newton step
        iteration = 0
        refresh = True  # the sums at th are to be formed (one call site of evaluate: it is compiled as a copy)
        while True:
            if refresh:  # at the start (shared sums if common), after a full step, after a lazy line search
                value = evaluate(th, b, G, M, common and iteration == 0, shared_nll, True)
            refresh = True
            assemble(th)
            values[b] = value
            if evaluate_only:
                break
            largest = 0.0
            for r in range(m):
                largest = max(largest, abs(grad[r]))
            if not newton_step():
                report[0] = largest
                report[1] = np.nan
                return 2
            for c in range(pin):  # the weights keep summing to 0 over the classes
                mean = 0.0
                for j in range(q):
                    mean += step[j * p + c]
                mean /= q
                for j in range(q):
                    step[j * p + c] -= mean
            decrement = 0.0
            size = 1.0
            move = 0.0
            for j in range(q):
                for c in range(p):
                    decrement -= grad[j * p + c] * step[j * p + c]
                    size = max(size, abs(th[j, c]))
                    move = max(move, abs(step[j * p + c]))
            relative = move / size
            # small enough, or no longer shrinking after a full step: rounding noise (module notes)
            converged = largest <= GRADIENT_TOLERANCE and (relative <= STEP_TOLERANCE or relative > 0.5 * previous)
            if iteration == max_iter and not converged:
                report[0] = largest
                report[1] = relative
                return 1
            iteration += 1
            # a converged problem takes a last, polishing step; so does one where the Armijo test is rounding
            if converged or decrement <= _DECREMENT_FLOOR * value:
                previous = relative
                for j in range(q):
                    for c in range(p):
                        th[j, c] += step[j * p + c]
                if converged:
                    break
                continue
            previous = np.inf
            t = 1.0
            accepted = False
            for _ in range(_MAX_HALVINGS):
                for j in range(q):
                    for c in range(p):
                        trial[j, c] = th[j, c] + t * step[j * p + c]
                trial_value = evaluate(trial, b, Gt, Mt, False, 0.0, not lazy)  # lazy: the objective only
                if trial_value <= value - _ARMIJO * t * decrement:
                    accepted = True
                    value = trial_value
                    break
                t *= 0.5
            if not accepted:
                report[0] = largest
                report[1] = relative
                return 3
            for j in range(q):
                for c in range(p):
                    th[j, c] = trial[j, c]
            if not lazy:  # lazy: the accepted point's sums at the loop's start (its objective: value, bit for bit)
                refresh = False
                for j in range(q):
                    for c in range(p):
                        G[j, c] = Gt[j, c]
                for j in range(q):
                    for j2 in range(q):
                        for tri in range(uT):
                            M[j, j2, tri] = Mt[j, j2, tri]
        iterations[b] = iteration
        if want_hessians:  # at the last point where a step was computed (or theta[b] with evaluate_only)
            for r in range(m):
                gradients[b, r] = grad[r]
            full_hessian()
            for r in range(m):
                for c in range(m):
                    hessians[b, r, c] = H[r, c]
        for j in range(q):
            for c in range(p):
                theta[b, j, c] = th[j, c]
    return 0


_compiled_newton = on_first_call(_newton_rows)


def _solve(Z0: np.ndarray, labels0: np.ndarray, z1: np.ndarray, labels1: np.ndarray, theta: np.ndarray,
           ridge: float, max_iter: int) -> tuple[np.ndarray, np.ndarray]:
    """Minimise ``B`` problems (shared points ``Z0``, one extra point ``z1[b]`` each) from ``theta (B, q, p)``.

    Returns the solutions and the Newton steps of each (:func:`_newton_rows`, compiled; repeated shared
    points, as in a bootstrap resample, are merged into one point counted as often).  The reference
    intercepts ``theta[:, 0, -1]`` must be 0.  Failures raise ``RuntimeError`` naming the remedy.
    """
    theta = np.array(theta, dtype=float, order="C")
    B, q, p = theta.shape
    rows, counts, _ = distinct_rows(np.column_stack([Z0, labels0]))
    iterations = np.zeros(B, dtype=np.int64)
    values, gradients, hessians = np.empty(B), np.empty((0, q * p)), np.empty((0, q * p, q * p))  # not needed
    report = np.zeros(2)
    common = bool(B > 0 and np.all(theta == theta[:1]))
    status = _compiled_newton()(np.ascontiguousarray(rows[:, :p]), rows[:, p].astype(np.int64),
                                counts.astype(float), np.ascontiguousarray(z1, dtype=float),
                                np.ascontiguousarray(labels1, dtype=np.int64), theta, float(ridge), int(max_iter),
                                common, False, iterations, values, gradients, hessians, report)
    if status == 1:
        raise RuntimeError(
            f"LogisticRegression: Newton did not converge in max_iter={max_iter} steps (largest "
            f"|gradient| {report[0]:.3g}, tolerance {GRADIENT_TOLERANCE}; largest relative "
            f"step {report[1]:.3g}, tolerance "
            f"{STEP_TOLERANCE}); increase max_iter or decrease C")
    if status == 2:
        raise RuntimeError("LogisticRegression: the Newton system is numerically singular (the ridge "
                           "1 / (C s^2) is negligible in the frame of scale s); decrease C")
    if status == 3:
        raise RuntimeError("LogisticRegression: the Newton line search failed; decrease C")
    return theta, iterations


def _check_ridge(C: float, scale: float, name: str) -> float:
    """The ridge :math:`1 / (C s^2)` on the weights in the frame of scale ``s``; refused, naming ``name`` (the
    data that set the scale) and ``C``, where it is above :data:`RIDGE_CEILING` (or overflows) or below
    :data:`RIDGE_FLOOR` (class notes, "Scale")."""
    with np.errstate(over="ignore", divide="ignore"):
        ridge = 1.0 / (np.float64(C) * scale**2)
        smallest_c = 1.0 / (RIDGE_CEILING * np.float64(scale) ** 2)
    if not ridge <= RIDGE_CEILING:
        remedy = f" or pass C >= {smallest_c:.3g}" if np.isfinite(smallest_c) else ""
        raise ValueError(
            f"{name}: the data's spread s = {scale:.3g} is too small for C={C!r}: the ridge on the weights in units "
            f"of the spread is 1 / (C s^2) = {ridge:.2g}, above {RIDGE_CEILING:.0e}, where the weights are within the "
            f"tie tolerance of 0 and every prediction is a tie; rescale the data{remedy}")
    if ridge < RIDGE_FLOOR:
        raise ValueError(
            f"{name}: the data's spread s = {scale:.3g} is too large for C={C!r}: the ridge on the weights in units "
            f"of the spread is 1 / (C s^2) = {ridge:.2g}, below {RIDGE_FLOOR:.0e}, where the optimum is not "
            f"determined in double precision; rescale the data or pass C <= {1.0 / (RIDGE_FLOOR * scale**2):.3g} "
            f"(on data of scale s, C / s**2 is the model that C is on the data divided by s)")
    return float(ridge)


def _starting_point(Y0: np.ndarray, Y1: np.ndarray, p: int) -> np.ndarray:
    """Zero weights, log class frequencies relative to the first class as intercepts: ``(B, q, p)``.

    ``Y0 (n, q)`` and ``Y1 (B, q)`` are the one-hot labels of the shared and the extra points.
    """
    counts = Y0.sum(axis=0) + Y1  # (B, q): every class present
    theta = np.zeros(counts.shape + (p,))
    theta[..., -1] = np.log(counts / counts[:, :1])
    return theta


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
    or above ``1e12`` (module notes, "Scale").

    Parameters
    ----------
    C : float, default 10
        Inverse ridge strength, as scikit-learn's multinomial ``C`` (``> 0``),
        in the data's units; ``fit`` requires the ridge in the frame,
        :math:`1/(C s^2)` with ``s`` the frame's scale (the data's spread
        rounded down to a power of two), to lie in ``[1e-12, 1e12]``
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

    Examples
    --------
    Fitted by its own Newton solver on 20 points of Four-Gaussian; the warm-started retrained models equal plain
    refits:

    >>> import numpy as np
    >>> from mri_theory.classifiers import LogisticRegression
    >>> from mri_theory.engine import Population, refit_future_losses
    >>> from mri_theory.problems import get_problem
    >>> problem, rng = get_problem("four-gaussian"), np.random.default_rng(0)
    >>> X, y = problem.sample(20, rng)
    >>> model = LogisticRegression().fit(X, y)
    >>> model.predict_proba(X[:2]).round(4).tolist()
    [[0.1809, 0.8191], [0.6962, 0.3038]]
    >>> population, candidates = Population.from_problem(problem, 2000, rng), problem.sample(4, rng)[0]
    >>> current, future = model.retraining_losses(candidates, population, "error")  # the fast path: no refit
    >>> refit = refit_future_losses(model, candidates, population, "error")  # one refit per candidate and class
    >>> future.shape, bool(np.allclose(future, refit, rtol=0, atol=1e-12))
    ((4, 2), True)
    """

    name = "logreg"

    exact_truth = True

    def __init__(self, C: float = 10.0, max_iter: int = 100) -> None:
        check.positive_scalar(C, "C")
        check.count(max_iter, "max_iter", maximum=check.MAX_SIZE)  # a bound: int(1e300) steps reach numba as an object
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
        below ``1e-12``, or so small that it is above ``1e12`` (every
        prediction would be a tie; class notes, "Scale").

        Parameters
        ----------
        X : array_like of shape (n, d)
            Training points (at least one).
        y : array_like of shape (n,)
            Their class labels, integers in ``[0, n_classes)``.
        n_classes : int, optional
            The number of classes (default ``max(y) + 1``, at least 2); classes may be absent from ``y``.

        Returns
        -------
        LogisticRegression
            This classifier, fitted.
        """
        points = check_magnitude(check_points(X, min_rows=1), "X")
        C = check.positive_scalar(self.C, "C")
        _check_ridge(C, reference_frame(points)[1], "X")
        return super().fit(X, y, n_classes)

    def _fit(self, X: np.ndarray, y: np.ndarray) -> None:
        self.origin_, self.scale_ = reference_frame(X)
        self.present_ = np.unique(y)
        q = self.present_.size
        theta, self.n_iter_ = np.zeros((1, q, self.dim_ + 1)), 0
        if q > 1:  # the B = 1 case of the batch solver: shared points all but the last
            Z, labels = self._to_frame(X), np.searchsorted(self.present_, y)
            Y = (labels[:, None] == np.arange(q)).astype(float)
            theta, iterations = _solve(Z[:-1], labels[:-1], Z[-1:], labels[-1:],
                                       _starting_point(Y[:-1], Y[-1:], self.dim_ + 1), self._ridge(), self.max_iter)
            self.n_iter_ = int(iterations[0])
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
        """The exact loss under a Gaussian-mixture truth: the scores are linear (:mod:`mri_theory.engine.exact`).

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
        Z0, labels0 = self._to_frame(self.X_train_), np.searchsorted(present, self.y_train_)
        z1, labels1 = self._to_frame(candidates), np.searchsorted(present, labels)
        if warm:
            theta = np.broadcast_to(self.theta_, (z1.shape[0], q, p))
        else:
            classes = np.arange(q)
            theta = _starting_point((labels0[:, None] == classes).astype(float),
                                    (labels1[:, None] == classes).astype(float), p)
        return _solve(Z0, labels0, z1, labels1, theta, self._ridge(), self.max_iter)[0]

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

    def _retraining_args(self, candidates: np.ndarray, population: Population | ExactPopulation,
                         loss: str) -> tuple[np.ndarray, Population | ExactPopulation, str]:
        """The base class's checks (:func:`~mri_theory.engine.contract.check_retraining_args`), then
        coordinates beyond ``1e150`` refused (candidates first, then a sampled population's points)."""
        candidates, population, loss = super()._retraining_args(candidates, population, loss)
        check_magnitude(candidates, "candidates")
        scales = retrained_scales(self.X_train_, candidates)  # each retrained model's frame: the ridge must
        with np.errstate(over="ignore", divide="ignore"):     # stay determined there too
            ridges = 1.0 / (np.float64(self.C) * scales**2)
        outside = np.flatnonzero(~((ridges >= RIDGE_FLOOR) & (ridges <= RIDGE_CEILING)))
        if outside.size:
            _check_ridge(float(self.C), float(scales[outside[0]]), "candidates")  # the message of the first
        if not isinstance(population, ExactPopulation):
            check_magnitude(population.X, "population")
        return candidates, population, loss

    def _future_losses(self, candidates: np.ndarray, population: Population | ExactPopulation,
                       loss: str) -> np.ndarray:
        """Fast path (the hook of :class:`~mri_theory.engine.contract.Classifier`): all retrained models
        solved by batched Newton, scored in one pass (module notes).

        Returns ``L'``, shape ``(m, k)``, from validated arguments.  Agrees with
        the refit per (candidate, class) to the solver's accuracy (the tests
        hold the log loss to 1e-9).
        """
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
            return out
        phi_t = np.ascontiguousarray(self._to_frame(population.X).T)
        chunk = max(1, _SCORE_CELLS // (population.size * k))
        for present, members, theta in groups:
            values = np.empty(theta.shape[0])
            for start in range(0, theta.shape[0], chunk):
                scores = self._scores(theta[start:start + chunk], present, phi_t)
                values[start:start + chunk] = _weighted_losses(scores, population, loss)
            for j, index in members:
                out[:, j] = values[index]
        return out
