"""Argument checks shared by the evaluation modules (metrics, ranking, tables, _pairings).

Learning curves, metric tables and rank tables are long pandas tables whose
key columns hold names and whose value columns hold numbers.  The checks here
refuse, naming the argument (and the column), what pandas and numpy would
otherwise accept silently: a missing label (``None``/NaN, which ``groupby``
drops without a word), a number written as text (``"0.5"``, which
``astype(float)`` converts), a boolean where a number is meant, a fractional
count, a loss outside the range of its kind, and a single string where a
sequence of column names is meant (which would be split into characters).
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from mri_theory._utils import validation as check

#: The loss kinds a study can be evaluated on (:func:`mri_theory.evaluation.metrics.curve_metrics`).
LOSS_KINDS = ("error", "log")
#: Largest loss accepted: a log loss (in nats) above 745 cannot come from a positive double probability
#: (``-ln(5e-324) = 744.4``); the bound also keeps every sum of losses along a curve finite.
MAX_LOSS = 745.0
#: Largest count of labelled examples (and replicate index): integers above 2**53 are not exact in a float.
MAX_COUNT = 2**53
#: The two ways of computing a pairing's metrics (:func:`mri_theory.evaluation.metrics.curve_metrics`): those
#: of the replicate-averaged curve, or the mean of the per-replicate metrics.
MODES = ("curve", "replicate")


def choice(value: Any, name: str, options: Sequence[str]) -> str:
    """``value`` as one of the strings ``options`` (an array or a list is refused, never compared)."""
    if not isinstance(value, str) or value not in options:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, options))}, got {value!r}")
    return value


def loss_kind(value: Any, name: str = "loss") -> str:
    """``value`` as one of :data:`LOSS_KINDS` (the loss of the curves)."""
    return choice(value, name, LOSS_KINDS)


def mode(value: Any, name: str = "mode") -> str:
    """``value`` as one of :data:`MODES`."""
    if not isinstance(value, str) or value not in MODES:
        raise ValueError(f"{name} must be 'curve' or 'replicate', got {value!r}")
    return value


def nonnegative(value: Any, name: str) -> float:
    """``value`` as a finite float ``>= 0`` (e.g. the ``alpha`` of WI, the ``epsilon`` of label complexity)."""
    out = check.finite_scalar(value, name)
    if out < 0:
        raise ValueError(f"{name} must be >= 0, got {out}")
    return out


def lc_target(asymptotic: float, epsilon: float) -> float:
    """The label-complexity target ``(1 + epsilon) * asymptotic``, refused if it overflows."""
    target = (1.0 + epsilon) * asymptotic
    if not np.isfinite(target):
        raise ValueError(f"epsilon = {epsilon} is too large: (1 + epsilon) * asymptotic_loss overflows")
    return target


def number_array(value: Any, name: str, *, allow_nan: bool = False) -> np.ndarray:
    """``value`` as a float array of finite numbers (NaN allowed if ``allow_nan``; never inf).

    Besides what :func:`mri_theory._utils.validation.real_array` refuses, an object
    array (a pandas column of mixed types) holding text or booleans is refused:
    ``astype(float)`` would turn ``"0.5"`` into 0.5 and ``True`` into 1.0.
    """
    if not isinstance(value, (str, bytes)):
        raw = value
        if isinstance(value, (list, tuple)):
            try:
                raw = np.asarray(value, dtype=object)
            except ValueError:  # ragged: real_array names it below
                raw = None
        if isinstance(raw, (np.ndarray, pd.Series, pd.Index)) and raw.dtype == object:
            for v in np.asarray(raw).flat:
                if isinstance(v, (str, bytes)):
                    raise TypeError(f"{name} must be numeric, got the text {v!r} (convert it explicitly)")
                if isinstance(v, (bool, np.bool_)):
                    raise TypeError(f"{name} must be numeric, got the boolean {v!r}")
    arr = check.real_array(value, name)
    bad = np.isinf(arr) if allow_nan else ~np.isfinite(arr)
    if np.any(bad):
        what = "no inf" if allow_nan else "no NaN or inf"
        raise ValueError(f"{name} must be finite ({what}), got {float(arr[bad].ravel()[0])} "
                         f"at {np.argwhere(bad)[0].tolist()}")
    return arr


def counts(value: Any, name: str, minimum: int = 0) -> np.ndarray:
    """``value`` as a float array of whole numbers in ``[minimum, MAX_COUNT]`` (e.g. numbers of labels)."""
    arr = number_array(value, name)
    fractional = arr != np.round(arr)
    if np.any(fractional):
        raise ValueError(f"{name} must hold whole numbers (counts), got {float(arr[fractional].ravel()[0])}")
    if arr.size and (arr.min() < minimum or arr.max() > MAX_COUNT):
        raise ValueError(f"{name} must hold integers in [{minimum}, 2**53], got values in [{arr.min()}, {arr.max()}]")
    return arr


def losses(arr: np.ndarray, name: str, kind: str | None) -> np.ndarray:
    """Check finite losses ``arr`` for their kind: ``"error"`` in [0, 1]; ``"log"`` or ``None`` (any kind)
    in [0, :data:`MAX_LOSS`]."""
    if not arr.size:
        return arr
    if kind == "error":
        if arr.min() < 0 or arr.max() > 1:
            raise ValueError(f"{name} must be error rates in [0, 1] (accuracy = 1 - loss), got values in "
                             f"[{arr.min()}, {arr.max()}]; pass loss='log' for log-loss curves")
        return arr
    if arr.min() < 0:
        raise ValueError(f"{name} must be >= 0 (a loss), got {arr.min()}")
    if arr.max() > MAX_LOSS:
        raise ValueError(f"{name} must be <= {MAX_LOSS:g} (a loss; the largest log loss of a positive double "
                         f"probability is 744.4 nats), got {arr.max()}")
    return arr


def column_names(value: Any, name: str, *, allow_str: bool) -> list[str]:
    """A column name (if ``allow_str``) or a sequence of distinct, non-empty column names, as a list.

    A single string where a sequence is meant is refused rather than split
    into its characters.
    """
    if isinstance(value, str):
        if allow_str:
            value = [value]
        else:
            raise TypeError(f"{name} must be a sequence of column names, got the str {value!r} "
                            f"(write [{value!r}] for one column)")
    if not isinstance(value, Sequence) or isinstance(value, bytes) or not all(isinstance(c, str) for c in value):
        what = "a column name or a sequence" if allow_str else "a sequence"
        raise TypeError(f"{name} must be {what} of column names (str), got {value!r}")
    if any(not c.strip() for c in value):
        raise ValueError(f"{name} must hold non-empty column names, got {list(value)!r}")
    if len(set(value)) != len(value):
        raise ValueError(f"{name} names a column twice: {list(value)!r}")
    return list(value)


def frame(value: Any, name: str, columns: Sequence[str]) -> pd.DataFrame:
    """A non-empty DataFrame holding ``columns``, each exactly once (a duplicated column name would make
    ``frame[column]`` a table, not a column)."""
    table = check.data_frame(value, name, columns)
    twice = sorted({c for c in columns if list(table.columns).count(c) > 1})
    if twice:
        raise ValueError(f"{name} has the columns {twice} more than once")
    return table


def _bad_label(v: Any, text: bool = False) -> str | None:
    """Why ``v`` cannot name a problem, classifier, method, group or unit (None if it can); only a str
    if ``text``."""
    if v is None or (isinstance(v, float) and np.isnan(v)) or v is pd.NA or v is pd.NaT:
        return "a missing label (None/NaN)"
    if isinstance(v, str):
        return None if v.strip() else "an empty name"
    if text:
        return f"{v!r} of type {type(v).__name__} (a name must be a str)"
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (numbers.Integral, np.integer)):
        return f"{v!r} of type {type(v).__name__} (a label must be a name (str) or an integer)"
    return None


def labels(values: Any, name: str, text: bool = False) -> None:
    """Refuse a column (or an index, or a sequence) of labels holding a missing value, an empty name,
    anything but a str or an integer (a str if ``text``), or both text and integer labels (which cannot be
    sorted together)."""
    try:
        distinct = pd.unique(np.asarray(values, dtype=object).ravel())
    except TypeError:
        raise TypeError(f"{name} must hold names (str or integers), got an unhashable value") from None
    for v in distinct:
        problem = _bad_label(v, text)
        if problem is not None:
            raise ValueError(f"{name} must hold names, got {problem}")
    if any(isinstance(v, str) for v in distinct) and not all(isinstance(v, str) for v in distinct):
        raise ValueError(f"{name} mixes text and integer labels: {sorted(map(repr, distinct))[:6]}")


def label(value: Any, name: str) -> Any:
    """Refuse a single label as :func:`labels` does."""
    problem = _bad_label(value)
    if problem is not None:
        raise ValueError(f"{name} must be a name, got {problem}")
    return value


def frame_labels(frame: pd.DataFrame, columns: Sequence[str], name: str, text: bool = False) -> None:
    """:func:`labels` on each of ``columns`` of ``frame``, named ``name[column]``."""
    for column in columns:
        labels(frame[column], f"{name}[{column!r}]", text)
