r"""The iterated-AL sandbox of §5.2: paired Monte Carlo replicates of learning curves.

In each replicate every strategy starts from the same initial labelled set
(one point per class), the same pool and the same evaluation population
(exact posteriors, QMC), and labels pool points one at a time until the pool
is exhausted or the budget is reached.  After each label the learning curve
records the classifier's *true* loss on the population; at each step the
chosen candidate's true :math:`Q^c` and the best true :math:`Q^c` among the
candidates it was chosen from are recorded too (their difference is the
:math:`Q^c` shortfall, :func:`mri_theory.evaluation.metrics.q_c_shortfall`; the paper's
regret is the gap to MRI-best's curve, :func:`mri_theory.evaluation.metrics.regret`).

Problems, classifiers and strategies are given by registered name or as
objects (a :class:`~mri_theory.problems.Problem`, an unfitted
:class:`~mri_theory.classifiers.Classifier` template, a
:class:`~mri_theory.strategies.Strategy` instance), mixed freely.

Labels: a name given as a str labels its rows, part files and study folders
as it is (``"kknn5"``, whatever the object's own ``name``); an object is
labelled by its ``name``.  The labels of one run must be distinct (two
objects of one name are refused: set ``name``), and where they become part
of file names (the strategies' with ``out``, the problems' and classifiers'
in a study) they must be letters, digits and ``. _ + -`` without ``__``.
The registries (``register_strategy``, ``register_classifier``,
``register_problem``) are consulted in the calling process only: the tasks
carry the objects themselves to the workers (pickled by joblib or Dask), so a
class defined in a script or a test module works with worker processes too (``Execution(n_jobs=2)``).
Every (strategy, replicate) pair starts from fresh copies of the classifier
and the strategy.

Problems without the truth (``has_truth`` False, e.g. real data): the
evaluation population of each replicate is the problem's held-out test set
(:meth:`~mri_theory.problems.Problem.draw_replicate`); the strategies that
need the truth and ``record_q_c=True`` are refused (the default
``record_q_c=None`` records the true :math:`Q^c` exactly where the truth
exists).

Seeds: replicate ``r`` draws its data (``problem.draw_replicate(pool_size,
population_size, rng)``) from ``SeedSequence(seed, spawn_key=(r, 0))``;
strategy ``s`` in replicate ``r`` draws from ``SeedSequence(seed, spawn_key=(r, 1, crc32(s)))``
(``crc32`` of the UTF-8 label), and the sub-sample of step ``t`` from ``SeedSequence(seed, spawn_key=(r, 2, t))``
(the same for every strategy).  So a (strategy, replicate) pair gives the same
result whichever other pairs run, in one process or many (``execution``), and an
interrupted run resumes pair by pair; an object equal to a registered
strategy under the same label gives the same rows as its name.

Output folder (``out``):

``config.json``
    the :class:`CurveConfig` (with the ``repr`` of the problem and the
    classifier); a run with other settings in the same folder is refused, a
    different problem or classifier object of the same name included.
``parts/{strategy}__{replicate:05d}.csv``
    one finished (strategy, replicate) pair: a first line
    ``# mri-theory part {json}`` followed by the CSV body (columns
    :data:`RESULT_COLUMNS`).  The JSON object has the keys ``format`` (1),
    ``strategy`` (the label), ``strategy_spec`` (the strategy's ``repr``:
    its parameters), ``replicate``, ``config_sha256`` (SHA-256 of the canonical
    configuration JSON: ``json.dumps(config, sort_keys=True, separators=(",", ":"))``
    in UTF-8), ``rows`` (data rows) and ``sha256`` (of the body's bytes).
    The study (:mod:`mri_theory.runners.study`) stores its tasks in this format, and
    the diagnostics (:mod:`mri_theory.runners.states`) too, with their own
    key fields in place of ``strategy`` and ``replicate``.
``curves.csv``
    the whole table, rebuilt from the verified parts at the end of every run.
``checksums.json``
    the SHA-256 of ``curves.csv`` and of ``config.json`` when it was written
    (``mri_theory.runners._store``); :func:`read_curves` refuses a table that
    does not match (edited, cut, left by an unfinished run), naming it.
``.lock``
    the folder's lock: a run holds an exclusive OS file lock on it
    (``fcntl.flock``, released when the process ends) from before it writes
    ``config.json`` to its last file, so one process writes a folder at a
    time; a second run is refused with a ``ValueError`` naming the pid the
    file holds.

Every file is written to a fresh temporary file in the same folder (mode
``0o666`` minus the umask) and renamed over its name, so a kill never leaves a
partial file; an ``OSError`` while writing (a full disk) names the file. Only
the calling process writes: with worker processes the joblib (or Dask) workers compute
and return a pair's table and the parent writes its part as it arrives, so a
killed run leaves no writer behind.

On resume a part counts as finished only if it passes every check: it is
readable, its first line is a part header naming this pair (the strategy's
spec included: the part of a differently parameterised strategy of the same
name is recomputed) and this configuration, the body matches the header's
SHA-256 and row count (``budget + 1``), the columns are :data:`RESULT_COLUMNS` (and, with
``record_q_c``, :data:`RECORD_COLUMNS`) with integer
``replicate``, ``n_labelled`` and ``chosen``, every row names this problem,
classifier, strategy and replicate, ``n_labelled`` runs ``k, k + 1, ...,
k + budget`` from the initial size ``k`` (one point per class), ``chosen``
holds distinct pool indices followed by ``-1``, the losses are finite, every
``loss_se`` is a number ``>= 0`` and ``resolved`` is 0 or 1 at each step of an
oracle and NaN elsewhere.
Any other part is reported by a :class:`DamagedPartWarning` naming the file and
the reason, and recomputed (overwritten).  A folder (or a FIFO, a socket) in
place of a part cannot be overwritten: it is refused with a ``ValueError``
naming it, before any work.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from mri_theory._utils import backends, limits
from mri_theory._utils.backends import Execution
from mri_theory.classifiers import Classifier
from mri_theory.problems import Problem, initial_labelled_set
from mri_theory.runners import _store
from mri_theory.runners._curves import (
    RECORD_COLUMNS,
    RESULT_COLUMNS,
    SIMULATED_POOL_SIZE,
    CurveConfig,
    Run,
    check_config,
    check_curves_content,
    check_probabilities,
    check_truth,
    computed_pair,
    curve_config,
    prepare_output,
    result_columns,
    verified_parts,
    write_part,
)
from mri_theory.runners._docstrings import fill_doc
from mri_theory.runners._resolve import resolve, strategy_objects
from mri_theory.runners._store import (
    CURVES_RESULTS_FILE,
    CURVES_SETTINGS_FILE,
    DamagedPartWarning,
    check_file_labels,
    check_out,
    check_path,
    gather,
)
from mri_theory.strategies import Strategy

__all__ = ["RECORD_COLUMNS", "RESULT_COLUMNS", "SIMULATED_POOL_SIZE", "CurveConfig", "DamagedPartWarning", "Execution",
           "initial_labelled_set", "read_curves", "run_curves"]


@fill_doc
def run_curves(
    problem: str | Problem = "four-gaussian",
    classifier: str | Classifier = "knn5",
    strategies: Sequence[str | Strategy] | str | Strategy = "all",
    pool_size: int | str = "auto",
    replicates: int = 10,
    seed: int = 0,
    *,
    budget: int | None = None,
    population_size: int = 10_000,
    loss: str = "error",
    subsample: int | None = 100,
    record_q_c: bool | None = None,
    out: str | os.PathLike | None = None,
    truth: str = "auto",
    execution: Execution | None = None,
) -> pd.DataFrame:
    r"""Learning curves of AL strategies on a problem (§5.2), paired over replicates.

    Every (strategy, replicate) pair is one task; the tasks carry the objects
    to the workers (module docstring, "Labels").

    Parameters
    ----------
    %(problem)s
        Without the truth (``has_truth`` False, real data) the losses are
        measured on each replicate's held-out test set and the oracles and
        ``record_q_c=True`` are refused.
    %(classifier)s
    %(strategies)s
        With ``out`` a label must be letters, digits and ``. _ + -`` without
        ``__``.  An oracle maximises the run's ``loss``, whatever its own
        ``loss``.
    %(pool_size)s
    %(replicates)s
    %(seed)s
    budget : int, optional
        Labels to acquire (default: exhaust the pool).
    %(population_size)s
    loss : {"error", "log"}
        The learning-curve loss and the oracles' target.
    subsample : int or None, default 100
        Costly strategies (EfeLc, SMRI, BMRI, MRI-best, MRI-worst) score a
        random sub-sample of this many pool points per step, drawn with a
        seed shared by all strategies at that step of the replicate (so they
        score the same sub-sample while their remaining pools coincide, e.g.
        at the first step); ``None`` scores the whole pool.  The recorded true :math:`Q^c` of the chosen
        and of the best candidate refer to the candidates the strategy scored.
    record_q_c : bool, optional
        Record the true :math:`Q^c` of the chosen and best candidates (costs one
        :func:`~mri_theory.engine.targets.true_q_c` per step for non-oracle strategies),
        and how decided that best is (:data:`RECORD_COLUMNS`: its gap over the
        runner-up, the gap's standard error and the shortfall bound of the
        truth's race; the exact gap, 0 and 0 with the exact truth).
        The default ``None`` records it where the truth exists (``has_truth``):
        on every problem with the truth, never on real data, where an explicit
        ``True`` is refused.
    %(out)s
        Here each finished (strategy, replicate) is a verifiable part in
        ``parts/``, and the whole table is ``curves.csv``, listed with its
        SHA-256 in ``checksums.json`` (:func:`read_curves` verifies it).
        ``config.json`` records the ``repr`` of the problem and the
        classifier: another object of the same name is refused (``out``),
        while a strategy whose ``repr`` (parameters) changed under the same
        label has its parts recomputed, with a :class:`DamagedPartWarning`.
    %(truth)s
        Here the truth is the curve's loss, the oracles' and the recorded
        :math:`Q^c`; the resolved value is recorded in ``config.json``
        (``truth``), so a resume never mixes the two.  With sampled
        truth the oracles choose by the *decisive* truth
        (:func:`~mri_theory.engine.targets.decisive_q_c`: every candidate on
        8 scrambles of about ``population_size`` points in all, the contenders
        for the best (worst) on doubling populations, up to ``2**3`` times
        (``CURVE_DOUBLINGS``), until the choice is resolved; drawn from
        ``SeedSequence(seed, spawn_key=(r, 4, t))``; ties broken by the
        strategy's generator), and ``record_q_c``'s columns are that truth
        for every strategy.  The ``resolved`` column says, at each step of
        MRI-best and MRI-worst, whether the choice is the true best (worst):
        always with exact truth; with sampled truth when the race resolved
        it (every rival beaten by more than 3 standard errors of their
        paired difference, exactly tied, or, with that confidence, better
        by less than 5 % of the spread of :math:`Q^c` over the
        candidates).
    %(execution)s

    Returns
    -------
    pandas.DataFrame
        Tidy, columns :data:`RESULT_COLUMNS` (then :data:`RECORD_COLUMNS` with
        ``record_q_c``), sorted by strategy (in the given
        order), replicate and ``n_labelled``.  ``loss_se`` is the standard
        error of ``loss`` as an estimate of the true loss: 0 with exact
        truth; with sampled truth the i.i.d. formula over the population's
        points (:meth:`Population.standard_error
        <mri_theory.engine.population.Population.standard_error>`: exact for
        real data's test set, conservative in practice for the QMC
        populations, whose error is usually smaller).  ``resolved`` is 1 or 0
        at the steps of the oracles (``truth``) and NaN elsewhere.

    Raises
    ------
    ValueError, TypeError
        For bad arguments, naming the argument, before any work is done or
        any file or folder is created (unknown names, repeated labels,
        oracles or ``record_q_c=True`` without the truth, labels unfit for
        file names with ``out``, sizes beyond the bounds above; a
        ``classifier`` whose probabilities, fitted once on the initial labelled
        set, are not rows of its classes in [0, 1] summing to 1); ``ValueError``
        naming ``out`` when the folder holds another study (another problem
        or classifier of the same name included) or an unreadable
        ``config.json``, when another process is writing it (its pid named),
        or when a folder stands where a part file belongs.
    %(raises_io)s

    Warns
    -----
    %(warns_damaged)s
        A part of a differently parameterised strategy of the same label
        fails it.

    See Also
    --------
    mri_theory.runners.read_curves : The table of a finished ``out`` folder, verified.
    mri_theory.runners.run_study : The curves of a grid of problems and classifiers.

    Examples
    --------
    Random sampling (RS) and Shannon entropy (SE) labelling a pool of 4 points to exhaustion with LDA, one
    replicate, written to a folder:

    >>> import tempfile
    >>> from mri_theory.runners import Execution, run_curves
    >>> tiny = dict(problem="four-gaussian", classifier="lda", strategies=["RS", "SE"], pool_size=4, replicates=1,
    ...             population_size=100, execution=Execution(progress=False))
    >>> tmp = tempfile.TemporaryDirectory()
    >>> curves = run_curves(**tiny, out=tmp.name)
    >>> curves.shape  # 2 strategies x (the initial set of 2 points, then 4 labels): 5 rows each; record_q_c's columns
    (10, 14)
    >>> curves.n_labelled.unique().tolist(), curves.loc[curves.strategy == "SE", "chosen"].tolist()
    ([2, 3, 4, 5, 6], [2, 3, 1, 0, -1])

    The replicates are paired: both strategies start from the same labelled set and, once the whole pool is
    labelled, end with the same one, so their first and last losses agree (LDA's truth is exact: no standard
    error):

    >>> by_strategy = curves.groupby("strategy", sort=False).loss
    >>> by_strategy.first().round(4).tolist(), by_strategy.last().round(4).tolist(), float(curves.loss_se.max())
    ([0.4786, 0.4786], [0.2312, 0.2312], 0.0)

    Rerunning the finished folder computes nothing: every verified part is reused as it is.

    >>> from pathlib import Path
    >>> parts = sorted((Path(tmp.name) / "parts").iterdir())
    >>> [part.name for part in parts]
    ['RS__00000.csv', 'SE__00000.csv']
    >>> written = [part.stat().st_mtime_ns for part in parts]
    >>> again = run_curves(**tiny, out=tmp.name)
    >>> again.equals(curves), [part.stat().st_mtime_ns for part in parts] == written
    (True, True)
    >>> tmp.cleanup()
    """
    problem_item, classifier_item = resolve(problem, "problem", "problem"), resolve(classifier, "classifier",
                                                                                  "classifier")
    cfg = curve_config(problem_item, classifier_item, pool_size, budget, population_size, loss, subsample,
                       record_q_c, seed, truth)
    run = Run(cfg, problem_item[1], classifier_item[1], strategy_objects(strategies, cfg.loss))
    check_truth(run)
    replicates = limits.size(replicates, "replicates", limits.MAX_REPLICATES)
    execution = backends.check_execution(execution)
    out_path = check_out(out)
    pairs = [(s, r) for s in run.strategies for r in range(replicates)]
    if out_path is not None:
        check_file_labels({"strategies": run.strategies})
        check_config(out_path, cfg)  # before the folder or its lock file is created
    check_probabilities(run)  # the last check: it fits the classifier once
    if out_path is None:
        return _run_table(run, pairs, execution, None)
    with _store.locked(out_path, "out", owner="run_curves"):
        return _run_table(run, pairs, execution, out_path)


def _run_table(run: Run, pairs: list[tuple[str, int]], execution: Execution, out_path: Path | None) -> pd.DataFrame:
    """The table of :func:`run_curves` once every argument passed; with ``out_path`` (whose lock this process
    holds) the configuration is checked again and written, the verified parts reused, the rest computed and
    written as they arrive, then the table with its checksum."""
    frames: dict[tuple[str, int], pd.DataFrame] = {}
    if out_path is not None:
        prepare_output(out_path, run.config)
        frames = verified_parts(out_path, run, pairs, stacklevel=4)
    todo = [(run, s, r) for s, r in pairs if (s, r) not in frames]
    results = backends.results(computed_pair, todo, execution)
    write = None if out_path is None else (lambda pair, frame: write_part(frame, out_path, run, *pair))
    gather(results, frames, len(pairs), "curves", "run", execution.progress, write)
    table = pd.concat([frames[pair] for pair in pairs], ignore_index=True)
    if out_path is not None:
        _store.write_tables(out_path, {CURVES_RESULTS_FILE: _store.csv_bytes(table)}, CURVES_SETTINGS_FILE)
    return table


def read_curves(path: str | os.PathLike) -> pd.DataFrame:
    """Results written by :func:`run_curves`.

    Parameters
    ----------
    path : path
        A ``curves.csv`` file or the ``out`` folder holding one.

    Returns
    -------
    pandas.DataFrame
        The table, columns :data:`RESULT_COLUMNS`.

    Raises
    ------
    ValueError
        Naming ``path`` when there is no such file; when the table does not
        match the checksum recorded beside it in ``checksums.json`` (edited,
        cut or replaced, or no checksum: an unfinished run, a folder of an
        older version; rerunning the same command rebuilds it from the
        verified parts) or the folder is being written by another process
        (its pid named); or when it is not a CSV with the columns
        :data:`RESULT_COLUMNS`.

    See Also
    --------
    mri_theory.runners.run_curves : Writes the folder.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from mri_theory.runners import RECORD_COLUMNS, RESULT_COLUMNS, Execution, read_curves, run_curves
    >>> tmp = tempfile.TemporaryDirectory()
    >>> curves = run_curves("four-gaussian", "lda", ["RS", "SE"], pool_size=4, replicates=1, population_size=100,
    ...                     out=tmp.name, execution=Execution(progress=False))
    >>> table = read_curves(tmp.name)  # the folder, or its curves.csv
    >>> table.equals(curves), read_curves(Path(tmp.name) / "curves.csv").equals(curves)
    (True, True)
    >>> list(table.columns) == RESULT_COLUMNS + RECORD_COLUMNS  # the truth exists: record_q_c records it
    True

    A table that no longer matches its checksum is refused:

    >>> with open(Path(tmp.name) / "curves.csv", "a") as file:
    ...     _ = file.write("\\n")
    >>> read_curves(tmp.name)
    Traceback (most recent call last):
    ...
    ValueError: path: ...curves.csv does not match its checksum in ...checksums.json: ...
    >>> tmp.cleanup()
    """
    path = check_path(path, "a file or folder")
    if path.is_dir():
        path = path / CURVES_RESULTS_FILE
    if not path.is_file():
        raise ValueError(f"path: no results at {path}")
    config = path.parent / CURVES_SETTINGS_FILE  # the loss it was run with bounds its values; record_q_c its columns
    try:
        settings = json.loads(config.read_text(encoding="utf-8")) if config.is_file() else {}
        loss, record = settings.get("loss"), settings.get("record_q_c") is True
    except (OSError, ValueError, AttributeError):
        loss, record = None, False
    table = _store.verified_csv(path, "path", result_columns(record), "a results table of run_curves")
    return check_curves_content(table, path, "path", loss if loss in ("error", "log") else None)
