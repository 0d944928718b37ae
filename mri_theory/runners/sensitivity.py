r"""How robust a finished study's conclusions are: :func:`run_sensitivity` (``mri-theory sensitivity``).

The readings of the analysis (R1's two modes, label complexity's :math:`\epsilon`, leaving out a problem, a
classifier or the degenerate pairings) need no new curves:
:func:`mri_theory.evaluation.sensitivity.conclusions_by_reading` recomputes the conclusions from the study's
verified tables.  The readings of the methods and the classifiers (:data:`RECOMPUTED`: BMRI's mean, the kknn
kernels, EfeLc and MRI-best on the whole pool, e1071's Platt fit, kknn's and e1071's per-fit scaling) need new
curves of the strategies (or the classifiers) they change, and only of those: each is a study folder of its own,
``{out}/variants/{name}``, into which the base study's verified parts of every other strategy are copied before
:func:`~mri_theory.runners.study.run_study` computes what is missing with the base study's settings.  It resumes
as a study does (an interrupted variant is rerun with the same command), and its conclusions are measured by the
same :func:`~mri_theory.evaluation.sensitivity.conclusions`.

Output folder (``out``, owned by this runner):

``variants/{name}/``
    one study folder per recomputed reading (its own ``study.json``, verified parts, ``timings.csv``); the parts
    it shares with the base study are copied again where missing, so an archive of its own parts (those of the
    strategies it replaces) is all a run needs besides the base study.
``sensitivity.csv``
    columns ``variant`` and :data:`~mri_theory.evaluation.sensitivity.CONCLUSION_COLUMNS`: every conclusion
    under every reading; written with its checksum (``checksums.json``).
``SENSITIVITY.md``
    the tables in Markdown, with the settings, the library versions and the wall and CPU time of the call.
``sensitivity.png``
    each conclusion's interval under each reading.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from mri_theory._utils import backends
from mri_theory._utils import validation as check
from mri_theory._utils.backends import Execution
from mri_theory._utils.versions import library_versions
from mri_theory.classifiers import SVM, Classifier, get_classifier
from mri_theory.evaluation import metrics
from mri_theory.evaluation.ranking import MAX_BOOT, RESAMPLING
from mri_theory.evaluation.sensitivity import CONCLUSION_COLUMNS, READINGS, conclusions, conclusions_by_reading
from mri_theory.evaluation.tables import PAPER_GROUPS, TAU_TIES
from mri_theory.problems import Problem
from mri_theory.runners import _resolve, _store
from mri_theory.runners._store import CURVES_SETTINGS_FILE, PARTS_DIR
from mri_theory.runners.study import default_groups, read_study, registered_problem_spec, run_study, study_record
from mri_theory.strategies import (
    AverageKL,
    BootstrapMRI,
    EfeLc,
    MRIBest,
    SimpleMRI,
    Strategy,
    VoteEntropy,
    get_strategy,
)

__all__ = ["RECOMPUTED", "SENSITIVITY_FILES", "Recomputed", "run_sensitivity"]

#: The files :func:`run_sensitivity` writes at the top of its folder.
SENSITIVITY_FILES = ("sensitivity.csv", "SENSITIVITY.md", "sensitivity.png")


@dataclass(frozen=True)
class Recomputed:
    """A reading that needs new curves: the strategies (by label) and classifiers (by label) it replaces.

    Parameters
    ----------
    description : str
        What the reading changes, with the paper's lines.
    strategies : callable, default dict
        Returns label -> the strategy object that replaces the study's (new objects at each call).
    classifiers : callable, default dict
        Returns label -> the classifier object that replaces the study's.
    subsampled : bool, default False
        Whether the reading changes only which candidates a costly strategy scores (the whole pool instead of
        the study's sub-sample): it applies only to a study that sub-samples (``subsample`` set).

    See Also
    --------
    mri_theory.runners.run_sensitivity : Reruns the readings of :data:`RECOMPUTED`.

    Examples
    --------
    The readings :func:`~mri_theory.runners.run_sensitivity` can recompute, and what each replaces:

    >>> from mri_theory.runners import RECOMPUTED, Recomputed
    >>> list(RECOMPUTED)
    ['BMRI mean', 'kknn kernels', 'EfeLc whole pool', 'MRI-best whole pool', 'e1071 Platt', 'per-fit scaling']
    >>> reading = RECOMPUTED["kknn kernels"]
    >>> isinstance(reading, Recomputed), sorted(reading.strategies()), reading.classifiers()
    (True, ['BMRI', 'QbcA', 'QbcV', 'SMRI'], {})
    >>> RECOMPUTED["e1071 Platt"].classifiers()
    {'svm': SVM(C=1.0, gamma=None, platt='cv')}
    >>> for label, classifier in RECOMPUTED["per-fit scaling"].classifiers().items():  # labelled as the study's
    ...     print(label, classifier.name, classifier)
    kknn5 kknn5 KNN(k=5, kernel='optimal', scale='train')
    svm svm SVM(C=1.0, gamma=None, scale='train')

    Each call makes new objects, so no run shares a strategy with another:

    >>> reading.strategies()["BMRI"] is reading.strategies()["BMRI"]
    False
    """

    description: str
    strategies: Callable[[], dict[str, Strategy]] = dict
    classifiers: Callable[[], dict[str, Classifier]] = field(default=dict)
    subsampled: bool = False


def _named(classifier: Classifier, name: str) -> Classifier:
    """``classifier`` labelled ``name``, the study's label of the classifier it replaces (a runner labels an object
    by its ``name``; the registered ``kknn5`` is a ``KNN``, whose own name is ``knn``)."""
    classifier.name = name
    return classifier


#: The readings of the methods and classifiers (:doc:`/deviations`, "Open choices"), each rerunning only what
#: it changes.  ``"e1071 Platt"`` reruns every SVM curve, each retrained model with its four changed fold
#: machines (the fast path of ``SVM(platt="cv")``), and ``"per-fit scaling"`` every kknn5 and SVM curve, each
#: retrained model a refit (no fast path is exact when the divisors move with the added point: on the small real
#: group about 19 to 44 times the present curves' CPU time, ``benchmarks/bench_perfit_scaling.py``): they are far
#: the costliest, and :func:`run_sensitivity` runs them only when named.
RECOMPUTED: dict[str, Recomputed] = {
    "BMRI mean": Recomputed("BMRI's n_b estimates averaged, as its text says (lines 915, 942), not the median",
                            lambda: {"BMRI": BootstrapMRI(aggregate="mean")}),
    "kknn kernels": Recomputed(
        "SMRI's and BMRI's 5-NN theta2 and the QBC committee's 5-NN and 21-NN with kknn's weights (Appendix C)",
        lambda: {"QbcV": VoteEntropy(knn_kernel="optimal"), "QbcA": AverageKL(knn_kernel="optimal"),
                 "SMRI": SimpleMRI(theta2_kernel="optimal"), "BMRI": BootstrapMRI(theta2_kernel="optimal")}),
    "EfeLc whole pool": Recomputed("EfeLc scores every pool point, as its cost formula counts them (line 996)",
                                   lambda: {"EfeLc": EfeLc(candidates="pool")}, subsampled=True),
    "MRI-best whole pool": Recomputed("MRI-best, the regret's reference, maximises the true Q^c over every pool "
                                      "point, not over the random sub-sample the costly methods score (the sub-sample "
                                      "is for 'computational efficiency', line 874; the regret's reference is 'the "
                                      "optimal performance given by maximising Q^c', line 1658)",
                                      lambda: {metrics.BEST: MRIBest(candidates="pool")}, subsampled=True),
    "e1071 Platt": Recomputed("the SVM's Platt sigmoids on out-of-fold decision values, as e1071 fits them "
                              "(on 2 to 5 training points the out-of-fold values, libsvm's +1/-1 of one-sided fold "
                              "machines among them, can invert the sigmoid: the probabilities are then "
                              "anti-calibrated early in each curve)",
                              classifiers=lambda: {"svm": SVM(platt="cv")}),
    "per-fit scaling": Recomputed(
        "kknn's and e1071's per-fit scaling: each fit divides every covariate by its training set's standard "
        "deviation and scales queries alike (kknn's and e1071's default scale=TRUE; Appendix C, lines 1401-1402 for "
        "kknn; lines 1407-1409 name e1071's SVM), kknn5 and the SVM only; every retrained model is a refit. On the "
        "real data, already standardised over all rows, it gives the same models as on the raw data for these two "
        "classifiers (both kernels/distances are translation invariant and the per-fit divisors absorb any prior "
        "per-covariate scale; a covariate constant on a training set stays undivided: no kknn neighbourhood changes, "
        "but the SVM's kernel sees it in the all-rows standardised units, where e1071 would scale no covariate)",
        classifiers=lambda: {label: _named(get_classifier(label, scale="train"), label) for label in ("kknn5", "svm")}),
}
#: The recomputed readings run when none are named.
DEFAULT_RECOMPUTED = ("BMRI mean", "kknn kernels", "EfeLc whole pool", "MRI-best whole pool")
_VARIANTS_DIR = "variants"
_RUNNER = "run_sensitivity"


def _slug(name: str) -> str:
    return name.replace(" ", "-")


def _check_recomputed(recompute: object) -> list[str] | None:
    """The readings named (None: the default ones, :data:`DEFAULT_RECOMPUTED`)."""
    if recompute is None:
        return None
    if isinstance(recompute, str) or not isinstance(recompute, Sequence):
        raise TypeError(f"recompute must be a sequence of reading names, got {type(recompute).__name__}")
    unknown = [name for name in recompute if name not in RECOMPUTED]
    if unknown or len(set(recompute)) != len(recompute):
        raise ValueError(f"recompute must name distinct readings among {', '.join(map(repr, RECOMPUTED))}, "
                         f"got {list(recompute)!r}")
    return list(recompute)


def _replaced(name: str, grid: dict, settings: dict) -> list[str]:
    """What the reading ``name`` replaces among the study's strategies and classifiers (empty: it cannot apply, as
    a reading of the sub-sample cannot where the study scores the whole pool)."""
    reading = RECOMPUTED[name]
    if reading.subsampled and not settings.get("subsample"):  # None or 0: the whole pool
        return []
    return ([s for s in grid["strategies"] if s in reading.strategies()]
            + [c for c in grid["classifiers"] if c in reading.classifiers()])


def _applicable(named: list[str] | None, grid: dict, settings: dict) -> tuple[list[str], list[str]]:
    """The readings to rerun and those left out because they change nothing of the study (a reading named
    explicitly that cannot apply is refused, naming ``recompute``)."""
    if named is None:
        run = [name for name in DEFAULT_RECOMPUTED if _replaced(name, grid, settings)]
        return run, [name for name in DEFAULT_RECOMPUTED if name not in run]
    idle = [name for name in named if not _replaced(name, grid, settings)]
    whole = [name for name in idle if RECOMPUTED[name].subsampled and not settings.get("subsample")]
    if whole:
        raise ValueError(f"recompute: {', '.join(map(repr, whole))} scores the whole pool, which the study does "
                         "already (no sub-sample): the reading cannot apply; leave it out")
    if idle:
        changes = {name: sorted({*RECOMPUTED[name].strategies(), *RECOMPUTED[name].classifiers()}) for name in idle}
        what = "; ".join(f"{name!r} changes {', '.join(changed)}" for name, changed in changes.items())
        raise ValueError(f"recompute: {what}, which the study does not have (strategies "
                         f"{', '.join(grid['strategies'])}; classifiers {', '.join(grid['classifiers'])}): the "
                         "reading cannot apply; leave it out")
    return named, []


def _study_problems(grid: dict, problems: object, recomputing: bool) -> dict[str, str | Problem]:
    """What the variants' :func:`~mri_theory.runners.run_study` takes for each problem of the study: its label
    where the study's problem is the registered one of that name, else the object of ``problems`` labelled so
    (the user's data), checked against the study's record (its ``repr``)."""
    if problems is None:
        given: dict[str, Problem] = {}
    else:
        if isinstance(problems, (str, Problem)) or not isinstance(problems, Sequence) or not all(
                isinstance(p, Problem) for p in problems):
            raise TypeError("problems must be a sequence of Problem objects (the study's own problems, e.g. "
                            f"DataProblem.from_csv(...)), got {problems!r}")
        given = {p.name: p for p in problems}
        _resolve.distinct([p.name for p in problems], "problems")
        foreign = sorted(set(given) - set(grid["problems"]))
        if foreign:
            raise ValueError(f"problems: {foreign} are not problems of the study at path (its problems: "
                             f"{', '.join(grid['problems'])})")
    specs = grid["specs"]["problems"]
    out: dict[str, str | Problem] = {}
    for label in grid["problems"]:
        if label in given:
            if repr(given[label]) != specs[label]:
                raise ValueError(f"problems: the problem {label!r} given ({given[label]!r}) is not the study's "
                                 f"({specs[label]}): pass the same data and options (test size, standardize)")
            out[label] = given[label]
        elif registered_problem_spec(label) == specs[label]:
            out[label] = label
        elif recomputing:
            raise ValueError(f"path: the study's problem {label!r} is not the registered problem of that name "
                             f"({specs[label]}); to recompute readings pass it as problems= (the command line: "
                             "--data FILE --target COLUMN, with the study's --test-size and --standardize), or "
                             "recompute none")
    return out


def _seed_variant(base: Path, folder: Path, grid: dict, changed: Recomputed) -> None:
    """Copy into the variant folder ``folder`` the base study's part files and records that the variant does not
    change and that it lacks: every pairing of a classifier it keeps, without the parts of the strategies it
    replaces.  A file already there is kept (an interrupted variant, or one unpacked from an archive of its own
    parts: the rest comes from the base study, verified again by the study that reads it)."""
    strategies, classifiers = set(changed.strategies()), set(changed.classifiers())
    for problem in grid["problems"]:
        for classifier in grid["classifiers"]:
            if classifier in classifiers:
                continue
            source, target = (_store.pairing_folder(base, problem, classifier),
                              _store.pairing_folder(folder, problem, classifier))
            (target / PARTS_DIR).mkdir(parents=True, exist_ok=True)
            wanted = [source / CURVES_SETTINGS_FILE, source / "asymptotic.json"]
            wanted += [part for part in sorted((source / PARTS_DIR).iterdir())
                       if part.name.split("__")[0] not in strategies]
            for file in wanted:
                copy = target / file.relative_to(source)
                if not copy.exists():
                    shutil.copy2(file, copy)


#: What the two intervals of a cell of ``SENSITIVITY.md`` say, one line each (under every table that has them).
_INTERVALS_NOTE = ("Intervals (percentile, at the level of the header): `[a, b]` replicate-only: "
                   + RESAMPLING["replicates"] + "; `{a, b}` two-level: " + RESAMPLING["pairings"] + ".")
#: The mark of a final mean rank tied with another's (its place made by the tie-break, or shared).
_TIE_NOTE = ("`=`: tied in mean rank with another method of the same reading (within the tie tolerance); its rank "
             "is the tie-break's (the lower variance of the ranks), or shared where that ties too: not a first "
             "of its own.")


def _markdown(table: pd.DataFrame, header: list[str]) -> str:
    """The sensitivity table as Markdown: per quantity, one row per reading, each interval twice (replicate-only
    in brackets, two-level in braces) and a final mean rank tied with another's marked ``=``."""
    lines = header
    for quantity, part in table.groupby("quantity", sort=False):
        lines += ["", f"### {quantity}", "", "| reading | " + " | ".join(dict.fromkeys(part["item"])) + " |",
                  "|---|" + "---|" * part["item"].nunique()]
        for variant, rows in part.groupby("variant", sort=False):
            cells = {}
            for item, value, low, high, low2, high2, detail in rows[
                    ["item", "value", "ci_low", "ci_high", "two_level_low", "two_level_high", "detail"]].itertuples(
                    index=False):
                interval = f" [{low:.4g}, {high:.4g}]" if np.isfinite(low) else ""
                interval += f" {{{low2:.4g}, {high2:.4g}}}" if np.isfinite(low2) else ""
                tie = " =" if quantity == "final_rank" and "tied in mean rank" in detail else ""
                cells[item] = f"{value:.4g}{tie}{interval}" + (f" ({detail})" if quantity != "final_rank" else "")
            lines.append(f"| {variant} | " + " | ".join(cells.get(i, "—") for i in dict.fromkeys(part["item"]))
                         + " |")
        if quantity in ("final_rank", "tau", "difference"):
            lines += ["", _INTERVALS_NOTE]
        if quantity == "final_rank":
            lines += ["", _TIE_NOTE]
        if quantity == "tau":
            lines += ["", f"Items: the reference alone: {TAU_TIES['broken']}; `, ties kept`: {TAU_TIES['kept']}."]
    return "\n".join(lines) + "\n"


def run_sensitivity(path: str | os.PathLike, out: str | os.PathLike, *, recompute: Sequence[str] | None = None,
                    seed: int = 0, n_boot: int = 1000, level: float = 0.95,
                    execution: Execution | None = None, problems: Sequence[Problem] | None = None) -> pd.DataFrame:
    """Every conclusion of the finished study at ``path`` under every reading the paper leaves open.

    Parameters
    ----------
    path : path
        A finished study folder (:func:`~mri_theory.runners.study.run_study`), read verified; its strategies
        and classifiers must be registered names (the readings replace some of them by name; MRI-best set to the
        study's loss, as the study added it, counts as registered).
    out : path
        This runner's folder (module docstring); a folder of another runner is refused.
    recompute : sequence of str, optional
        The readings of :data:`RECOMPUTED` to rerun (default: every one but ``"e1071 Platt"`` and
        ``"per-fit scaling"`` that changes a strategy or classifier of the study; those that change none are left
        out, and ``SENSITIVITY.md`` says so); ``[]``: the analysis readings only (no new curve).  A reading named
        here that changes nothing of the study (``"BMRI mean"`` without BMRI, ``"EfeLc whole pool"`` without
        EfeLc, ``"e1071 Platt"`` without the SVM, ``"per-fit scaling"`` without kknn5 and the SVM, the two
        whole-pool readings on a study without a sub-sample) is refused: its rows would only repeat
        ``"as reported"``.  ``"per-fit scaling"`` divides the covariates of kknn5 and the SVM per fit, as kknn and
        e1071 do (every retrained model a refit).  ``"e1071 Platt"`` fits the SVM's Platt
        sigmoid on out-of-fold decision values with libsvm's rule, as e1071 does; on 2 to 5 training points
        those values (``+1``/``-1`` where a fold machine sees one class) can invert the sigmoid, so this
        reading's probabilities may be anti-calibrated at the start of each curve (its first few labels),
        which matters for the strategies that read probabilities (SE, QbcA, EfeLc) there.
    seed, n_boot, level
        The bootstrap of :func:`~mri_theory.evaluation.sensitivity.conclusions`.
    execution : Execution, optional
        Where the recomputed curves run (:class:`~mri_theory.runners.Execution`).
    problems : sequence of Problem, optional
        The study's own problems (user data: :meth:`DataProblem.from_csv
        <mri_theory.problems.DataProblem.from_csv>` with the study's options), each labelled by its ``name`` and
        equal (``repr``) to the one the study recorded: the recomputed readings rerun on them.  A problem of the
        study that is not the registered problem of its label must be given here to recompute a reading (a data
        file named like a built-in problem, ``four-gaussian.csv``, is never replaced by the built-in one); the
        analysis readings need none.

    Returns
    -------
    pandas.DataFrame
        ``variant`` and :data:`~mri_theory.evaluation.sensitivity.CONCLUSION_COLUMNS`: the analysis readings
        (:func:`~mri_theory.evaluation.sensitivity.conclusions_by_reading`), then each recomputed reading.

    Raises
    ------
    ValueError, TypeError
        Naming the argument, before any file is written: no finished study at ``path``, a study of objects
        that are not registered names (its own problems not given as ``problems``, when readings are
        recomputed), an unknown reading or one that cannot apply, an ``out`` of another runner.

    See Also
    --------
    mri_theory.evaluation.conclusions_by_reading : The analysis readings, from a study's tables.
    mri_theory.runners.Recomputed : A reading that needs new curves.

    Examples
    --------
    A tiny study (one problem and classifier, RS, SE and BMRI, one replicate of a pool of 4), then its
    conclusions under the analysis readings and under BMRI's mean (``"BMRI mean"``), which reruns BMRI's curves
    and nothing else:

    >>> import tempfile
    >>> from pathlib import Path
    >>> from mri_theory.runners import Execution, run_sensitivity, run_study
    >>> from mri_theory.runners.study import read_timings
    >>> folder = tempfile.TemporaryDirectory()
    >>> tmp = Path(folder.name)
    >>> quiet = Execution(progress=False)
    >>> _ = run_study(problems="four-gaussian", classifiers="lda", strategies=["RS", "SE", "BMRI"], replicates=1,
    ...               pool_size=4, population_size=100, asymptotic_train=50, asymptotic_replicates=1,
    ...               asymptotic_population=100, out=tmp / "study", execution=quiet)
    >>> table = run_sensitivity(tmp / "study", tmp / "sensitivity", recompute=["BMRI mean"], n_boot=20,
    ...                         execution=quiet)
    >>> table.variant.unique().tolist()
    ['as reported', 'R1 averaged metrics', 'epsilon absolute', 'BMRI mean']
    >>> list(table.columns)
    ['variant', 'quantity', 'item', 'value', 'ci_low', 'ci_high', 'two_level_low', 'two_level_high', 'detail']
    >>> read_timings(tmp / "sensitivity" / "variants" / "BMRI-mean").strategy.unique().tolist()  # all it computed
    ['BMRI']
    >>> sorted(path.name for path in (tmp / "sensitivity").iterdir() if not path.name.startswith("."))
    ['SENSITIVITY.md', 'checksums.json', 'sensitivity.csv', 'sensitivity.png', 'variants']
    >>> folder.cleanup()
    """
    start_wall, start_cpu = time.perf_counter(), time.process_time()
    base = _store.check_path(path, "a folder")
    stored = study_record(base)
    grid, settings = stored["grid"], stored["settings"]
    for kind, what, lookup in (("strategies", "strategy", get_strategy), ("classifiers", "classifier", get_classifier)):
        for name, spec in grid["specs"][kind].items():
            try:
                registered = lookup(name)
                if isinstance(registered, Strategy):  # MRI-best maximises the study's loss (run_study set it)
                    registered = _resolve.for_loss(registered, settings["loss"])
                same = repr(registered) == spec
            except (ValueError, TypeError, ImportError):
                same = False
            if not same:
                raise ValueError(f"path: the study's {what} {name!r} is not the registered one ({spec}); "
                                 "the readings replace registered strategies and classifiers by name")
    names, idle = _applicable(_check_recomputed(recompute), grid, settings)
    labelled = _study_problems(grid, problems, bool(names))
    seed = check.count(seed, "seed", minimum=0)
    n_boot = check.count(n_boot, "n_boot", maximum=MAX_BOOT)
    if not 0 < check.finite_scalar(level, "level") < 1:
        raise ValueError(f"level must lie in (0, 1), got {level}")
    execution = backends.check_execution(execution)
    folder = check.output_folder(out, "out")
    _store.claim(folder, _RUNNER, "out")
    curves, asymptotic = read_study(base)  # verified
    groups = default_groups(grid["problems"], specs=grid["specs"]["problems"])
    paper_groups = [g for g in PAPER_GROUPS if g in groups]
    common = dict(seed=seed, n_boot=n_boot, level=level, loss=settings["loss"], paper_groups=paper_groups)
    folder.mkdir(parents=True, exist_ok=True)
    with _store.locked(folder, "out", owner=_RUNNER):
        with backends.one_thread():
            table = conclusions_by_reading(curves, asymptotic, groups, **common)
        frames = [table]
        for name in names:
            variant = folder / _VARIANTS_DIR / _slug(name)
            _seed_variant(base, variant, grid, RECOMPUTED[name])
            changed = {**RECOMPUTED[name].strategies()}
            classifiers = RECOMPUTED[name].classifiers()
            varied, varied_asymptotic = run_study(
                grid["preset"], problems=[labelled[p] for p in grid["problems"]],
                classifiers=[classifiers.get(c, c) for c in grid["classifiers"]],
                strategies=[changed.get(s, s) for s in grid["strategies"]], replicates=grid["replicates"],
                out=variant, execution=execution, **settings)
            with backends.one_thread():
                frames.append(conclusions(varied, varied_asymptotic, groups, mode="curve", **common)
                              .assign(variant=name)[["variant"] + CONCLUSION_COLUMNS])
        result = pd.concat(frames, ignore_index=True)
        header = ["# How robust is the study's ranking?", "",
                  f"Study: `{base}` ({', '.join(grid['problems'])} x {', '.join(grid['classifiers'])}, "
                  f"{grid['replicates']} replicates). Bootstrap: {n_boot} draws, {level * 100:g} % percentile "
                  f"intervals, seed {seed}, twice: replicate-only (`[a, b]`), which "
                  f"{RESAMPLING['replicates']}; two-level (`{{a, b}}`), which {RESAMPLING['pairings']}. Readings: "
                  + "; ".join(f"**{k}**: {v}" for k, v in READINGS.items())
                  + "; **without X**: the problem or classifier X left out; "
                  + "; ".join(f"**{k}**: {RECOMPUTED[k].description}" for k in names) + "."
                  + (f" Not applicable, left out (they change nothing the study has): {', '.join(idle)}."
                     if idle else ""),
                  "", "Library versions: " + ", ".join(f"{k}=={v}" for k, v in library_versions().items()) + ".",
                  f"Wall {time.perf_counter() - start_wall:.0f} s, CPU {time.process_time() - start_cpu:.0f} s "
                  "in this process (the recomputed curves' own cost: each variant's timings.csv)."]
        from mri_theory.evaluation.sensitivity import sensitivity_figure  # matplotlib: only when writing

        _store.write_tables(folder, {"sensitivity.csv": _store.csv_bytes(result)}, None)
        _store.write_atomic(_markdown(result, header).encode(), folder / "SENSITIVITY.md")
        sensitivity_figure(result).savefig(
            folder / "sensitivity.png", dpi=130, metadata={"Software": None})
        return result
