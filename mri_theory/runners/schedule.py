r"""The order a study's tasks run in, and the wall time a schedule of them takes.

A study (:func:`~mri_theory.runners.study.run_study`) is a bag of independent tasks: one learning curve per
(problem, classifier, strategy, replicate) and one asymptotic loss per (problem, classifier).  Each task's result
depends only on its own seeds, so the order they run in changes nothing but the wall time, and on many workers the
wall time is decided by the *tail*: the long tasks (the SVM's BMRI and MRI-best curves, 30-40 s each at the paper
preset) started last keep a few workers busy while the others idle.  The runner therefore starts the tasks *longest
first* (:func:`longest_first`, Graham's LPT rule), by the costs a model expects (:func:`expected_costs`): the mean
CPU time of the same (classifier, strategy) among the tasks an earlier run of the folder already timed
(``timings.csv``), else :data:`TASK_COST`, the mean per task of the committed full abstract study, else a fallback
by the strategy's flags.

:func:`simulate_makespan` replays a schedule: the tasks, in order, each to the first worker free (what joblib's and
Dask's queues do with independent tasks), and :func:`~mri_theory.runners.study.plan_study` compares, for a finished
study and ``N`` workers, the wall of the table order (the order before longest-first), of
the longest-first order, and the lower bound of any schedule, :math:`\max(\text{total} / N, \text{longest task})`
(command line: ``mri-theory study --plan N --out DIR``).  The replay assumes each task takes on ``N`` workers the
time it took in the run measured (on a loaded many-core machine tasks slow down, by a median 1.16x on 16 busy cores
in the issue's measurement: the simulated walls are then a lower estimate of the real ones).
"""

from __future__ import annotations

import heapq
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from mri_theory._utils import validation as check

__all__ = ["ASYMPTOTIC", "TASK_COST", "Plan", "describe_plans", "expected_costs", "longest_first",
           "simulate_makespan"]

#: The strategy label of an asymptotic-loss task (``timings.csv`` writes it as an empty strategy).
ASYMPTOTIC = ""

#: Mean CPU seconds per task of the committed full abstract study (``figures/study/full-run``, the paper preset:
#: pool 250 labelled to exhaustion, populations of 10^4, 100 candidates per costly step; 2-core machine), by
#: classifier and strategy; :data:`ASYMPTOTIC` is the asymptotic loss of a pairing.  Only their ratios matter to the
#: order.
TASK_COST: dict[str, dict[str, float]] = {
    "lda": {"RS": 0.19, "SE": 0.27, "QbcV": 1.05, "QbcA": 0.94, "EfeLc": 0.48, "SMRI": 0.4, "BMRI": 5.36,
            "MRI-best": 0.88, ASYMPTOTIC: 0.05},
    "qda": {"RS": 0.22, "SE": 0.25, "QbcV": 0.95, "QbcA": 0.91, "EfeLc": 0.43, "SMRI": 0.4, "BMRI": 5.09,
            "MRI-best": 1.96, ASYMPTOTIC: 0.06},
    "kknn5": {"RS": 2.17, "SE": 1.72, "QbcV": 2.46, "QbcA": 2.28, "EfeLc": 1.99, "SMRI": 2.33, "BMRI": 11.12,
              "MRI-best": 6.86, ASYMPTOTIC: 0.22},
    "nb": {"RS": 0.16, "SE": 0.24, "QbcV": 0.93, "QbcA": 0.93, "EfeLc": 0.46, "SMRI": 0.42, "BMRI": 5.24,
           "MRI-best": 1.93, ASYMPTOTIC: 0.05},
    "logreg": {"RS": 0.24, "SE": 0.35, "QbcV": 1.08, "QbcA": 0.99, "EfeLc": 1.06, "SMRI": 0.99, "BMRI": 14.72,
               "MRI-best": 1.52, ASYMPTOTIC: 6.88},
    "svm": {"RS": 0.56, "SE": 0.78, "QbcV": 1.41, "QbcA": 1.26, "EfeLc": 2.46, "SMRI": 2.11, "BMRI": 27.46,
            "MRI-best": 18.87, ASYMPTOTIC: 4.16},
}


