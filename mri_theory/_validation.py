"""Argument checks shared by the whole package.

Every public function validates its input with these helpers so that bad input
raises a ``ValueError`` or ``TypeError`` that names the argument, instead of a
silent NaN or a traceback from deep inside numpy.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np


def finite_array(value: Any, name: str) -> np.ndarray:
    """Return ``value`` as a float array, raising if it is not numeric or not finite."""
    if isinstance(value, (str, bytes)):
        raise TypeError(f"{name} must be numeric, got {type(value).__name__}")
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be numeric, got {value!r}") from exc
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


def count(value: Any, name: str, minimum: int = 1) -> int:
    """Return ``value`` as an int ``>= minimum``; non-integers raise."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Real, np.number)):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__}")
    if not float(value).is_integer():
        raise ValueError(f"{name} must be an integer, got {value!r}")
    out = int(value)
    if out < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {out}")
    return out


def generator(rng: Any, name: str = "rng") -> np.random.Generator:
    """Require an explicit ``numpy.random.Generator`` (no global random state)."""
    if not isinstance(rng, np.random.Generator):
        raise TypeError(
            f"{name} must be a numpy.random.Generator (e.g. numpy.random.default_rng(seed)), "
            f"got {type(rng).__name__}"
        )
    return rng
