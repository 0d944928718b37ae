r"""RBF support vector machine with Platt probabilities and an exact retraining path.

Appendix C of the paper uses e1071's SVM (libsvm, radial basis kernel,
probabilities from Platt scaling).  Here every binary machine solves the
C-SVC dual

.. math::
    \min_\alpha \tfrac12 \alpha^T Q \alpha - \mathbf 1^T \alpha, \quad
    s^T \alpha = 0, \quad 0 \le \alpha_i \le C, \qquad
    Q_{it} = s_i s_t K(x_i, x_t), \quad K(x, x') = e^{-\gamma |x - x'|^2},

with our own SMO (libsvm's solver: second-order working-set selection
of Fan, Chen & Lin 2005, ties to the lowest index), stopped when the maximal
violating pair's gap :math:`m(\alpha) - M(\alpha)` is at most
``1e-11 * max(1, C)``, and a *polish*: with the free set
:math:`F = \{0 < \alpha_i < C\}` the KKT equalities :math:`s_i f(x_i) = 1`
(``i`` in ``F``) and :math:`s^T\alpha = 0` are a linear system, solved
directly (LAPACK ``gesv``; where that fails or leaves the box, the
least-norm correction of the current iterate, by an SVD).  SMO runs to gaps ``1e-4``, ``1e-7`` and ``1e-11`` (times
``max(1, C)``), polishing after each round; a loose gap usually identifies the
active set, the polish then lands on the exact solution and the later rounds
take no step.  A problem's whole solve (SMO rounds, polishes, gap tests, the
gradients recomputed after a polish, the intercept) is one compiled routine
(numba, one problem at a time, as is Platt's fit); it equals the numpy solver
it replaced to rounding (tests: only the order of the sums differs).  Two
safeguards against rounding: alphas within ``1e-12 C`` of a bound are put
on it (else an alpha that misses ``C`` by an ulp counts as
free and moves the intercept), and the second index ``j`` must violate by
more than the tolerance (libsvm's rule lets a duplicate point whose gradient
differs by rounding win with zero curvature, and SMO then cycles).  The
decision function is :math:`f(x) = \sum_i \alpha_i s_i K(x_i, x) + b` with
libsvm's intercept (mean over the free vectors, else the midpoint of the
feasible interval).  It is unique (``Q`` is positive semi-definite), the
alphas too for distinct points; a polished solution depends on the data only
through the active set, so two solves that find the same active set agree to
rounding.  scikit-learn's ``SVC`` agrees to its own accuracy (it caches the
kernel in single precision: about ``1e-7 * C``); ours meets the KKT
conditions to ``1e-10`` (tests).  Numerically singular kernels (``gamma``
much smaller than ``1 / spread^2``, condition numbers beyond ``1e16``) make
the alphas numerically non-unique: the polish then takes a least-norm
correction, and a refit and the fast path agree only to the solver tolerance
(about ``1e-8`` in decision values at ``C = 200``, ``gamma = 0.05`` on
unit-scale data).

**Shifted kernel.**  The solver, the polish and the decision function use
:math:`K - 1 = \operatorname{expm1}(-\gamma |x - x'|^2)` instead of
:math:`K`.  On the feasible set (:math:`s^T \alpha = 0`) nothing changes:
:math:`(Q \alpha)_i` loses :math:`s_i\, s^T \alpha = 0`, a pair's
curvature :math:`K_{ii} + K_{jj} - 2 K_{ij}` is :math:`-2 (K_{ij} - 1)`, the
polish's equalities differ by :math:`\mathbf 1^T \beta = 0` and the decision
function by :math:`\sum_i \alpha_i s_i = 0`.  But :math:`K - 1` keeps the
relative accuracy of :math:`\gamma |x - x'|^2` when that is small (small
``gamma`` or data of small scale), which :math:`K \approx 1` loses to
cancellation (there the fast path and the refit used to differ by 1e-6 at
data scale 1e-3).

**Scale.**  Distances are differences, so the model is translation
invariant; ``gamma`` is in the data's units (as ``C`` needs none), so it is
scale *equivariant*: fitted on :math:`a x + t` with ``gamma / a**2`` it gives,
at :math:`a q + t`, the probabilities of the model fitted on :math:`x` with
``gamma`` (tests: to 1e-9 for shifts up to 1e6 and scales 1e-6 to 1e6, where
the fast path equals the refit to 1e-9 too).  A fixed ``gamma`` on data of
small scale is the small-``gamma`` machine of the solver notes above: at
:math:`\gamma |x - x'|^2 \approx 10^{-6}` (the default ``gamma`` at data
scale 1e-3) the alphas are numerically non-unique and the Platt slope
(:math:`\sim 10^6`) magnifies the decision values' rounding, so the fast
path and the refit agree to 1e-5 (measured 3e-6); much smaller, the decision
values are flat to 1e-10 and the model constant.  Coordinates beyond ``1e150``
are refused (``mri_theory.classifiers._frame``), and ``C`` above
``MAX_C`` ``= 1e8`` (the stopping gap ``1e-11 C`` would reach the gap 2 of
:math:`\alpha = 0`, and every alpha would stay 0).  With ``scale`` the
machines work on the covariates divided per covariate
(``mri_theory.classifiers._scaling``, shared with k-NN): fixed divisors are one
linear map, so everything here (the solution path, the exact family) holds on
the divided points; ``scale="train"`` divides by each fit's own training
standard deviations, as e1071 does, and its retrained models are refits
(the class's parameter ``scale``).

**Multi-class: one-vs-rest.**  With three or more classes present there is
one machine per present class ``c`` (labels :math:`s_i = +1` if
:math:`y_i = c`, else :math:`-1`); each gets a Platt sigmoid
:math:`q_c = 1/(1 + e^{A_c f_c + B_c})` and the probabilities are
:math:`q_c / \sum_{c'} q_{c'}`.  With two classes present there is one
machine (the larger label against the smaller) and :math:`\hat p = (1 - q,
q)`.  A class absent from the training data has probability 0; a single
present class has probability 1.

**Platt calibration** (:func:`platt_sigmoid`) is fitted by default on the
*training* decision values with Platt's regularised targets (``platt="train"``:
deterministic, and defined for tiny training sets); ``platt="cv"`` fits it on
out-of-fold decision values as e1071 (libsvm) does:
:data:`~mri_theory.classifiers.svm.PLATT_FOLDS`
folds, row ``i`` of the training data in fold ``i mod 5`` (libsvm shuffles at
random; a fixed assignment keeps the fit deterministic and leaves every fold
but one unchanged when a point is appended), each fold's rows scored by the
machine trained on the other folds (``+1`` or ``-1`` where those hold one
side only, libsvm's rule).  Its fast path: the candidate is row ``n``, in
fold ``n mod 5``, whose machine does not change; each of the other four
gains the candidate and is re-solved from its own solution like the model's
machines (the solution path, "Exact retraining path" below), then scores its
held-out rows; the sigmoids are refitted on the ``n + 1`` new out-of-fold
values (warm-started as below).  Where a class is absent, fewer than five rows
are held, or a fold machine is one-sided (libsvm's rule applies, and adding the
candidate may make it two-sided), the retraining path refits.  Either way the sigmoid is found by
Newton's method with Lin, Lin & Weng's (2007) line search (and their ridge
of ``1e-12`` on the Hessian), compiled, one machine at a time, to a gradient
of ``1e-12`` per point, then one more Newton step: from there Newton lands
on the minimiser to rounding, whatever the start (a step whose Newton
decrement is below the objective's rounding is taken whole, as the line
search cannot judge it).  The fast path starts each retrained machine's fit
from the model's sigmoid of the same class (for the smaller class's machine
of a binary model, its mirror image :math:`(A, -B)`; a class new to the
data starts cold), which saves about three of eight Newton steps; a start is
taken only if its objective is below that of Platt's starting point and the
Hessian there is well conditioned (its smaller eigenvalue, without the
ridge, about ``1e-4`` or more): where the ridge dominates (decision values
spread over less than about ``1e-6``, the small-``gamma`` machines of the
notes on scale) Newton creeps and its end depends on the start, and the fit
starts from Platt's point as a refit does.  Tests: the converged sigmoid
against the numpy Newton method this replaced, scipy's trust-region Newton
and a gradient summed exactly, warm against cold starts to ``1e-12``.

**Exact retraining path.**  Adding ``(x, c_j)`` changes machine ``c`` by one
point labelled :math:`s = +1` if ``c = j`` else :math:`-1`, so each candidate
needs at most two versions of each machine, whoever the label ``j``.  The
old solution with :math:`\alpha_{new} = 0` is feasible for the enlarged dual,
and all old gradients are unchanged; if the enlarged problem already meets the
solver's stopping rule (in particular whenever :math:`s f(x) \ge 1`, which
keeps the KKT conditions with :math:`\alpha_{new} = 0`), SMO would stop at
once, so :math:`\alpha` and the decision function are kept exactly; only the
intercept rule (if no vector is free) and the Platt sigmoid are recomputed,
on the ``n + 1`` points.  The other pairs (margin violators) are re-solved
from :math:`(\alpha, 0)` along the exact *solution path* of Cauwenberghs &
Poggio (2001, "Incremental and decremental support vector machine
learning"): as the candidate's :math:`\alpha_c` grows from 0, the free
vectors keep their margins and the equality constraint holds, so the
intercept and the free alphas move linearly with :math:`\alpha_c`, through
the inverse of the bordered KKT matrix :math:`[[0, \mathbf 1^T], [\mathbf
1, \tilde K_{FF}]]` of the free set ``F``; at each event (the candidate's
margin reaches 1, its alpha its bound, a free alpha a bound, a bounded point's
margin 1) that inverse gains or loses a row and column (``O(|F|^2)``; its
start, one inversion per old machine, is shared by all candidates).  The
path's end is polished like a fit and kept if it meets the stopping gap; the
polish depends only on the active set, so wherever SMO finds the same set the
solution is SMO's bit for bit (in the issue's benchmark every score was).
Where the path cannot start or go on (no free vector, a singular bordered
matrix: copies of a point with opposite labels, a step that does not raise
the candidate's margin, too many events) or its end misses the gap, SMO
warm-started from :math:`(\alpha, 0)` solves as before
(``tests/classifiers/test_svm_solution_path.py``).  With two classes present, the smaller class's
machine (needed once a third class arrives) is the mirror image of the
binary one (same alphas, labels and intercept negated); a class absent from
the training data starts its machine from :math:`\alpha = 0`.  Every
retrained model is then scored on the population with one matrix product per
chunk of candidates, over the training points that are a support vector of
one of the chunk's machines (the others' coefficients are 0 in all of them).  A refit solves the same enlarged dual from
:math:`\alpha = 0`.  The solver tolerance does not open a gap between the
two: "non-violator" *means* that the warm-started solver would take no step
(a candidate inside the margin by less than the tolerance included), and a
refit reaches the same optimum, to within the tolerance before the polish and
to rounding after it (tests: decision values, alphas and probabilities to
``1e-8``; in practice ``1e-15``).

**Repeated points.**  A (point, label) that occurs ``m`` times in the
training data (a bootstrap resample of BMRI holds about ``0.632 n`` distinct
points) is one point whose bound is :math:`m C`: the primal's ``m`` equal
hinge terms are one term times ``m``, so the decision function is the same,
and the solver and Platt's fit (each point's term counted ``m`` times) work
on a problem about a third smaller, whose duals are unique where the copies'
were not (``mri_theory.classifiers._repeats``; SMO clips a pair to its two
bounds as libsvm does).  ``dual_coef_`` and ``gradient_`` stay indexed by
the training points, a merged coefficient shared equally by the copies (the
least-norm split, itself a solution of the problem with the copies).  Tests:
libsvm with ``sample_weight = m`` on the distinct points, the KKT conditions
and the numpy solver on the copies, Platt's fit on the repeated values.

**Deviations from the paper's e1071** (Appendix C, "calibration ... for
multi-class problems, by computing the a-posteriori class probabilities using
quadratic optimisation", i.e. libsvm's one-vs-one with pairwise coupling):
one-vs-rest with normalised per-class sigmoids;
sigmoids fitted on training decision values rather than by internal
cross-validation by default (``platt="cv"`` fits them as e1071 does); and by
default the covariates are *not* scaled per fit: e1071's ``svm(scale=TRUE)``
divides each covariate by its training set's standard deviation (the paper
names e1071's SVM, ``mri-paper.tex`` lines 1407-1409, and states kknn's
scaling, lines 1401-1402).  Per-fit scaling is available as an option,
``scale="train"`` (a fixed ``scale=`` tuple divides by given divisors); it is
not the default because it moves every kernel value when a point is added, so
no fast path is exact with it: each retrained model is a refit (a BMRI,
SMRI or EfeLc step 14 to 47 times slower on the small real sets,
``benchmarks/bench_perfit_scaling.py``), while fixed kernel values keep the
solution path and the exact family.  (The registered real data sets
are standardised once over all rows, ``DataProblem(standardize=True)``; on
them per-fit scaling gives the models it gives on the raw data, the
differences being translation invariant and the per-fit divisors absorbing
any prior scale, but for a covariate constant on a training set, which stays
undivided.)  With it, a covariate constant on the training set is
left unscaled, where e1071 then scales no covariate at all (with a
warning).  ``gamma`` defaults to ``1 / d`` (e1071's
default), fixed rather than estimated from the data (scikit-learn's
``gamma="scale"`` would move every kernel value when a point is added too).
"""

