"""Repeated training points merged (``mri_theory.classifiers._repeats``), against ``numpy.unique``."""

from __future__ import annotations

import numpy as np
from _optional import given, settings, st

from mri_theory.classifiers._repeats import distinct_rows, merged_in_order


def resample(seed: int, n: int, d: int, distinct: int) -> np.ndarray:
    """Rows drawn with replacement from a few (labels in the last column, coordinates that repeat within a
    column), as the shared points of a bootstrap resample."""
    rng = np.random.default_rng(seed)
    pool = np.column_stack([rng.integers(-2, 3, size=(distinct, d)).astype(float), rng.integers(0, 3, distinct)])
    return pool[rng.integers(0, distinct, n)]


@settings(deadline=None, derandomize=True, max_examples=60)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 40), d=st.integers(1, 3), distinct=st.integers(1, 6))
def test_distinct_rows_are_numpys_unique_rows_counts_and_inverse(seed, n, d, distinct):
    rows = resample(seed, n, d, distinct)
    got, counts, inverse = distinct_rows(rows)
    want, want_inverse, want_counts = np.unique(rows, axis=0, return_inverse=True, return_counts=True)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(counts, want_counts)
    np.testing.assert_array_equal(inverse, want_inverse.ravel())
    assert counts.dtype == np.int64 and inverse.dtype == np.int64


def test_distinct_rows_of_no_rows_is_empty():
    got, counts, inverse = distinct_rows(np.zeros((0, 3)))
    assert got.shape == (0, 3) and counts.shape == (0,) and inverse.shape == (0,) and counts.dtype == np.int64


@settings(deadline=None, derandomize=True, max_examples=60)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 40), d=st.integers(1, 3), distinct=st.integers(1, 8))
def test_merged_in_order_keeps_first_occurrences_in_their_order(seed, n, d, distinct):
    rows = resample(seed, n, d, distinct)
    index, inverse = merged_in_order(rows)
    # by a loop over the rows: a row not seen before is the next distinct one
    seen: dict[bytes, int] = {}
    want_index, want_inverse = [], []
    for i, row in enumerate(rows):
        key = row.tobytes()
        if key not in seen:
            seen[key] = len(want_index)
            want_index.append(i)
        want_inverse.append(seen[key])
    np.testing.assert_array_equal(index, want_index)
    np.testing.assert_array_equal(inverse, want_inverse)
    np.testing.assert_array_equal(rows[index][inverse], rows)


def test_merged_in_order_of_distinct_rows_is_the_identity():
    rows = np.arange(12.0).reshape(6, 2)
    index, inverse = merged_in_order(rows)
    np.testing.assert_array_equal(index, np.arange(6))
    np.testing.assert_array_equal(inverse, np.arange(6))
