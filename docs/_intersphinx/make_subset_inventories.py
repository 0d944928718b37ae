"""Write ``numpy.inv`` and ``matplotlib.inv``: the few entries of their projects' inventories these docs link to.

The other inventories here are the projects' own ``objects.inv``, taken from Debian's documentation packages
(python3.11-doc, python-scipy-doc, python-sklearn-doc, python-pandas-doc, python-dask-doc,
python-distributed-doc).  Debian ships no numpy or matplotlib documentation, and the build must not need the
network, so these two are written here with the projects' own URL layout (the pages exist at those addresses).
Add an entry when the docs link a new numpy or matplotlib object; run ``python make_subset_inventories.py`` here.
"""

from __future__ import annotations

import zlib
from pathlib import Path

HERE = Path(__file__).resolve().parent

#: (name, domain:role, URI relative to the project's documentation root, display name) per project.
ENTRIES = {
    ("NumPy", "2.4", "numpy.inv"): [
        ("numpy.ndarray", "py:class", "reference/generated/numpy.ndarray.html#$", "-"),
        ("numpy.searchsorted", "py:function", "reference/generated/numpy.searchsorted.html#$", "-"),
        ("numpy.random.Generator", "py:class", "reference/random/generator.html#$", "-"),
        ("numpy.random.SeedSequence", "py:class",
         "reference/random/bit_generators/generated/numpy.random.SeedSequence.html#$", "-"),
        ("numpy.random.default_rng", "py:function", "reference/random/generator.html#$", "-"),
        ("array_like", "std:term", "glossary.html#term-array_like", "array_like"),
        ("array-like", "std:term", "glossary.html#term-array-like", "array-like"),
    ],
    ("Matplotlib", "3.11", "matplotlib.inv"): [
        ("matplotlib.figure.Figure", "py:class", "api/_as_gen/matplotlib.figure.Figure.html#$", "-"),
        ("matplotlib.axes.Axes", "py:class", "api/_as_gen/matplotlib.axes.Axes.html#$", "-"),
        ("matplotlib.pyplot", "py:module", "api/pyplot_summary.html#module-matplotlib.pyplot", "-"),
    ],
}


def main() -> None:
    for (project, version, filename), entries in ENTRIES.items():
        header = (f"# Sphinx inventory version 2\n# Project: {project}\n# Version: {version}\n"
                  "# The remainder of this file is compressed using zlib.\n").encode()
        body = "".join(f"{name} {role} 1 {uri} {disp}\n" for name, role, uri, disp in entries).encode()
        (HERE / filename).write_bytes(header + zlib.compress(body, 9))


if __name__ == "__main__":
    main()