def _mean(values: Sequence[float] | np.ndarray) -> float | None:
    """The mean of finite numbers ``>= 0`` (None if there are none), finite: where the sum overflows (times near
    ``1e308``), the mean of the values divided by their count."""
    if not len(values):
        return None
    with np.errstate(over="ignore"):
        mean = float(np.mean(values))
    if not np.isfinite(mean):
        mean = float(np.sum(np.asarray(values, dtype=float) / len(values)))
    return mean


def _timed(timed: Any) -> dict[tuple[str, str], np.ndarray]:
    """``timed`` of :func:`expected_costs` checked: (classifier, strategy) -> finite CPU seconds ``>= 0``."""
    if timed is None:
        return {}
    if not isinstance(timed, Mapping):
        raise TypeError(f"timed must be a mapping (classifier, strategy) -> CPU seconds, got {type(timed).__name__}")
    out = {}
    for key, values in timed.items():
        if not (isinstance(key, tuple) and len(key) == 2 and all(isinstance(part, str) for part in key)):
            raise TypeError(f"timed must be keyed by (classifier, strategy) tuples of str, got {key!r}")
        if isinstance(values, (str, bytes)) or not isinstance(values, (Sequence, np.ndarray)):
            raise TypeError(f"timed[{key!r}] must be a sequence of CPU seconds, got {type(values).__name__}")
        seconds = check.finite_array(list(values) if not isinstance(values, np.ndarray) else values,
                                     f"timed[{key!r}]")
        if seconds.ndim != 1 or np.any(seconds < 0):
            raise ValueError(f"timed[{key!r}] must hold CPU seconds >= 0 (a 1-D sequence), got {seconds.tolist()}")
        out[key] = seconds
    return out


