"""The versions of Python and of the libraries that results depend on (recorded beside figures and summaries)."""

from __future__ import annotations

import importlib.metadata
import sys

__all__ = ["VERSIONED_DISTRIBUTIONS", "library_versions"]

#: Distributions whose versions ``VERSIONS.txt`` records, besides Python itself.
VERSIONED_DISTRIBUTIONS: tuple[str, ...] = ("joblib", "matplotlib", "mri-theory", "numpy", "pandas",
                                            "scikit-learn", "scipy", "sympy")


def library_versions() -> dict[str, str]:
    """Versions of Python and of :data:`VERSIONED_DISTRIBUTIONS`, sorted by name.

    Python is given as ``major.minor.micro``; the others as installed
    (``version`` of :mod:`importlib.metadata`).

    Returns
    -------
    dict
        Name -> version, sorted by name.
    """
    versions = {name: importlib.metadata.version(name) for name in VERSIONED_DISTRIBUTIONS}
    versions["python"] = ".".join(str(part) for part in sys.version_info[:3])
    return dict(sorted(versions.items()))
