"""Upper bounds on the sizes the runners accept (sandbox, study, diagnostics, the command line).

A size far beyond any study (``pool_size=10**12``, ``replicates=10**9``)
would end in a ``MemoryError`` or a run that never finishes; these bounds
refuse it up front with a ``ValueError`` naming the argument.  Each is at
least a hundred times the paper's setting (pool 250, population 10 000,
10 replicates, an asymptotic training sample of 5000).
"""

from __future__ import annotations

from typing import Any

from mri_theory._utils import validation as check

#: The largest unlabelled pool of a replicate (and so the largest budget).
MAX_POOL_SIZE = 100_000
#: The largest evaluation population, and the largest training sample or population of the asymptotic loss.
MAX_POPULATION_SIZE = 1_000_000
#: The most replicates (of the curves, the states, or the asymptotic loss).
MAX_REPLICATES = 100_000
#: The most parallel jobs or local workers.
MAX_JOBS = 256


def size(value: Any, name: str, maximum: int, minimum: int = 1) -> int:
    """``value`` as an int in ``[minimum, maximum]``; a TypeError or ValueError naming ``name`` otherwise."""
    return check.count(value, name, minimum=minimum, maximum=maximum)


def jobs(n_jobs: int, name: str = "n_jobs") -> int:
    """A checked ``n_jobs`` (a positive count or -1) that is at most :data:`MAX_JOBS`."""
    if n_jobs > MAX_JOBS:
        raise ValueError(f"{name} must be at most {MAX_JOBS} parallel jobs (or -1 for all cores), got {n_jobs}")
    return n_jobs


#: Bytes per float64 cell times the working copies a population's construction holds at its peak (the uniforms or
#: normals, the points, per-component log densities, the posterior rows; measured on the built-in problems: at
#: most 232 bytes per point in the plane for 2**18 points or more, within this allowance).
POPULATION_BYTES_PER_CELL = 32
#: Bytes of working buffers a population's construction holds whatever its size (chunks, factors).
POPULATION_OVERHEAD_BYTES = 2**26


def available_memory() -> int | None:
    """Bytes of memory available to a new allocation (Linux ``MemAvailable``), or ``None`` where unknown."""
    try:
        with open("/proc/meminfo") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        import os

        return int(os.sysconf("SC_AVPHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, OSError, ValueError):
        return None


def population_bytes(problem: Any, size: int, method: str = "sample") -> int:
    """Estimated peak bytes of ``Population.from_problem(problem, size, rng, method)``: ``size`` points (for
    ``"qmc"`` the next power of two, the Sobol' draw) times :data:`POPULATION_BYTES_PER_CELL` times
    ``2 * dim + n_classes + 2`` cells (a problem without integer ``dim``/``n_classes``: 1 and 2), plus
    :data:`POPULATION_OVERHEAD_BYTES`."""
    dim, k = getattr(problem, "dim", 1), getattr(problem, "n_classes", 2)
    dim, k = (dim if isinstance(dim, int) else 1), (k if isinstance(k, int) else 2)
    points = 1 << max(0, (size - 1).bit_length()) if method == "qmc" else size
    return points * POPULATION_BYTES_PER_CELL * (2 * dim + k + 2) + POPULATION_OVERHEAD_BYTES


def check_memory(n_bytes: int, name: str, value: int, what: str) -> None:
    """Refuse, naming ``name`` (its ``value``), an allocation of about ``n_bytes`` that does not fit in the
    memory available now (:func:`available_memory`); nothing is checked where that is unknown."""
    available = available_memory()
    if available is not None and n_bytes > available:
        raise ValueError(f"{name}={value:_} needs about {n_bytes / 2**30:.3g} GiB for {what}, but only "
                         f"{available / 2**30:.3g} GiB of memory is available; pass a smaller {name}")
