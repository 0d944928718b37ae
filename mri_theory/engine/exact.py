r"""Exact error rates and log losses of quadratic-score classification rules on Gaussian-mixture truths.

The truth (:class:`MixtureTruth`) is a mixture of Gaussian components
:math:`N(\mu_c, \Sigma_c)` with joint weights :math:`w_c` (class prior times
the weight within the class, summing to 1), each carrying a class label
:math:`y_c`.  A *rule* gives every class :math:`j` a score quadratic in
:math:`x`,

.. math::
    s_j(x) = -\tfrac12 x^T A_j x + b_j^T x + c_j ,

predicts :math:`\arg\max_j s_j(x)` and assigns the probabilities
:math:`\operatorname{softmax}(s(x))`.  LDA, QDA, Gaussian naive Bayes, the
mean classifier (:mod:`mri_theory.classifiers.gaussian`) and logistic
regression (linear scores, :math:`A_j = 0`) are all of this form.  A class
may be *absent* (``present[m, j] = False``: score :math:`-\infty`
everywhere).  :func:`error_rates` and :func:`log_losses` compute, for a batch
of ``M`` rules at once,

.. math::
    E = \sum_c w_c\, P_{x \sim N(\mu_c, \Sigma_c)}\bigl(\arg\max_j s_j(x) \ne y_c\bigr), \qquad
    L = \sum_c w_c\, E_{x \sim N(\mu_c, \Sigma_c)}\bigl[-\ln \operatorname{softmax}(s(x))_{y_c}\bigr],

the expected losses :math:`L_e(\hat\theta)` and :math:`L_o(\hat\theta)` of
§2.1 (:math:`L(\hat\theta) = E_{X,Y}[M(\hat\theta, x, y)]`) under the
truth, in one and two dimensions (every abstract problem of the toolkit is
1-D or 2-D), to about ``1e-12`` (error rate) and ``1e-11`` (log loss,
floored or not) absolute.  Measured against independent references
(``tests/engine/test_exact*.py``): floored log losses of three-class LDA,
QDA, naive Bayes, mean-classifier and logistic-regression rules early in a
learning curve (``|D_S|`` = 3 to 10 on Three-Gaussians and on a three-class
mixture with anisotropic components) agree to 4e-12 (1e-13 typically; the
inner quadrature's tolerance is the limit), where the code before the kinks
of the floor were breakpoints was off by up to 3.7e-7; two-class error rates
by lines agree with the angular integral at a tight tolerance to 1e-15 on
study steps and to 1e-13 on random rules.

Method
------
*Whitening.*  In each component's coordinates :math:`x = \mu_c + L_c z`
(:math:`L_c` the Cholesky factor), :math:`z` is standard normal and every
score stays quadratic in :math:`z`; only score *differences* matter.

*Rays.*  Along a ray :math:`z = r u` from the component's mean (``r >= 0``,
``u`` a unit vector: :math:`\pm 1` in 1-D, :math:`(\cos\theta, \sin\theta)`
in 2-D) every score is a quadratic in ``r``, so every pairwise crossing
:math:`s_j = s_l` is a root of a quadratic, in closed form (the stable
formula :math:`q = -(\beta + \operatorname{sign}\beta\sqrt\Delta)/2`, roots
:math:`q/\alpha, \gamma/q`).  Between consecutive crossing radii the
predicted class is constant (read off at the segment's midpoint), and the
radial mass of :math:`[r_1, r_2]` is closed form: :math:`\Phi(-r_1) -
\Phi(-r_2)` for the half-line of a 1-D standard normal,
:math:`(e^{-r_1^2/2} - e^{-r_2^2/2}) / 2\pi` per radian for the 2-D standard
normal.  So a 1-D error rate is a finite sum of normal CDFs (quadratic boundaries
in closed form), and a 2-D error rate is a
one-dimensional integral over :math:`\theta` of a closed-form integrand.

*Two classes with equal quadratic parts* (LDA, logistic regression, the
mean classifier with two classes): the score difference is linear, so it is
normal under each component, :math:`N(\gamma, \lVert\beta\rVert^2)`; the
problem reduces exactly to the 1-D case above (the error rate is
:math:`\Phi` of the standardised offset).

*The outer integral over* :math:`\theta` (2-D, otherwise).  The integrand
is smooth except at finitely many directions, all in closed form: where the
discriminant :math:`\Delta_{jl}(\theta) = u^T(\delta b\,\delta b^T + 2\,\delta c\,
\delta A)u` of a pair vanishes (the ray touches the boundary: a square-root
singularity), where the leading coefficient :math:`u^T \delta A u` vanishes
(a crossing runs off to infinity) and, for a linear pair, where
:math:`\delta b^T u` vanishes -- each the zero of a quadratic form in ``u``,
i.e. of :math:`p + R\cos(2\theta - \varphi)` -- and, for ``k >= 3``, where
three classes meet (a kink): two pairs' crossings share a root along the
ray, so their resultant vanishes, a quartic in :math:`\tan\theta` solved by
companion-matrix eigenvalues.  The circle is split there; on each panel the
substitution :math:`\theta = \theta_0 + (\theta_1 - \theta_0)(3s^2 - 2s^3)`
makes the square-root endpoint singularities analytic, and the panel is
integrated by vectorised adaptive Gauss-Kronrod (7-15 points, QUADPACK's
error estimate, bisection until it is below :data:`TOLERANCE` per unit
length or below the rounding of the panel's sum).  The adaptivity also
takes care of features the split leaves out (a boundary passing very close
to a component's mean).  For the log loss all rules, components and panels
are one flat batch of numpy operations per bisection round.  For the error
rate the same integrand and the same quadrature (nodes, error estimate,
acceptance) are compiled by numba
(``mri_theory/engine/_exact_compiled.py``, imported on first use): each
panel is integrated on its own, depth first, the radial mass computed ray
by ray without temporary arrays -- the same values to rounding (that
module's notes say what may differ in the last bits), 4.5-4.9x faster than
the numpy batch for the rules of a study step and 3.9x for a whole QDA or
naive Bayes MRI-best learning curve on Four-Gaussian
(``benchmarks/bench_exact.py --baseline``).  The numpy radial mass
(``_error_mass``) stays: the 1-D path uses it and the tests compare the
compiled one with it.

*Two classes by lines* (the error rate of every 2-D item with exactly two
present classes ``j < l``, quadratic or not: QDA and naive Bayes on every
two-class problem).  Only the sign of :math:`q = s_l - s_j = z^T Q z +
\beta^T z + \gamma` matters.  In the eigenbasis of ``Q`` (a rotation: ``z``
stays standard normal), with ``u`` the coordinate of the larger eigenvalue
``a`` and ``t`` the other, :math:`q = a u^2 + b u + c(t)` with ``c``
quadratic in ``t``: along each line ``t`` the mass of the wrong side is a
sum of normal CDFs between the two roots (closed form), so only the outer
integral over ``t``, weighted by :math:`\varphi(t)`, is numeric.  The line
mass is smooth except where the discriminant :math:`b^2 - 4a\,c(t)` (a
quadratic in ``t``) vanishes -- the line touches the boundary, a square-root
singularity -- and constant (0 or 1) where it is negative, which is then
integrated in closed form.  The range :math:`|t| \le` ``LINE_LIMIT`` is
cut at those zeros, at the discriminant's vertex and at ``LINE_GRID``
(fixed cuts farther than ``LINE_GAP`` from a tangent line, which would
otherwise leave a singularity just outside a piece); each piece is
integrated by the same adaptive Gauss-Kronrod (tolerance
``TOLERANCE["lines"]``) after a substitution that makes a square root at a
singular end analytic, compiled
(``_exact_compiled.pair_line_errors``).  Per item this
costs a seventh to a third of the angular integral on the study's steps
(fewer, smoother panels; no trigonometry), with a smaller error (the angular integral with the default
tolerance was up to 1e-11 off on Oscillating and Sharp; the lines agree with
it at a tight tolerance to 1e-15): an exact QDA or naive Bayes error step is
then faster than a 10^4-point sampled one
(``benchmarks/bench_exact.py --step``).  Items with three or more present
classes keep the angular integral.

*Log loss.*  :math:`-\ln p_y = (s_m - s_y) + \ln\sum_j e^{s_j - s_m}`
with :math:`m` the predicted class on the segment.  The first term is a
quadratic in ``r`` on each segment, integrated exactly against the radial
density (closed-form moments :math:`\int r^n\,w(r)\,dr`, ``n <= 2``); the
second is bounded by :math:`\ln k`, smooth inside each segment and
non-negligible only near the crossings, where it varies on the scale
:math:`\varepsilon` = 1/(slope of the vanishing score gap).  Each segment
(truncated at radius :data:`RADIUS`, beyond which the radial mass is below
1e-21) is split in halves, each integrated from its end outward in the
variable ``t`` with :math:`r = \text{end} \pm \varepsilon \sinh t`, which
widens the near-kink to O(1) (the sinh transformation for nearly singular
integrands), by the same adaptive Gauss-Kronrod; segments where every gap
exceeds :data:`GAP_CUTOFF` are skipped.

*The floor.*  With ``floor`` (the engine's probability floor
:data:`mri_theory.engine.losses.LOG_LOSS_FLOOR`), :math:`\min(-\ln p_y,
\text{cap})`, :math:`\text{cap} = -\ln\text{floor}`, is integrated the same
way; the integrand is analytic except on the curve :math:`F = -\ln p_y -
\text{cap} = 0`, where it has a kink.  With two classes that curve is the
conic :math:`s_j - s_y = \text{cap}` to within :math:`e^{-\text{cap}}` (1e-15),
and its radii and the rays tangent to it are closed form.  With three or more
classes it is not a conic: where two wrong classes compete it lies up to
:math:`\ln k / \lVert\nabla F\rVert` inside the conics :math:`s_j - s_y =
\text{cap}` and rounds the corner where two of them meet.  So (i) along each
ray the roots of ``F`` are radial breakpoints (``_cap_kinks``: bracketed
between the closed-form radii where :math:`\max_j (s_j - s_y)` is ``cap`` or
:math:`\text{cap} - \ln k`, a piece where ``F`` turns cut at the turn, each
root found by Newton's method safeguarded by bisection), and a segment is
clipped where :math:`F \ge 0` at its midpoint; (ii) the rays tangent to the
curve, whose angles are not closed form, are angular breakpoints
(``_cap_tangents``: Newton's method on :math:`F = 0`, :math:`z^T\nabla F = 0`
from the tangent points of the conics and from the rounded corners); (iii)
the angular panels of such items are graded toward clustered breakpoints
(``_graded``: a panel much wider than the gap to a singular point just
beyond its end is cut geometrically toward that end, where the Gauss and
Kronrod rules otherwise fail alike).  Before (i), a kink within the first
node gap of the inner quadrature went unseen, which made floored three-class
log losses early in a learning curve 1e-9 to 4e-7 off; before (ii) and (iii),
1e-11 to 2e-10.

Ties: a tie between two classes has measure zero unless their scores are
identical functions; then, as in :func:`mri_theory.engine.losses.predicted_class`,
the lowest label is predicted.

*Polygonal partitions* (:func:`partition_losses`).  A rule that is constant on
the polygons of a partition of the plane (k-NN: the order of the distances to
the training points changes only on perpendicular bisectors) needs no
quadrature at all: the Gaussian mass of a polygon is a sum over its edges of
closed forms in Owen's T function, and a piecewise constant loss becomes one
term per (edge's line, vertex) where the loss jumps.  Exact to rounding.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from scipy import special

from mri_theory._utils import validation as check
from mri_theory.engine._quadrature import GAUSS, KRONROD, NODES
from mri_theory.engine.losses import LOG_LOSS_FLOOR, check_floor

__all__ = [
    "GAP_CUTOFF",
    "RADIUS",
    "TOLERANCE",
    "MixtureTruth",
    "adaptive_gauss_kronrod",
    "error_rates",
    "log_losses",
    "partition_losses",
    "rule_losses",
]

#: Radius (in standard deviations) beyond which the smooth part of the log loss is dropped:
#: the 2-D radial mass beyond it is :math:`e^{-50} \approx 2e-22`, the 1-D one :math:`2\Phi(-10) \approx 1.5e-23`.
RADIUS = 10.0

#: A segment whose every score gap exceeds this contributes at most :math:`(k-1)e^{-50}` to the log loss: skipped.
GAP_CUTOFF = 50.0

#: Tolerances of the adaptive quadrature: Kronrod-Gauss difference per unit of (radian / 2 pi) for the outer
#: integral of the error rate and of the log loss, per unit radius for the inner integral of the log loss, per
#: unit of the outer coordinate for the error rate of two classes by lines.
TOLERANCE = {"error": 1e-10, "log": 1e-10, "inner": 1e-12, "lines": 1e-11}

#: Two classes by lines: the outer coordinate is integrated over ``[-LINE_LIMIT, LINE_LIMIT]`` (the mass beyond
#: is :math:`2\Phi(-9) \approx 2e-19`), cut at ``LINE_GRID`` as well as at the lines tangent to the boundary.
LINE_LIMIT = 9.0
LINE_GRID = np.array([-6.0, -3.5, -1.5, 0.0, 1.5, 3.5, 6.0])
LINE_GRID.setflags(write=False)
#: A cut of ``LINE_GRID`` closer than this to a line tangent to the boundary is left out.
LINE_GAP = 0.25

#: The dimensions integrated exactly (1-D and 2-D problems).
MAX_DIM = 2

#: Distance (in a component's standard deviations) beyond which Owen's T is below 3e-21 and is not evaluated
#: (:func:`partition_losses`): :math:`T(h, a) \le \tfrac14 e^{-h^2/2}`.
OWEN_T_CUTOFF = 9.6
_LOG_PANELS = 8  # starting panels of the angular integral of the (unclipped) log loss
_SYMMETRY_TOLERANCE = 1e-10
_WEIGHT_TOLERANCE = 1e-9
_SAME_TOLERANCE = 1e-12  # MixtureTruth.same_as, relative: a truth rebuilt from the same parameters agrees to rounding

_ROUNDING = 50 * np.finfo(float).eps  # QUADPACK's floor of the error estimate
_CHUNK = 2048  # panels per call of the integrand (bounds the memory of nested integrals)
_NEGLIGIBLE = 1e-15  # a panel whose error estimate is below this is accepted whatever its width
_KINK_ITERATIONS = 60  # safeguarded Newton steps for a kink of the floored log loss (bisection alone: 60 halvings)
_KINK_RTOL = 4 * np.finfo(float).eps
_TANGENT_ITERATIONS = 30  # Newton steps for a ray tangent to the curve -ln p_y = cap
_TANGENT_RTOL = 1e-13
_GRADE_RATIO = 4.0  # the pieces toward a near neighbour grow by this factor (_graded)
_GRADE_LEVELS = 30  # at most this many of them
_GRADE_MIN = 1e-12  # a neighbour closer than this (relative) is the same point: no grading
_MAX_ROUNDS = 60  # bisections: a panel is then 2**-60 of its start, and accepted whatever its estimate


@dataclass(frozen=True, eq=False)
class MixtureTruth:
    """A Gaussian mixture whose components carry class labels: the truth the exact losses integrate over.

    Parameters
    ----------
    weights : ndarray (C,)
        Joint component weights (class prior times the weight within the class): positive, summing to 1.
    means : ndarray (C, d)
    covariances : ndarray (C, d, d)
        Symmetric positive definite.
    labels : ndarray (C,) of int
        Class of each component, in ``0 .. n_classes - 1``.
    n_classes : int
        Number of classes ``k >= 2``.

    Notes
    -----
    Construct it with :meth:`from_arrays` (which validates and converts) or
    :meth:`from_problem`; direct construction validates too.  ``cholesky``
    holds the lower Cholesky factors.

    See Also
    --------
    mri_theory.engine.ExactPopulation : The population that evaluates classifiers on it.
    mri_theory.engine.error_rates : The exact error rates of rules on it.

    Examples
    --------
    >>> from mri_theory.engine import MixtureTruth
    >>> from mri_theory.problems import get_problem
    >>> truth = MixtureTruth.from_problem(get_problem("four-gaussian"))
    >>> truth.n_classes, truth.means.shape[1], round(float(truth.weights.sum()), 12)
    (2, 2, 1.0)
    """

    weights: np.ndarray
    means: np.ndarray
    covariances: np.ndarray
    labels: np.ndarray
    n_classes: int
    cholesky: np.ndarray = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        weights = check.finite_array(self.weights, "weights")
        if weights.ndim != 1 or weights.size < 1:
            raise ValueError(f"weights must have shape (C,) with C >= 1, got {weights.shape}")
        C = weights.size
        if np.any(weights <= 0) or abs(weights.sum() - 1.0) > _WEIGHT_TOLERANCE:
            raise ValueError(f"weights must be positive and sum to 1, got {weights!r}")
        means = check.finite_array(self.means, "means")
        if means.ndim != 2 or means.shape[0] != C or means.shape[1] < 1:
            raise ValueError(f"means must have shape (C, d) = ({C}, d >= 1), got {means.shape}")
        d = means.shape[1]
        cov = check.finite_array(self.covariances, "covariances")
        if cov.shape != (C, d, d):
            raise ValueError(f"covariances must have shape (C, d, d) = ({C}, {d}, {d}), got {cov.shape}")
        if np.any(np.abs(cov - np.swapaxes(cov, 1, 2)) > _SYMMETRY_TOLERANCE * np.maximum(1.0, np.abs(cov))):
            raise ValueError("covariances must be symmetric")
        cov = 0.5 * (cov + np.swapaxes(cov, 1, 2))
        try:
            chol = np.linalg.cholesky(cov)
        except np.linalg.LinAlgError as exc:
            raise ValueError("covariances must be positive definite") from exc
        if isinstance(self.n_classes, (bool, np.bool_)) or not isinstance(self.n_classes, (int, np.integer)):
            raise TypeError(f"n_classes must be an int, got {self.n_classes!r}")
        k = int(self.n_classes)
        if k < 2:
            raise ValueError(f"n_classes must be at least 2, got {k}")
        labels = np.asarray(self.labels)
        if labels.dtype.kind not in "iu" or labels.shape != (C,):
            raise TypeError(f"labels must be an integer array of shape (C,) = ({C},), got dtype {labels.dtype} "
                            f"and shape {labels.shape}")
        if np.any((labels < 0) | (labels >= k)):
            raise ValueError(f"labels must lie in 0 .. n_classes - 1 = {k - 1}, got {labels!r}")
        for name, value in (("weights", weights / weights.sum()), ("means", means), ("covariances", cov),
                            ("labels", labels.astype(np.intp)), ("cholesky", chol)):
            value = np.array(value)
            value.setflags(write=False)
            object.__setattr__(self, name, value)
        object.__setattr__(self, "n_classes", k)

    @classmethod
    def from_arrays(cls, weights: ArrayLike, means: ArrayLike, covariances: ArrayLike, labels: ArrayLike,
                    n_classes: int) -> MixtureTruth:
        """Validate and build a truth from array-likes (see the class parameters).

        Parameters
        ----------
        weights : array_like of shape (C,)
            The components' weights (summing to 1).
        means : array_like of shape (C, d)
            The components' means.
        covariances : array_like of shape (C, d, d)
            The components' covariances.
        labels : array_like of shape (C,)
            Each component's class.
        n_classes : int
            The number of classes.

        Returns
        -------
        MixtureTruth
            The checked truth.
        """
        # __post_init__ validates the array-likes and stores them as ndarrays (the fields' types once built).
        return cls(weights, means, covariances, labels, n_classes)  # type: ignore[arg-type]

    @classmethod
    def from_problem(cls, problem: Any) -> MixtureTruth:
        """The truth of a Gaussian-mixture problem.

        Reads the public ``prior``, ``weights``, ``means`` and ``covariances``
        (one entry per class) of a
        :class:`~mri_theory.problems.GaussianMixtureProblem`; anything
        without them is refused with a ``TypeError``.

        Parameters
        ----------
        problem : GaussianMixtureProblem
            The problem.

        Returns
        -------
        MixtureTruth
            Its mixture, one component per (class, component).
        """
        names = ("prior", "weights", "means", "covariances")
        if not all(hasattr(problem, n) for n in names):
            raise TypeError(f"problem must be a Gaussian-mixture problem (with {', '.join(names)}), "
                            f"got {type(problem).__name__}")
        prior = np.asarray(problem.prior, dtype=float)
        weights = np.concatenate([prior[j] * np.asarray(w, dtype=float) for j, w in enumerate(problem.weights)])
        labels = np.concatenate([np.full(len(w), j) for j, w in enumerate(problem.weights)])
        return cls(weights, np.concatenate(problem.means), np.concatenate(problem.covariances), labels, prior.size)

    def in_frame(self, origin: np.ndarray, scale: float | np.ndarray) -> MixtureTruth:
        r"""The same truth in the coordinates :math:`z = (x - o)/s` of a classifier's frame.

        Means ``(mu - origin) / scale``, covariances ``Sigma / scale**2``: a rule written in
        the frame sees exactly the distribution of the frame coordinates.  With a per-covariate ``scale``
        (a diagonal map :math:`z_t = (x_t - o_t) / s_t`: the ``scale`` option of
        :class:`~mri_theory.classifiers.KNN` and :class:`~mri_theory.classifiers.SVM`) the covariances
        become :math:`\Sigma / (s s^T)`: a Gaussian mixture mapped by a diagonal linear map is the Gaussian
        mixture of the mapped components, so the exact loss of a model of scaled covariates is that of the
        model on the scaled points under this truth.

        Parameters
        ----------
        origin : ndarray of shape (d,)
            The frame's origin :math:`o`.
        scale : float or ndarray of shape (d,)
            The frame's scale :math:`s`: one for every covariate, or one per covariate (positive).

        Returns
        -------
        MixtureTruth
            The truth in the frame's coordinates.

        Examples
        --------
        Dividing the covariates by ``(2, 0.5)`` divides each mean by it, each variance by its square and each
        covariance by the product:

        >>> import numpy as np
        >>> from mri_theory.engine import MixtureTruth
        >>> truth = MixtureTruth.from_arrays([0.5, 0.5], [[2.0, 1.0], [-2.0, 0.0]],
        ...                                  [[[4.0, 1.0], [1.0, 1.0]], np.eye(2)], [0, 1], 2)
        >>> scaled = truth.in_frame(np.zeros(2), np.array([2.0, 0.5]))
        >>> scaled.means.tolist(), scaled.covariances[0].tolist()
        ([[1.0, 2.0], [-1.0, 0.0]], [[1.0, 1.0], [1.0, 4.0]])
        """
        if np.ndim(scale) == 0:
            return MixtureTruth(self.weights, (self.means - origin) / scale, self.covariances / scale**2,
                                self.labels, self.n_classes)
        divisors = check.finite_array(scale, "scale")
        if divisors.shape != (self.dim,) or np.any(divisors <= 0):
            raise ValueError(f"scale must be a positive scalar or hold one positive entry per covariate "
                             f"({self.dim}), got {divisors.tolist()}")
        return MixtureTruth(self.weights, (self.means - origin) / divisors,
                            self.covariances / np.outer(divisors, divisors), self.labels, self.n_classes)

    @property
    def dim(self) -> int:
        """Dimension ``d`` of the inputs."""
        return int(self.means.shape[1])

    def same_as(self, other: Any) -> bool:
        """Whether ``other`` is the same truth: a :class:`MixtureTruth` with the same classes and components, in
        the same order, its weights, means and covariances equal to rounding (``1e-12`` relative to
        each array's largest entry), so that a truth rebuilt from the same problem is the same.

        Parameters
        ----------
        other : object
            Anything.

        Returns
        -------
        bool
            Whether it is the same truth.
        """
        if not isinstance(other, MixtureTruth) or other.n_classes != self.n_classes \
                or other.means.shape != self.means.shape or not np.array_equal(other.labels, self.labels):
            return False
        return all(np.all(np.abs(a - b) <= _SAME_TOLERANCE * np.max(np.abs(a), initial=0.0))
                   for a, b in ((self.weights, other.weights), (self.means, other.means),
                                (self.covariances, other.covariances)))

    @property
    def n_components(self) -> int:
        """Number ``C`` of components."""
        return int(self.weights.size)


# -- input checks --------------------------------------------------------------------------------------------


def _check_rules(truth: Any, A: ArrayLike, b: ArrayLike, c: ArrayLike, present: ArrayLike | None):
    """Validate the rules against the truth; returns float arrays and the boolean mask."""
    if not isinstance(truth, MixtureTruth):
        raise TypeError(f"truth must be a MixtureTruth, got {type(truth).__name__}")
    d, k = truth.dim, truth.n_classes
    if d > MAX_DIM:
        raise ValueError(f"truth has dimension {d}: exact losses are implemented for d = 1 and d = 2 only")
    A = check.real_array(A, "A")
    b = check.real_array(b, "b")
    c = check.real_array(c, "c")
    if A.ndim != 4 or A.shape[1:] != (k, d, d) or A.shape[0] < 1:
        raise ValueError(f"A must have shape (M, k, d, d) = (M, {k}, {d}, {d}), got {A.shape}")
    M = A.shape[0]
    if b.shape != (M, k, d):
        raise ValueError(f"b must have shape (M, k, d) = ({M}, {k}, {d}), got {b.shape}")
    if c.shape != (M, k):
        raise ValueError(f"c must have shape (M, k) = ({M}, {k}), got {c.shape}")
    if present is None:
        mask = np.ones((M, k), dtype=bool)
    else:
        mask = np.asarray(present)
        if mask.dtype != bool:
            raise TypeError(f"present must be a boolean array, got dtype {mask.dtype}")
        if mask.shape != (M, k):
            raise ValueError(f"present must have shape (M, k) = ({M}, {k}), got {mask.shape}")
    if not np.all(mask.any(axis=1)):
        raise ValueError("present must mark at least one class of every rule")
    for name, arr, m in (("A", A, mask[:, :, None, None]), ("b", b, mask[:, :, None]), ("c", c, mask)):
        if not np.all(np.isfinite(arr) | ~m):
            raise ValueError(f"{name} must be finite for every present class")
    A = np.where(mask[:, :, None, None], A, 0.0)
    if np.any(np.abs(A - np.swapaxes(A, 2, 3)) > _SYMMETRY_TOLERANCE * np.maximum(1.0, np.abs(A))):
        raise ValueError("A must be symmetric in its last two axes")
    A = 0.5 * (A + np.swapaxes(A, 2, 3))
    return A, np.where(mask[:, :, None], b, 0.0), np.where(mask, c, 0.0), mask


# -- whitening and the items ---------------------------------------------------------------------------------


@dataclass
class _Items:
    """One (rule, component) pair per item, scores in the component's whitened coordinates.

    ``alpha`` (n, k, d, d) is :math:`-\\tfrac12 L^T A L` (the quadratic coefficient matrix), ``beta`` (n, k, d),
    ``gamma`` (n, k); ``present`` (n, k); ``label`` (n,); ``rule`` and ``weight`` locate and weigh the item.
    """

    alpha: np.ndarray
    beta: np.ndarray
    gamma: np.ndarray
    present: np.ndarray
    label: np.ndarray
    rule: np.ndarray
    weight: np.ndarray

    def take(self, keep: np.ndarray) -> _Items:
        if keep.dtype == bool and keep.all():  # every item: no copy (the items are not written to)
            return self
        return _Items(*(getattr(self, f)[keep] for f in
                        ("alpha", "beta", "gamma", "present", "label", "rule", "weight")))


def _whitened_items(truth: MixtureTruth, A: np.ndarray, b: np.ndarray, c: np.ndarray, present: np.ndarray):
    """Scores of every rule in every component's whitened coordinates :math:`x = \\mu + L z`."""
    M, C = A.shape[0], truth.n_components
    mu, L = truth.means, truth.cholesky
    Amu = np.einsum("mkij,cj->mcki", A, mu)  # (M, C, k, d)
    alpha = -0.5 * (np.swapaxes(L, 1, 2)[None, :, None] @ A[:, None] @ L[None, :, None])  # (M, C, k, d, d)
    beta = np.einsum("cia,mcki->mcka", L, b[:, None] - Amu)
    gamma = c[:, None] + np.einsum("mki,ci->mck", b, mu) - 0.5 * np.einsum("mcki,ci->mck", Amu, mu)
    k = A.shape[1]
    d = truth.dim
    return _Items(alpha.reshape(M * C, k, d, d), beta.reshape(M * C, k, d), gamma.reshape(M * C, k),
                  np.repeat(present, C, axis=0), np.tile(truth.labels, M), np.repeat(np.arange(M), C),
                  np.tile(truth.weights, M))


def _linear_pairs_to_1d(items: _Items) -> tuple[_Items, _Items]:
    """Split 2-D items into exact 1-D equivalents (two present classes, equal quadratic parts) and the rest.

    For such an item the score difference :math:`s_l - s_j = \\delta\\beta^T z + \\delta\\gamma` is
    :math:`N(\\delta\\gamma, \\lVert\\delta\\beta\\rVert^2)`, i.e. the 1-D rule with scores 0 and
    :math:`\\lVert\\delta\\beta\\rVert t + \\delta\\gamma` for a standard normal ``t``.
    """
    two = items.present.sum(axis=1) == 2
    order = np.argsort(~items.present, axis=1, kind="stable")[:, :2]  # the two present classes, in order
    rows = np.arange(order.shape[0])
    j, i = order[:, 0], order[:, 1]
    equal = np.all(items.alpha[rows, j] == items.alpha[rows, i], axis=(1, 2))
    linear = two & equal
    lin = items.take(linear)
    jl, ll, r = j[linear], i[linear], rows[linear]
    n, k = lin.present.shape
    beta = np.zeros((n, k, 1))
    gamma = np.zeros((n, k))
    beta[np.arange(n), ll, 0] = np.linalg.norm(items.beta[r, ll] - items.beta[r, jl], axis=1)
    gamma[np.arange(n), ll] = items.gamma[r, ll] - items.gamma[r, jl]
    one_d = _Items(np.zeros((n, k, 1, 1)), beta, gamma, lin.present, lin.label, lin.rule, lin.weight)
    return one_d, items.take(~linear)


def _wedge_parameters(items: _Items):
    """Standardised offsets ``(n, 2)`` and correlation ``(n,)`` of the two gaps :math:`s_y - s_j` (see below)."""
    n, k = items.present.shape
    rows = np.arange(n)
    others = np.argsort((np.arange(k) == items.label[:, None]) | ~items.present, axis=1, kind="stable")[:, :2]
    y = items.label
    db = items.beta[rows, y][:, None] - items.beta[rows[:, None], others]  # (n, 2, 2)
    dg = items.gamma[rows, y][:, None] - items.gamma[rows[:, None], others]
    norm = np.linalg.norm(db, axis=2)
    with np.errstate(divide="ignore", invalid="ignore"):
        h = dg / norm
        rho = np.sum(db[:, 0] * db[:, 1], axis=1) / (norm[:, 0] * norm[:, 1])
    return h, rho


def _linear_triples(items: _Items) -> tuple[_Items, _Items]:
    """Split off 2-D items with exactly three present classes sharing one quadratic part (linear boundaries).

    Left to the general path: degenerate wedges (a boundary through the mean, parallel boundaries, a zero
    slope), where Owen's formula below has a limit rather than a value.
    """
    n = items.present.shape[0]
    if n == 0 or items.present.shape[1] < 3:
        return items.take(np.zeros(n, dtype=bool)), items
    first = np.argmax(items.present, axis=1)
    same = np.all((items.alpha == items.alpha[np.arange(n), first][:, None]) | ~items.present[:, :, None, None],
                  axis=(1, 2, 3))
    ok = same & (items.present.sum(axis=1) == 3) & items.present[np.arange(n), items.label]
    h, rho = _wedge_parameters(items)
    ok &= np.all(np.isfinite(h) & (np.abs(h) > 1e-8), axis=1) & np.isfinite(rho) & (np.abs(rho) < 1 - 1e-8)
    return items.take(ok), items.take(~ok)


def _wedge_errors(items: _Items) -> np.ndarray:
    r"""Error of three-class linear items: one minus the bivariate normal mass of a wedge, by Owen's T.

    The label's region is :math:`\{D_1 > 0, D_2 > 0\}` with :math:`D_i = s_y - s_{j_i}` linear, so jointly
    normal: :math:`P = \Phi_2(h_1, h_2; \rho)` with the standardised offsets :math:`h_i` and the correlation
    :math:`\rho` of the gaps, and (Owen 1956) :math:`\Phi_2(h, k; \rho) = \tfrac12\Phi(h) + \tfrac12\Phi(k)
    - T(h, a_h) - T(k, a_k) - \beta`, :math:`a_h = (k - \rho h)/(h\sqrt{1 - \rho^2})` (and symmetrically),
    :math:`\beta = \tfrac12` if :math:`hk < 0`, else 0.
    """
    if items.label.size == 0:
        return np.zeros(0)
    h, rho = _wedge_parameters(items)
    h1, h2 = h[:, 0], h[:, 1]
    root = np.sqrt(1.0 - rho * rho)
    a1, a2 = (h2 - rho * h1) / (h1 * root), (h1 - rho * h2) / (h2 * root)
    mass = (0.5 * special.ndtr(h1) + 0.5 * special.ndtr(h2) - special.owens_t(h1, a1) - special.owens_t(h2, a2)
            - np.where(h1 * h2 < 0, 0.5, 0.0))
    return 1.0 - mass


# -- rays ------------------------------------------------------------------------------------------------------


def _positive_roots(a: np.ndarray, b: np.ndarray, g: np.ndarray) -> np.ndarray:
    """Roots in ``(0, inf)`` of :math:`a r^2 + b r + g` (elementwise), shape ``(..., 2)``; ``inf`` for none."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        disc = b * b - 4.0 * a * g
        q = -0.5 * (b + np.where(b >= 0, 1.0, -1.0) * np.sqrt(np.maximum(disc, 0.0)))
        quad = a != 0
        r1 = np.where(quad, q / a, np.where(b != 0, -g / b, np.nan))
        r2 = np.where(quad, np.where(q != 0, g / q, 0.0), np.nan)
        real = ~quad | (disc >= 0)
        roots = np.stack([np.where(real, r1, np.nan), np.where(real, r2, np.nan)], axis=-1)
    return np.where(np.isfinite(roots) & (roots > 0), roots, np.inf)


def _pairs(k: int) -> tuple[np.ndarray, np.ndarray]:
    j, i = np.triu_indices(k, 1)
    return j, i


def _segments(al: np.ndarray, be: np.ndarray, ga: np.ndarray, present: np.ndarray, label: np.ndarray,
              cap: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Segments of rays with scores :math:`s_j(r) = al_j r^2 + be_j r + ga_j` (arrays ``(..., k)``).

    Returns the sorted radii ``(..., S + 1)`` (from 0, padded with ``inf``), the predicted class on each
    segment and its score at the segment's midpoint, ``(..., S)`` and ``(..., S, k)``.  Breakpoints: every
    pairwise crossing of present classes, and with a finite ``cap`` the radii where :math:`s_j - s_y = cap`.
    """
    k = al.shape[-1]
    j, i = _pairs(k)
    both = present[..., j] & present[..., i]
    roots = _positive_roots(al[..., j] - al[..., i], be[..., j] - be[..., i], ga[..., j] - ga[..., i])
    roots = np.where(both[..., None], roots, np.inf).reshape(roots.shape[:-2] + (-1,))
    parts = [np.zeros(roots.shape[:-1] + (1,)), roots, np.full(roots.shape[:-1] + (1,), np.inf)]
    if np.isfinite(cap):
        y = label[..., None]
        sy = [np.take_along_axis(v, y, axis=-1) for v in (al, be, ga)]
        capped = _positive_roots(al - sy[0], be - sy[1], ga - sy[2] - cap)
        capped = np.where(present[..., None], capped, np.inf).reshape(capped.shape[:-2] + (-1,))
        parts += [capped, _cap_kinks(al, be, ga, present, label, cap, sy, roots, capped)]
    radii = np.sort(np.concatenate(parts, axis=-1), axis=-1)
    lo, hi = radii[..., :-1], radii[..., 1:]
    mid = np.where(np.isinf(hi), np.where(np.isinf(lo), 0.0, 2.0 * lo + 1.0), 0.5 * (lo + hi))
    scores = _scores_at(al, be, ga, present, mid)
    return radii, np.argmax(scores, axis=-1), scores


def _cap_excess(al, be, ga, present, label, cap, r):
    r""":math:`F = -\ln p_y - cap` (the log-sum-exp of the scores less :math:`s_y` and the cap) and its first
    two derivatives in ``r``, at radii ``r`` ``(P,)`` of rays with coefficients ``(P, k)``."""
    s = np.where(present, (al * r[:, None] + be) * r[:, None] + ga, -np.inf)
    ds = np.where(present, 2 * al * r[:, None] + be, 0.0)
    top = np.max(s, axis=-1, keepdims=True)
    e = np.exp(s - top)
    total = np.sum(e, axis=-1)
    p = e / total[:, None]
    rows = np.arange(r.size)
    value = top[:, 0] - s[rows, label] + np.log(total) - cap
    mean = np.sum(p * ds, axis=-1)
    slope = mean - ds[rows, label]
    curvature = np.sum(p * (2 * al + ds * ds), axis=-1) - mean * mean - 2 * al[rows, label]
    return value, slope, curvature


def _safeguarded_newton(fun, a, b, f_a):
    """Roots of ``fun`` (value and slope) in brackets ``[a, b]`` where it changes sign (``f_a`` its value at
    ``a``): Newton's steps, a bisection where a step leaves the bracket, to rounding."""
    x = 0.5 * (a + b)
    for _ in range(_KINK_ITERATIONS):
        f, slope = fun(x)
        left = (f < 0) == (f_a < 0)  # the root is above x
        a, f_a = np.where(left, x, a), np.where(left, f, f_a)
        b = np.where(left, b, x)
        with np.errstate(divide="ignore", invalid="ignore"):
            step = x - f / slope
        x = np.where((step > a) & (step < b), step, 0.5 * (a + b))
        if np.all((b - a <= _KINK_RTOL * b) | (f == 0)):
            break
    return x


def _cap_kinks(al, be, ga, present, label, cap, sy, crossings, capped):
    r"""Radii ``(..., K)`` (``inf`` padded) where :math:`-\ln p_y` = ``cap``: the kinks of the floored log loss.

    With :math:`d_j = s_j - s_y` and :math:`D = \max(0, \max_j d_j)`, :math:`F = -\ln p_y - cap =
    \ln\sum_j e^{d_j} - cap` lies in :math:`[D - cap, D - cap + \ln k']` (``k'`` present classes), so
    every root of ``F`` lies where :math:`cap - \ln k' \le D \le cap`.  The ray is cut at the crossings
    and at the radii where some :math:`d_j` equals ``cap`` or :math:`cap - \ln k'` (closed form); on each
    piece :math:`D` is one quadratic, and on a piece inside that band where ``F`` changes sign its root is
    found by Newton's method safeguarded by bisection, to rounding.  With two classes the kink is within
    :math:`e^{-cap}/|F'|` of the radius :math:`d_j = cap`; with more it may lie up to :math:`\ln k' / |F'|`
    inside it, where a second wrong class competes, and must be a breakpoint of the radial integral.
    Beyond :data:`RADIUS` (radial mass below 2e-22) roots are not sought.
    """
    shape = al.shape[:-1]
    k = al.shape[-1]
    out_empty = np.full(shape + (0,), np.inf)
    if k < 3:  # two classes: the kink is the radius d_j = cap to within e^{-cap} / |F'|
        return out_empty
    n_present = np.sum(present, axis=-1)
    lower = cap - np.log(np.maximum(n_present, 1))[..., None]
    band = _positive_roots(al - sy[0], be - sy[1], ga - sy[2] - lower)
    band = np.where(present[..., None] & (n_present >= 3)[..., None, None], band, np.inf).reshape(shape + (-1,))
    edges = np.sort(np.concatenate([np.zeros(shape + (1,)), crossings, capped, band,
                                    np.full(shape + (1,), RADIUS)], axis=-1), axis=-1)
    lo, hi = np.minimum(edges[..., :-1], RADIUS), np.minimum(edges[..., 1:], RADIUS)
    y = np.broadcast_to(label[..., None, None], lo.shape + (1,))
    with np.errstate(invalid="ignore"):
        s_mid = _scores_at(al, be, ga, present, 0.5 * (lo + hi))
        gap = np.max(s_mid, axis=-1) - np.take_along_axis(s_mid, y, axis=-1)[..., 0]  # D at the midpoints
    inside = (hi > lo) & (gap > lower) & (gap < cap) & (n_present >= 3)[..., None]
    idx = np.nonzero(inside)
    if idx[0].size == 0:
        return out_empty
    ray = idx[:-1]
    a_, b_ = lo[idx], hi[idx]
    sub = [v[ray] for v in (al, be, ga)]
    pr, lab = present[ray], np.broadcast_to(label, shape)[ray]
    piece = np.arange(a_.size)

    def excess(r, which):
        return _cap_excess(*(v[which] for v in sub), pr[which], lab[which], cap, r)

    # a piece where F turns (its slope changes sign) is cut at the turn: two roots close together (a ray
    # nearly tangent to the curve F = 0) would otherwise show no change of sign at the piece's ends
    _, slope_a, _ = excess(a_, piece)
    _, slope_b, _ = excess(b_, piece)
    turns = np.nonzero((slope_a < 0) != (slope_b < 0))[0]
    if turns.size:
        turn = _safeguarded_newton(lambda r: excess(r, turns)[1:], a_[turns], b_[turns], slope_a[turns])
        ends = b_.copy()
        ends[turns] = turn
        piece = np.concatenate([piece, turns])
        a_, b_ = np.concatenate([a_, turn]), np.concatenate([ends, b_[turns]])
    f_a = excess(a_, piece)[0]
    f_b = excess(b_, piece)[0]
    change = np.nonzero((f_a < 0) != (f_b < 0))[0]
    if change.size == 0:
        return out_empty
    which = piece[change]
    x = _safeguarded_newton(lambda r: excess(r, which)[:2], a_[change], b_[change], f_a[change])
    rows = tuple(i[which] for i in idx[:-1])
    flat = np.ravel_multi_index(rows, shape)
    order = np.argsort(flat, kind="stable")
    flat = flat[order]
    first = np.searchsorted(flat, flat, side="left")
    rank = np.arange(flat.size) - first  # position of each root among its ray's roots
    out = np.full((int(np.prod(shape)), int(rank.max()) + 1), np.inf)
    out[flat, rank] = x[order]
    return out.reshape(shape + (-1,))


def _scores_at(al, be, ga, present, r):
    """Scores ``(..., S, k)`` at radii ``r`` ``(..., S)``; ``-inf`` for absent classes."""
    r = r[..., None]
    s = (al[..., None, :] * r + be[..., None, :]) * r + ga[..., None, :]
    return np.where(present[..., None, :], s, -np.inf)


def _ray_coefficients(items: _Items, cos: np.ndarray, sin: np.ndarray):
    """Quadratic coefficients in ``r`` ``(n, q, k)`` of every class along the directions ``(cos, sin)`` ``(n, q)``."""
    A, b = items.alpha[:, None], items.beta[:, None]  # (n, 1, k, 2, 2), (n, 1, k, 2)
    c, s = cos[..., None], sin[..., None]
    al = A[..., 0, 0] * c * c + (A[..., 0, 1] + A[..., 1, 0]) * c * s + A[..., 1, 1] * s * s
    be = b[..., 0] * c + b[..., 1] * s
    return al, be, np.broadcast_to(items.gamma[:, None], al.shape)


# Radial weights: the 1-D standard normal on a half-line (density phi(r)) and the 2-D one per radian
# (density r exp(-r^2/2); the 1 / 2 pi is applied by the outer integral).
def _tail(r: np.ndarray, dim: int) -> np.ndarray:
    """Radial mass beyond ``r``: :math:`\\Phi(-r)` in 1-D, :math:`e^{-r^2/2}` in 2-D."""
    return special.ndtr(-r) if dim == 1 else np.exp(-0.5 * r * r)


def _density(r: np.ndarray, dim: int) -> np.ndarray:
    """Radial density: :math:`\\varphi(r)` in 1-D, :math:`r e^{-r^2/2}` in 2-D (0 at ``r = inf``)."""
    e = np.exp(-0.5 * r * r)
    if dim == 1:
        return e / math.sqrt(2 * math.pi)
    with np.errstate(invalid="ignore"):
        return np.where(np.isinf(r), 0.0, r * e)


def _moments(lo: np.ndarray, hi: np.ndarray, dim: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r""":math:`\int_{lo}^{hi} r^n w(r)\,dr` for ``n = 0, 1, 2`` (``hi`` may be ``inf``)."""
    t_lo, t_hi = _tail(lo, dim), _tail(hi, dim)
    i0 = t_lo - t_hi
    f_lo, f_hi = _density(lo, dim), _density(hi, dim)
    with np.errstate(invalid="ignore"):
        rf_lo = np.where(np.isinf(lo), 0.0, lo * f_lo)
        rf_hi = np.where(np.isinf(hi), 0.0, hi * f_hi)
    if dim == 1:  # phi' = -r phi, (Phi - r phi)' = r^2 phi
        return i0, f_lo - f_hi, i0 + rf_lo - rf_hi
    # 2-D, e = exp(-r^2/2): (-r e + sqrt(2 pi) Phi)' = r^2 e,  (-(r^2 + 2) e)' = r^3 e
    with np.errstate(invalid="ignore"):
        r_lo, r_hi = np.where(np.isinf(lo), 0.0, lo * t_lo), np.where(np.isinf(hi), 0.0, hi * t_hi)
        r2_lo, r2_hi = np.where(np.isinf(lo), 0.0, lo * r_lo), np.where(np.isinf(hi), 0.0, hi * r_hi)
    i1 = r_lo - r_hi + math.sqrt(2 * math.pi) * (special.ndtr(-lo) - special.ndtr(-hi))
    return i0, i1, r2_lo + 2 * t_lo - r2_hi - 2 * t_hi


def _error_mass(al, be, ga, present, label, dim):
    """Radial mass (per ray) where the predicted class differs from ``label``."""
    if al.shape[-1] == 2 and np.all(present):  # two classes: the sign of s_1 - s_0 on three segments
        a, b, g = al[..., 1] - al[..., 0], be[..., 1] - be[..., 0], ga[..., 1] - ga[..., 0]
        roots = np.sort(_positive_roots(a, b, g), axis=-1)
        radii = np.concatenate([np.zeros(a.shape + (1,)), roots, np.full(a.shape + (1,), np.inf)], axis=-1)
        lo, hi = radii[..., :-1], radii[..., 1:]
        mid = np.where(np.isinf(hi), np.where(np.isinf(lo), 0.0, 2.0 * lo + 1.0), 0.5 * (lo + hi))
        one = ((a[..., None] * mid + b[..., None]) * mid + g[..., None]) > 0
        tails = _tail(radii, dim)
        return np.sum(np.where(one != (label[..., None] == 1), tails[..., :-1] - tails[..., 1:], 0.0), axis=-1)
    radii, winner, _ = _segments(al, be, ga, present, label, np.inf)
    wrong = winner != label[..., None]
    tails = _tail(radii, dim)
    return np.sum(np.where(wrong, tails[..., :-1] - tails[..., 1:], 0.0), axis=-1)


def _log_mass(al, be, ga, present, label, dim, cap):
    """Radial integral (per ray) of :math:`\\min(-\\ln p_y, cap)`."""
    radii, winner, scores = _segments(al, be, ga, present, label, cap)
    y = label[..., None]
    coef = [np.take_along_axis(v, winner, axis=-1) - np.take_along_axis(v, y, axis=-1) for v in (al, be, ga)]
    lo, hi = radii[..., :-1], radii[..., 1:]
    i0, i1, i2 = _moments(lo, hi, dim)
    gap_mid = (np.take_along_axis(scores, winner[..., None], axis=-1)[..., 0]
               - np.take_along_axis(scores, np.broadcast_to(y[..., None], scores.shape[:-1] + (1,)),
                                    axis=-1)[..., 0])
    if np.isfinite(cap):  # -ln p_y >= cap on the whole segment: its ends include every kink (_cap_kinks)
        top = np.max(scores, axis=-1)
        with np.errstate(invalid="ignore"):
            spread = np.log(np.sum(np.exp(scores - top[..., None]), axis=-1))
        clipped = gap_mid + spread >= cap
    else:
        clipped = gap_mid >= cap
    with np.errstate(invalid="ignore"):
        exact = np.where(clipped, cap * i0 if np.isfinite(cap) else 0.0, coef[0] * i2 + coef[1] * i1 + coef[2] * i0)
    exact = np.where(i0 > 0, exact, 0.0)  # empty segments
    total = np.sum(exact, axis=-1) + _smooth_part(al, be, ga, present, label, dim, cap, radii, winner, clipped)
    if np.isfinite(cap):  # an absent label is clipped everywhere: cap times the mass
        return total
    absent_label = ~np.take_along_axis(np.broadcast_to(present, al.shape), y, axis=-1)[..., 0]
    return np.where(absent_label, np.inf, total)


def _smooth_part(al, be, ga, present, label, dim, cap, radii, winner, clipped):
    """Adaptive quadrature of :math:`\\min(g + sp, cap) - \\min(g, cap)` over the segments (see the notes)."""
    shape = winner.shape  # (..., S)
    lo = np.minimum(radii[..., :-1], RADIUS)
    hi = np.minimum(radii[..., 1:], RADIUS)
    keep = (hi > lo) & ~clipped
    # skip segments where every gap to the winner stays above GAP_CUTOFF
    kk = al.shape[-1]
    w = winner
    coeff = [np.take_along_axis(np.broadcast_to(v[..., None, :], shape + (kk,)), w[..., None], axis=-1)
             - v[..., None, :] for v in (al, be, ga)]  # gaps s_m - s_j, (..., S, k)
    gmin = np.minimum(_quad_at(coeff, lo), _quad_at(coeff, hi))
    with np.errstate(divide="ignore", invalid="ignore"):
        vertex = -coeff[1] / (2 * coeff[0])
    inside = (coeff[0] > 0) & (vertex > lo[..., None]) & (vertex < hi[..., None])
    gmin = np.where(inside, np.minimum(gmin, _quad_at(coeff, np.where(inside, vertex, 0.0), vertex=True)), gmin)
    others = present[..., None, :] & (np.arange(kk) != w[..., None])
    gmin = np.where(others, gmin, np.inf)
    keep &= np.min(gmin, axis=-1) < GAP_CUTOFF
    out = np.zeros(shape)
    if not np.any(keep):
        return out.sum(axis=-1)
    idx = np.nonzero(keep)
    ray_shape = shape[:-1]
    flat_ray = np.ravel_multi_index(idx[:-1], ray_shape) if len(ray_shape) else np.zeros(len(idx[0]), int)
    al_f, be_f, ga_f = (v.reshape(-1, kk) for v in (al, be, ga))
    pr_f = np.broadcast_to(present, al.shape).reshape(-1, kk)
    lab_f = np.broadcast_to(label, ray_shape).reshape(-1)
    # Each segment is split in halves, each integrated from its end outward in r = end +- eps sinh(t): eps is
    # the width of the near-kink at a crossing (1 / slope of the vanishing gap), so the kink becomes O(1) wide.
    a, b = lo[idx], hi[idx]
    half = 0.5 * (b - a)
    ends = np.concatenate([a, b])
    sign = np.concatenate([np.ones_like(a), -np.ones_like(b)])
    length = np.concatenate([half, half])
    seg = np.tile(np.arange(a.size), 2)
    gaps = [np.tile(cf[idx], (2, 1)) for cf in coeff]  # (2 n, k)
    gap_end = (gaps[0] * ends[:, None] + gaps[1]) * ends[:, None] + gaps[2]
    slope_end = np.abs(2 * gaps[0] * ends[:, None] + gaps[1])
    others_h = np.tile(others[idx], (2, 1))
    nearest = np.argmin(np.where(others_h, np.abs(gap_end), np.inf), axis=1)[:, None]
    crossing = np.take_along_axis(np.where(others_h, np.abs(gap_end), np.inf), nearest, axis=1)[:, 0] < 1.0
    slope = np.take_along_axis(slope_end, nearest, axis=1)[:, 0]
    with np.errstate(divide="ignore"):
        eps = np.where(crossing & (slope * length > 1.0), 1.0 / slope, length)
    eps = np.where(eps > 0, eps, 1.0)
    ray_h, win_h = np.tile(flat_ray, 2), np.tile(winner[idx], 2)

    def integrand(task, t):
        ray = ray_h[task]
        e = eps[task][:, None]
        r = ends[task][:, None] + sign[task][:, None] * e * np.sinh(t)
        s = _scores_at(al_f[ray], be_f[ray], ga_f[ray], pr_f[ray], r)  # (P, 15, k)
        sm = np.take_along_axis(s, np.broadcast_to(win_h[task][:, None, None], r.shape + (1,)), axis=-1)[..., 0]
        sy = np.take_along_axis(s, np.broadcast_to(lab_f[ray][:, None, None], r.shape + (1,)), axis=-1)[..., 0]
        sp = np.log(np.sum(np.exp(s - sm[..., None]), axis=-1))
        g = sm - sy
        val = np.minimum(g + sp, cap) - np.minimum(g, cap) if np.isfinite(cap) else sp
        return val * _density(r, dim) * e * np.cosh(t)

    values = adaptive_gauss_kronrod(integrand, np.zeros(ends.size), np.arcsinh(length / eps), TOLERANCE["inner"])
    out[idx] = np.bincount(seg, weights=values, minlength=a.size)
    return out.sum(axis=-1)


def _quad_at(coeff, r, vertex=False):
    rr = r if vertex else r[..., None]
    with np.errstate(invalid="ignore"):
        return (coeff[0] * rr + coeff[1]) * rr + coeff[2]


# -- adaptive quadrature -----------------------------------------------------------------------------------------


def adaptive_gauss_kronrod(f: Callable[[np.ndarray, np.ndarray], np.ndarray], lo: np.ndarray, hi: np.ndarray,
                           tol: float) -> np.ndarray:
    """Integrals of ``f(task, x)`` over ``[lo[task], hi[task]]`` for many tasks at once.

    ``f`` takes task indices ``(P,)`` and nodes ``(P, 15)`` and returns values ``(P, 15)`` (called on at most
    ``_CHUNK`` panels at a time).  Every panel is
    integrated by Gauss-Kronrod 7-15; a panel whose Kronrod and Gauss estimates differ by more than ``tol``
    times its length is bisected (all open panels of all tasks in one batch per round); a panel whose error
    estimate is below ``_NEGLIGIBLE`` is accepted whatever its length (an outer integrand whose values carry
    the inner integral's rounding, ~1e-9 for the extreme rules of classes of one point, would otherwise be
    bisected without end: every halving keeps the noise and halves the target); after ``_MAX_ROUNDS`` rounds
    the remaining panels are accepted as they are.

    Parameters
    ----------
    f : callable
        ``f(tasks, nodes)``: task indices ``(P,)`` and nodes ``(P, 15)`` -> values ``(P, 15)``.
    lo, hi : ndarray of shape (T,)
        Each task's interval.
    tol : float
        The tolerance of a panel's error estimate, relative to its length.

    Returns
    -------
    ndarray of shape (T,)
        Each task's integral.

    Examples
    --------
    Many integrals at once: here the integral of x^k over [0, 1] for k = 0, 1, 2 (1, 1/2, 1/3):

    >>> import numpy as np
    >>> from mri_theory.engine.exact import adaptive_gauss_kronrod
    >>> powers = np.array([0.0, 1.0, 2.0])
    >>> values = adaptive_gauss_kronrod(lambda tasks, x: x ** powers[tasks, None], np.zeros(3), np.ones(3), 1e-12)
    >>> np.round(values, 12).tolist()
    [1.0, 0.5, 0.333333333333]
    """
    n = lo.shape[0]
    total = np.zeros(n)
    task = np.arange(n)
    a, b = lo.astype(float), hi.astype(float)
    for depth in range(_MAX_ROUNDS + 1):
        if task.size == 0:
            break
        half = 0.5 * (b - a)
        x = (a + half)[:, None] + half[:, None] * NODES
        v = np.concatenate([f(task[i:i + _CHUNK], x[i:i + _CHUNK]) for i in range(0, task.size, _CHUNK)])
        kron = half * (v @ KRONROD)
        diff = np.abs(kron - half * (v @ GAUSS))
        # QUADPACK's error estimate: the Kronrod-Gauss difference, scaled by the integrand's variation
        spread = half * (np.abs(v - (kron / (2 * half))[:, None]) @ KRONROD)
        with np.errstate(divide="ignore", invalid="ignore"):
            err = np.where((spread > 0) & (diff > 0), spread * np.minimum(1.0, (200 * diff / spread) ** 1.5), diff)
        # a panel is done when the estimate is below the tolerance or below the rounding of its sum
        # (no bisection chases rounding noise)
        target = np.maximum(np.maximum(tol * 2 * half, _ROUNDING * half * (np.abs(v) @ KRONROD)), _NEGLIGIBLE)
        done = (err <= target) | (depth == _MAX_ROUNDS)
        np.add.at(total, task[done], kron[done])
        task, a, b, half = task[~done], a[~done], b[~done], half[~done]
        mid = a + half
        task = np.concatenate([task, task])
        a, b = np.concatenate([a, mid]), np.concatenate([mid, b])
    return total


# -- the two dimensions ------------------------------------------------------------------------------------------


def _one_d(items: _Items, what: str, cap: float) -> np.ndarray:
    """Per-item error mass or log loss in 1-D: the two half-lines ``u = +1, -1``."""
    total = np.zeros(items.label.shape[0])
    if total.size == 0:
        return total
    for sign in (1.0, -1.0):
        al = items.alpha[:, :, 0, 0]
        be = sign * items.beta[:, :, 0]
        ga = items.gamma
        if what == "error":
            total += _error_mass(al, be, ga, items.present, items.label, 1)
        else:
            total += _log_mass(al, be, ga, items.present, items.label, 1, cap)
    return total


def _form_zeros(Q: np.ndarray) -> np.ndarray:
    """Angles in ``[0, 2 pi)`` where :math:`u^T Q u = 0`, ``u = (cos, sin)``: ``(..., 4)``, NaN for none."""
    p = 0.5 * (Q[..., 0, 0] + Q[..., 1, 1])
    x, y = 0.5 * (Q[..., 0, 0] - Q[..., 1, 1]), 0.5 * (Q[..., 0, 1] + Q[..., 1, 0])
    R = np.hypot(x, y)
    phi = np.arctan2(y, x)
    with np.errstate(invalid="ignore", divide="ignore"):
        t = np.arccos(np.clip(-p / R, -1.0, 1.0))
        ok = (R > 0) & (np.abs(p) <= R * (1 + 1e-12))  # a semidefinite form's double zero, to rounding
    out = np.stack([(phi + t) / 2, (phi - t) / 2, (phi + t) / 2 + np.pi, (phi - t) / 2 + np.pi], axis=-1)
    return np.where(ok[..., None], np.mod(out, 2 * np.pi), np.nan)


def _breakpoints(items: _Items, cap: float) -> np.ndarray:
    """Angles ``(n, B)`` (NaN padded) where a 2-D item's ray integrand may be non-smooth (module notes)."""
    k = items.present.shape[1]
    j, i = _pairs(k)
    dA = items.alpha[:, j] - items.alpha[:, i]  # (n, P, 2, 2): -1/2 delta A
    db = items.beta[:, j] - items.beta[:, i]
    dg = items.gamma[:, j] - items.gamma[:, i]
    both = items.present[:, j] & items.present[:, i]
    pieces = [_pair_breaks(dA, db, dg)]
    if np.isfinite(cap):
        y = items.label
        rows = np.arange(y.size)
        cA = items.alpha - items.alpha[rows, y][:, None]
        cb = items.beta - items.beta[rows, y][:, None]
        cg = items.gamma - items.gamma[rows, y][:, None] - cap
        pieces.append(np.where(items.present[:, :, None], _pair_breaks(cA, cb, cg), np.nan))
        pieces.append(_cap_tangents(items, cap))
    pieces[0] = np.where(both[:, :, None], pieces[0], np.nan)
    for t1, t2, t3 in _triples(k):
        trio = items.present[:, t1] & items.present[:, t2] & items.present[:, t3]
        p1, p2 = _pair_index(k, t1, t2), _pair_index(k, t1, t3)
        angles = _meeting_angles(dA[:, p1], db[:, p1], dg[:, p1], dA[:, p2], db[:, p2], dg[:, p2])
        pieces.append(np.where(trio[:, None], angles, np.nan))
    grid = np.broadcast_to(np.array([0.0, 2 * np.pi]), (items.label.size, 2))
    return np.sort(np.concatenate([grid] + [p.reshape(p.shape[0], -1) for p in pieces], axis=1), axis=1)


def _cap_tangents(items: _Items, cap: float) -> np.ndarray:
    r"""Directions ``(n, S)`` (NaN padded) of the rays tangent to the curve :math:`-\ln p_y = cap` (module notes).

    With three or more present classes that curve, :math:`F(z) = \ln\sum_j e^{d_j(z)} - cap = 0`
    (:math:`d_j = s_j - s_y`), is not a conic: it follows :math:`d_j = cap` where one wrong class dominates and
    rounds the corner where two meet, up to :math:`\ln 2/\lVert\nabla d\rVert` inside it.  A ray tangent to
    it makes the angular integrand of the floored log loss non-smooth (a :math:`(\theta - \theta_0)^{3/2}`
    term) and must be a breakpoint.  Its point of contact solves :math:`F(z) = 0`, :math:`z^T\nabla F(z) = 0`,
    found by Newton's method from two kinds of seeds in closed form: the contact points of the rays tangent to
    each conic :math:`d_j = cap` (a discriminant's zero, the double root :math:`-\beta/2\alpha`), and the
    points where two wrong classes' scores cross on :math:`d_j = cap - \ln 2`, on the curve at the rounded
    corner (their directions by :func:`_meeting_angles`).  Seeds that do not converge are dropped: spurious
    directions only add panels.
    """
    n, k = items.present.shape
    many = (items.present.sum(axis=1) >= 3) & items.present[np.arange(n), items.label]
    if k < 3 or not np.any(many):
        return np.full((n, 0), np.nan)
    sub = items.take(many)
    m = sub.label.size
    rows = np.arange(m)
    y = sub.label
    dA = sub.alpha - sub.alpha[rows, y][:, None]  # d_j = z^T dA_j z + db_j^T z + dg_j
    db = sub.beta - sub.beta[rows, y][:, None]
    dg = sub.gamma - sub.gamma[rows, y][:, None]
    wrong = sub.present & (np.arange(k) != y[:, None])
    seed_item, seed_z = [], []

    def add(ok, theta, radius):
        """Seeds ``radius * u(theta)`` where ``ok``, ``theta`` and ``radius`` ``(m, S)``."""
        ok = ok & np.isfinite(theta) & np.isfinite(radius) & (radius > 0)
        item, col = np.nonzero(ok)
        th, r = theta[item, col], radius[item, col]
        seed_item.append(item)
        seed_z.append(np.stack([r * np.cos(th), r * np.sin(th)], axis=1))

    def along(Q, bvec, theta):
        u = np.stack([np.cos(theta), np.sin(theta)], axis=-1)  # (m, S, 2)
        return np.einsum("msa,mab,msb->ms", u, Q, u), np.einsum("msa,ma->ms", u, bvec)

    for j in range(k):
        disc = db[:, j, :, None] * db[:, j, None, :] - 4 * (dg[:, j] - cap)[:, None, None] * dA[:, j]
        theta = _form_zeros(disc)
        a, b = along(dA[:, j], db[:, j], np.nan_to_num(theta))
        with np.errstate(divide="ignore", invalid="ignore"):
            add(wrong[:, j, None] & (a != 0), theta, -b / (2 * a))
    level = cap - math.log(2.0)
    for j in range(k):
        for i in range(j + 1, k):
            theta = _meeting_angles(dA[:, j] - dA[:, i], db[:, j] - db[:, i], dg[:, j] - dg[:, i],
                                    dA[:, j], db[:, j], dg[:, j] - level)
            a, b = along(dA[:, j] - dA[:, i], db[:, j] - db[:, i], np.nan_to_num(theta))
            roots = _positive_roots(a, b, np.broadcast_to((dg[:, j] - dg[:, i])[:, None], a.shape))
            aj, bj = along(dA[:, j], db[:, j], np.nan_to_num(theta))
            with np.errstate(invalid="ignore"):
                miss = np.abs((aj[..., None] * roots + bj[..., None]) * roots + dg[:, j, None, None] - level)
            pick = np.take_along_axis(roots, np.argmin(np.where(np.isfinite(miss), miss, np.inf), axis=-1)[..., None],
                                      axis=-1)[..., 0]
            add((wrong[:, j] & wrong[:, i])[:, None], theta, pick)
    item = np.concatenate(seed_item)
    z = np.concatenate(seed_z)
    if item.size == 0:
        return np.full((n, 0), np.nan)
    A, b, g, pr, lab = sub.alpha[item], sub.beta[item], sub.gamma[item], sub.present[item], sub.label[item]
    idx = np.arange(item.size)
    step = np.full(item.size, np.inf)
    value = np.full(item.size, np.inf)
    with np.errstate(all="ignore"):
        for _ in range(_TANGENT_ITERATIONS):
            grads = 2 * np.einsum("pkab,pb->pka", A, z) + b  # gradients of the scores (P, k, 2)
            s = np.where(pr, np.einsum("pa,pkab,pb->pk", z, A, z) + np.einsum("pka,pa->pk", b, z) + g, -np.inf)
            top = np.max(s, axis=1, keepdims=True)
            e = np.exp(s - top)
            p = e / e.sum(axis=1, keepdims=True)
            value = top[:, 0] + np.log(e.sum(axis=1)) - s[idx, lab] - cap
            mean = np.einsum("pk,pka->pa", p, grads)
            grad = mean - grads[idx, lab]
            hess = (2 * np.einsum("pk,pkab->pab", p, A) + np.einsum("pk,pka,pkb->pab", p, grads, grads)
                    - mean[:, :, None] * mean[:, None, :] - 2 * A[idx, lab])
            radial = np.einsum("pa,pa->p", z, grad)
            jac = np.stack([grad, grad + np.einsum("pab,pb->pa", hess, z)], axis=1)  # rows: dF, d(z.grad F)
            det = jac[:, 0, 0] * jac[:, 1, 1] - jac[:, 0, 1] * jac[:, 1, 0]
            dz = np.stack([jac[:, 1, 1] * value - jac[:, 0, 1] * radial,
                           -jac[:, 1, 0] * value + jac[:, 0, 0] * radial], axis=1) / det[:, None]
            z = z - dz
            step = np.hypot(dz[:, 0], dz[:, 1])
            if np.all(~(step > _TANGENT_RTOL * (1.0 + np.hypot(z[:, 0], z[:, 1])))):
                break
    good = (np.isfinite(step) & (step <= 1e3 * _TANGENT_RTOL * (1.0 + np.hypot(z[:, 0], z[:, 1])))
            & (np.abs(value) <= 1e-6))
    out = np.full((n, 0), np.nan)
    if np.any(good):
        item, z = item[good], z[good]
        order = np.argsort(item, kind="stable")
        item, z = item[order], z[order]
        rank = np.arange(item.size) - np.searchsorted(item, item, side="left")
        out = np.full((n, int(rank.max()) + 1), np.nan)
        out[np.nonzero(many)[0][item], rank] = np.mod(np.arctan2(z[:, 1], z[:, 0]), 2 * np.pi)
    return out


def _graded(breaks: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Sorted angles ``(n, B)`` (NaN padded, from 0 to 2 pi), the panels of ``rows`` graded toward near neighbours.

    A panel much wider than the gap to the next breakpoint beyond one of its ends has a singular point just
    outside that end, which the substitution does not remove and which can make the Gauss and the Kronrod
    rules fail alike (their difference, the error estimate, then misses it: measured, 1.8e-10 on a panel whose
    estimate was 1.6e-14).  Such a panel is cut at ``g r, g r^2, ...`` from that end (``g`` the gap, ``r`` =
    ``_GRADE_RATIO``) up to half its width, so that no piece is more than a few times as wide as its distance
    to that point.  Breakpoints that coincide are merged first.
    """
    n, B = breaks.shape
    breaks = np.sort(breaks, axis=1)
    breaks[:, 1:] = np.where(breaks[:, 1:] > breaks[:, :-1], breaks[:, 1:], np.nan)  # coinciding: merged
    breaks = np.sort(breaks, axis=1)
    width = np.diff(breaks, axis=1)  # (n, B - 1), NaN beyond the last panel
    # the gap beyond each end is the neighbouring panel's width (the circle is closed: the first and the last
    # panels are neighbours)
    last_panel = np.maximum(np.sum(np.isfinite(breaks), axis=1) - 2, 0)[:, None]
    left_gap = np.concatenate([np.take_along_axis(width, last_panel, axis=1), width[:, :-1]], axis=1)
    right_gap = np.where(np.arange(B - 1) == last_panel, width[:, :1],
                         np.concatenate([width[:, 1:], width[:, :1]], axis=1))
    extra = []
    for gap, sign, end in ((left_gap, 1.0, breaks[:, :-1]), (right_gap, -1.0, breaks[:, 1:])):
        with np.errstate(invalid="ignore", divide="ignore"):
            levels = np.floor(np.log(0.5 * width / gap) / math.log(_GRADE_RATIO))
        ok = rows[:, None] & np.isfinite(levels) & (gap > _GRADE_MIN * width)
        levels = np.where(ok, np.clip(levels, 0, _GRADE_LEVELS), 0)
        for m in range(1, int(levels.max(initial=0)) + 1):
            extra.append(np.where(levels >= m, end + sign * gap * _GRADE_RATIO**m, np.nan))
    if not extra:
        return breaks
    return np.sort(np.concatenate([breaks] + extra, axis=1), axis=1)


def _triples(k: int):
    """Class triples ``j < l < m``."""
    return [(a, b, c) for a in range(k) for b in range(a + 1, k) for c in range(b + 1, k)]


def _pair_index(k: int, j: int, i: int) -> int:
    """Position of the pair ``(j, i)``, ``j < i``, in :func:`_pairs`."""
    first, second = _pairs(k)
    return int(np.nonzero((first == j) & (second == i))[0][0])


def _poly_mul(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Product of batched polynomials (coefficients low to high on the last axis)."""
    out = np.zeros(p.shape[:-1] + (p.shape[-1] + q.shape[-1] - 1,))
    for i in range(p.shape[-1]):
        out[..., i:i + q.shape[-1]] += p[..., i:i + 1] * q
    return out


def _meeting_angles(A1, b1, g1, A2, b2, g2) -> np.ndarray:
    r"""Directions ``(n, 8)`` (NaN padded) of the points where two pairs' crossings coincide on a ray.

    Along the ray at angle :math:`\theta` the two crossings are roots of :math:`a_i r^2 + b_i r + c_i`;
    a common root makes the resultant :math:`(a_1c_2 - a_2c_1)^2 - (a_1b_2 - a_2b_1)(b_1c_2 - b_2c_1)`
    vanish, a quartic form in :math:`u`, i.e. a quartic in :math:`\tan\theta` (or :math:`\cot\theta`),
    solved by companion-matrix eigenvalues.  Two linear pairs: the zeros of the linear form
    :math:`b_1c_2 - b_2c_1`.  Spurious angles (a common root at negative ``r``) only add panels.
    """
    def form(Q):  # u^T Q u at u = (1, t): coefficients in t
        return np.stack([Q[:, 0, 0], Q[:, 0, 1] + Q[:, 1, 0], Q[:, 1, 1]], axis=-1)

    a1, a2 = form(A1), form(A2)
    c1, c2 = g1[:, None], g2[:, None]
    cross = a1 * c2 - a2 * c1
    res = _poly_mul(cross, cross) - _poly_mul(_poly_mul(a1, b2) - _poly_mul(a2, b1), b1 * c2 - b2 * c1)
    n = res.shape[0]
    use_tan = np.abs(res[:, 4]) >= np.abs(res[:, 0])
    poly = np.where(use_tan[:, None], res, res[:, ::-1])  # in tan, or (reversed) in cot
    lead = poly[:, 4]
    ok = lead != 0
    companion = np.zeros((n, 4, 4))
    companion[:, 1:, :3] = np.eye(3)
    with np.errstate(divide="ignore", invalid="ignore"):
        companion[:, :, 3] = np.where(ok[:, None], -poly[:, :4] / np.where(ok, lead, 1.0)[:, None], 0.0)
    roots = np.linalg.eigvals(companion)
    real = ok[:, None] & (np.abs(roots.imag) <= 1e-6 * (1.0 + np.abs(roots.real)))
    t = roots.real
    base = np.where(use_tan[:, None], np.arctan(t), np.pi / 2 - np.arctan(t))
    quartic = np.where(real, base, np.nan)
    # two linear pairs: the resultant vanishes identically; their crossings meet where (b1 c2 - b2 c1).u = 0
    w = b1 * g2[:, None] - b2 * g1[:, None]
    linear = np.all(res == 0, axis=1) & np.any(w != 0, axis=1)
    phi = np.arctan2(w[:, 1], w[:, 0])[:, None] + np.pi / 2
    quartic[:, :2] = np.where(linear[:, None], np.concatenate([phi, phi], axis=1), quartic[:, :2])
    quartic[:, 2:] = np.where(linear[:, None], np.nan, quartic[:, 2:])
    return np.mod(np.concatenate([quartic, quartic + np.pi], axis=1), 2 * np.pi)


def _pair_breaks(dA, db, dg):
    """Zeros of the leading coefficient, of the discriminant and (linear pairs) of the slope: ``(..., 10)``."""
    linear = np.all(dA == 0, axis=(-2, -1))
    disc = db[..., :, None] * db[..., None, :] - 4 * dg[..., None, None] * dA  # beta^2 - 4 alpha gamma as a form
    lead = np.where(linear[..., None], np.nan, _form_zeros(dA))
    dzer = np.where(linear[..., None], np.nan, _form_zeros(disc))
    phi = np.arctan2(db[..., 1], db[..., 0])
    slope = np.stack([np.mod(phi + np.pi / 2, 2 * np.pi), np.mod(phi - np.pi / 2, 2 * np.pi)], axis=-1)
    slope = np.where(linear[..., None] & np.any(db != 0, axis=-1)[..., None], slope, np.nan)
    return np.concatenate([lead, dzer, slope], axis=-1)


def _two_d(items: _Items, what: str, cap: float) -> np.ndarray:
    """Per-item error mass or log loss in 2-D: adaptive Gauss-Kronrod over the direction (module notes)."""
    n = items.label.shape[0]
    if n == 0:
        return np.zeros(0)
    smooth = what == "log" and not np.isfinite(cap)  # the plane integrand is analytic: so is the angular one
    if smooth:
        breaks = np.broadcast_to(np.linspace(0.0, 2 * np.pi, _LOG_PANELS + 1), (n, _LOG_PANELS + 1))
    else:
        breaks = _breakpoints(items, cap)
        if what == "log":  # three or more classes: breakpoints come in clusters (triple points, cap tangents)
            breaks = _graded(breaks, items.present.sum(axis=1) >= 3)
    lo, hi = breaks[:, :-1], breaks[:, 1:]
    valid = np.isfinite(lo) & np.isfinite(hi) & (hi > lo)
    item_of, _ = np.nonzero(valid)
    t0, t1 = lo[valid], hi[valid]
    if what == "error":  # the same integrand and quadrature, compiled (module notes)
        per_panel = _compiled_error_panels()(
            *(np.ascontiguousarray(v) for v in (items.alpha, items.beta, items.gamma, items.present)),
            np.ascontiguousarray(items.label, dtype=np.int64), item_of.astype(np.int64), t0, t1,
            TOLERANCE[what], NODES, KRONROD, GAUSS, _ROUNDING, _NEGLIGIBLE, _MAX_ROUNDS, np.empty(t0.size))
        return np.bincount(item_of, weights=per_panel, minlength=n)

    def integrand(task, s):
        it = item_of[task]
        width = (t1 - t0)[task][:, None]
        if smooth:
            theta, jac = t0[task][:, None] + width * s, width / (2 * np.pi)
        else:
            theta = t0[task][:, None] + width * (s * s * (3 - 2 * s))
            jac = width * 6 * s * (1 - s) / (2 * np.pi)
        sub = items.take(it)
        al, be, ga = _ray_coefficients(sub, np.cos(theta), np.sin(theta))
        present = sub.present[:, None, :]
        label = np.broadcast_to(sub.label[:, None], s.shape)
        if what == "error":
            mass = _error_mass(al, be, ga, present, label, 2)
        else:
            mass = _log_mass(al, be, ga, np.broadcast_to(present, al.shape), label, 2, cap)
        return mass * jac

    per_panel = adaptive_gauss_kronrod(integrand, np.zeros(t0.size), np.ones(t0.size), TOLERANCE[what])
    return np.bincount(item_of, weights=per_panel, minlength=n)


def _two_class_items(items: _Items) -> tuple[_Items, _Items]:
    """Split off the 2-D items with exactly two present classes (their error mass by lines) from the rest."""
    two = items.present.sum(axis=1) == 2
    return items.take(two), items.take(~two)


def _pair_line_errors(items: _Items) -> np.ndarray:
    r"""Error masses of 2-D items with two present classes ``j < i``, by lines (Φ differences).

    Only the sign of :math:`q = s_i - s_j` matters; its quadratic form, linear part and constant go to the
    compiled :func:`mri_theory.engine._exact_compiled.pair_line_errors` (module notes), with the label as 0
    (``j``), 1 (``l``) or -1 (neither: every point is an error).
    """
    n = items.label.shape[0]
    if n == 0:
        return np.zeros(0)
    order = np.argsort(~items.present, axis=1, kind="stable")[:, :2]  # the two present classes, in order
    rows = np.arange(n)
    j, i = order[:, 0], order[:, 1]
    label = np.where(items.label == i, 1, np.where(items.label == j, 0, -1)).astype(np.int64)
    return _compiled_line_errors()(
        np.ascontiguousarray(items.alpha[rows, i] - items.alpha[rows, j]),
        np.ascontiguousarray(items.beta[rows, i] - items.beta[rows, j]),
        np.ascontiguousarray(items.gamma[rows, i] - items.gamma[rows, j]), label, LINE_GRID, LINE_GAP, LINE_LIMIT,
        TOLERANCE["lines"], NODES, KRONROD, GAUSS, _ROUNDING, _NEGLIGIBLE, _MAX_ROUNDS, np.empty(n))


@functools.cache
def _compiled_line_errors() -> Callable[..., np.ndarray]:
    """:func:`mri_theory.engine._exact_compiled.pair_line_errors`, compiled on first use (as
    :func:`_compiled_error_panels`)."""
    from mri_theory.engine import _exact_compiled

    return _exact_compiled.pair_line_errors


@functools.cache
def _compiled_error_panels() -> Callable[..., np.ndarray]:
    """:func:`mri_theory.engine._exact_compiled.error_panels`, compiled by numba on first use (cached on disk
    next to its module when it can be); importing it imports numba, which this module does not."""
    from mri_theory.engine import _exact_compiled

    return _exact_compiled.error_panels


def _losses(truth, A, b, c, present, what, cap):
    A, b, c, mask = _check_rules(truth, A, b, c, present)
    items = _whitened_items(truth, A, b, c, mask)
    M = A.shape[0]
    if truth.dim == 1:
        parts = [(items, _one_d(items, what, cap))]
    else:
        one_d, rest = _linear_pairs_to_1d(items)
        parts = [(one_d, _one_d(one_d, what, cap))]
        if what == "error":
            wedge, rest = _linear_triples(rest)
            parts.append((wedge, _wedge_errors(wedge)))
            pairs, rest = _two_class_items(rest)
            parts.append((pairs, _pair_line_errors(pairs)))
        parts.append((rest, _two_d(rest, what, cap)))
    out = np.zeros(M)
    for part, values in parts:
        np.add.at(out, part.rule, part.weight * values)
    return out


def error_rates(truth: MixtureTruth, A: ArrayLike, b: ArrayLike, c: ArrayLike,
                present: ArrayLike | None = None) -> np.ndarray:
    r"""Exact error rates of ``M`` quadratic-score rules under a Gaussian-mixture truth.

    Parameters
    ----------
    truth : MixtureTruth
        Dimension 1 or 2.
    A : array_like (M, k, d, d)
        Symmetric quadratic coefficients: :math:`s_j(x) = -\tfrac12 x^T A_j x + b_j^T x + c_j`.
    b : array_like (M, k, d)
    c : array_like (M, k)
    present : array_like of bool (M, k), optional
        ``False`` marks an absent class (score :math:`-\infty`; its coefficients are ignored).  Default:
        all present.

    Returns
    -------
    ndarray (M,)
        :math:`\sum_c w_c P_c(\arg\max_j s_j(x) \ne y_c)`, accurate to about 1e-12.

    Raises
    ------
    TypeError, ValueError
        For a truth that is not a :class:`MixtureTruth`, a dimension above 2, shapes that do not match,
        non-finite or non-symmetric coefficients of present classes, a rule with no present class.

    See Also
    --------
    mri_theory.engine.log_losses : The log losses of the same rules.

    Examples
    --------
    Two classes, one unit Gaussian each at -1 and +1, and the rule "class 1 when x > 0" written as linear scores
    s_0 = 0, s_1 = x: its error is the Bayes error Phi(-1):

    >>> import numpy as np
    >>> from scipy.stats import norm
    >>> from mri_theory.engine import MixtureTruth, error_rates
    >>> truth = MixtureTruth.from_arrays([0.5, 0.5], [[-1.0], [1.0]], [[[1.0]], [[1.0]]], [0, 1], 2)
    >>> A, b, c = np.zeros((1, 2, 1, 1)), np.array([[[0.0], [1.0]]]), np.zeros((1, 2))
    >>> bool(abs(error_rates(truth, A, b, c)[0] - norm.cdf(-1.0)) < 1e-12)
    True
    """
    return _losses(truth, A, b, c, present, "error", np.inf)


def log_losses(truth: MixtureTruth, A: ArrayLike, b: ArrayLike, c: ArrayLike, present: ArrayLike | None = None,
               floor: float | None = None) -> np.ndarray:
    r"""Exact log losses :math:`\sum_c w_c E_c[-\ln \operatorname{softmax}(s(x))_{y_c}]` of ``M`` rules.

    Parameters
    ----------
    truth : MixtureTruth
        Dimension 1 or 2.
    A : array_like (M, k, d, d)
        Symmetric quadratic coefficients: :math:`s_j(x) = -\tfrac12 x^T A_j x + b_j^T x + c_j`.
    b : array_like (M, k, d)
        Linear coefficients.
    c : array_like (M, k)
        Constants.
    present : array_like of bool (M, k), optional
        ``False`` marks an absent class (score :math:`-\infty`; its coefficients are ignored).  Default:
        all present.
    floor : float in (0, 1), optional
        If given, :math:`-\ln p_y` is capped at :math:`-\ln` ``floor``, as the engine's log loss caps it
        (:data:`mri_theory.engine.losses.LOG_LOSS_FLOOR`).  Without it a component whose class is
        absent from a rule makes that rule's loss ``inf``.

    Returns
    -------
    ndarray (M,)
        Accurate to about 1e-11.

    See Also
    --------
    mri_theory.engine.error_rates : The error rates of the same rules.

    Examples
    --------
    The log loss of the Bayes rule's log-odds 2x on two unit Gaussians at -1 and +1, against quadrature (by
    symmetry, class 1's expected loss):

    >>> import numpy as np
    >>> from scipy.integrate import quad
    >>> from scipy.stats import norm
    >>> from mri_theory.engine import MixtureTruth, log_losses
    >>> truth = MixtureTruth.from_arrays([0.5, 0.5], [[-1.0], [1.0]], [[[1.0]], [[1.0]]], [0, 1], 2)
    >>> A, b, c = np.zeros((1, 2, 1, 1)), np.array([[[-1.0], [1.0]]]), np.zeros((1, 2))
    >>> exact = log_losses(truth, A, b, c)[0]
    >>> by_quad = quad(lambda x: norm.pdf(x, 1) * np.logaddexp(0, -2 * x), -np.inf, np.inf, epsabs=1e-13)[0]
    >>> bool(abs(exact - by_quad) < 1e-10)
    True
    """
    return _losses(truth, A, b, c, present, "log", check_floor(floor))


def rule_losses(truth: MixtureTruth, A: ArrayLike, b: ArrayLike, c: ArrayLike, present: ArrayLike | None,
                loss: str) -> np.ndarray:
    """The engine's ``loss`` (``"error"`` or ``"log"``, floored at :data:`~mri_theory.engine.losses.LOG_LOSS_FLOOR`
    as the engine floors it) of ``M`` rules: :func:`error_rates` or :func:`log_losses`.

    The classifiers' exact paths call this with their rules and the truth in their own frame.

    Parameters
    ----------
    truth : MixtureTruth
        The truth, in the rules' frame.
    A, b, c : array_like
        The rules' coefficients, as for :func:`error_rates`.
    present : array_like of bool (M, k) or None
        Which classes each rule has (None: all).
    loss : {"error", "log"}
        The loss.

    Returns
    -------
    ndarray of shape (M,)
        Each rule's exact loss.

    See Also
    --------
    mri_theory.engine.error_rates : For ``loss="error"``.
    mri_theory.engine.log_losses : For ``loss="log"``.

    Examples
    --------
    >>> import numpy as np
    >>> from mri_theory.engine import MixtureTruth, error_rates
    >>> from mri_theory.engine.exact import rule_losses
    >>> truth = MixtureTruth.from_arrays([0.5, 0.5], [[-1.0], [1.0]], [[[1.0]], [[1.0]]], [0, 1], 2)
    >>> A, b, c = np.zeros((1, 2, 1, 1)), np.array([[[0.0], [1.0]]]), np.zeros((1, 2))
    >>> bool(np.array_equal(rule_losses(truth, A, b, c, None, "error"), error_rates(truth, A, b, c)))
    True
    """
    if loss == "error":
        return error_rates(truth, A, b, c, present)
    if loss == "log":
        return log_losses(truth, A, b, c, present, floor=LOG_LOSS_FLOOR)
    raise ValueError(f"loss must be 'error' or 'log' for exact losses, got {loss!r}")


def partition_losses(truth: MixtureTruth, lines: ArrayLike, vertices: ArrayLike, coefficients: ArrayLike,
                     groups: ArrayLike, n_groups: int, rows: ArrayLike | None = None) -> np.ndarray:
    r"""Exact losses of piecewise-constant functions on polygonal partitions of the plane, from boundary terms.

    The Gaussian mass of a convex polygon with counter-clockwise vertices :math:`v_1, \dots, v_m` is the sum
    of the oriented masses of the triangles :math:`(\mu, v_i, v_{i+1})`.  In a component's whitened
    coordinates :math:`z = L^{-1}(x - \mu)` (orientation kept: :math:`\det L > 0`) take the edge's line with
    unit direction :math:`u` and signed distance :math:`h = z \times u` from the origin (the component's mean),
    and the position :math:`s = z \cdot u` of a point along it; then the triangle's mass is
    :math:`\operatorname{sign}(h)\,[G(s_{end}) - G(s_{start})]` with

    .. math::
        G(s) = \frac{1}{2\pi}\arctan\frac{s}{|h|} - T\Bigl(|h|, \frac{s}{|h|}\Bigr),

    :math:`T` Owen's T function (the mass between the line and the origin within the angle is the angle's
    share of the plane minus the part beyond the line, :math:`\frac{1}{2\pi}\int e^{-h^2\sec^2\psi/2}d\psi
    = T`).  A function constant on each polygon of a partition is therefore integrated by one *term* per
    (edge's line, vertex): a coefficient times :math:`\operatorname{sign}(h) G(s)`, the coefficient being
    the function's value on the polygon, with ``+`` at an edge's end and ``-`` at its start, summed over the
    polygons that share the line and the vertex (so they cancel where the function does not jump).  This
    computes

    .. math::
        \text{out}[g] = \sum_{e:\ \text{group}_e = g}\ \sum_c w_c\, \text{coef}_{e, y_c}\,
        \operatorname{sign}(h_{ec})\, G_{ec}(s_{ec}),

    the expected loss over the mixture when the coefficients are the losses per true class.  Exact: closed
    forms only (``scipy.special.owens_t``, not evaluated at :math:`|h|` above ``OWEN_T_CUTOFF``, where it is
    below 3e-21); each term is accurate to about 1e-16 absolute.  Used by the exact k-NN
    (:meth:`mri_theory.classifiers.KNN.exact_loss`), whose regions are polygons.

    Parameters
    ----------
    truth : MixtureTruth
        Two-dimensional.
    lines : array_like, shape (R, 4)
        Per (line, vertex) row, a point ``(x, y)`` of the edge's line and the line's direction ``(dx, dy)`` (not
        zero; the same direction for every row of a line, as the sign of :math:`h` and of :math:`s` depend on it).
    vertices : array_like, shape (R, 2)
        The row's vertex (on the line).
    coefficients : array_like, shape (E, k)
        Per term, the coefficient per true class ``y`` (``k = truth.n_classes``).
    groups : array_like of int, shape (E,)
        The output each term adds to, in ``0 .. n_groups - 1``.
    n_groups : int
        Number of outputs, ``>= 1``.
    rows : array_like of int, shape (E,), optional
        The (line, vertex) row of each term, in ``0 .. R - 1``: terms of several groups on the same row share
        its evaluation (Owen's T once per row and component).  Default: term ``e`` is row ``e`` (``R = E``).

    Returns
    -------
    ndarray (n_groups,)

    Raises
    ------
    TypeError, ValueError
        For a truth that is not a 2-D :class:`MixtureTruth`, shapes that do not match, non-finite values, a
        zero direction, groups outside ``0 .. n_groups - 1``.

    See Also
    --------
    mri_theory.classifiers.KNN : Whose exact loss this computes (its regions are polygons).

    Examples
    --------
    The mass of the unit square under a standard Gaussian, (Phi(1) - Phi(0))^2, from boundary terms: per edge of the
    counter-clockwise polygon, its value (1) at the edge's end and minus it at its start:

    >>> import numpy as np
    >>> from scipy.stats import norm
    >>> from mri_theory.engine import MixtureTruth
    >>> from mri_theory.engine.exact import partition_losses
    >>> truth = MixtureTruth.from_arrays([1.0], [[0.0, 0.0]], [np.eye(2)], [0], 2)
    >>> square = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
    >>> lines, vertices, coefficients = [], [], []
    >>> for start, end in zip(square, np.roll(square, -1, axis=0)):
    ...     for vertex, sign in ((end, 1.0), (start, -1.0)):
    ...         lines.append([*start, *(end - start)])
    ...         vertices.append(vertex)
    ...         coefficients.append([sign, sign])  # the function's value for each true class
    >>> mass = partition_losses(truth, lines, vertices, coefficients, np.zeros(8, dtype=int), 1)[0]
    >>> bool(abs(mass - (norm.cdf(1) - norm.cdf(0)) ** 2) < 1e-15)
    True
    """
    if not isinstance(truth, MixtureTruth):
        raise TypeError(f"truth must be a MixtureTruth, got {type(truth).__name__}")
    if truth.dim != 2:
        raise ValueError(f"truth must be two-dimensional for polygonal partitions, got dimension {truth.dim}")
    n_groups = check.count(n_groups, "n_groups", maximum=check.MAX_SIZE)
    lines = check.finite_array(lines, "lines")
    R = lines.shape[0] if lines.ndim == 2 else -1
    if lines.ndim != 2 or lines.shape[1] != 4:
        raise ValueError(f"lines must have shape (R, 4), got {lines.shape}")
    vertices = check.finite_array(vertices, "vertices")
    if vertices.shape != (R, 2):
        raise ValueError(f"vertices must have shape (R, 2) = ({R}, 2), got {vertices.shape}")
    coefficients = check.finite_array(coefficients, "coefficients")
    if coefficients.ndim != 2 or coefficients.shape[1] != truth.n_classes:
        raise ValueError(f"coefficients must have shape (E, k) = (E, {truth.n_classes}), got {coefficients.shape}")
    E = coefficients.shape[0]
    groups = np.asarray(groups)
    if groups.dtype.kind not in "iu" or groups.shape != (E,):
        raise TypeError(f"groups must be an integer array of shape ({E},), got dtype {groups.dtype} and shape "
                        f"{groups.shape}")
    if E and (groups.min() < 0 or groups.max() >= n_groups):
        raise ValueError(f"groups must lie in 0 .. n_groups - 1 = {n_groups - 1}")
    if rows is None:
        if E != R:
            raise ValueError(f"coefficients must have one row per line ({R}) when rows is not given, got {E}")
        rows = np.arange(E)
    rows = np.asarray(rows)
    if rows.dtype.kind not in "iu" or rows.shape != (E,):
        raise TypeError(f"rows must be an integer array of shape ({E},), got dtype {rows.dtype} and shape {rows.shape}")
    if E and (rows.min() < 0 or rows.max() >= R):
        raise ValueError(f"rows must lie in 0 .. R - 1 = {R - 1} (the rows of lines and vertices)")
    direction = lines[:, 2:]
    if np.any(np.all(direction == 0.0, axis=1)):
        raise ValueError("lines: every direction must be non-zero")
    out = np.zeros(n_groups)
    for c in range(truth.n_components):
        coef = coefficients[:, truth.labels[c]]
        use = coef != 0.0
        if not np.any(use):
            continue
        needed = np.zeros(R, dtype=bool)
        needed[rows[use]] = True
        inverse = np.linalg.inv(truth.cholesky[c])
        point = (lines[needed, :2] - truth.means[c]) @ inverse.T
        dz = direction[needed] @ inverse.T
        u = dz / np.hypot(dz[:, 0], dz[:, 1])[:, None]
        h = point[:, 0] * u[:, 1] - point[:, 1] * u[:, 0]
        z = (vertices[needed] - truth.means[c]) @ inverse.T
        s = z[:, 0] * u[:, 0] + z[:, 1] * u[:, 1]
        H = np.abs(h)
        with np.errstate(divide="ignore", invalid="ignore"):
            a = s / H
            G = np.arctan(a) / (2 * np.pi)
            near = H < OWEN_T_CUTOFF
            G[near] -= special.owens_t(H[near], a[near])
        per_row = np.zeros(R)
        per_row[needed] = np.where(H > 0, np.sign(h) * G, 0.0) * truth.weights[c]
        out += np.bincount(groups[use], weights=per_row[rows[use]] * coef[use], minlength=n_groups)
    return out
