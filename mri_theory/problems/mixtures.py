r"""Simulated problems whose truth is known: :class:`GaussianMixtureProblem` (Appendix D, Figure 6).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from scipy import special

from mri_theory._utils import validation as check
from mri_theory.problems._mixture import MAX_ABS_X, MIN_VARIANCE, class_components  # noqa: F401 - documented here
from mri_theory.problems.base import DENSITY_CHUNK, Problem
from mri_theory.problems.bayes_error import MAX_RESOLUTION, grouped_logsumexp  # noqa: F401 - documented here
from mri_theory.problems.bayes_error import compute_bayes_error as _mixture_bayes_error

__all__ = ["GaussianMixtureProblem"]


def _class_spec(spec: Any, j: int, dim: int | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Validate one class ``(weights, means, covariances)`` (tuple or mapping)."""
    name = f"classes[{j}]"
    if isinstance(spec, Mapping):
        try:
            spec = (spec["weights"], spec["means"], spec["covariances"])
        except KeyError as exc:
            raise ValueError(f"{name} must have keys 'weights', 'means', 'covariances'") from exc
    if isinstance(spec, (str, bytes)) or not isinstance(spec, Sequence) or len(spec) != 3:
        raise TypeError(f"{name} must be a (weights, means, covariances) triple, got {spec!r}")
    weights, means, covariances = spec
    return class_components(weights, means, covariances, dim,
                            (f"{name} weights", f"{name} means", f"{name} covariances"))