from __future__ import annotations

import functools
import types
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from scipy import special

from mri_theory._utils import validation as check
from mri_theory.classifiers._compiled import on_first_call
from mri_theory.classifiers._frame import MAX_MAGNITUDE, check_magnitude
from mri_theory.classifiers._repeats import merged_in_order
from mri_theory.classifiers._scaling import check_scale, divisors
from mri_theory.classifiers.knn import squared_distances
from mri_theory.engine.contract import Classifier, check_points, refit_future_losses
from mri_theory.engine.exact import MixtureTruth
from mri_theory.engine.kernel_rules import kernel_losses, kernel_losses_family
from mri_theory.engine.losses import pointwise_loss_from_scores
from mri_theory.engine.population import ExactPopulation, Population

__all__ = ["MAX_C", "PLATT_FITS", "PLATT_FOLDS", "SVM", "SVMConvergenceWarning", "platt_sigmoid"]


#: How :class:`SVM` fits its Platt sigmoids: on the training decision values, or on out-of-fold ones (e1071).
PLATT_FITS = ("train", "cv")
#: The folds of ``platt="cv"`` (libsvm's internal cross-validation, ``svm_binary_svc_probability``).
PLATT_FOLDS = 5


class SVMConvergenceWarning(RuntimeWarning):
    """The SVM's dual solution is outside its stopping gap (``1e-11 * max(1, C)``) after the solver's rounds, each
    capped at ``max(10_000, 100 * points)`` SMO steps: the solution is the last iterate.

    Until 0.2.0 the solver also warned when an intermediate SMO round stopped at the cap although the polish that
    follows it reached the gap: the case behind the scale-out issue's warning, a retrained machine of 98 points
    whose shifted kernel has condition number 2e19 (``tests/data/svm_slow_smo.npz``), is solved to a gap of 7e-16;
    it is no longer reported (the solution is the same bit for bit).  The study counts the warnings per task
    (``solver.csv`` of :func:`~mri_theory.runners.run_study`, :func:`~mri_theory.runners.solver_stops` and the
    report).

    See Also
    --------
    mri_theory.runners.solver_stops : How many of a study's tasks had a capped solve.

    Examples
    --------
    A warning category: filter it, or turn it into an error, with the warnings module:

    >>> import warnings
    >>> from mri_theory.classifiers import SVMConvergenceWarning
    >>> issubclass(SVMConvergenceWarning, RuntimeWarning)
    True
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("error", SVMConvergenceWarning)  # a capped solve now raises
    ...     try:
    ...         warnings.warn("dual solve stopped at the cap", SVMConvergenceWarning)
    ...     except SVMConvergenceWarning as error:
    ...         print("raised:", error)
    raised: dual solve stopped at the cap
    """

#: Largest accepted ``C``: the stopping gap ``1e-11 * C`` stays far below the gap 2 of ``alpha = 0``.
MAX_C = 1e8

_SMO_TOLERANCE = 1e-11  # maximal violating pair's gap, times max(1, C)
_TAU = 1e-12  # libsvm's floor on the curvature of a working pair
_BOUND_SNAP = 1e-12  # alphas this close to 0 or C (relative to C) are put on the bound
_POLISH_SLACK = 1e-9  # polished alphas may leave [0, C] by this much (times C) before being clipped
_PLATT_GRADIENT = 1e-12  # Newton stops when |gradient| <= this times the number of points
_PLATT_RIDGE = 1e-12  # Lin, Lin & Weng's ridge on the Newton Hessian
_PLATT_FLAT = 1e-10  # decision values spread less than this (relative) are all equal: Platt's A = 0
_PLATT_MAX_ITER = 100  # Newton steps per sigmoid
_PLATT_NEWTON_FLOOR = 1e-12  # Newton decrements below this (times the objective) take the full step
_PLATT_WELL_CONDITIONED = 1e-4  # a warm start is taken where the Hessian's smaller eigenvalue is about this or more
_CHUNK_CELLS = 2**21  # population points x candidates x machines (or classes) per chunk
_MACHINE_CACHE = 4  # blocks of retrained machines a fitted model keeps (the same candidates on several populations)


def _rbf_kernel(A: np.ndarray, B: np.ndarray, gamma: float) -> np.ndarray:
    r"""The RBF kernel matrix :math:`e^{-\gamma |a - b|^2}`, shape ``(len(A), len(B))``.

    Distances are summed coordinate by coordinate
    (:func:`~mri_theory.classifiers.knn.squared_distances`), so an entry does
    not depend on which other points are in ``A`` or ``B``: a refit and the
    fast path see bit-identical kernel values.
    """
    return np.exp(squared_distances(A, B, -gamma))


def _shifted_kernel(A: np.ndarray, B: np.ndarray, gamma: float) -> np.ndarray:
    r"""The kernel minus one, :math:`e^{-\gamma |a - b|^2} - 1` by ``expm1``: what the solver works with.

    The dual and the decision function are unchanged when every kernel value
    is lowered by 1 (module notes, "Shifted kernel"), and ``expm1`` keeps the
    relative accuracy of :math:`-\gamma |a - b|^2` when it is small, which
    :math:`e^{-\gamma |a - b|^2}` (near 1) loses.  Same distances as
    :func:`_rbf_kernel`.
    """
    kernel = squared_distances(A, B, -gamma)
    return np.expm1(kernel, out=kernel)


def _machine_classes(present: np.ndarray) -> np.ndarray:
    """Positive class of each binary machine: every present class (3+), the larger one (2), none (1)."""
    if present.size >= 3:
        return present
    return present[1:]


def _calibrated_scores(z: np.ndarray, present: np.ndarray, k: int) -> np.ndarray:
    r"""Class log-probabilities, up to a constant per point, from the machines' Platt arguments.

    ``z`` holds :math:`z_c = A_c f_c + B_c` with shape ``(..., M, N)``
    (``M = len(_machine_classes(present))`` machines, points last); returns
    ``(..., k, N)`` whose softmax over the class axis is the model's
    probabilities: :math:`\ln q_c = -\ln(1 + e^{z_c})` for each machine's
    class (3+ classes present: :math:`\hat p_c = q_c / \sum q`); 0 and
    :math:`-z` for the smaller and larger class of a binary machine (the
    log-odds of :math:`\hat p = (1 - q, q)`); 0 for a single present class;
    :math:`-\infty` for absent classes (probability 0).
    """
    out = np.full(z.shape[:-2] + (k, z.shape[-1]), -np.inf)
    if present.size == 1:
        out[..., present[0], :] = 0.0
    elif present.size == 2:
        out[..., present[0], :] = 0.0
        out[..., present[1], :] = -z[..., 0, :]
    else:
        out[..., present, :] = -np.logaddexp(0.0, z)
    return out