def expected_costs(tasks: Sequence[tuple[str, str, str]], *, costly: Mapping[str, bool] | None = None,
                   timed: Mapping[tuple[str, str], Sequence[float]] | None = None) -> np.ndarray:
    """The cost a model expects of each task, in seconds (comparable with one another, not a prediction).

    Parameters
    ----------
    tasks : sequence of tuple
        The tasks, as ``(problem, classifier, strategy)``; an asymptotic loss has the strategy
        :data:`ASYMPTOTIC`.
    costly : mapping, optional
        Whether each strategy retrains per candidate (:attr:`Strategy.costly
        <mri_theory.strategies.Strategy.costly>`), for the fallback below.
    timed : mapping, optional
        ``(classifier, strategy)`` to the CPU seconds of its tasks already timed (an earlier run's
        ``timings.csv``): their mean is the cost of every task of the same (classifier, strategy).

    Returns
    -------
    numpy.ndarray (n,)
        Per task, in this order of preference: the mean of ``timed`` for its (classifier, strategy); its
        :data:`TASK_COST`; the mean of :data:`TASK_COST` over the classifiers for its strategy; for an unknown
        strategy, the mean of the known costly strategies (BMRI, QbcV, QbcA, EfeLc, SMRI, MRI-best) if it is costly,
        else of the cheap ones (RS, SE), over the classifier's row when known, else over every row.

    Raises
    ------
    TypeError
        Naming ``tasks`` when it is not a sequence of ``(problem, classifier, strategy)`` tuples of str, ``costly``
        when it is not a mapping strategy -> bool, ``timed`` when it is not a mapping (classifier, strategy) ->
        sequence of numbers.
    ValueError
        Naming ``timed`` when a time is negative or not finite (NaN, inf).

    See Also
    --------
    mri_theory.runners.schedule.longest_first : The order of the tasks by these costs.

    Examples
    --------
    Without timings, a task's cost is its entry of :data:`TASK_COST` (an asymptotic loss has the strategy ``""``):

    >>> from mri_theory.runners.schedule import TASK_COST, expected_costs
    >>> tasks = [("four-gaussian", "svm", "BMRI"), ("four-gaussian", "lda", "RS"), ("four-gaussian", "lda", "")]
    >>> expected_costs(tasks).tolist() == [TASK_COST["svm"]["BMRI"], TASK_COST["lda"]["RS"], TASK_COST["lda"][""]]
    True

    Timings of an earlier run come first (their mean), and a strategy the table does not know costs the mean of
    the cheap (RS, SE) or of the costly strategies of its classifier's row:

    >>> costs = expected_costs(tasks, timed={("lda", "RS"): [1.0, 3.0]})
    >>> round(float(costs[1]), 4)
    2.0
    >>> mine = expected_costs([("four-gaussian", "lda", "Mine")], costly={"Mine": False})
    >>> round(float(mine[0]), 4) == round((TASK_COST["lda"]["RS"] + TASK_COST["lda"]["SE"]) / 2, 4)
    True
    """
    if isinstance(tasks, (str, bytes)) or not isinstance(tasks, (Sequence, np.ndarray)):
        raise TypeError(f"tasks must be a sequence of (problem, classifier, strategy) tuples, got "
                        f"{type(tasks).__name__}")
    tasks = list(tasks)
    for task in tasks:
        if not (isinstance(task, tuple) and len(task) == 3 and all(isinstance(part, str) for part in task)):
            raise TypeError(f"tasks must hold (problem, classifier, strategy) tuples of str, got {task!r}")
    if costly is not None and (not isinstance(costly, Mapping) or not all(
            isinstance(k, str) and isinstance(v, (bool, np.bool_)) for k, v in costly.items())):
        raise TypeError(f"costly must be a mapping strategy name -> bool, got {costly!r}")
    costly, seconds = costly or {}, _timed(timed)
    rows = list(TASK_COST.values())
    cheap = ("RS", "SE")  # tuples, not sets: the means below are summed in one order in every process
    costly_names = tuple(name for name in rows[0] if name not in (*cheap, ASYMPTOTIC))
    out = np.empty(len(tasks))
    for i, (_, classifier, strategy) in enumerate(tasks):
        known = _mean(seconds.get((classifier, strategy), ()))
        if known is None and classifier in TASK_COST and strategy in TASK_COST[classifier]:
            known = TASK_COST[classifier][strategy]
        if known is None and strategy in rows[0]:
            known = _mean([row[strategy] for row in rows])
        if known is None:
            names = costly_names if costly.get(strategy, True) else cheap
            among = [TASK_COST[classifier]] if classifier in TASK_COST else rows
            known = _mean([row[name] for row in among for name in names])
        out[i] = known
    return out


def longest_first(costs: ArrayLike) -> np.ndarray:
    """The task indices by decreasing expected cost: Graham's LPT rule.

    Its makespan is at most 4/3 of the optimum for independent tasks on identical workers (Graham 1969).

    Parameters
    ----------
    costs : array_like (n,)
        Each task's expected cost, non-negative.

    Returns
    -------
    numpy.ndarray (n,) of int
        The order: equal costs keep their order (a stable sort), so the result does not depend on the sort.

    Raises
    ------
    ValueError
        If a cost is negative or not finite.

    See Also
    --------
    mri_theory.runners.schedule.expected_costs : The costs a study's tasks are ordered by.
    mri_theory.runners.simulate_makespan : The wall time of an order.

    Examples
    --------
    >>> from mri_theory.runners import simulate_makespan
    >>> from mri_theory.runners.schedule import longest_first
    >>> costs = [1.0, 1.0, 1.0, 1.0, 4.0]
    >>> longest_first(costs).tolist()  # the long task first, the ties in their order
    [4, 0, 1, 2, 3]

    On two workers the long task started last keeps one busy alone; started first, it runs beside the others:

    >>> simulate_makespan(costs, 2), simulate_makespan([costs[i] for i in longest_first(costs)], 2)
    (6.0, 4.0)
    """
    values = check.finite_array(costs, "costs")
    if values.ndim != 1 or np.any(values < 0):
        raise ValueError("costs must be a 1-D array of non-negative numbers")
    return np.argsort(-values, kind="stable")


