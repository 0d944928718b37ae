"""Argument checks shared by the whole package.

Every public function validates its input with these helpers so that bad input
raises a ``ValueError`` or ``TypeError`` that names the argument, instead of a
silent NaN or a traceback from deep inside numpy.
"""

from __future__ import annotations

import numbers
import os
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

#: dtype kinds that are not real numbers (converting them to float would silently coerce).
_NON_REAL_KINDS = {"b": "boolean", "U": "text", "S": "bytes", "M": "datetime", "m": "timedelta", "V": "structured"}


def real_array(value: Any, name: str) -> np.ndarray:
    """Return ``value`` as a float array (NaN and inf allowed), refusing anything that is not real.

    Raises ``TypeError`` naming ``name`` for text, booleans, ``None``, ragged
    or non-numeric input and for complex input (an ndarray of complex dtype or an
    array-like holding complex numbers): converting a complex value to float
    would silently drop its imaginary part.  Float arrays are returned without
    a copy.
    """
    if isinstance(value, (str, bytes)):
        raise TypeError(f"{name} must be numeric, got {type(value).__name__}")
    try:
        raw = np.asarray(value)
    except (TypeError, ValueError) as exc:  # e.g. ragged nested sequences
        raise TypeError(f"{name} must be a numeric (rectangular) array, got {value!r}") from exc
    kind = raw.dtype.kind
    if kind == "c" or (kind == "O" and any(isinstance(v, (complex, np.complexfloating)) for v in raw.flat)):
        raise TypeError(f"{name} must be real, got complex values (dtype {raw.dtype}); "
                        "pass the real part explicitly if that is what you mean")
    if kind in _NON_REAL_KINDS:
        raise TypeError(f"{name} must be numeric, got {_NON_REAL_KINDS[kind]} values (dtype {raw.dtype})")
    if kind == "O" and any(v is None for v in raw.flat):  # float(None) would be a silent NaN
        raise TypeError(f"{name} must be numeric, got None")
    if kind == "O" and any(isinstance(v, (str, bytes)) for v in raw.flat):  # float("2") would be silent
        raise TypeError(f"{name} must be numeric, got text values (pass numbers, not strings of digits)")
    try:
        return raw.astype(float, copy=False)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be numeric, got {value!r}") from exc


def finite_array(value: Any, name: str) -> np.ndarray:
    """Return ``value`` as a finite float array; see :func:`real_array` for what is refused."""
    arr = real_array(value, name)
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite (no NaN or inf), got {value!r}")
    return arr


def finite_scalar(value: Any, name: str) -> float:
    """Return ``value`` as a finite float."""
    arr = finite_array(value, name)
    if arr.ndim != 0:
        raise TypeError(f"{name} must be a scalar, got shape {arr.shape}")
    return float(arr)


def positive_scalar(value: Any, name: str) -> float:
    """Return ``value`` as a finite float that is strictly positive."""
    out = finite_scalar(value, name)
    if out <= 0:
        raise ValueError(f"{name} must be > 0, got {out}")
    return out


def pair(value: Any, name: str) -> tuple[float, float]:
    """Return ``value`` as a pair of finite floats."""
    arr = finite_array(value, name)
    if arr.shape != (2,):
        raise ValueError(f"{name} must have exactly two entries, got shape {arr.shape}")
    return float(arr[0]), float(arr[1])


def probability_vector(value: Any, name: str, size: int | None = None) -> np.ndarray:
    """Return ``value`` as a probability vector with entries in (0, 1) summing to 1."""
    arr = finite_array(value, name)
    if arr.ndim != 1 or (size is not None and arr.shape[0] != size):
        want = f"{size} entries" if size is not None else "a 1-D vector"
        raise ValueError(f"{name} must be {want}, got shape {arr.shape}")
    if np.any(arr <= 0) or np.any(arr >= 1):
        raise ValueError(f"{name} entries must lie strictly inside (0, 1), got {arr.tolist()}")
    if abs(arr.sum() - 1.0) > 1e-12:
        raise ValueError(f"{name} must sum to 1, got sum {arr.sum()!r}")
    return arr


#: The largest size (points, draws, states...) a public function accepts where a size sets the memory or
#: time: 10^8 float64 values are 800 MB, past what a run of this toolkit needs.
MAX_SIZE = 10**8


