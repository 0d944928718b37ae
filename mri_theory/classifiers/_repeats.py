r"""Repeated training points merged into one point counted as often (shared by the logistic regression and the SVM).

A bootstrap resample of ``n`` points holds about ``0.632 n`` distinct ones.  Both
objectives are sums over the points (the logistic regression's log-likelihood;
the SVM's hinge losses, whose dual bound becomes :math:`m C` for a point drawn
``m`` times), so a point drawn ``m`` times is one point of weight ``m``: the
same minimiser from a problem about a third smaller.
"""

from __future__ import annotations

import numpy as np

__all__ = ["distinct_rows", "merged_in_order"]


def distinct_rows(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct rows of ``rows`` (sorted), how often each occurs, and the distinct row of each row.

    ``np.unique(rows, axis=0, return_counts=True, return_inverse=True)`` without its byte view (a third of
    the time).
    """
    n = rows.shape[0]
    if n == 0:
        return rows, np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    order = np.lexsort(rows.T[::-1])
    ordered = rows[order]
    first = np.ones(n, dtype=bool)
    np.any(ordered[1:] != ordered[:-1], axis=1, out=first[1:])
    starts = np.flatnonzero(first)
    inverse = np.empty(n, dtype=np.int64)
    inverse[order] = np.cumsum(first) - 1
    return ordered[starts], np.diff(np.append(starts, n)), inverse


def merged_in_order(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The first occurrence of each distinct row of ``rows``, in the order of ``rows``, and the distinct row of
    each row (``rows[index][inverse] == rows``); with no repeated row, ``arange(n)`` twice."""
    n = rows.shape[0]
    _, counts, inverse = distinct_rows(rows)
    if counts.size == n:
        return np.arange(n), np.arange(n)
    first = np.full(counts.size, n)
    np.minimum.at(first, inverse, np.arange(n))
    order = np.argsort(first)  # the distinct rows by first occurrence
    rank = np.empty(counts.size, dtype=np.int64)
    rank[order] = np.arange(counts.size)
    return first[order], rank[inverse]
