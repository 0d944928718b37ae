"""The classifiers' numba kernels, compiled on first use (shared by k-NN, the logistic regression and the SVM)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any


def on_first_call(function: Callable[..., Any]) -> Callable[[], Any]:
    """A function of no arguments returning ``function`` compiled by numba (``njit(cache=True, nogil=True)``).

    It compiles on its first call, not at import (numba is imported then too), and returns the same dispatcher
    ever after; numba caches the machine code on disk next to ``function``'s module when it can.
    """

    @functools.cache
    def compiled() -> Any:
        import numba

        return numba.njit(cache=True, nogil=True)(function)

    compiled.__doc__ = f":func:`{function.__name__}` compiled by numba on first use (:func:`on_first_call`)."
    return compiled