class GaussianMixtureProblem(Problem):
    r"""A problem whose class-conditional densities are Gaussian mixtures (Appendix D).

    :math:`f_j(x) = \sum_c w_{jc}\, N(x; \mu_{jc}, \Sigma_{jc})`, prior
    :math:`\pi`.  Every problem of Figure 6 is one of these (the paper: "either
    Gaussians or mixtures of Gaussians").

    Parameters
    ----------
    name : str
        Registry name.
    classes : sequence of k triples ``(weights, means, covariances)``
        For class ``j`` with ``m_j`` components: ``weights`` shape ``(m_j,)``
        (positive, summing to 1), ``means`` shape ``(m_j, d)`` (entries at
        most :data:`MAX_ABS_X` in absolute value) and ``covariances`` shape
        ``(m_j, d, d)`` (symmetric positive definite, eigenvalues at least
        :data:`MIN_VARIANCE`).  A mapping with those keys is accepted as well.
    prior : array_like, shape (k,)
        Class prior, entries in (0, 1) summing to 1.

    Notes
    -----
    Sampling draws the class from the prior, the component from the class's
    weights, then the Gaussian, all vectorised.  Densities are evaluated in log
    space with Cholesky factors; the Bayes error is computed by
    :meth:`compute_bayes_error`.

    See Also
    --------
    mri_theory.problems.mixture_bayes_error : The Bayes error from the mixture's parameters.

    Examples
    --------
    Two classes of one Gaussian each, at -1 and +1 with unit variance: the Bayes error is Phi(-1):

    >>> import numpy as np
    >>> from scipy.stats import norm
    >>> from mri_theory.problems import GaussianMixtureProblem
    >>> classes = [([1.0], [[-1.0]], [[[1.0]]]), ([1.0], [[1.0]], [[[1.0]]])]  # (weights, means, covariances)
    >>> problem = GaussianMixtureProblem("two-unit-gaussians", classes, prior=[0.5, 0.5])
    >>> bool(abs(problem.compute_bayes_error() - norm.cdf(-1.0)) < 1e-10)
    True
    >>> X, y = problem.sample(1000, np.random.default_rng(0))
    >>> X.shape, np.bincount(y).tolist()
    ((1000, 1), [473, 527])
    """

    def __init__(self, name: str, classes: Sequence[Any], prior: ArrayLike) -> None:
        if isinstance(classes, (str, bytes, Mapping)) or not isinstance(classes, Sequence):
            raise TypeError(f"classes must be a sequence of (weights, means, covariances), got {classes!r}")
        specs: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        dim: int | None = None
        for j, spec in enumerate(classes):
            specs.append(_class_spec(spec, j, dim))
            dim = specs[-1][1].shape[1]
        if len(specs) < 2:
            raise ValueError(f"classes must hold at least two classes, got {len(specs)}")
        assert dim is not None  # set by the loop over at least two classes
        super().__init__(name, len(specs), dim, prior)
        self.weights = tuple(s[0] for s in specs)
        self.means = tuple(s[1] for s in specs)
        self.covariances = tuple(s[2] for s in specs)
        for arrs in (self.weights, self.means, self.covariances):
            for a in arrs:
                a.setflags(write=False)
        # Flattened components.
        self._comp_class = np.concatenate([np.full(s[0].size, j) for j, s in enumerate(specs)])
        self._comp_logw = np.log(np.concatenate(self.weights))
        self._comp_mean = np.concatenate(self.means)
        self._comp_cov = np.concatenate(self.covariances)
        self._comp_chol = np.linalg.cholesky(self._comp_cov)
        self._comp_chol_inv = np.linalg.inv(self._comp_chol)
        self._comp_lognorm = (-np.sum(np.log(np.diagonal(self._comp_chol, axis1=1, axis2=2)), axis=1)
                              - 0.5 * self.dim * math.log(2 * math.pi))
        sizes = [s[0].size for s in specs]
        self._offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]])
        self._cum_weights = np.ones((self.n_classes, max(sizes)))
        for j, w in enumerate(self.weights):
            self._cum_weights[j, : w.size] = np.cumsum(w)
        self._sizes = np.asarray(sizes)
        self._slices = tuple(slice(int(o), int(o) + s) for o, s in zip(self._offsets, sizes, strict=True))

    @property
    def n_components(self) -> int:
        """Total number of Gaussian components over all classes."""
        return int(self._comp_class.size)

    # -- sampling ---------------------------------------------------------

    def sample(self, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """Draw ``n`` i.i.d. pairs ``(x, y)``.

        The class from the prior, the component from the class's weights, then
        the Gaussian ``mean + L z`` (``L`` the Cholesky factor), vectorised.

        Parameters
        ----------
        n : int
            Sample size, ``1 <= n <=`` ``mri_theory._utils.validation.MAX_SIZE`` (``10**8``).
        rng : numpy.random.Generator

        Returns
        -------
        X : ndarray, shape (n, d), float
        y : ndarray, shape (n,), int
        """
        n = check.count(n, "n", maximum=check.MAX_SIZE)
        rng = check.generator(rng)
        return self._place(rng.random(n), rng.random(n), rng.standard_normal((n, self.dim)))

    @property
    def uniform_dim(self) -> int:
        """Number of uniform coordinates :meth:`sample_from_uniform` consumes per point (``2 + d``)."""
        return 2 + self.dim

    def sample_from_uniform(self, u: ArrayLike) -> np.ndarray:
        """Points from uniforms ``u`` of shape ``(n, 2 + d)`` (for quasi-Monte Carlo populations).

        Column 0 picks the class (prior), column 1 the component (weights), the
        rest become standard normals by the inverse CDF.

        Parameters
        ----------
        u : array_like, shape (n, 2 + d)
            Finite uniforms, every entry strictly inside (0, 1).

        Returns
        -------
        ndarray, shape (n, d)
            The points, distributed as :meth:`sample`'s when ``u`` is uniform.

        Raises
        ------
        ValueError
            If ``u`` does not have ``2 + d`` columns or an entry is not in (0, 1).
        """
        u = check.finite_array(u, "u")
        if u.ndim != 2 or u.shape[1] != self.uniform_dim or np.any((u <= 0) | (u >= 1)):
            raise ValueError(f"u must have shape (n, {self.uniform_dim}) with entries in (0, 1)")
        return self._place(u[:, 0], u[:, 1], special.ndtri(u[:, 2:]))[0]

    def _place(self, u_class: np.ndarray, u_comp: np.ndarray, z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Class from ``u_class``, component from ``u_comp``, then ``mean + L z``."""
        y = np.searchsorted(np.cumsum(self.prior)[:-1], u_class, side="right")
        local = np.sum(u_comp[:, None] >= self._cum_weights[y], axis=1)
        comp = self._offsets[y] + np.minimum(local, self._sizes[y] - 1)
        X = self._comp_mean[comp] + np.einsum("nij,nj->ni", self._comp_chol[comp], z)
        return X, y.astype(int)

    # -- densities --------------------------------------------------------

    def _component_log_densities(self, X: np.ndarray) -> np.ndarray:
        """``ln N(x; mu_c, Sigma_c)`` for every component, shape ``(n, m)``."""
        out = np.empty((X.shape[0], self.n_components))
        for start in range(0, X.shape[0], DENSITY_CHUNK):
            block = X[start:start + DENSITY_CHUNK]
            if self.dim <= 2:
                # |L^-1 (x - mu)|^2 coordinate by coordinate on (n, m) arrays: in one or two dimensions the values
                # of the general einsum below bit for bit (the same products and sums, in the same order), at a
                # fraction of its cost (numpy's einsum loops slowly over such short axes)
                diff = [block[:, j, None] - self._comp_mean[None, :, j] for j in range(self.dim)]
                squares = np.zeros((block.shape[0], self.n_components))
                for i in range(self.dim):
                    z = self._comp_chol_inv[None, :, i, 0] * diff[0]
                    for j in range(1, self.dim):
                        z = z + self._comp_chol_inv[None, :, i, j] * diff[j]
                    squares = squares + z * z
            else:
                z = np.einsum("mij,nmj->nmi", self._comp_chol_inv, block[:, None, :] - self._comp_mean[None, :, :])
                squares = np.sum(z * z, axis=2)
            out[start:start + DENSITY_CHUNK] = self._comp_lognorm - 0.5 * squares
        return out

    def _class_log_densities(self, X: np.ndarray) -> np.ndarray:
        return grouped_logsumexp(self._component_log_densities(X) + self._comp_logw, self._slices)

    def bounding_box(self, n_sd: float = 3.0) -> np.ndarray:
        """``[[lo_1, hi_1], ..., [lo_d, hi_d]]`` covering every component to ``± n_sd`` sd.

        Parameters
        ----------
        n_sd : float, default 3.0
            Half-width of each component's interval, in its marginal standard
            deviations along each coordinate; ``> 0``.

        Returns
        -------
        ndarray, shape (d, 2)
            Row ``i``: the smallest ``mean_i - n_sd * sd_i`` and the largest
            ``mean_i + n_sd * sd_i`` over all components.
        """
        n_sd = check.positive_scalar(n_sd, "n_sd")
        sd = np.sqrt(np.diagonal(self._comp_cov, axis1=1, axis2=2))
        return np.stack([np.min(self._comp_mean - n_sd * sd, axis=0),
                         np.max(self._comp_mean + n_sd * sd, axis=0)], axis=1)

    # -- the Bayes error --------------------------------------------------

    def _compute_bayes_error(self) -> float:
        return self.compute_bayes_error()

    def compute_bayes_error(self, resolution: int = 1) -> float:
        r"""The Bayes error rate :math:`L^* = 1 - \int \max_j \pi_j f_j(x)\,dx`, accurately.

        Parameters
        ----------
        resolution : int, default 1
            Multiplies the number of nodes; the tests compare resolutions 1
            and 2 to show the accuracy.  At most :data:`MAX_RESOLUTION`.

        Returns
        -------
        float

        Notes
        -----
        Exact normal-CDF masses between Bayes boundary points along lines for
        ``d = 1, 2`` (accurate to about 1e-8), fixed-seed Monte Carlo for
        ``d >= 3``: see :func:`mri_theory.problems.bayes_error.compute_bayes_error`.
        """
        return _mixture_bayes_error(self, resolution)  # checks resolution (at most MAX_RESOLUTION) first
