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
