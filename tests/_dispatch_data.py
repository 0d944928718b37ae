"""Every registered figure at its quick size: what it draws, at full precision, and its files; run by
``tests/test_cpu_dispatch.py``.

``python tests/_dispatch_data.py OUT [NAME ...]`` makes each figure (all registered ones without names) as
``mri-theory figures --quick`` does (its seed, one BLAS thread) and writes ``OUT.npz``, every number it draws
(line and marker coordinates, collections' offsets and paths, images' arrays, patches, the axes' limits: one
array per artist and item, keyed ``"<figure>|<artist index>:<artist type>:<item>"``), and ``OUT.json``:
``level``, the CPU dispatch this process ran at (numpy's SIMD extensions found, OpenBLAS's kernel, numba's target
CPU), ``texts``, the figure's strings, and ``files``, the SHA-256 of the PNG and the PDF it saves to.  The drawn
numbers are compared besides the files, whose pixels and rounded coordinates would hide a change below them.
"""

from __future__ import annotations

import hashlib
import io
import json
import sys
from typing import Any

import numpy as np


def _drawn(artist: Any) -> list[Any]:
    """What ``artist`` draws, in data coordinates where it has them (no transforms to display space)."""
    from matplotlib.axes import Axes
    from matplotlib.collections import Collection
    from matplotlib.image import AxesImage
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch
    from matplotlib.text import Text

    if isinstance(artist, Axes):
        return [artist.get_xlim(), artist.get_ylim()]
    if isinstance(artist, Line2D):
        return [artist.get_xydata()]
    if isinstance(artist, Collection):
        out = [artist.get_offsets(), *(path.vertices for path in artist.get_paths())]
        return out + ([artist.get_array()] if artist.get_array() is not None else [])
    if isinstance(artist, AxesImage):
        return [artist.get_array(), artist.get_extent()]
    if isinstance(artist, Patch):
        return [artist.get_path().vertices, artist.get_patch_transform().get_matrix()]
    if isinstance(artist, Text):
        return [artist.get_text(), artist.get_position()]
    return []


def drawn_data(fig: Any) -> tuple[dict[str, np.ndarray], dict[str, str]]:
    """Everything ``fig`` draws (:func:`_drawn`): numbers as float64 arrays (masked entries NaN), keyed
    ``"<artist index>:<artist type>:<item>"``, and texts by the same keys."""
    arrays, texts = {}, {}
    for i, artist in enumerate(fig.findobj(include_self=False)):
        for j, value in enumerate(_drawn(artist)):
            key = f"{i}:{type(artist).__name__}:{j}"
            if isinstance(value, str):
                texts[key] = value
            else:
                arrays[key] = np.ma.filled(np.ma.asarray(value, dtype=float), np.nan)
    return arrays, texts


def files(fig: Any) -> dict[str, str]:
    """SHA-256 of the PNG and the PDF ``fig`` saves to, as :func:`~mri_theory.figures.make_figures` writes them."""
    out = {}
    for ext in ("png", "pdf"):
        buffer = io.BytesIO()
        meta = {"CreationDate": None} if ext == "pdf" else {"Software": None}
        fig.savefig(buffer, format=ext, dpi=150, metadata=meta)
        out[ext] = hashlib.sha256(buffer.getvalue()).hexdigest()
    return out


def dispatch_level() -> dict[str, Any]:
    """numpy's SIMD extensions found, OpenBLAS's kernel (threadpoolctl) and numba's target CPU, in this process."""
    import numba
    import threadpoolctl

    try:
        from numpy._core import _multiarray_umath as umath
    except ImportError:  # numpy < 2
        from numpy.core import _multiarray_umath as umath
    found = [name for name in umath.__cpu_dispatch__ if umath.__cpu_features__.get(name)]
    blas = [info.get("architecture") for info in threadpoolctl.threadpool_info() if info.get("user_api") == "blas"]
    cpu = numba.config.CPU_NAME or __import__("llvmlite.binding", fromlist=["x"]).get_host_cpu_name()
    return {"numpy_dispatch": found, "blas": blas, "numba_cpu": cpu}


def main(argv: list[str]) -> None:
    from mri_theory._utils.backends import one_thread
    from mri_theory.figures import figure_names, get_figure

    out, names = argv[0], argv[1:] or figure_names()
    arrays, record = {}, {"level": dispatch_level(), "texts": {}, "files": {}}
    for name in names:
        spec = get_figure(name)
        with one_thread():  # as make_figures does
            fig = spec.make(True, np.random.default_rng(spec.seed))
        drawn, texts = drawn_data(fig)
        arrays.update({f"{name}|{key}": value for key, value in drawn.items()})
        record["texts"][name] = texts
        record["files"][name] = files(fig)
    np.savez(f"{out}.npz", **arrays)
    with open(f"{out}.json", "w", encoding="utf-8") as f:
        json.dump(record, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main(sys.argv[1:])