def simulate_makespan(durations: ArrayLike, workers: int) -> float:
    """The wall time of running tasks of these ``durations``, in this order, on ``workers`` identical workers.

    Each task starts, in order, on the first worker free (list scheduling: what joblib's and Dask's queues do with
    independent tasks), and the wall is when the last one ends.

    Parameters
    ----------
    durations : array_like (n,)
        The tasks' seconds, in the order they start.
    workers : int
        Identical workers, ``>= 1``.

    Returns
    -------
    float
        The makespan, in the units of ``durations``.

    Raises
    ------
    TypeError, ValueError
        Naming ``workers`` (a positive integer) or ``durations`` (finite and non-negative, and a worker's sum
        within the float range).

    See Also
    --------
    mri_theory.runners.schedule.longest_first : The order that shortens the tail.
    mri_theory.runners.plan_study : Both orders replayed for a finished study.

    Examples
    --------
    >>> from mri_theory.runners import simulate_makespan
    >>> simulate_makespan([3.0, 1.0, 2.0], 1)  # one worker: the sum
    6.0
    >>> simulate_makespan([3.0, 1.0, 2.0], 3)  # a worker each: the longest task
    3.0

    The order matters: the lower bound of any schedule here is ``max(8 / 2, 4) = 4``.

    >>> simulate_makespan([1.0, 1.0, 1.0, 1.0, 4.0], 2), simulate_makespan([4.0, 1.0, 1.0, 1.0, 1.0], 2)
    (6.0, 4.0)
    """
    workers = check.count(workers, "workers", minimum=1, maximum=100_000)
    times = check.finite_array(durations, "durations")
    if times.ndim != 1 or np.any(times < 0):
        raise ValueError("durations must be a 1-D array of non-negative numbers")
    free = [0.0] * workers
    for duration in times:
        heapq.heappush(free, heapq.heappop(free) + float(duration))
    if not np.isfinite(max(free)):
        raise ValueError("durations: a worker's sum of durations overflows the float range (times near 1e308); "
                         "give them in larger units")
    return max(free)


class Plan(NamedTuple):
    """What :func:`~mri_theory.runners.study.plan_study` expects of a finished study on ``workers`` workers
    (seconds).

    Parameters
    ----------
    workers : int
        The workers simulated.
    table_order : float
        The wall with the tasks in the table's order (asymptotic losses first: before 0.2.0).
    longest_first : float
        The wall with the tasks longest first by the model (:func:`~mri_theory.runners.schedule.expected_costs`).
    lower_bound : float
        ``max(total / workers, longest task)``: no schedule is shorter.
    total : float
        The tasks' seconds, summed.
    longest : float
        The longest task's seconds.
    tasks : int
        The tasks timed.

    See Also
    --------
    mri_theory.runners.plan_study : The plan of a finished study.
    mri_theory.runners.describe_plans : Plans as a Markdown table.

    Examples
    --------
    A plan of five tasks of 1, 1, 1, 1 and 4 seconds (in the table's order) on two workers, as
    :func:`~mri_theory.runners.plan_study` makes it from a study's ``timings.csv``:

    >>> from mri_theory.runners import Plan, simulate_makespan
    >>> from mri_theory.runners.schedule import longest_first
    >>> seconds = [1.0, 1.0, 1.0, 1.0, 4.0]
    >>> plan = Plan(workers=2, table_order=simulate_makespan(seconds, 2),
    ...             longest_first=simulate_makespan([seconds[i] for i in longest_first(seconds)], 2),
    ...             lower_bound=max(sum(seconds) / 2, max(seconds)), total=sum(seconds), longest=max(seconds),
    ...             tasks=len(seconds))
    >>> plan
    Plan(workers=2, table_order=6.0, longest_first=4.0, lower_bound=4.0, total=8.0, longest=4.0, tasks=5)
    >>> plan.longest_first / plan.lower_bound  # longest first reaches the bound here
    1.0
    """

    workers: int
    table_order: float
    longest_first: float
    lower_bound: float
    total: float
    longest: float
    tasks: int


