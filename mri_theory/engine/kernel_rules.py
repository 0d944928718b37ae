r"""Exact losses of RBF-kernel score rules (the SVM's decision regions) on Gaussian-mixture truths.

A *kernel rule* gives every present class :math:`j` a score that is a sum of radial basis functions,

.. math::
    s_j(x) = \sum_{i=1}^n S_{ji}\,\bigl(e^{-\gamma |x - p_i|^2} - 1\bigr) + c_j ,

and predicts the present class of the largest score.  The RBF support vector machine
(:class:`~mri_theory.classifiers.SVM`) is of this form: with two present classes the larger class scores
:math:`-(A f(x) + B)` against 0 (Platt's :math:`\hat p = 1/(1 + e^{A f + B})` is the softmax of the two
scores), with three or more each class scores :math:`-(A_c f_c(x) + B_c)` (its normalised sigmoid is the
largest where its Platt argument is the smallest).  :func:`kernel_losses` integrates the error rate

.. math::
    E = \sum_c w_c\, P_{x \sim N(\mu_c, \Sigma_c)}\bigl(\arg\max_j s_j(x) \ne y_c\bigr)

of such rules under a :class:`~mri_theory.engine.exact.MixtureTruth` in one and two dimensions (every abstract
problem of the toolkit), and the floored log loss :math:`\sum_c w_c E_c[\min(-\ln \hat p_{y_c}(x), -\ln
\text{floor})]` (§2.1's :math:`L_o`) of :math:`\hat p = \operatorname{softmax}(s)` for rules with two present
classes and of the normalised sigmoids :math:`\hat p_y = \sigma(s_y) / \sum_j \sigma(s_j)` (the one-vs-rest
SVM's) for rules with three or more, with no sampling.

Method
------
*Lines.*  Along a vertical line :math:`x_1 = \text{const}` the predicted class changes only at sign changes of
the pair functions :math:`g_{ab} = s_b - s_a`, and each component's conditional law of :math:`x_2` given
:math:`x_1` is normal, so the mass of every interval between consecutive changes is a difference of normal
CDFs: the *line mass* of the wrong classes is closed form once the changes are known.  In 1-D the whole axis is
one line, and the error rate is that sum.

*Certified roots.*  No sign change may be missed.  The third derivative of a kernel term along the line is
bounded (:math:`|\partial_t^3 e^{-\gamma t^2}| \le 3.9\,\gamma^{3/2}`, smaller at a distance from its point), so
over a cell of half-width :math:`h` about :math:`m` the bound :math:`L_3` of :math:`|g^{(3)}|` is a sum over the
points of these bounds times the line's factor :math:`|S_{bi} - S_{ai}|\,e^{-\gamma (x_1 - p_{i1})^2}`, and
Taylor's theorem proves the cell root-free where :math:`|g(m)| > |g'(m)| h + |g''(m)| h^2/2 + L_3 h^3/6` and
:math:`g` monotone where :math:`|g'(m)| > |g''(m)| h + L_3 h^2/2`.  The line (each component's conditional
mean :math:`\pm` ``REACH`` = 9.5 standard deviations; the mass beyond is below ``2e-21``) is cut into cells of
half the kernel's width :math:`1/\sqrt\gamma`; a cell is dropped when it is proved root-free, its sign change
solved by safeguarded Newton when it is proved monotone (one simple root), and bisected otherwise.  A cell
still open at :math:`10^{-13}` kernel widths (a double root: the line touches the boundary) is *unresolved*:
:attr:`KernelLosses.unresolved` integrates the mass such cells can hold (their width times the largest
density in them; in practice 0).

*Continuation.*  Between two events every line of a panel crosses the boundary the same number of times, in
the same order.  With two present classes, the roots of a panel's line are continued from its previous line by
Newton's method (started from the linear extrapolation of the last two lines' roots, each kept within half the
gap to its neighbours) and kept only if they are distinct, in order, and the score difference alternates in sign
between them and at the line's two ends as it did on the previous line (a root that entered the line's range
through an end flips the sign there); otherwise the line is isolated as above.  The ends need no check on a
panel whose two window edges (the horizontal segments at the window's bottom and top over the panel's
:math:`x_1` range) are certified free of sign changes by the same subdivision along them: no root can then
enter a line through an end.  ``isolate_every_line=True`` isolates every line.

*Events.*  The outer integral over :math:`x_1` has an integrand that is smooth except where a line touches a
boundary (:math:`g = \partial_2 g = 0`: two sign changes appear or vanish, a square-root singularity) and, with
three or more present classes, where three classes meet (two pair functions vanish together).  These points
are found by a certified quadtree: over each cell of the plane the Hessian and third-derivative norms of every
pair function are bounded in the same way (:math:`\|\nabla^2 K\| \le 2\gamma`, third directional derivatives
at most :math:`6.5\gamma^{3/2}`, sharper at a distance), a cell is dropped when Taylor's theorem about its
centre proves that the event's two equations cannot both hold in it (the value's reach to second order with the
Hessian bound, or to third order with the Hessian at the centre, whichever is smaller), and the cells left at
:math:`10^{-6}` kernel widths are solved by Newton's method (a cell where it finds no event contributes a cut at
its middle).  With two present classes a larger cell is solved at once when the tangency equations' Jacobian
at its centre is too far from singular for the bounds to make it singular anywhere in the cell (the equations
are then one-to-one there: at most one event, and one that Newton's method finds inside the cell is it).  A cell
left at the finest size has no such proof (it may hold two events, one found): its range of :math:`x_1` is a
*band*, whose panels isolate every line.  The whole box (``REACH`` deviations of every component) is searched,
however far a cell is from the components: a line's roots are continued across the whole window, and a pair
that appears where the mass is negligible could otherwise travel, uncounted, to where it is not (the regression
state of ``tests/engine/test_kernel_rules.py``).

*The outer integral.*  Every event and every band's end is a panel edge (two nearer than ``SAME_EVENT`` =
:math:`10^{-9}` kernel widths are one: the number of roots on a line may change at each, and a panel must not
hold one).  Between
consecutive events the range :math:`m_c \pm` ``REACH`` :math:`\sigma_c` of the
first coordinate is integrated by adaptive Gauss-Kronrod (15-31 points, QUADPACK's error estimate, bisection
until the estimate is below ``tolerance`` per unit length of the substituted variable; the first pieces are cut
at each component's mean), after the substitution
:math:`x_1 = a + (b - a)(3s^2 - 2s^3)`, which makes a square root at a panel's end analytic (as
:mod:`mri_theory.engine.exact` does for quadratic rules).  :attr:`KernelLosses.estimate` sums the accepted
panels' estimates.

*The log loss* (two present classes, :math:`\hat p_1 = \sigma(g)`, :math:`g = s_1 - s_0`).  Along a line
:math:`\min(-\ln \hat p_y, \text{cap})` is smooth except where a class's loss reaches the cap,
:math:`g = \pm\ell` with :math:`\ell = \ln(e^{\text{cap}} - 1)`: the certified sign changes of :math:`g \mp
\ell` cut the line, a piece where a component's class is capped contributes the cap times its normal mass, and
the others are integrated by adaptive Gauss-Kronrod (15-31 points, a tenth of ``tolerance`` per unit length).  The outer
integral's events are where the level curves :math:`g = \pm\ell` touch a line (the quadtree on the shifted
pair functions).  Every line is isolated (no continuation).  With three or more present classes (normalised
sigmoids, not a softmax of the scores) the loss :math:`-\ln \hat p_y = \operatorname{softplus}(-s_y) + \ln
\sum_j \sigma(s_j)` is smooth wherever it stays below the cap; that it does inside the integration box is
certified first (it is at most :math:`\operatorname{softplus}(-s_y) + \ln k_p`, and a quadtree with the same
Taylor bounds as the events proves each class's score above the level where that reaches the cap; a rule it
cannot certify is refused with a ``ValueError``), and then both integrals are adaptive Gauss-Kronrod of a smooth
integrand (no roots, no events; the inner one from pieces cut at the components' conditional means and 1, 2, 4
deviations).

*What is certified and what is estimated.*  The lines' sign changes are certified (every root-free cell is
proved root-free; the unresolved mass is reported), and so is the list of events up to the Newton solutions of
the cells left at the finest size; continued roots are checked as above (a root pair that appears between two
lines of a panel outside the quadtree's reach, where the mass is below ``1e-20``, is not seen).  The outer
quadrature's error is QUADPACK's estimate, not a bound; on the study's rules it is below ``1e-12``.  The tests
(``tests/engine/test_kernel_rules.py``) compare with independent computations: closed forms (two points with
opposite coefficients: the boundary is their perpendicular bisector; one kernel per class: the Voronoi cells
that the exact 1-NN path integrates), nested adaptive quadrature by SciPy over the classifier's own predictions
with roots bracketed on a dense grid, quasi-Monte Carlo with ``2**18`` points within its standard error, and
plain refits of the SVM's retrained models.

*Families* (:func:`kernel_losses_family`).  The SVM's retrained models of a step share the training points and
have one point of their own each (the candidate).  Their error rates are integrated together: the events of
all of them come from one quadtree over the plane whose cells carry the rules still open in them; at a cell the
shared points' kernels, gradients, Hessians and bounds are evaluated once and each open rule's tests are dot
products of its coefficients with them, the same tests as the per-rule quadtree's (so each rule's events are
certified as the per-rule ones are, and the values equal :func:`kernel_losses`'s).  Each rule's outer integral
and lines are then the per-rule ones between its own events, except that a continued line's roots are predicted
from the panel's nearest known lines with their slopes, and each root's Newton iteration stops once a bound of the
second derivative certifies one simple root within ``1e-13`` (relative) of the iterate, usually after one
evaluation (``mri_theory/engine/_kernel_family.py``, ``_continued_certified``); the checks of a continued line
(roots distinct, in order, alternating, window edges) are the per-rule ones, and a line that fails them is
isolated.

Compiled by numba (``mri_theory/engine/_kernel_compiled.py`` and ``mri_theory/engine/_kernel_family.py``,
imported on first use).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from mri_theory._utils import validation as check
from mri_theory.engine._quadrature import GAUSS_31, KRONROD_31, NODES_31
from mri_theory.engine.exact import MAX_DIM, MixtureTruth
from mri_theory.engine.losses import LOG_LOSS_FLOOR, check_floor, check_loss

__all__ = ["KERNEL_TOLERANCE", "KernelLosses", "kernel_losses", "kernel_losses_family"]

#: The outer quadrature's tolerance: a panel is accepted when QUADPACK's error estimate is below this times its
#: length in the substituted variable (module notes).
KERNEL_TOLERANCE = 1e-12


@dataclass(frozen=True)
class KernelLosses:
    """The exact losses of kernel rules (:func:`kernel_losses`) with what their accuracy rests on.

    Parameters
    ----------
    loss : ndarray of shape (R,)
        Each rule's error rate or floored log loss.
    unresolved : ndarray of shape (R,)
        A bound of the mass that the line cells left unresolved at the finest size can hold (module notes; 0
        when every sign change was isolated).
    estimate : ndarray of shape (R,)
        The outer quadrature's summed error estimate (QUADPACK's; 0 in 1-D, where nothing is integrated
        numerically).

    Examples
    --------
    A 1-D rule: the loss is a sum of normal CDFs, nothing unresolved and nothing estimated:

    >>> import numpy as np
    >>> from mri_theory.engine import MixtureTruth, kernel_losses
    >>> truth = MixtureTruth.from_arrays([0.5, 0.5], [[-1.0], [1.0]], [[[1.0]], [[1.0]]], [0, 1], 2)
    >>> result = kernel_losses(truth, [[-1.0], [1.0]], [[[0.0, 0.0], [-1.0, 1.0]]], [[0.0, 0.0]], 0.5)
    >>> round(float(result.loss[0]), 6), float(result.unresolved[0]) < 1e-15, float(result.estimate[0])
    (0.158655, True, 0.0)
    """

    loss: np.ndarray
    unresolved: np.ndarray
    estimate: np.ndarray


@functools.cache
def _compiled() -> Any:
    """:mod:`mri_theory.engine._kernel_compiled` (numba, imported on first use)."""
    from mri_theory.engine import _kernel_compiled

    return _kernel_compiled


def _check_truth(truth: Any) -> None:
    """A TypeError unless ``truth`` is a :class:`~mri_theory.engine.exact.MixtureTruth`, a ValueError unless it is
    in one or two dimensions."""
    if not isinstance(truth, MixtureTruth):
        raise TypeError(f"truth must be a MixtureTruth (e.g. MixtureTruth.from_problem(problem)), "
                        f"got {type(truth).__name__}")
    if truth.dim > MAX_DIM:
        raise ValueError(f"truth has dimension {truth.dim}: kernel rules are integrated for d = 1 and d = 2 only")


def _check_rules(constants: ArrayLike, R: int, k: int, gamma: float, tolerance: float,
                 present: ArrayLike | None) -> tuple[np.ndarray, float, float, np.ndarray]:
    """``R`` rules' checked constants ``(R, k)``, ``gamma``, ``tolerance`` and their present classes (all by
    default; a boolean ``(R, k)`` with one present class at least in every rule)."""
    c = check.finite_array(constants, "constants")
    if c.shape != (R, k):
        raise ValueError(f"constants must have shape (R, k) = ({R}, {k}), got {c.shape}")
    gamma = check.positive_scalar(gamma, "gamma")
    tolerance = check.positive_scalar(tolerance, "tolerance")
    if present is None:
        return c, gamma, tolerance, np.ones((R, k), dtype=bool)
    mask = np.asarray(present)
    if mask.dtype != bool or mask.shape != (R, k):
        raise ValueError(f"present must be a boolean array of shape (R, k) = ({R}, {k}), got "
                         f"{mask.dtype} {mask.shape}")
    if not mask.any(axis=1).all():
        raise ValueError("present must hold at least one present class in every rule")
    return c, gamma, tolerance, mask


def _check_floor_unreached(truth: MixtureTruth, P: np.ndarray, S: np.ndarray, c: np.ndarray, mask: np.ndarray,
                           gamma: float, cap: float) -> None:
    r"""A ValueError unless, in every rule with three or more present classes, no present class's floored log
    loss reaches the cap inside the integration box (each component's mean :math:`\pm` ``REACH`` deviations):
    then the integrand is smooth.  Certified by :func:`~mri_theory.engine._kernel_compiled.floor_free` on each
    class's score: :math:`-\ln \hat p_y \le \operatorname{softplus}(-s_y) + \ln k_p` (the normalised sigmoids
    sum to at most :math:`k_p`), below the cap where :math:`s_y > -\ln(e^{\text{cap} - \ln k_p} - 1)`."""
    if not np.isfinite(cap):
        return
    compiled = _compiled()
    sd = np.sqrt(np.diagonal(truth.covariances, axis1=1, axis2=2))
    lo = (truth.means - compiled.REACH * sd).min(axis=0)
    hi = (truth.means + compiled.REACH * sd).max(axis=0)
    box = np.array([lo[0], hi[0], lo[1], hi[1]]) if truth.dim == 2 else np.array([lo[0], hi[0], 0.0, 0.0])
    for r in np.flatnonzero(mask.sum(axis=1) > 2):
        kp = int(mask[r].sum())
        margin = cap - np.log(kp)
        if margin <= 0.0:
            raise ValueError(f"floor must be below 1/{kp} for the log loss of a rule with {kp} present classes")
        threshold = -float(np.log(np.expm1(margin)))
        points = P[r] if truth.dim == 2 else np.column_stack([P[r], np.zeros(P.shape[1])])
        for j in np.flatnonzero(mask[r]):
            keep = S[r, j] != 0.0
            if not compiled.floor_free(np.ascontiguousarray(points[keep]), np.ascontiguousarray(S[r, j, keep][None]),
                                       np.array([c[r, j]]), threshold, gamma, box):
                raise ValueError(f"loss 'log': in rule {r} (of {kp} present classes) the probability of class {j} "
                                 f"may reach the floor inside the truth's range, where the floored loss has kinks "
                                 f"that are not integrated exactly; use the error rate or a sampled population")


@functools.cache
def _compiled_family() -> Any:
    """:mod:`mri_theory.engine._kernel_family` (numba, imported on first use)."""
    from mri_theory.engine import _kernel_family

    return _kernel_family


def kernel_losses(truth: MixtureTruth, points: ArrayLike, scores: ArrayLike, constants: ArrayLike, gamma: float,
                  present: ArrayLike | None = None, loss: str = "error", floor: float = LOG_LOSS_FLOOR,
                  tolerance: float = KERNEL_TOLERANCE, isolate_every_line: bool = False) -> KernelLosses:
    r"""The exact error rates or floored log losses of ``R`` kernel rules under a Gaussian-mixture truth
    (module notes).

    Parameters
    ----------
    truth : MixtureTruth
        The truth, in one or two dimensions, with ``k`` classes.
    points : array_like of shape (R, n, d) or (n, d)
        The kernels' centres :math:`p_i` of each rule (or one set shared by all).
    scores : array_like of shape (R, k, n)
        The coefficients :math:`S_{ji}` of each class's score.
    constants : array_like of shape (R, k)
        The constants :math:`c_j`.
    gamma : float
        The kernel's :math:`\gamma > 0`.
    present : array_like of bool, shape (R, k), optional
        Which classes each rule can predict (default: all); an absent class has score :math:`-\infty`.  Each
        rule needs one present class at least.
    loss : {"error", "log"}, default "error"
        The error rate, or the log loss of the probabilities :math:`\hat p = \operatorname{softmax}(s)`, each
        floored at ``floor`` (``-ln floor`` at most, as :data:`~mri_theory.engine.LOG_LOSS_FLOOR` floors the
        engine's).  With one or two present classes :math:`\hat p = \operatorname{softmax}(s)` (the two-class
        SVM's probabilities are of this form); with three or more the normalised sigmoids
        :math:`\hat p_y = \sigma(s_y) / \sum_j \sigma(s_j)` (the one-vs-rest SVM's), for rules whose
        probabilities are certified to stay above the floor in the truth's range (else a ``ValueError``).
    floor : float, default ``LOG_LOSS_FLOOR``
        The log loss's probability floor, in ``(0, 1)``.
    tolerance : float, default ``KERNEL_TOLERANCE``
        The outer quadrature's tolerance (module notes; the log loss's inner quadrature takes a tenth of it).
    isolate_every_line : bool, default False
        Isolate the sign changes of every line by the certified subdivision, instead of continuing a panel's
        roots from line to line (module notes, "Continuation"): slower, the same values to the quadrature's
        tolerance.  The log loss isolates every line.

    Returns
    -------
    KernelLosses
        The losses, with the unresolved mass bound and the quadrature's error estimate.

    Examples
    --------
    Two kernels with opposite coefficients: the boundary is the perpendicular bisector of their centres, here
    :math:`2x_1 = x_2`, at distance :math:`2/\sqrt 5` from each class's mean, so the error rate of the two
    unit-variance classes at :math:`(\pm 1, 0)` is :math:`\Phi(-2/\sqrt 5)`:

    >>> import numpy as np
    >>> from scipy.stats import norm
    >>> from mri_theory.engine import MixtureTruth, kernel_losses
    >>> truth = MixtureTruth.from_arrays([0.5, 0.5], [[-1.0, 0.0], [1.0, 0.0]], [np.eye(2), np.eye(2)], [0, 1], 2)
    >>> rates = kernel_losses(truth, [[-1.0, 0.5], [1.0, -0.5]], [[[0, 0], [-1.0, 1.0]]], [[0.0, 0.0]], 0.5)
    >>> bool(abs(rates.loss[0] - norm.cdf(-2.0 / np.sqrt(5.0))) < 1e-12)
    True
    """
    _check_truth(truth)
    d, k = truth.dim, truth.n_classes
    S = check.finite_array(scores, "scores")
    if S.ndim != 3 or S.shape[1] != k or S.shape[2] < 1:
        raise ValueError(f"scores must have shape (R, k, n) with k = {k} classes and n >= 1 points, got {S.shape}")
    R, _, n = S.shape
    P = check.finite_array(points, "points")
    if P.ndim == 2:
        P = np.broadcast_to(P, (R,) + P.shape)
    if P.shape != (R, n, d):
        raise ValueError(f"points must have shape (n, d) or (R, n, d) = ({R}, {n}, {d}), got {P.shape}")
    c, gamma, tolerance, mask = _check_rules(constants, R, k, gamma, tolerance, present)
    isolate_every_line = check.flag(isolate_every_line, "isolate_every_line")
    loss = check_loss(loss)
    if loss not in ("error", "log"):
        raise ValueError(f"loss must be 'error' or 'log' (the classifier's own confidence 'lc' has no exact form), "
                         f"got {loss!r}")
    cap = check_floor(floor) if loss == "log" else 0.0
    counts = mask.sum(axis=1)
    if loss == "log" and np.any(counts > 2):
        _check_floor_unreached(truth, P, S, c, mask, gamma, cap)
    order = np.argsort(~mask, axis=1, kind="stable")  # the present classes first, in increasing order
    classes = np.where(np.arange(k)[None, :] < counts[:, None], order, -1).astype(np.int64)
    rows = np.arange(R)[:, None]
    S_present = np.where((np.arange(k)[None, :] < counts[:, None])[..., None], S[rows, order], 0.0)
    c_present = np.where(np.arange(k)[None, :] < counts[:, None], c[rows, order], 0.0)
    compiled = _compiled()
    error, unresolved, estimate = np.empty(R), np.empty(R), np.empty(R)
    compiled.rule_losses(d, np.ascontiguousarray(P, dtype=float), np.ascontiguousarray(S_present),
                         np.ascontiguousarray(c_present), counts.astype(np.int64), classes, gamma,
                         np.ascontiguousarray(truth.weights), np.ascontiguousarray(truth.means),
                         np.ascontiguousarray(truth.covariances), np.ascontiguousarray(truth.labels, dtype=np.int64),
                         cap, tolerance, not isolate_every_line and loss == "error", NODES_31,
                         KRONROD_31, GAUSS_31, error, unresolved, estimate)
    return KernelLosses(error, unresolved, estimate)


def kernel_losses_family(truth: MixtureTruth, points: ArrayLike, extra: ArrayLike, scores: ArrayLike,
                         constants: ArrayLike, gamma: float, present: ArrayLike | None = None,
                         tolerance: float = KERNEL_TOLERANCE) -> KernelLosses:
    r"""The exact error rates of ``R`` kernel rules that share ``n`` points and have one point of their own each
    (the SVM's retrained models: the distinct training points and each candidate), as :func:`kernel_losses`
    gives them, faster.

    Rule ``r`` has the points ``points`` then ``extra[r]`` (``n + 1`` in all).  In two dimensions the rules
    with two present classes (the two-class SVM's) are integrated together (compiled in
    ``mri_theory/engine/_kernel_family.py``): their events come from one certified quadtree over the plane
    whose cells carry the rules for which they are still open.  At a cell the shared points' kernels, gradients,
    Hessians and the bounds of their Hessian and third-derivative norms over the cell are evaluated once (the
    exponentials), and each open rule's values and bounds are dot products of its coefficients with them (its own
    point evaluated for it alone).  Each rule's tests, subdivision, one-to-one cells and Newton solutions are
    those of the per-rule quadtree of :func:`kernel_losses` (module notes, "Events"), and its outer integral and
    lines are the per-rule ones between its own events; a continued line's roots are predicted from the panel's
    nearest known lines and their slopes, and each Newton solution is certified to ``1e-13`` (relative) by a
    bound of the second derivative, usually after one evaluation (module notes, "Families").

    *What is certified* is therefore what :func:`kernel_losses` certifies, rule by rule: every sign change on
    the lines (the unresolved mass reported), every event up to the Newton solutions of the cells left at the
    finest size (no rule's event can be missed: a cell leaves a rule's list only when that rule's own Taylor
    bounds exclude a tangency in it); the outer quadrature's error is QUADPACK's estimate.  Rules that are not
    of this kind (one or three present classes, or a one-dimensional truth) fall back to :func:`kernel_losses`,
    which is always correct.

    Parameters
    ----------
    truth : MixtureTruth
        The truth, in one or two dimensions, with ``k`` classes.
    points : array_like of shape (n, d)
        The shared points.
    extra : array_like of shape (R, d)
        Each rule's own point.
    scores : array_like of shape (R, k, n + 1)
        The coefficients :math:`S_{ji}` of each class's score (the shared points', then the rule's own).
    constants : array_like of shape (R, k)
        The constants :math:`c_j`.
    gamma : float
        The kernel's :math:`\gamma > 0`.
    present : array_like of bool, shape (R, k), optional
        Which classes each rule can predict (default: all).
    tolerance : float, default ``KERNEL_TOLERANCE``
        The outer quadrature's tolerance.

    Returns
    -------
    KernelLosses
        The error rates, with the unresolved mass bound and the quadrature's error estimate, as
        :func:`kernel_losses` returns them (to the quadrature's tolerance).

    Examples
    --------
    Two rules over the same two opposite kernels, the second with a third point of its own whose coefficient is
    0, equal the per-rule values:

    >>> import numpy as np
    >>> from mri_theory.engine import MixtureTruth, kernel_losses
    >>> from mri_theory.engine.kernel_rules import kernel_losses_family
    >>> truth = MixtureTruth.from_arrays([0.5, 0.5], [[-1.0, 0.0], [1.0, 0.0]], [np.eye(2), np.eye(2)], [0, 1], 2)
    >>> shared = [[-1.0, 0.5], [1.0, -0.5]]
    >>> scores = [[[0, 0, 0], [-1.0, 1.0, 0.0]], [[0, 0, 0], [-1.0, 1.0, 0.3]]]
    >>> family = kernel_losses_family(truth, shared, [[0.0, 0.0], [2.0, 2.0]], scores, [[0, 0], [0, 0]], 0.5)
    >>> single = kernel_losses(truth, [[-1.0, 0.5], [1.0, -0.5], [2.0, 2.0]], [scores[1]], [[0, 0]], 0.5)
    >>> bool(abs(family.loss[1] - single.loss[0]) < 1e-12)
    True
    """
    return _family_losses(truth, points, extra, scores, constants, gamma, present, tolerance)[0]


def _family_losses(truth: MixtureTruth, points: ArrayLike, extra: ArrayLike, scores: ArrayLike,
                   constants: ArrayLike, gamma: float, present: ArrayLike | None,
                   tolerance: float) -> tuple[KernelLosses, np.ndarray, np.ndarray]:
    """:func:`kernel_losses_family` with a mask of the rules that fell back to :func:`kernel_losses` and each
    rule's number of events (-1 where it fell back)."""
    _check_truth(truth)
    d, k = truth.dim, truth.n_classes
    P = check.finite_array(points, "points")
    if P.ndim != 2 or P.shape[1] != d:
        raise ValueError(f"points must have shape (n, {d}), got {P.shape}")
    n = P.shape[0]
    E = check.finite_array(extra, "extra")
    S = check.finite_array(scores, "scores")
    if S.ndim != 3 or S.shape[1:] != (k, n + 1):
        raise ValueError(f"scores must have shape (R, k, n + 1) = (R, {k}, {n + 1}), got {S.shape}")
    R = S.shape[0]
    if E.shape != (R, d):
        raise ValueError(f"extra must have shape (R, d) = ({R}, {d}), got {E.shape}")
    c, gamma, tolerance, mask = _check_rules(constants, R, k, gamma, tolerance, present)
    family = (mask.sum(axis=1) == 2) if d == 2 else np.zeros(R, dtype=bool)
    loss, unresolved, estimate = np.empty(R), np.empty(R), np.empty(R)
    counts = np.full(R, -1, dtype=np.int64)
    rest = np.flatnonzero(~family)
    if rest.size:
        all_points = np.concatenate([np.broadcast_to(P, (rest.size, n, d)), E[rest, None]], axis=1)
        single = kernel_losses(truth, all_points, S[rest], c[rest], gamma, mask[rest], "error",
                               tolerance=tolerance)
        loss[rest], unresolved[rest], estimate[rest] = single.loss, single.unresolved, single.estimate
    chosen = np.flatnonzero(family)
    if chosen.size:
        classes = np.sort(np.nonzero(mask[chosen])[1].reshape(-1, 2), axis=1).astype(np.int64)
        S2 = np.ascontiguousarray(S[chosen[:, None], classes])  # (R', 2, n + 1): the present classes' scores
        c2 = np.ascontiguousarray(c[chosen[:, None], classes])
        out = np.empty((3, chosen.size))
        events = np.empty(chosen.size, dtype=np.int64)
        _compiled_family().family_losses(np.ascontiguousarray(P), np.ascontiguousarray(E[chosen]), S2, c2,
                                         classes, gamma, np.ascontiguousarray(truth.weights),
                                         np.ascontiguousarray(truth.means), np.ascontiguousarray(truth.covariances),
                                         np.ascontiguousarray(truth.labels, dtype=np.int64), tolerance, NODES_31,
                                         KRONROD_31, GAUSS_31, out[0], out[1], out[2], events)
        loss[chosen], unresolved[chosen], estimate[chosen] = out
        counts[chosen] = events
    return KernelLosses(loss, unresolved, estimate), ~family, counts