def count(value: Any, name: str, minimum: int = 1, maximum: int | None = None) -> int:
    """Return ``value`` as an int ``>= minimum`` (and ``<= maximum`` if given); non-integers raise."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Real, np.number)):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__}")
    if not isinstance(value, numbers.Integral) and not float(value).is_integer():  # float(10**400) overflows
        raise ValueError(f"{name} must be an integer, got {value!r}")
    # int() takes every numbers.Real (through __trunc__); typeshed's Real.__trunc__ returns an Integral, not int.
    out = int(value)  # type: ignore[arg-type]
    if out < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {out}")
    if maximum is not None and out > maximum:
        shown = f"{out:_}" if out < 10**21 else f"a number of {len(str(out))} digits"
        raise ValueError(f"{name} must be <= {maximum:_} (a bound on sizes, so memory and time stay bounded), "
                         f"got {shown}")
    return out


def check_labels(y: ArrayLike, n_classes: int | None, name: str = "y") -> np.ndarray:
    """Labels as a 1-D int array with values in ``0..n_classes-1`` (any ``>= 0`` if ``n_classes`` is None).

    Booleans, text and complex numbers are refused (``TypeError``), as are
    non-integer values (``ValueError``).
    """
    arr = np.asarray(y)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-D array of labels, got shape {arr.shape}")
    if arr.size and (arr.dtype == bool or np.iscomplexobj(arr) or not np.issubdtype(arr.dtype, np.number)):
        raise TypeError(f"{name} must hold integer labels, got dtype {arr.dtype}")
    if arr.size and (not np.all(np.isfinite(arr)) or np.any(arr != np.round(arr))):
        raise ValueError(f"{name} must hold integer labels, got {arr!r}")
    out = arr.astype(int)
    if out.size and out.min() < 0:
        raise ValueError(f"{name} must hold labels >= 0, got values {np.unique(out).tolist()}")
    if out.size and n_classes is not None and out.max() >= n_classes:
        raise ValueError(f"{name} must hold labels in 0..{n_classes - 1}, got values {np.unique(out).tolist()}")
    return out


def generator(rng: Any, name: str = "rng") -> np.random.Generator:
    """Require an explicit ``numpy.random.Generator`` (no global random state)."""
    if not isinstance(rng, np.random.Generator):
        raise TypeError(
            f"{name} must be a numpy.random.Generator (e.g. numpy.random.default_rng(seed)), "
            f"got {type(rng).__name__}"
        )
    return rng


def flag(value: Any, name: str) -> bool:
    """Require ``True`` or ``False`` (a string such as ``"no"`` is refused, never read as true)."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def output_folder(value: Any, name: str) -> Path:
    """``value`` as the Path of a folder that exists or can be created, and is writable.

    Checks only (creates nothing), so a caller can refuse bad input before it
    writes anything.
    """
    if not isinstance(value, (str, os.PathLike)) or not isinstance(os.fspath(value), str):
        raise TypeError(f"{name} must be a folder path (str or os.PathLike), got {type(value).__name__}")
    if not os.fspath(value).strip():
        raise ValueError(f"{name} must name a folder, got an empty path")
    path = Path(value)
    if path.exists() and not path.is_dir():
        raise ValueError(f"{name}: {path} exists and is not a folder")
    existing = path
    while not existing.exists():  # the folder itself, or the nearest ancestor that exists
        existing = existing.parent
    if not existing.is_dir():
        raise ValueError(f"{name}: cannot create the folder {path}: {existing} is not a folder")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise ValueError(f"{name}: cannot write to {path}: the folder {existing} is not writable")
    return path


def create_folder(path: Path, name: str) -> Path:
    """Create the folder ``path`` checked by :func:`output_folder` (and its parents); a ValueError naming
    ``name`` if the system refuses."""
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ValueError(f"{name}: cannot create {path} ({exc.strerror or exc})") from None
    return path


def data_frame(value: Any, name: str, columns: Any = ()) -> Any:
    """Require a non-empty pandas DataFrame holding ``columns``."""
    import pandas as pd

    if not isinstance(value, pd.DataFrame):
        raise TypeError(f"{name} must be a pandas DataFrame, got {type(value).__name__}")
    missing = [c for c in columns if c not in value.columns]
    if missing:
        raise ValueError(f"{name} must have the columns {list(columns)}, missing {missing}")
    if value.empty:
        raise ValueError(f"{name} is empty")
    return value