def describe_plans(plans: Sequence[Plan]) -> str:
    """A Markdown table of ``plans`` (``mri-theory study --plan``).

    Parameters
    ----------
    plans : sequence of Plan
        One row each: the walls of both orders, the bound and the ratio of the longest-first wall to it.

    Returns
    -------
    str
        The table, and with two plans or more the speed-up of the longest-first order from the first to the last.

    Raises
    ------
    TypeError
        Naming ``plans`` when it is not a sequence of :class:`Plan` objects.
    ValueError
        Naming ``plans`` when a plan's workers is not a positive integer, its tasks not an integer ``>= 0``, or a
        time is negative or not finite.

    See Also
    --------
    mri_theory.runners.plan_study : The plans of a finished study.

    Notes
    -----
    A ratio of two zero times (every task timed at 0 s) is undefined: it is shown as ``n/a``.

    Examples
    --------
    The same five tasks (1, 1, 1, 1 and 4 seconds) on one worker and on two:

    >>> from mri_theory.runners import Plan, describe_plans
    >>> plans = [Plan(1, table_order=8.0, longest_first=8.0, lower_bound=8.0, total=8.0, longest=4.0, tasks=5),
    ...          Plan(2, table_order=6.0, longest_first=4.0, lower_bound=4.0, total=8.0, longest=4.0, tasks=5)]
    >>> print(describe_plans(plans))
    workers | table order | longest first | lower bound | longest first / bound
    ---|---|---|---|---
    1 | 8 s | 8 s | 8 s | 1.000
    2 | 6 s | 4 s | 4 s | 1.000
    <BLANKLINE>
    longest first: 2 workers 2.00x 1 workers (5 tasks, 8 s in all, the longest 4 s)
    """
    if isinstance(plans, (str, bytes, Plan)) or not isinstance(plans, Sequence) or not all(
            isinstance(plan, Plan) for plan in plans):
        raise TypeError("plans must be a sequence of Plan objects (plan_study's results), got "
                        f"{type(plans).__name__}")
    for plan in plans:
        check.count(plan.workers, "plans (a plan's workers)", minimum=1)
        check.count(plan.tasks, "plans (a plan's tasks)", minimum=0)
        for field in ("table_order", "longest_first", "lower_bound", "total", "longest"):
            if check.finite_scalar(getattr(plan, field), f"plans (a plan's {field})") < 0:
                raise ValueError(f"plans: a plan's {field} must be >= 0, got {getattr(plan, field)!r}")
    lines = ["workers | table order | longest first | lower bound | longest first / bound",
             "---|---|---|---|---"]
    for plan in plans:
        lines.append(f"{plan.workers} | {plan.table_order:,.0f} s | {plan.longest_first:,.0f} s | "
                     f"{plan.lower_bound:,.0f} s | {_ratio(plan.longest_first, plan.lower_bound, '.3f')}")
    text = "\n".join(lines)
    if len(plans) >= 2:
        first, last = plans[0], plans[-1]
        speedup = _ratio(first.longest_first, last.longest_first, ".2f")
        speedup = "n/a (zero times)" if speedup == "n/a" else f"{speedup}x"
        text += (f"\n\nlongest first: {last.workers} workers {speedup} {first.workers} workers ({plans[0].tasks} "
                 f"tasks, {first.total:,.0f} s in all, the longest {first.longest:,.0f} s)")
    return text


def _ratio(numerator: float, denominator: float, form: str) -> str:
    """``numerator / denominator`` formatted, or ``n/a`` where it is undefined or overflows (a zero denominator)."""
    if denominator == 0:
        return "n/a"
    value = numerator / denominator
    return format(value, form) if np.isfinite(value) else "n/a"