def _kernel_rules(k: int, present: np.ndarray, coef: np.ndarray, intercept: np.ndarray,
                  sigmoids: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""The class scores of models as kernel rules (:mod:`mri_theory.engine.kernel_rules`): ``(S, c, mask)`` of
    shapes ``(..., k, n)``, ``(..., k)``, ``(..., k)`` from the machines (classes :func:`_machine_classes` of
    ``present``) with dual coefficients ``coef`` ``(..., M, n)``, ``intercept`` ``(..., M)`` and Platt's
    ``sigmoids`` ``(..., M, 2)``.

    A machine's Platt argument is :math:`z = A f + B`; two present classes: the larger scores :math:`-z` against
    the smaller's 0 (its probability exceeds ``1/2`` where :math:`z < 0`); three or more: each class scores
    :math:`-z_c` (the largest normalised sigmoid is the smallest argument).  The argmax of these scores is the
    model's predicted class, as :func:`_calibrated_scores`'s.
    """
    shape = coef.shape[:-2]
    S, c = np.zeros(shape + (k, coef.shape[-1])), np.zeros(shape + (k,))
    mask = np.zeros(shape + (k,), dtype=bool)
    mask[..., present] = True
    machines = _machine_classes(present)
    slope, offset = sigmoids[..., 0], sigmoids[..., 1]
    S[..., machines, :] = -slope[..., None] * coef
    c[..., machines] = -(slope * intercept + offset)
    return S, c, mask


# ---------------------------------------------------------------------------------------- the dual solver


class _Gram:
    """Kernel matrices of ``B`` dual problems: ``n`` shared points plus, optionally, one extra point each.

    ``K`` is the ``(n, n)`` shifted kernel (:func:`_shifted_kernel`) of the
    shared points; ``extra`` (``(B, n)`` or ``None``) the shifted kernel
    between them and each problem's extra point, whose own value is 0 (RBF:
    :math:`K(x, x) - 1 = 0`).
    """

    def __init__(self, K: np.ndarray, extra: np.ndarray | None = None) -> None:
        self.K, self.extra = K, extra
        self.n = K.shape[0]
        self.size = self.n + (extra is not None)

    def entries(self, problems: np.ndarray, i: np.ndarray, j: np.ndarray) -> np.ndarray:
        """Entries ``(i, j)`` of the kernel matrices of ``problems`` (``i`` and ``j`` broadcast against
        ``problems`` reshaped to ``(len(problems), 1, ...)``)."""
        shared_i, shared_j = np.minimum(i, self.n - 1), np.minimum(j, self.n - 1)
        out = self.K[shared_i, shared_j]
        if self.extra is not None:
            b = problems.reshape((-1,) + (1,) * (np.broadcast(i, j).ndim - 1))
            out = np.where(i == self.n, self.extra[b, shared_j], out)
            out = np.where(j == self.n, self.extra[b, shared_i], out)
            out = np.where((i == self.n) & (j == self.n), 0.0, out)
        return out


def _smo_rows(K, extra, problems, s, alpha, G, upper, tol, tau, upper_snap, lower_snap, max_iter,
              moved):  # pragma: no cover - compiled by numba (its pure-Python run is tested against it)
    """One SMO round (libsvm's solver, WSS 2; :func:`_solve`), compiled: row ``r`` (problem ``problems[r]``,
    whose extra point is ``extra[b]``) to convergence, in place; returns whether every row converged within
    ``max_iter`` steps.  ``upper[t]`` is point ``t``'s box bound (:math:`C` times its multiplicity,
    :func:`_solve`) and ``upper_snap[t]`` the value from which an alpha is put on it; a pair is clipped to
    its two bounds as libsvm clips a pair of different bounds.

    The operations are those of the vectorised numpy SMO this replaced (kept in the tests), element by
    element and in the same order (no reduction, no fused multiply-add: numba's default,
    ``fastmath=False``), so the iterates are bit-identical to it.
    """
    rows, size = s.shape
    n = K.shape[0]
    has_extra = size > n
    Ki = np.empty(size)
    Kj = np.empty(size)

    def load_row(row, index, b):  # row ``index`` of problem ``b``'s shifted kernel matrix
        if index < n:
            for t in range(n):
                row[t] = K[index, t]
            if has_extra:
                row[n] = extra[b, index]
        else:
            for t in range(n):
                row[t] = extra[b, t]
            row[n] = 0.0

    converged = True
    for r in range(rows):
        b = problems[r]
        y = s[r]
        a = alpha[r]
        g = G[r]
        done = False
        for _ in range(max_iter):
            # maximal violating pair (Fan, Chen & Lin 2005, WSS 1 ends), ties to the lowest index
            i = -1
            m = -np.inf
            M = np.inf
            for t in range(size):
                v = -y[t] * g[t]
                up = (a[t] < upper[t]) if y[t] > 0 else (a[t] > 0)
                low = (a[t] > 0) if y[t] > 0 else (a[t] < upper[t])
                if up and v > m:
                    m = v
                    i = t
                if low and v < M:
                    M = v
            if not (m - M > tol):
                done = True
                break
            moved[r] = True
            load_row(Ki, i, b)
            j = 0
            best = np.inf
            for t in range(size):
                if (a[t] > 0) if y[t] > 0 else (a[t] < upper[t]):
                    gap = m - (-y[t] * g[t])
                    if gap > tol:
                        curvature = -2.0 * Ki[t]
                        if not (curvature > 0):
                            curvature = tau
                        value = -(gap * gap) / curvature
                        if value < best:
                            best = value
                            j = t
            load_row(Kj, j, b)
            ai, aj, gi, gj, yi, yj = a[i], a[j], g[i], g[j], y[i], y[j]
            quad = -2.0 * Ki[j]
            if not (quad > 0):
                quad = tau
            Ci, Cj = upper[i], upper[j]
            if yi == yj:  # libsvm's clip of a pair with bounds Ci, Cj
                total = ai + aj
                delta = (gi - gj) / quad
                ni, nj = ai - delta, aj + delta
                if total > Ci:
                    if ni > Ci:
                        ni, nj = Ci, total - Ci
                else:
                    if nj < 0:
                        ni, nj = total, 0.0
                if total > Cj:
                    if nj > Cj:
                        ni, nj = total - Cj, Cj
                else:
                    if ni < 0:
                        ni, nj = 0.0, total
            else:
                diff = ai - aj
                ni, nj = ai + (-gi - gj) / quad, aj + (-gi - gj) / quad
                if diff > 0:
                    if nj < 0:
                        ni, nj = diff, 0.0
                else:
                    if ni < 0:
                        ni, nj = 0.0, -diff
                if diff > Ci - Cj:
                    if ni > Ci:
                        ni, nj = Ci, Ci - diff
                else:
                    if nj > Cj:
                        ni, nj = Cj + diff, Cj
            ni = Ci if ni >= upper_snap[i] else (0.0 if ni <= lower_snap else ni)
            nj = Cj if nj >= upper_snap[j] else (0.0 if nj <= lower_snap else nj)
            ci, cj = yi * (ni - ai), yj * (nj - aj)
            for t in range(size):
                g[t] += y[t] * (ci * Ki[t] + cj * Kj[t])
            a[i], a[j] = ni, nj
        if not done:
            converged = False
    return converged


_compiled_smo = on_first_call(_smo_rows)


def _polish_rows(K, extra, problems, s, alpha, upper, slack, upper_snap, lower_snap,
                 out):  # pragma: no cover - compiled by numba (its pure-Python run is tested against it)
    """The polish (:func:`_solve`), compiled: row ``r`` of ``alpha`` (problem ``problems[r]``, whose extra point is
    ``extra[b]`` when ``s`` has a column more than ``K``) polished into ``out[r]`` (which holds ``alpha[r]``
    on entry and keeps it where no feasible polish is found); ``upper`` and ``upper_snap`` are the points'
    bounds as in :func:`_smo_rows`."""
    rows, size = s.shape
    n = K.shape[0]
    eps = 2.220446049250313e-16

    def entry(i, j, b):  # entry (i, j) of problem b's shifted kernel matrix
        if i < n and j < n:
            return K[i, j]
        if i == n and j == n:
            return 0.0  # the extra point's own value: K(x, x) - 1
        return extra[b, j] if i == n else extra[b, i]

    for r in range(rows):
        b = problems[r]
        a = alpha[r]
        y = s[r]
        f = 0
        for t in range(size):
            if a[t] > 0 and a[t] < upper[t]:
                f += 1
        if f == 0:
            continue
        free = np.empty(f, dtype=np.int64)
        p = 0
        upper_sum = 0.0
        for t in range(size):
            if a[t] > 0 and a[t] < upper[t]:
                free[p] = t
                p += 1
            elif a[t] >= upper[t]:
                upper_sum += upper[t] * y[t]
        system = np.ones((f + 1, f + 1))
        system[f, f] = 0.0
        rhs = np.empty(f + 1)
        duplicates = False
        for p in range(f):
            for q in range(f):
                system[p, q] = entry(free[p], free[q], b)
                if p != q and system[p, q] == 0.0:
                    duplicates = True  # two copies of a point: the system is singular
            bound = 0.0
            for t in range(size):
                if a[t] >= upper[t]:
                    bound += entry(free[p], t, b) * (upper[t] * y[t])
            rhs[p] = y[free[p]] - bound
        rhs[f] = -upper_sum
        solution = np.full(f + 1, np.nan)
        if not duplicates:
            try:
                solution = np.linalg.solve(system, rhs)
            except Exception:  # numerically singular: the least-norm correction below
                solution = np.full(f + 1, np.nan)
        ok = True
        for p in range(f):
            value = y[free[p]] * solution[p]
            if not (value >= -slack and value <= upper[free[p]] + slack):  # (NaN fails too)
                ok = False
        if not ok:
            # the least-norm correction of the current iterate, intercept at the mean of the implied ones
            start = np.empty(f + 1)
            for p in range(f):
                start[p] = y[free[p]] * a[free[p]]
            implied = 0.0
            for p in range(f):
                product = 0.0
                for q in range(f):
                    product += system[p, q] * start[q]
                implied += rhs[p] - product
            start[f] = implied / f
            residual = rhs - system @ start
            U, sv, Vt = np.linalg.svd(system)
            cutoff = eps * (f + 1) * sv[0]  # LAPACK gelsd's rule, as numpy.linalg.lstsq's
            weights = U.T @ residual
            for p in range(f + 1):
                weights[p] = weights[p] / sv[p] if sv[p] > cutoff else 0.0
            solution = start + Vt.T @ weights
            ok = True
            for p in range(f):
                value = y[free[p]] * solution[p]
                if not (value >= -slack and value <= upper[free[p]] + slack):
                    ok = False
        if ok:
            for p in range(f):
                t = free[p]
                value = min(max(y[t] * solution[p], 0.0), upper[t])
                out[r, t] = upper[t] if value >= upper_snap[t] else (0.0 if value <= lower_snap else value)


_compiled_polish = on_first_call(_polish_rows)


def _path_start(K, y, a, g, upper, inverse, free):  # pragma: no cover - compiled by numba (pure-Python run tested)
    r"""The start of :func:`_path_row` for one old solution (a kind of :func:`_solve_rows`): its free set
    ``F`` (written to ``free``, returned as its size ``f``, 0 where the path cannot start) and the inverse of
    the bordered KKT matrix :math:`M = [[0, \mathbf 1^T], [\mathbf 1, \tilde K_{FF}]]` (into
    ``inverse[:f + 1, :f + 1]``, position 0 the intercept, ``1 + i`` the free point ``free[i]``), over the
    first ``len(K)`` points of row ``y``, ``a``, ``g``; and returns the old intercept (libsvm's rule: the mean
    of :math:`-s G` over ``F``)."""
    n = K.shape[0]
    f = 0
    total = 0.0
    for t in range(n):
        if a[t] > 0 and a[t] < upper[t]:
            free[f] = t
            f += 1
            total += y[t] * g[t]
    if f == 0:
        return 0, 0.0
    M = np.zeros((f + 1, f + 1))
    for i in range(f):
        M[0, 1 + i] = 1.0
        M[1 + i, 0] = 1.0
        for k in range(f):
            M[1 + i, 1 + k] = K[free[i], free[k]]
    try:
        inv = np.linalg.inv(M)
    except Exception:  # singular: copies of a point with opposite labels among the free vectors
        return 0, 0.0
    for i in range(f + 1):
        for k in range(f + 1):
            if not np.isfinite(inv[i, k]):
                return 0, 0.0
            inverse[i, k] = inv[i, k]
    return f, -total / f


def _path_row(K, extra, b, y, a, g, upper, intercept, inverse, free, f, max_events, work, rate,
              phi):  # pragma: no cover - compiled by numba (its pure-Python run is tested against it)
    r"""A guess at the solution of a warm-started problem whose only violator is its extra point ``c``
    (index ``len(K)``): the exact solution path of Cauwenberghs & Poggio (2001) as :math:`\alpha_c` grows from 0.

    On entry row ``y``, ``a``, ``g`` is the old solution (``a[c] = 0``, ``g[c]`` the candidate's gradient),
    ``F = free[:f]`` its free set, ``inverse[:f + 1, :f + 1]`` the inverse of its bordered KKT matrix
    (:func:`_path_start`) and ``intercept`` its intercept.  Along the path the free points keep their
    margins, :math:`y_t f(x_t) = 1`, and the equality constraint holds: a change :math:`d\beta_c` of
    :math:`\beta_c = y_c \alpha_c` moves the intercept and :math:`\beta_F` by
    :math:`\phi\, d\beta_c = -M^{-1} [1, \tilde K_{Fc}]^T d\beta_c` and every other margin linearly.  The path
    runs to the next event (``c``'s margin reaches 1: ``c`` is free, done; :math:`\alpha_c` reaches its bound:
    done; a free alpha reaches 0 or its bound: it leaves ``F``; a point on a bound whose margin reaches 1
    joins ``F``), updates :math:`M^{-1}` by one row and column (bordering, or the Schur complement) and goes on.
    Returns whether it ended (``a`` then holds the guess, its alphas on their bounds exactly where the path
    put them there); ``False`` where it could not go on (an empty free set, a singular or non-decreasing
    step, more than ``max_events`` events), ``a`` then undefined.  ``work`` is scratch of ``inverse``'s
    size, ``rate`` and ``phi`` of the row's.  The caller polishes the guess and keeps it only if it meets the
    stopping gap (:func:`_solve_rows`).
    """
    n = K.shape[0]
    c = n
    yc = y[c]
    h = g.copy()  # margins minus 1: G + y b
    for t in range(n + 1):
        h[t] += y[t] * intercept
    in_free = np.zeros(n, dtype=np.bool_)
    for i in range(f):
        in_free[free[i]] = True
    lam = 0.0
    for _ in range(max_events):
        if f == 0:
            return False
        # phi = -M^{-1} [1, K_Fc]
        for i in range(f + 1):
            total = inverse[i, 0]
            for k in range(f):
                total += inverse[i, 1 + k] * extra[b, free[k]]
            phi[i] = -total
        # dh_t / dlambda = y_t y_c (K_tc + K_tF phi_F + phi_b) for the points off F (c included)
        for t in range(n):
            rate[t] = extra[b, t] + phi[0]
        rate[c] = phi[0]
        for k in range(f):
            p = free[k]
            coef = phi[1 + k]
            for t in range(n):
                rate[t] += coef * K[p, t]
            rate[c] += coef * extra[b, p]
        for t in range(n + 1):
            rate[t] *= y[t] * yc
        if not (rate[c] > 0):
            return False
        # the next event
        step = upper[c] - lam
        event = -1  # -1: c reaches its bound; -2: c becomes free; 0..: the point of that index changes set
        to_c = -h[c] / rate[c]
        if to_c <= step:
            step, event = to_c, -2
        for k in range(f):
            p = free[k]
            da = y[p] * yc * phi[1 + k]
            if da > 0:
                length = (upper[p] - a[p]) / da
            elif da < 0:
                length = a[p] / -da
            else:
                continue
            if length < step:
                step, event = length, p
        for t in range(n):
            if in_free[t]:
                continue
            if a[t] <= 0 and rate[t] < 0:
                length = h[t] / -rate[t]
            elif a[t] >= upper[t] and rate[t] > 0:
                length = -h[t] / rate[t]
            else:
                continue
            if length < step:
                step, event = length, t
        step = max(step, 0.0)
        # move along the path
        lam += step
        a[c] = lam
        for k in range(f):
            p = free[k]
            a[p] += y[p] * yc * phi[1 + k] * step
        for t in range(n + 1):
            if t == c or not in_free[t]:
                h[t] += rate[t] * step
        if event == -1:
            a[c] = upper[c]
            return True
        if event == -2:
            return True
        if in_free[event]:  # a free alpha reaches a bound: it leaves F
            q = 0
            while free[q] != event:
                q += 1
            a[event] = upper[event] if y[event] * yc * phi[1 + q] > 0 else 0.0
            pos = 1 + q  # the inverse of M without row and column pos: a Schur complement of M^{-1}
            pivot = inverse[pos, pos]
            if pivot == 0.0 or not np.isfinite(pivot):
                return False
            for i in range(f):
                ii = i if i < pos else i + 1
                for k in range(f):
                    kk = k if k < pos else k + 1
                    work[i, k] = inverse[ii, kk] - inverse[ii, pos] * inverse[pos, kk] / pivot
            for i in range(f):
                for k in range(f):
                    inverse[i, k] = work[i, k]
            for k in range(q, f - 1):
                free[k] = free[k + 1]
            f -= 1
            in_free[event] = False
        else:  # a point on a bound whose margin reaches 1 joins F: border the inverse
            h[event] = 0.0
            scale = 0.0
            for i in range(f + 1):
                total = inverse[i, 0]
                for k in range(f):
                    total += inverse[i, 1 + k] * K[free[k], event]
                phi[i] = total  # w = M^{-1} v, v = [1, K_F,event]
                scale = max(scale, abs(total))
            schur = -phi[0]  # K_tt - v^T w (the shifted kernel's diagonal is 0)
            for k in range(f):
                schur -= K[free[k], event] * phi[1 + k]
            if not (abs(schur) > 1e-12 * max(1.0, scale)):
                return False
            for i in range(f + 1):
                for k in range(f + 1):
                    inverse[i, k] += phi[i] * phi[k] / schur
                inverse[i, f + 1] = -phi[i] / schur
                inverse[f + 1, i] = -phi[i] / schur
            inverse[f + 1, f + 1] = 1.0 / schur
            free[f] = event
            f += 1
            in_free[event] = True
    return False


_compiled_path_start = on_first_call(_path_start)
_compiled_path_row = on_first_call(_path_row)


def _solve_rows(K, extra, problems, s, alpha, G, upper, tols, tau, upper_snap, lower_snap, slack, max_iter, intercept,
                moved, kinds):  # pragma: no cover - compiled by numba (its pure-Python run is tested against it)
    """:func:`_solve`'s work, compiled: row ``r`` of ``s``, ``alpha``, ``G`` (problem ``b = problems[r]``, whose
    extra point is ``extra[b]`` when ``s`` has a column more than ``K``) solved in place, its intercept into
    ``intercept[r]`` and whether it was re-solved into ``moved[r]``; returns whether every problem's final
    solution is within the last tolerance's gap (an SMO round stopped at ``max_iter`` whose polish, or a later
    round, reaches that gap has converged: the case of ``tests/data/svm_slow_smo.npz``).

    Per problem: the maximal violating pair's gap against the last tolerance (``tols[-1]``: a problem within
    it is kept exactly); then, where ``kinds[r] >= 0`` (rows of one kind share the old solution of their first
    ``len(K)`` points, the extra point starting at 0: the fast path's candidates), the solution path
    (:func:`_path_start` once per kind, :func:`_path_row`), polished and kept if it meets that gap; else for
    each tolerance in ``tols`` :func:`_smo_rows` and, if that took a step,
    :func:`_polish_rows`, the polished alphas' gradient computed afresh (``Q alpha - 1``, skipping the zero
    alphas), the polish kept only if it does not widen the gap (else the gradient is computed afresh from
    SMO's alphas); finally libsvm's intercept.  The operations are those of the numpy solver this replaced
    (kept in ``tests/classifiers/test_svm_solve_compiled.py``) except the order of the sums (gradients,
    intercept): equal to rounding.
    """
    rows, size = s.shape
    n = K.shape[0]
    has_extra = size > n
    problem = np.zeros(1, dtype=np.int64)
    stepped = np.zeros(1, dtype=np.bool_)
    polished = np.empty((1, size))
    fresh = np.empty(size)

    def gap(y, a, g):  # m(alpha) - M(alpha): the maximal violating pair's gap (Fan, Chen & Lin 2005, Eq. 9)
        m = -np.inf
        M = np.inf
        for t in range(size):
            v = -y[t] * g[t]
            up = (a[t] < upper[t]) if y[t] > 0 else (a[t] > 0)
            low = (a[t] > 0) if y[t] > 0 else (a[t] < upper[t])
            if up and v > m:
                m = v
            if low and v < M:
                M = v
        return m - M

    def gradient(b, y, a, out):  # out = y * (K_b @ (a * y)) - 1
        for t in range(size):
            out[t] = 0.0
        for u in range(n):
            beta = a[u] * y[u]
            if beta != 0.0:
                for t in range(n):
                    out[t] += beta * K[u, t]
                if has_extra:
                    out[n] += beta * extra[b, u]
        if has_extra:
            beta = a[n] * y[n]
            if beta != 0.0:
                for t in range(n):
                    out[t] += beta * extra[b, t]
        for t in range(size):
            out[t] = y[t] * out[t] - 1.0

    # the solution path's start per kind of problem (rows of a kind share their first n points' old solution)
    n_kinds = 0
    for r in range(rows):
        n_kinds = max(n_kinds, kinds[r] + 1)
    started = np.zeros(n_kinds, dtype=np.bool_)
    kind_size = np.zeros(n_kinds, dtype=np.int64)
    kind_intercept = np.zeros(n_kinds)
    kind_free = np.zeros((n_kinds, n), dtype=np.int64)
    kind_inverse = np.zeros((n_kinds, n + 1, n + 1))
    room = n + 1 if n_kinds > 0 else 1  # the bordered matrices' scratch, only where a path may run
    free = np.zeros(n, dtype=np.int64)
    inverse = np.zeros((room, room))
    work = np.zeros((room, room))
    rate = np.zeros(size)
    phi = np.zeros(n + 1)
    saved_a = np.zeros(size)
    saved_g = np.zeros(size)

    converged = True
    for r in range(rows):
        y = s[r]
        a = alpha[r]
        g = G[r]
        problem[0] = problems[r]
        moved[r] = gap(y, a, g) > tols[-1]
        solved = False
        kind = kinds[r]
        if moved[r] and kind >= 0 and has_extra:
            # the solution path from the old solution guesses the active set; polished, it is kept if it meets
            # the stopping gap (else SMO from the warm start, below)
            if not started[kind]:
                started[kind] = True
                kind_size[kind], kind_intercept[kind] = _path_start(K, y, a, g, upper, kind_inverse[kind],
                                                                    kind_free[kind])
            f = kind_size[kind]
            if f > 0:
                for t in range(size):
                    saved_a[t] = a[t]
                    saved_g[t] = g[t]
                for t in range(f):
                    free[t] = kind_free[kind, t]
                for i in range(f + 1):
                    for k in range(f + 1):
                        inverse[i, k] = kind_inverse[kind, i, k]
                if _path_row(K, extra, problems[r], y, a, g, upper, kind_intercept[kind], inverse, free, f,
                             2 * size + 10, work, rate, phi):
                    for t in range(size):  # the path's end, alphas within the snap of a bound put on it
                        polished[0, t] = upper[t] if a[t] >= upper_snap[t] else (0.0 if a[t] <= lower_snap else a[t])
                    for attempt in range(2):  # the path's end, else its polish
                        if attempt == 1:
                            _polish_rows(K, extra, problem, s[r:r + 1], polished, upper, slack, upper_snap,
                                         lower_snap, polished)
                        gradient(problems[r], y, polished[0], fresh)
                        if gap(y, polished[0], fresh) <= tols[-1]:
                            solved = True
                            for t in range(size):
                                a[t] = polished[0, t]
                                g[t] = fresh[t]
                            break
                if not solved:
                    for t in range(size):
                        a[t] = saved_a[t]
                        g[t] = saved_g[t]
        if moved[r] and not solved:
            for tol in tols:
                stepped[0] = False
                # a round stopped at max_iter is not a failure if the polish (or a later round) reaches the gap
                _smo_rows(K, extra, problem, s[r:r + 1], alpha[r:r + 1], G[r:r + 1], upper, tol, tau, upper_snap,
                          lower_snap, max_iter, stepped)
                if stepped[0]:
                    for t in range(size):
                        polished[0, t] = a[t]
                    _polish_rows(K, extra, problem, s[r:r + 1], alpha[r:r + 1], upper, slack, upper_snap,
                                 lower_snap, polished)
                    gradient(problems[r], y, polished[0], fresh)
                    if gap(y, polished[0], fresh) > gap(y, a, g):  # the polish widened the gap: not kept
                        gradient(problems[r], y, a, g)
                    else:
                        for t in range(size):
                            a[t] = polished[0, t]
                            g[t] = fresh[t]
            if gap(y, a, g) > tols[-1]:  # the final solution outside the stopping gap: say so
                converged = False
        # libsvm's b = -rho: mean of s G over the free vectors, else the midpoint of the feasible interval
        n_free = 0
        total = 0.0
        ub = np.inf
        lb = -np.inf
        for t in range(size):
            v = y[t] * g[t]
            if a[t] >= upper[t]:
                if y[t] < 0:
                    ub = min(ub, v)
                else:
                    lb = max(lb, v)
            elif a[t] <= 0:
                if y[t] > 0:
                    ub = min(ub, v)
                else:
                    lb = max(lb, v)
            else:
                n_free += 1
                total += v
        intercept[r] = -(total / n_free if n_free > 0 else (ub + lb) / 2)
    return converged


@functools.cache
def _compiled_solve() -> Any:
    """:func:`_solve_rows` compiled by numba on first use, calling the compiled :func:`_smo_rows` and
    :func:`_polish_rows` (cached on disk next to this module when it can be)."""
    import numba

    compiled_globals = dict(globals(), _smo_rows=_compiled_smo(), _polish_rows=_compiled_polish(),
                            _path_start=_compiled_path_start(), _path_row=_compiled_path_row())
    function = types.FunctionType(_solve_rows.__code__, compiled_globals, _solve_rows.__name__,
                                  _solve_rows.__defaults__, _solve_rows.__closure__)
    function.__qualname__ = _solve_rows.__qualname__
    return numba.njit(cache=True, nogil=True)(function)


def _solve(gram: _Gram, s: np.ndarray, alpha: np.ndarray, G: np.ndarray, C: float,
           problems: np.ndarray | None = None, weights: np.ndarray | None = None,
           kinds: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Solve ``B`` duals from feasible ``(alpha, G)``; returns ``(alpha, G, b, moved)``.

    Row ``r`` of ``s``, ``alpha``, ``G`` is :class:`_Gram` problem ``problems[r]`` (default ``r``).
    ``weights`` (default all 1) are the points' multiplicities: point ``t``'s bound is ``C * weights[t]``
    (a point drawn ``m`` times is one point with bound ``m C``: module notes, "Repeated points").
    Problems that meet the stopping rule at the start are kept exactly (``moved`` False).  Rows given a kind
    (``kinds[r] >= 0``; default none) are warm starts whose only change is their extra point, rows of one kind
    sharing the old solution of the ``n`` shared points: they are first solved along the exact solution path
    (module notes, "Exact retraining path"), polished, and kept where that meets the stopping gap.  The others alternate
    SMO (:func:`_smo_rows`) and the polish (:func:`_polish_rows`) with tightening gaps ``(1e-4, 1e-7, 1e-11) *
    max(1, C)``: SMO to a loose gap usually finds the active set and the polish then solves the KKT equalities
    exactly, so the later rounds take no iteration; on ill-conditioned kernels (small ``gamma``), where SMO
    converges slowly, the intermediate polishes shortcut it.  Only a problem SMO moved in a round is polished, and
    a polish is kept only if it does not widen the gap, so the final gap is at most the tolerance. Gradients are
    recomputed from the alphas after every polish; the intercept is libsvm's (mean of :math:`s G` over the free
    vectors, else the midpoint of the feasible interval).  One problem at a time,
    start to end, compiled (:func:`_solve_rows`).
    """
    scale = max(1.0, C)
    alpha, G = np.array(alpha, dtype=float, order="C"), np.array(G, dtype=float, order="C")
    B = s.shape[0]
    intercept, moved = np.empty(B), np.zeros(B, dtype=bool)
    if B == 0:
        return alpha, G, intercept, moved
    extra = gram.extra if gram.extra is not None else np.zeros((1, gram.n))
    upper = np.full(gram.size, float(C)) if weights is None else C * np.asarray(weights, dtype=float)
    max_iter = max(10_000, 100 * gram.size)
    tols = np.array([1e-4 * scale, 1e-7 * scale, _SMO_TOLERANCE * scale])
    problems = np.arange(B) if problems is None else np.asarray(problems, dtype=np.int64)
    kinds = np.full(B, -1, dtype=np.int64) if kinds is None else np.asarray(kinds, dtype=np.int64)
    converged = _compiled_solve()(np.ascontiguousarray(gram.K, dtype=float), np.ascontiguousarray(extra),
                                  problems, np.ascontiguousarray(s, dtype=float), alpha, G, upper, tols, _TAU,
                                  upper * (1 - _BOUND_SNAP), C * _BOUND_SNAP, _POLISH_SLACK * C, max_iter, intercept,
                                  moved, kinds)
    if not converged:
        warnings.warn(f"SVM dual solver stopped after {max_iter} iterations without reaching its tolerance",
                      SVMConvergenceWarning, stacklevel=3)
    return alpha, G, intercept, moved


# ---------------------------------------------------------------------------------------- Platt scaling


def _platt_rows(decision, positive, weights, start, out, gradient_tol, ridge, flat_tol, newton_floor, well_conditioned,
                max_iter):  # pragma: no cover - compiled by numba (its pure-Python run is tested against it)
    r""":func:`_platt`'s Newton iterations, compiled: row ``r`` of ``decision`` / ``positive`` fitted into
    ``out[r]``, from Platt's starting point or from ``start[r]`` when that is finite and has the lower
    objective.  ``weights[t]`` is point ``t``'s multiplicity in every row (its term of the objective, and its
    count in Platt's targets, taken that many times).

    One pass over the points gives the objective, its gradient and its Hessian at a point (one ``exp``
    and one ``log1p`` per point): :math:`-\ln P(+) = \ln(1 + e^z)` and :math:`-\ln P(-) = \ln(1 +
    e^{-z})` both from one :math:`\ln(1 + e^{-|z|})` (``numpy.logaddexp(0, z)`` is exactly
    :math:`\max(z, 0) + \ln(1 + e^{-|z|})`), :math:`P(+)` and :math:`P(-)` from the same :math:`e^{-|z|}`.
    A trial step of the line search that is accepted is the next Newton step's point, so a step costs
    one pass when its full step is taken.
    """
    rows, n = decision.shape

    def evaluate(f, pos, a, c, high, low):  # objective, gradient, Hessian (with the ridge) at z = a f + c
        total = 0.0
        ga = 0.0
        gc = 0.0
        haa = ridge
        hcc = ridge
        hac = 0.0
        for t in range(n):
            z = a * f[t] + c
            e = np.exp(-abs(z))
            shared = np.log1p(e)
            target = high if pos[t] else low
            w = weights[t]
            total += w * (target * (max(z, 0.0) + shared) + (1.0 - target) * (max(-z, 0.0) + shared))
            inverse = 1.0 / (1.0 + e)
            q = e * inverse if z >= 0 else inverse  # P(+) = 1 / (1 + e^z), without overflow
            g = w * (target - q)  # d objective / dz
            h = w * (e * inverse * inverse)  # P(+) P(-)
            ga += g * f[t]
            gc += g
            haa += h * f[t] * f[t]
            hcc += h
            hac += h * f[t]
        return total, ga, gc, haa, hcc, hac

    for r in range(rows):
        f = decision[r]
        pos = positive[r]
        n_pos = 0.0
        n_all = 0.0
        largest = -np.inf
        smallest = np.inf
        magnitude = 1.0
        for t in range(n):
            n_all += weights[t]
            if pos[t]:
                n_pos += weights[t]
            largest = max(largest, f[t])
            smallest = min(smallest, f[t])
            magnitude = max(magnitude, abs(f[t]))
        n_neg = n_all - n_pos
        high = (n_pos + 1) / (n_pos + 2)
        low = 1.0 / (n_neg + 2)
        if largest - smallest <= flat_tol * magnitude:
            # decision values all equal: A is not identified (only A f + B is), so A = 0 and B fits the mean target
            mean_target = (n_pos * high + n_neg * low) / n_all
            out[r, 0] = 0.0
            out[r, 1] = np.log((1.0 - mean_target) / mean_target)
            continue
        a = 0.0
        c = np.log((n_neg + 1) / (n_pos + 1))  # Platt's starting point
        cold = True
        if np.isfinite(start[r, 0]) and np.isfinite(start[r, 1]):
            warm = evaluate(f, pos, start[r, 0], start[r, 1], high, low)
            # Platt's point has z = c everywhere: its objective in closed form (up to rounding, which only
            # decides where to start)
            targets = n_pos * high + n_neg * low
            lower = warm[0] < targets * np.log1p(np.exp(c)) + (n_all - targets) * np.log1p(np.exp(-c))
            # the Hessian's smaller eigenvalue (without the ridge) at least about ``well_conditioned``: the
            # ridge does not slow Newton down, which converges to the minimiser from either start; else the
            # fit starts cold, as a refit does (where the ridge matters the iterates depend on the start)
            haa, hcc, hac = warm[3] - ridge, warm[4] - ridge, warm[5]
            if lower and haa * hcc - hac * hac > well_conditioned * (haa + hcc):
                a, c = start[r, 0], start[r, 1]
                old, ga, gc, haa, hcc, hac = warm
                cold = False
        if cold:
            old, ga, gc, haa, hcc, hac = evaluate(f, pos, a, c, high, low)
        finishing = False
        for _ in range(max_iter):
            if not (max(abs(ga), abs(gc)) > gradient_tol * n_all):
                if finishing:
                    break
                finishing = True  # one more step: from there Newton lands on the minimiser to rounding
            det = haa * hcc - hac * hac
            da = -(hcc * ga - hac * gc) / det
            dc = -(haa * gc - hac * ga) / det
            slope = ga * da + gc * dc
            step = 1.0
            # Newton's decrement below the objective's rounding: the line search cannot judge the step (it
            # would halve it for ever), and Newton's full step is deep in its quadratic convergence
            accepted = -slope <= newton_floor * max(old, 1.0)
            if finishing and accepted:  # the last step: nothing is needed at its end
                a += da
                c += dc
                break
            trial = evaluate(f, pos, a + da, c + dc, high, low)
            while not accepted:
                # Armijo's condition, allowing the rounding of the objective itself
                if trial[0] <= old + 1e-4 * step * slope + 4 * 2.220446049250313e-16 * abs(old):
                    accepted = True
                    break
                step /= 2
                if step < 1e-10:
                    break
                trial = evaluate(f, pos, a + step * da, c + step * dc, high, low)
            if not accepted:  # a failed line search leaves the problem where it is, and stops it
                break
            a += step * da
            c += step * dc
            old, ga, gc, haa, hcc, hac = trial
        out[r, 0] = a
        out[r, 1] = c


_compiled_platt = on_first_call(_platt_rows)


def _platt(decision: np.ndarray, positive: np.ndarray, start: np.ndarray | None = None,
           weights: np.ndarray | None = None) -> np.ndarray:
    """:func:`platt_sigmoid` on validated 2-D input ``(B, n)``; returns ``(B, 2)``.

    ``start`` ``(B, 2)``: a warm start for each problem (rows with a NaN start cold, from Platt's point);
    a start is taken only where its objective is below that of Platt's point, and Newton's method
    converges from either to the same minimiser (the objective is strictly convex unless the decision
    values are all equal, which is decided before the start is looked at).  ``weights`` ``(n,)``: the
    points' multiplicities (default 1), the same in every problem.
    """
    B, n = decision.shape
    start = np.full((B, 2), np.nan) if start is None else np.ascontiguousarray(start, dtype=float)
    weights = np.ones(n) if weights is None else np.ascontiguousarray(weights, dtype=float)
    out = np.empty((B, 2))
    _compiled_platt()(np.ascontiguousarray(decision, dtype=float), np.ascontiguousarray(positive, dtype=np.bool_),
                      weights, start, out, _PLATT_GRADIENT, _PLATT_RIDGE, _PLATT_FLAT, _PLATT_NEWTON_FLOOR,
                      _PLATT_WELL_CONDITIONED, _PLATT_MAX_ITER)
    return out


def platt_sigmoid(decision: ArrayLike, positive: ArrayLike) -> np.ndarray:
    r"""Platt's (1999) sigmoid :math:`P(s = +1 | f) = 1 / (1 + e^{A f + B})` fitted to decision values.

    Minimises the cross-entropy with Platt's regularised targets
    :math:`(N_+ + 1)/(N_+ + 2)` and :math:`1/(N_- + 2)`, which keep the fit
    finite on tiny or separable data, by Newton's method with a backtracking
    line search (Lin, Lin & Weng 2007) from Platt's starting point, to a
    gradient of ``1e-12`` per point.  When the decision values are all equal
    (to ``1e-10``, relative) only :math:`A f + B` is identified: then
    :math:`A = 0` and ``B`` matches the mean target (a minimiser, and the one
    that does not depend on rounding).  Batched: the last axis holds one
    problem's points, leading axes are independent problems.

    Parameters
    ----------
    decision : array_like (..., n)
        Decision values.
    positive : array_like of bool (..., n)
        Which points are positive.

    Returns
    -------
    ndarray (..., 2)
        ``(A, B)`` of each problem.

    See Also
    --------
    mri_theory.classifiers.SVM : Fits it to each machine's decision values for its probabilities.

    Examples
    --------
    Platt's sigmoid (A, B) fitted to decision values; the probability 1 / (1 + exp(A f + B)) rises with f (A < 0),
    and decision values symmetric about 0 with symmetric labels give B = 0:

    >>> import numpy as np
    >>> from mri_theory.classifiers.svm import platt_sigmoid
    >>> decision = np.array([-2.0, -1.0, -0.5, 0.5, 1.0, 2.0])
    >>> positive = np.array([False, False, True, False, True, True])
    >>> A, B = platt_sigmoid(decision, positive)
    >>> round(float(A), 4), abs(float(B)) < 1e-12
    (-0.6304, True)
    >>> (1 / (1 + np.exp(A * decision + B))).round(4).tolist()
    [0.2208, 0.3474, 0.4218, 0.5782, 0.6526, 0.7792]
    """
    decision = check.finite_array(decision, "decision")
    positive = np.asarray(positive)
    if positive.dtype != bool:
        raise TypeError(f"positive must be a boolean array, got dtype {positive.dtype}")
    if decision.ndim < 1 or decision.shape[-1] < 1 or positive.shape != decision.shape:
        raise ValueError(f"decision and positive must have the same shape (..., n) with n >= 1, "
                         f"got {decision.shape} and {positive.shape}")
    n = decision.shape[-1]
    return _platt(decision.reshape(-1, n), positive.reshape(-1, n)).reshape(decision.shape[:-1] + (2,))


# ---------------------------------------------------------------------------------------- the classifier


@dataclass
class _Retrained:
    r"""The distinct retrained machines of a block of candidates.

    ``types[t] = (c, sign)``: machine of class ``c`` with the candidate
    labelled ``sign``.  Arrays are indexed ``[candidate, t]``; dual
    coefficients :math:`\alpha_i s_i` over the distinct training points (module notes, "Repeated points"),
    then the candidate.
    """

    types: list[tuple[int, int]]
    dual_coef: np.ndarray  # (m, T, n + 1)
    intercept: np.ndarray  # (m, T)
    sigmoids: np.ndarray  # (m, T, 2)
    solved: np.ndarray  # (m, T): the candidate violated the machine's KKT conditions (re-solved)


@dataclass
class _Fold:
    """One fold machine of ``platt="cv"`` (module notes): the training rows it holds out, its training data
    (the kept rows' distinct points, their labels, multiplicities and shifted kernel), its solution over them
    (``coef`` :math:`\alpha_i s_i`, ``gradient``, ``intercept``, one row per machine class; ``None`` where a
    machine's kept labels are one-sided, libsvm's rule) and the shifted kernel between its points and its
    held-out rows."""

    held: np.ndarray
    points: np.ndarray
    labels: np.ndarray
    weights: np.ndarray
    kernel: np.ndarray
    coef: np.ndarray | None
    gradient: np.ndarray | None
    intercept: np.ndarray | None
    held_kernel: np.ndarray


def _check_exact_loss(loss: str) -> None:
    """A ValueError unless the SVM's exact path integrates ``loss``: the error rate or the floored log loss (the
    log loss of a model with three or more classes also needs its probabilities certified above the floor in the
    truth's range, :func:`~mri_theory.engine.kernel_rules.kernel_losses`)."""
    if loss not in ("error", "log"):
        raise ValueError(f"loss must be 'error' or 'log' for the SVM's exact path, got {loss!r}")


def _class_solutions(k: int, present: np.ndarray, machines: np.ndarray, coef: np.ndarray, gradient: np.ndarray,
                     intercept: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""A model's solution ``(beta, G, b)`` (``(k, n)``, ``(k, n)``, ``(k,)``) of every "c vs rest" problem from
    its machines' (``machines`` their classes): the fitted machines, the mirror image of the binary one for the
    smaller class, and :math:`\alpha = 0` (optimal when one side is empty) for an absent class."""
    n = coef.shape[1]
    beta, G, b = np.zeros((k, n)), -np.ones((k, n)), np.zeros(k)
    beta[machines], G[machines], b[machines] = coef, gradient, intercept
    if present.size == 2:  # the smaller class's machine is the mirror image
        lo, hi = present
        beta[lo], G[lo], b[lo] = -beta[hi], G[hi], -b[hi]
    return beta, G, b


def _warm_solves(kernel: np.ndarray, labels: np.ndarray, weights: np.ndarray, beta: np.ndarray, G: np.ndarray,
                 K_cand: np.ndarray, types: list[tuple[int, int]],
                 C: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    r"""Every machine of ``types`` after adding each candidate, from the solution ``(beta, G)`` (``(k, n)``) of
    every class's machine on ``n`` distinct points (``kernel``, ``labels``, ``weights``); ``K_cand`` ``(m, n)``
    the candidates' shifted kernel against the points.  Returns ``(s, alpha, G, b, moved)``, rows ``a * T + t``
    (candidate ``a``, machine ``t``) over the points, then the candidate (module notes, "Exact retraining
    path")."""
    k, n = beta.shape
    m, T = K_cand.shape[0], len(types)
    cls = np.array([c for c, _ in types])
    sign = np.array([float(sg) for _, sg in types])
    signs = np.where(labels[None, :] == np.arange(k)[:, None], 1.0, -1.0)
    G_new = sign * (K_cand @ beta[cls].T) - 1.0  # (m, T): the candidate's gradient with alpha_new = 0
    s = np.concatenate([np.broadcast_to(signs[cls], (m, T, n)), np.broadcast_to(sign[:, None], (m, T, 1))],
                       axis=2).reshape(m * T, n + 1)
    alpha0 = np.concatenate([np.broadcast_to(np.abs(beta[cls]), (m, T, n)), np.zeros((m, T, 1))],
                            axis=2).reshape(m * T, n + 1)
    G0 = np.concatenate([np.broadcast_to(G[cls], (m, T, n)), G_new[..., None]], axis=2).reshape(m * T, n + 1)
    # row a * T + t is candidate a's machine t: the extra point of problem a of the kernel
    alpha, G1, b, moved = _solve(_Gram(kernel, K_cand), s, alpha0, G0, C, np.repeat(np.arange(m), T),
                                 np.append(weights, 1.0), kinds=np.tile(cls, m))
    return s, alpha, G1, b, moved


def _divided(P: np.ndarray, by: np.ndarray | None, name: str) -> np.ndarray:
    """Points ``P`` divided by the per-covariate divisors ``by`` (``None``: ``P`` itself), refused with a
    ValueError naming ``name`` where a divided coordinate is beyond ``MAX_MAGNITUDE`` (``1e150``, the range of
    ``mri_theory.classifiers._frame``) or not finite (a tiny divisor)."""
    if by is None:
        return P
    with np.errstate(over="ignore", under="ignore", divide="ignore", invalid="ignore"):
        out = P / by
    if out.size and not np.all(np.abs(out) <= MAX_MAGNITUDE):  # inf and NaN fail too
        raise ValueError(f"{name}: after dividing by scale, coordinates reach {np.max(np.abs(out)):.3g}, beyond "
                         f"{MAX_MAGNITUDE:.0e} (squared distances would overflow double precision); rescale the "
                         "data or choose another scale")
    return out


class SVM(Classifier):
    r"""RBF support vector machine (C-SVC), Platt probabilities, one-vs-rest; exact fast path.

    See the module notes for the solver, the multi-class scheme, the
    retraining path and the deviations from the paper's e1071 (Appendix C).

    Parameters
    ----------
    C : float, default 1
        Box constraint (e1071's ``cost``), at most ``MAX_C`` (``1e8``).
    gamma : float or None, default None
        RBF width :math:`\gamma` in :math:`e^{-\gamma |x - x'|^2}`; ``None``
        means ``1 / d`` (e1071's default), fixed at fit time from the
        dimension only.
    platt : {"train", "cv"}, default "train"
        What Platt's sigmoids are fitted on
        (:data:`~mri_theory.classifiers.svm.PLATT_FITS`, module notes):
        the training decision values, or out-of-fold ones as e1071 does
        (Appendix C, lines 1407-1409 name e1071 and "MLE fitting ... to the
        decision values"; the out-of-fold values are libsvm's behaviour; an open choice, :doc:`/deviations`; its fast
        path re-solves the fold machines too, module notes).
    scale : None, "train" or array_like (d,), default None
        Covariate scaling before kernel values are taken, the same option as
        :class:`~mri_theory.classifiers.KNN`'s.  ``None``: none (the default:
        module notes, "Deviations").  ``"train"``: each covariate divided by its
        training-set standard deviation (``ddof=1``, R's ``sd``), as e1071's
        ``svm(scale=TRUE)`` does (its default; the paper names e1071's SVM,
        Appendix C, ``mri-paper.tex`` lines 1407-1409, and kknn's scaling, lines
        1401-1402); query, candidate and population points are divided by the
        same divisors, and ``gamma=None`` is ``1 / d`` in the divided
        coordinates (as e1071).  A covariate constant on the training set is
        left unscaled (e1071 then scales no covariate, with a warning).  The
        divisors move whenever a point is added, so every kernel value does:
        each retrained model is a refit
        (:func:`~mri_theory.engine.refit_future_losses`, on an exact population
        each refit's :meth:`exact_loss` on its own scaled truth: the family of
        retrained models integrated together needs one kernel and one truth for
        all).  An array: fixed positive divisors, one per covariate, one linear
        map of the coordinates, so every fast path (the solution path, the
        exact family) applies to the divided points unchanged.  Divided
        coordinates beyond ``1e150`` are refused with a ``ValueError``.

    Attributes
    ----------
    gamma_ : float
    scale_ : ndarray (d,) or None
        The divisors of the covariates (``None``: not scaled).
    classes_present_ : ndarray
    machine_classes_ : ndarray
        Positive class of each machine (module notes).
    dual_coef_ : ndarray (machines, n)
        :math:`\alpha_i s_i` of each machine over the training points (a repeated point's coefficient shared
        equally by its copies: module notes, "Repeated points").
    intercept_ : ndarray (machines,)
    sigmoids_ : ndarray (machines, 2)
        Platt's ``(A, B)`` of each machine.
    gradient_ : ndarray (machines, n)
        The dual gradient :math:`Q\alpha - 1` (the warm start of the fast path).

    See Also
    --------
    mri_theory.classifiers.svm.platt_sigmoid : The sigmoid of its probabilities.
    mri_theory.classifiers.SVMConvergenceWarning : When a dual solve stops at its iteration cap.

    Examples
    --------
    The RBF SVM with Platt probabilities on 20 points of Four-Gaussian; its retrained models (the solution path)
    equal plain refits:

    >>> import numpy as np
    >>> from mri_theory.classifiers import SVM
    >>> from mri_theory.engine import Population, refit_future_losses
    >>> from mri_theory.problems import get_problem
    >>> problem, rng = get_problem("four-gaussian"), np.random.default_rng(0)
    >>> X, y = problem.sample(20, rng)
    >>> model = SVM().fit(X, y)
    >>> model.predict_proba(X[:2]).round(4).tolist()
    [[0.4678, 0.5322], [0.7125, 0.2875]]
    >>> population, candidates = Population.from_problem(problem, 2000, rng), problem.sample(4, rng)[0]
    >>> current, future = model.retraining_losses(candidates, population, "error")  # the fast path: no refit
    >>> refit = refit_future_losses(model, candidates, population, "error")  # one refit per candidate and class
    >>> future.shape, bool(np.allclose(future, refit, rtol=0, atol=1e-12))
    ((4, 2), True)
    """

    name = "svm"
    repr_if_changed = ("platt", "scale")
    exact_truth = True  # its class regions integrated by lines (exact_loss)

    def __init__(self, C: float = 1.0, gamma: float | None = None, platt: str = "train",
                 scale: None | str | ArrayLike = None) -> None:
        if check.positive_scalar(C, "C") > MAX_C:
            raise ValueError(f"C must be <= {MAX_C:.0e} (the solver stops at a gap of 1e-11 C, and the gap of "
                             f"alpha = 0 is 2: a larger C would leave every alpha at 0), got {C!r}")
        if isinstance(gamma, str):
            raise TypeError(f"gamma must be numeric (a positive float, or None for 1/d): data-dependent values "
                            f"such as 'scale' would move every kernel value when a point is added, got {gamma!r}")
        if gamma is not None:
            check.positive_scalar(gamma, "gamma")
        if platt not in PLATT_FITS:
            raise ValueError(f"platt must be one of {', '.join(map(repr, PLATT_FITS))}, got {platt!r}")
        check_scale(scale)
        self.C = C
        self.gamma = gamma
        self.platt = platt
        self.scale = scale

    def fit(self, X: ArrayLike, y: ArrayLike, n_classes: int | None = None) -> SVM:
        """Fit on labelled data (:meth:`Classifier.fit`); coordinates beyond ``1e150`` are refused (divided by
        ``scale``, too), and a fixed ``scale`` must have one entry per column.

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
        SVM
            This classifier, fitted.
        """
        X = check_magnitude(check_points(X, min_rows=1), "X")
        _divided(X, divisors(check_scale(self.scale), X), "X")  # before anything is fitted
        return super().fit(X, y, n_classes)

    def _fit(self, X: np.ndarray, y: np.ndarray) -> None:
        self.scale_ = divisors(check_scale(self.scale), X)
        X = self._scaled(X, "X")  # everything below works on the divided coordinates
        self.gamma_ = 1.0 / X.shape[1] if self.gamma is None else check.positive_scalar(self.gamma, "gamma")
        self._machine_store: dict = {}  # retrained machines by block of candidates (_retrained_machines)
        self.classes_present_ = np.unique(y)
        self.machine_classes_ = _machine_classes(self.classes_present_)
        # a repeated (point, label) is one point with bound m C (module notes, "Repeated points")
        index, inverse = merged_in_order(np.column_stack([X, y]))
        self._points, self._labels = X[index], y[index]
        self._weights = np.bincount(inverse).astype(float)
        s = np.where(self._labels[None, :] == self.machine_classes_[:, None], 1.0, -1.0)
        self._kernel = _shifted_kernel(self._points, self._points, self.gamma_)  # kept for the fast path's solves
        alpha, G, b, _ = _solve(_Gram(self._kernel), s, np.zeros_like(s), -np.ones_like(s), self.C,
                                weights=self._weights)
        self._coef, self._gradient = alpha * s, G  # over the distinct points
        # over the training points: a repeated point's coefficient in equal shares
        self.dual_coef_, self.intercept_, self.gradient_ = (self._coef / self._weights)[:, inverse], b, G[:, inverse]
        if self.platt == "train":
            self.sigmoids_ = _platt(s * (G + 1.0) + b[:, None], s > 0, weights=self._weights)
        else:
            self._rows = X, y  # the (divided) training rows in order: their folds (the fast path's out-of-fold values)
            decision, self._folds = self._out_of_fold_decision(X, y)
            self.sigmoids_ = _platt(decision, y[None, :] == self.machine_classes_[:, None])

    def _scaled(self, P: np.ndarray, name: str) -> np.ndarray:
        """Points in the divided coordinates the machines work in (``P`` itself without ``scale``)."""
        return _divided(P, self.scale_, name)

    def _scaled_truth(self, truth: MixtureTruth) -> MixtureTruth:
        """The truth in the divided coordinates (:meth:`MixtureTruth.in_frame
        <mri_theory.engine.MixtureTruth.in_frame>`: means over the divisors, covariances over their outer
        product); ``truth`` itself without ``scale``."""
        if self.scale_ is None:
            return truth
        if not isinstance(truth, MixtureTruth):
            raise TypeError(f"truth must be a MixtureTruth (e.g. MixtureTruth.from_problem(problem)), "
                            f"got {type(truth).__name__}")
        if truth.dim != self.dim_:
            raise ValueError(f"truth has dimension {truth.dim}, but the classifier was fitted on {self.dim_}-D points")
        return truth.in_frame(np.zeros(self.dim_), self.scale_)

    def _out_of_fold_decision(self, X: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, list[_Fold]]:
        """Each machine's decision value at each training row from the machine trained without the row's fold
        (``platt="cv"``, module notes), shape ``(machines, n)``; and the fold machines (:class:`_Fold`, the
        folds that hold rows out)."""
        folds = np.arange(X.shape[0]) % PLATT_FOLDS
        out = np.empty((self.machine_classes_.size, X.shape[0]))
        records = []
        for fold in np.unique(folds):
            held, kept = folds == fold, folds != fold
            s = np.where(y[kept][None, :] == self.machine_classes_[:, None], 1.0, -1.0)
            one_sided = np.all(s == s[:, :1], axis=1) if kept.any() else np.ones(len(s), dtype=bool)
            out[np.ix_(one_sided, held)] = s[one_sided, :1] if kept.any() else 0.0  # libsvm's rule
            index, inverse = merged_in_order(np.column_stack([X[kept], y[kept]]))
            points, weights = X[kept][index], np.bincount(inverse).astype(float)
            kernel, held_kernel = (_shifted_kernel(points, points, self.gamma_),
                                   _shifted_kernel(points, X[held], self.gamma_))
            record = _Fold(np.flatnonzero(held), points, y[kept][index], weights, kernel, None, None, None,
                           held_kernel)
            records.append(record)
            if one_sided.all():
                continue
            signs = s[~one_sided][:, index]
            alpha, G, b, _ = _solve(_Gram(kernel), signs, np.zeros_like(signs), -np.ones_like(signs), self.C,
                                    weights=weights)
            out[np.ix_(~one_sided, held)] = (alpha * signs) @ held_kernel + b[:, None]
            if not one_sided.any():
                record.coef, record.gradient, record.intercept = alpha * signs, G, b
        return out, records

    def decision_function(self, X: ArrayLike) -> np.ndarray:
        """Decision values :math:`f_c(x)` of the machines.

        Parameters
        ----------
        X : array_like of shape (n, d)
            Points (coordinates within ``1e150``; divided by the fit's ``scale``, too).

        Returns
        -------
        ndarray of shape (n, m)
            One column per machine (class of ``machine_classes_``): ``m = len(machine_classes_)``.
        """
        self._check_fitted()
        X = self._scaled(check_magnitude(check_points(X, dim=self.dim_), "X"), "X")
        # sum(dual_coef_) = 0 (the dual's equality constraint), so the shifted kernel gives the same values;
        # only the support vectors (non-zero coefficients) enter the product
        support = np.flatnonzero(np.any(self._coef != 0.0, axis=0))
        return _shifted_kernel(X, self._points[support], self.gamma_) @ self._coef[:, support].T + self.intercept_

    def _predict_proba(self, X: np.ndarray) -> np.ndarray:
        z = self.sigmoids_[:, 0, None] * self.decision_function(X).T + self.sigmoids_[:, 1, None]
        return special.softmax(_calibrated_scores(z, self.classes_present_, self.n_classes_), axis=0).T

    def exact_loss(self, truth: MixtureTruth, loss: str) -> float:
        """The exact loss under a Gaussian-mixture truth: the model's class regions integrated by lines
        (:func:`~mri_theory.engine.kernel_rules.kernel_losses`; certified sign changes, no sampling).

        With ``scale`` the model lives in the divided coordinates, and a diagonal scaling maps a Gaussian mixture
        to a Gaussian mixture (means over the divisors, covariances over their outer product): the loss is the
        unscaled machines' on that truth (:meth:`MixtureTruth.in_frame
        <mri_theory.engine.MixtureTruth.in_frame>`).

        Parameters
        ----------
        truth : MixtureTruth
            The problem's Gaussian mixture, in one or two dimensions.
        loss : {"error", "log"}
            The error rate, or the log loss floored at :data:`~mri_theory.engine.LOG_LOSS_FLOOR` (with three or
            more classes, where the model's probabilities are certified above the floor in the truth's range:
            a ``ValueError`` otherwise).

        Returns
        -------
        float
            The loss of the fitted model under ``truth``.
        """
        self._check_fitted()
        _check_exact_loss(loss)
        S, c, mask = _kernel_rules(self.n_classes_, self.classes_present_, self._coef, self.intercept_,
                                   self.sigmoids_)
        return float(kernel_losses(self._scaled_truth(truth), self._points, S[None], c[None], self.gamma_, mask[None],
                                   loss).loss[0])

    def _exact_future_losses(self, candidates: np.ndarray, truth: MixtureTruth, loss: str) -> np.ndarray:
        """``L'`` ``(m, k)``: the exact loss of every retrained model (the fast path's machines,
        :meth:`_retrained_machines`, as kernel rules over the distinct training points and the candidate), the
        candidates and the truth in the divided coordinates (a fixed ``scale``: the same for every model).

        The error rates of all ``m k`` models are integrated as one family
        (:func:`~mri_theory.engine.kernel_rules.kernel_losses_family`: the models share the training points, so
        their events come from one quadtree; the same values as
        :func:`~mri_theory.engine.kernel_rules.kernel_losses`, which integrates the log loss)."""
        _check_exact_loss(loss)
        k, m = self.n_classes_, candidates.shape[0]
        machines = self._retrained_machines(candidates)
        rules = []
        for j in range(k):
            present = np.union1d(self.classes_present_, [j])
            cols = [machines.types.index((int(c), 1 if c == j else -1)) for c in _machine_classes(present)]
            rules.append(_kernel_rules(k, present, machines.dual_coef[:, cols], machines.intercept[:, cols],
                                       machines.sigmoids[:, cols]))
        S, c, mask = (np.concatenate(parts) for parts in zip(*rules, strict=True))  # label by label, m models each
        if loss == "error":
            values = kernel_losses_family(truth, self._points, np.tile(candidates, (k, 1)), S, c, self.gamma_,
                                          mask).loss
        else:
            points = np.concatenate([np.broadcast_to(self._points, (k * m,) + self._points.shape),
                                     np.tile(candidates, (k, 1))[:, None]], axis=1)
            values = kernel_losses(truth, points, S, c, self.gamma_, mask, loss).loss
        return values.reshape(k, m).T

    # ------------------------------------------------------------ the fast path

    def _machine_types(self) -> list[tuple[int, int]]:
        """Distinct ``(class, sign of the candidate)`` machines over the labels ``j = 0..k-1``."""
        types = set()
        for j in range(self.n_classes_):
            for c in _machine_classes(np.union1d(self.classes_present_, [j])):
                types.add((int(c), 1 if c == j else -1))
        return sorted(types)

    def _class_solutions(self) -> tuple[np.ndarray, np.ndarray]:
        """This model's solution ``(beta, G)`` (``(k, n)`` each, over the distinct training points) of every
        "c vs rest" problem (:func:`_class_solutions`)."""
        return _class_solutions(self.n_classes_, self.classes_present_, self.machine_classes_, self._coef,
                                self._gradient, self.intercept_)[:2]

    def _retrained_machines(self, candidates: np.ndarray) -> _Retrained:
        """Every distinct machine after adding each candidate, warm-started from this model's solution (over the
        distinct training points, then the candidate).

        They do not depend on the population: the last ``_MACHINE_CACHE`` blocks of candidates are kept with
        their machines, so that the same candidates scored on several populations (the scrambles of
        :func:`~mri_theory.engine.targets.sampled_q_c` and :func:`~mri_theory.engine.targets.decisive_q_c`) are
        re-solved once; a fit empties the store.
        """
        key = (candidates.shape, candidates.tobytes())
        store = self.__dict__.setdefault("_machine_store", {})
        if key not in store:
            if len(store) >= _MACHINE_CACHE:
                del store[next(iter(store))]  # the oldest block
            store[key] = self._solved_machines(candidates)
        return store[key]

    def _solved_machines(self, candidates: np.ndarray) -> _Retrained:
        """:meth:`_retrained_machines` computed."""
        k, m = self.n_classes_, candidates.shape[0]
        beta, G = self._class_solutions()
        types = self._machine_types()
        cls = np.array([c for c, _ in types])
        T = len(types)
        s, alpha, G1, b, moved = _warm_solves(self._kernel, self._labels, self._weights, beta, G,
                                              _shifted_kernel(candidates, self._points, self.gamma_), types, self.C)
        # Platt's fits start from this model's sigmoid of the same class (the same minimiser, to rounding)
        start = np.full((k, 2), np.nan)  # a class absent from the training data starts cold
        start[self.machine_classes_] = self.sigmoids_
        if self.classes_present_.size == 2:  # the mirror image: P(lo) = 1 - P(hi) = 1 / (1 + e^{A (-f) - B})
            start[self.classes_present_[0]] = self.sigmoids_[0] * [1.0, -1.0]
        if self.platt == "train":
            sigmoids = _platt(s * (G1 + 1.0) + b[:, None], s > 0, np.tile(start[cls], (m, 1)),
                              np.append(self._weights, 1.0))
        else:
            decision = self._retrained_out_of_fold(candidates, types)
            y = self._rows[1]
            positive = np.concatenate([np.broadcast_to((y[None, :] == cls[:, None]), (m, T, y.size)),
                                       np.broadcast_to((np.array([sg for _, sg in types]) > 0)[:, None],
                                                       (m, T, 1))], axis=2)
            sigmoids = _platt(decision.reshape(m * T, -1), positive.reshape(m * T, -1),
                              np.tile(start[cls], (m, 1)))
        n = self._points.shape[0]
        return _Retrained(types, (alpha * s).reshape(m, T, n + 1), b.reshape(m, T), sigmoids.reshape(m, T, 2),
                          moved.reshape(m, T))

    def _cv_fast_path(self) -> bool:
        """Whether ``platt="cv"``'s retrained out-of-fold values have the fast path (:meth:`_retrained_out_of_fold`):
        every class present, every fold holding rows out after the candidate is added (``n >= PLATT_FOLDS``),
        and every fold machine two-sided (else a refit)."""
        n = self._rows[0].shape[0]
        return (self.classes_present_.size == self.n_classes_ and n >= PLATT_FOLDS
                and all(fold.coef is not None for fold in self._folds))

    def _retrained_out_of_fold(self, candidates: np.ndarray, types: list[tuple[int, int]]) -> np.ndarray:
        r"""``platt="cv"``: every retrained machine's out-of-fold decision values at the ``n + 1`` training rows
        (the candidate last), ``(m, T, n + 1)``.

        The candidate is row ``n``, in fold ``n mod 5``: that fold's machine does not change (its held-out
        values are the model's, and the candidate's is its decision value there); every other fold's machine
        gains the candidate and is re-solved from its own solution like the model's machines
        (:func:`_warm_solves`), then evaluated at its held-out rows.  A refit computes the same machines from
        :math:`\alpha = 0` (the same values to rounding).
        """
        X, y = self._rows
        k, n, m, T = self.n_classes_, y.size, candidates.shape[0], len(types)
        cls = np.array([c for c, _ in types])
        present, machines = self.classes_present_, self.machine_classes_
        out = np.empty((m, T, n + 1))
        for fold in self._folds:
            # every fold machine two-sided (_cv_fast_path)
            assert fold.coef is not None and fold.gradient is not None and fold.intercept is not None
            beta, G, b = _class_solutions(k, present, machines, fold.coef, fold.gradient, fold.intercept)
            K_cand = _shifted_kernel(candidates, fold.points, self.gamma_)
            if fold.held[0] == n % PLATT_FOLDS:  # the candidate's fold: unchanged
                out[:, :, fold.held] = beta[cls] @ fold.held_kernel + b[cls, None]
                out[:, :, n] = K_cand @ beta[cls].T + b[cls]
                continue
            s, alpha, _, b1, _ = _warm_solves(fold.kernel, fold.labels, fold.weights, beta, G, K_cand, types, self.C)
            coef = alpha * s
            values = coef[:, :-1] @ fold.held_kernel + b1[:, None]
            values += coef[:, -1:] * np.repeat(_shifted_kernel(candidates, X[fold.held], self.gamma_), T, axis=0)
            out[:, :, fold.held] = values.reshape(m, T, -1)
        return out

    def _platt_arguments(self, machines: _Retrained, candidates: np.ndarray, points: np.ndarray) -> np.ndarray:
        """Platt arguments :math:`A f + B` of every retrained machine at ``N`` points, ``(m, T, N)``.

        A retrained machine's coefficients over the training points are this model's (of its class,
        :meth:`_class_solutions`) plus a change, and the change is 0 but for the few points whose alpha the
        re-solve moved (none for a non-violator; about the free vectors otherwise, a tenth to a fifth of the
        support vectors): the decision values are this model's, computed once per machine type, plus the
        changes' products with the kernel of the points any machine of the block changed, plus the
        candidate's term and the intercept, each term times the machine's Platt slope ``A``.  The products use
        the shifted kernel (:func:`_shifted_kernel`; the kernel itself gives the same values to rounding: each
        model's coefficients sum to 0), so the values equal those of the retrained coefficients' own product
        to rounding.
        """
        m, T, n1 = machines.dual_coef.shape
        beta, _ = self._class_solutions()
        base = beta[[c for c, _ in machines.types]]  # (T, n)
        change = machines.dual_coef[..., :-1] - base  # exactly 0 where a coefficient kept its value
        changed = np.any(change != 0.0, axis=(0, 1))
        used = np.flatnonzero(np.any(base != 0.0, axis=0) | changed)
        K_used = _shifted_kernel(self._points[used], points, self.gamma_)
        slope = machines.sigmoids[..., 0, None]  # Platt's A of each machine, (m, T, 1), taken into the terms
        z = slope * (base[:, used] @ K_used)
        moved = changed[used]
        if moved.any():
            z += ((slope * change[..., used[moved]]).reshape(m * T, -1) @ K_used[moved]).reshape(m, T, -1)
        z += (slope * machines.dual_coef[..., -1:]) * _shifted_kernel(candidates, points, self.gamma_)[:, None]
        z += slope * machines.intercept[..., None] + machines.sigmoids[..., 1, None]
        return z

    def _retrained_scores(self, machines: _Retrained, z: np.ndarray, j: int) -> np.ndarray:
        """Class scores (:func:`_calibrated_scores`) ``(m, k, N)`` of the models retrained with label ``j``."""
        present = np.union1d(self.classes_present_, [j])
        cols = [machines.types.index((int(c), 1 if c == j else -1)) for c in _machine_classes(present)]
        return _calibrated_scores(z[:, cols], present, self.n_classes_)

    def _retraining_args(self, candidates: np.ndarray, population: Population | ExactPopulation,
                         loss: str) -> tuple[np.ndarray, Population | ExactPopulation, str]:
        """The base class's checks (:func:`~mri_theory.engine.contract.check_retraining_args`), then
        coordinates beyond ``1e150`` refused (candidates first, then a sampled population's points); on an
        :class:`~mri_theory.engine.population.ExactPopulation` a loss the exact path does not integrate."""
        candidates, population, loss = super()._retraining_args(candidates, population, loss)
        check_magnitude(candidates, "candidates")
        if isinstance(population, ExactPopulation):
            _check_exact_loss(loss)
        else:
            check_magnitude(population.X, "population")
        return candidates, population, loss

    def _future_losses(self, candidates: np.ndarray, population: Population | ExactPopulation,
                       loss: str) -> np.ndarray:
        """Exact fast path (the hook of :class:`~mri_theory.engine.contract.Classifier`): only margin
        violators are re-solved (warm-started); all models scored in batches.

        Returns ``L'``, shape ``(m, k)``, from validated arguments.  On an
        :class:`~mri_theory.engine.population.ExactPopulation` every retrained
        machine is integrated as a kernel rule (:meth:`_exact_future_losses`).
        On a sampled population candidates are taken in chunks that keep each
        array near ``2**21`` cells; the models of one label are scored at a
        time.  A fixed ``scale`` divides the candidates, the population and the
        truth once; ``scale="train"`` refits (its divisors, so every kernel
        value, move with the added point: no retrained machine shares this
        model's kernel), each refit scored on its own (on an exact population,
        its own scaled truth).
        """
        if isinstance(self.scale, str):  # "train": per-fit divisors
            return refit_future_losses(self, candidates, population, loss)
        if self.platt == "cv" and not self._cv_fast_path():  # a fold one-sided, an absent class, few rows
            return refit_future_losses(self, candidates, population, loss)
        candidates = self._scaled(candidates, "candidates")
        if isinstance(population, ExactPopulation):
            return self._exact_future_losses(candidates, self._scaled_truth(population.truth), loss)
        points = self._scaled(population.X, "population")
        k = self.n_classes_
        chunk = max(1, _CHUNK_CELLS // (population.size * 2 * k))
        out = np.empty((candidates.shape[0], k))
        for start in range(0, candidates.shape[0], chunk):
            block = candidates[start:start + chunk]
            machines = self._retrained_machines(block)
            z = self._platt_arguments(machines, block, points)
            for j in range(k):
                scores = self._retrained_scores(machines, z, j)
                if k == 2:
                    values = pointwise_loss_from_scores(population.proba, scores[:, 1] - scores[:, 0], loss,
                                                        log_odds=True)
                else:
                    values = pointwise_loss_from_scores(population.proba, scores, loss)
                out[start:start + block.shape[0], j] = values @ population.weights
        return out
